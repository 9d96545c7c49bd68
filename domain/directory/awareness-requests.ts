import { directory as c } from '../../protocol/methods/directory/index.js';
import type { InboxEntry, WaitingSource } from '../inbox/index.js';
import { decodeCursor, encodeCursor, timeAndId } from '../core/cursor.js';
import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { getMembers } from '../people/index.js';
import type { AwarenessLevel } from './awareness.js';
import { raiseAwareness, toAwareness } from './awareness-levels.js';
import { lockKeys } from './channel-store.js';
import { Params } from './filters.js';
import { resolveParty, type PartyKind } from './model.js';

/*
 * directory.requestAwareness, resolveAwarenessRequest, listAwarenessRequests: asking a colleague to introduce
 * you to a party or brief you on it. pending -> accepted -> done; declined or cancelled from either open state.
 * The colleague asked decides (accept, decline, done); the requester cancels. Notes never reach an event.
 */

type Status = 'pending' | 'accepted' | 'done' | 'declined' | 'cancelled';
type Decision = 'accept' | 'decline' | 'done' | 'cancel';

interface RequestRow {
  request_id: string;
  party_id: string;
  party_kind: PartyKind;
  party_name: string;
  kind: 'introduce' | 'brief';
  requester_id: string;
  target_id: string;
  note: string | null;
  status: Status;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  sort?: string;
}

const COLUMNS = `r.request_id, r.party_id, p.kind AS party_kind, p.display_name AS party_name, r.kind, r.requester_id, r.target_id, r.note, r.status,
  r.created_at, r.updated_at, r.resolved_at`;
const FROM = 'directory_awareness_requests r JOIN directory_parties p ON p.org_id = r.org_id AND p.party_id = r.party_id';

const toRequest = (r: RequestRow) => ({
  id: r.request_id,
  party: { id: r.party_id, kind: r.party_kind, displayName: r.party_name },
  kind: r.kind,
  requesterId: r.requester_id,
  targetId: r.target_id,
  note: r.note,
  status: r.status,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  resolvedAt: r.resolved_at ? new Date(r.resolved_at).toISOString() : null,
});

async function getRequest(q: Queryable, orgId: string, requestId: string, lock = false): Promise<RequestRow> {
  const [row] = await q.query<RequestRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE r.org_id = $1 AND r.request_id = $2 ${lock ? 'FOR UPDATE OF r' : ''}`, [
    orgId,
    requestId,
  ]);
  if (!row) throw notFound(`request ${requestId}`);
  return row;
}

/** The active members who know the party, best first (closest level, then latest contact), leaving out `except`. */
async function knowersOf(q: Queryable, orgId: string, partyId: string, except: string): Promise<string[]> {
  const rows = await q.query<{ principal_id: string }>(
    `SELECT principal_id FROM directory_awareness
      WHERE org_id = $1 AND party_id = $2 AND level IS NOT NULL AND principal_id <> $3
      ORDER BY array_position(ARRAY['close', 'works_with', 'met', 'knows_of'], level), last_interaction_at DESC NULLS LAST, principal_id
      LIMIT 50`,
    [orgId, partyId, except],
  );
  const members = await getMembers(
    q,
    orgId,
    rows.map((r) => r.principal_id),
  );
  return members.filter((m) => m.status === 'active').map((m) => m.id);
}

/** The colleague named: an active member of the org other than the caller. */
async function checkTarget(q: Queryable, orgId: string, targetId: string, self: string): Promise<void> {
  const field = 'targetPrincipalId';
  if (targetId === self) throw badRequest(field, 'you cannot ask yourself');
  const [member] = await getMembers(q, orgId, [targetId]);
  if (!member) throw badRequest(field, `no member ${targetId} in this org`);
  if (member.status !== 'active') throw badRequest(field, `${targetId} is ${member.status}`);
}

export const requestAwareness = handler(c.requestAwareness, async (ctx, p) => {
  const party = await resolveParty(ctx.q, ctx.orgId, p.partyId);
  const me = ctx.principal.id;
  await lockKeys(ctx.q, ctx.orgId, [`awareness-request:${party.partyId}:${me}`]);
  let targetId = p.targetPrincipalId;
  if (targetId !== undefined) await checkTarget(ctx.q, ctx.orgId, targetId, me);
  else {
    [targetId] = await knowersOf(ctx.q, ctx.orgId, party.partyId, me);
    if (targetId === undefined) {
      throw conflict(
        `nobody else in the org is recorded as knowing ${party.partyId}; name a colleague (targetPrincipalId), or record who knows them (directory.setAwareness)`,
      );
    }
  }
  const base = { partyId: party.partyId, kind: p.kind, requesterId: me, targetId, chosen: p.targetPrincipalId === undefined ? 'best_knower' : 'named' };
  const [open] = await ctx.q.query<{ request_id: string }>(
    `SELECT request_id FROM directory_awareness_requests
      WHERE org_id = $1 AND party_id = $2 AND kind = $3 AND requester_id = $4 AND target_id = $5 AND status IN ('pending', 'accepted')
      ORDER BY created_at LIMIT 1`,
    [ctx.orgId, party.partyId, p.kind, me, targetId],
  );
  if (open) {
    const request = toRequest(await getRequest(ctx.q, ctx.orgId, open.request_id));
    await ctx.emit('directory.awareness.request', open.request_id, { requestId: open.request_id, ...base, status: request.status, noop: true });
    return { request, changed: false };
  }
  const requestId = newId('awq');
  await ctx.q.query(
    `INSERT INTO directory_awareness_requests (org_id, request_id, party_id, kind, requester_id, target_id, note) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [ctx.orgId, requestId, party.partyId, p.kind, me, targetId, p.note?.trim() || null],
  );
  const request = toRequest(await getRequest(ctx.q, ctx.orgId, requestId));
  await ctx.emit('directory.awareness.request', requestId, {
    requestId,
    ...base,
    status: 'pending',
    ...(party.mergedFrom ? { followedFrom: party.mergedFrom } : {}),
  });
  return { request, changed: true };
});

const OUTCOME: Readonly<Record<Decision, Status>> = { accept: 'accepted', decline: 'declined', done: 'done', cancel: 'cancelled' };
/** The states each decision may leave. */
const FROM_STATES: Readonly<Record<Decision, readonly Status[]>> = {
  accept: ['pending'],
  decline: ['pending', 'accepted'],
  done: ['pending', 'accepted'],
  cancel: ['pending', 'accepted'],
};
/** What a done request proves: the requester was introduced (met) or briefed (knows of them); the colleague knows them. */
const DONE_LEVEL: Readonly<Record<'introduce' | 'brief', AwarenessLevel>> = { introduce: 'met', brief: 'knows_of' };

export const resolveAwarenessRequest = handler(c.resolveAwarenessRequest, async (ctx, p) => {
  const row = await getRequest(ctx.q, ctx.orgId, p.requestId, true);
  const me = ctx.principal.id;
  const decider = p.decision === 'cancel' ? row.requester_id : row.target_id;
  if (me !== decider) {
    throw conflict(
      p.decision === 'cancel'
        ? `only its requester ${row.requester_id} may cancel request ${row.request_id}`
        : `only ${row.target_id}, the colleague asked, may ${p.decision === 'done' ? 'mark done' : p.decision} request ${row.request_id}`,
    );
  }
  const status = OUTCOME[p.decision];
  const base = { requestId: row.request_id, partyId: row.party_id, decision: p.decision, status, previousStatus: row.status };
  if (row.status === status) {
    await ctx.emit('directory.awareness.resolve', row.request_id, { ...base, raised: [], noop: true });
    return { request: toRequest(row), raised: [], changed: false };
  }
  if (!FROM_STATES[p.decision].includes(row.status)) {
    throw conflict(
      `request ${row.request_id} is ${row.status}; ${row.status === 'accepted' ? 'mark it done, decline or cancel it' : 'make a new request (directory.requestAwareness)'}`,
    );
  }
  await ctx.q.query(
    `UPDATE directory_awareness_requests SET status = $3, updated_at = now(), resolved_at = CASE WHEN $3 = 'accepted' THEN resolved_at ELSE now() END
      WHERE org_id = $1 AND request_id = $2`,
    [ctx.orgId, row.request_id, status],
  );
  const raised = [];
  if (status === 'done') {
    // The party may have been merged since the request: its survivor is who they now know.
    const party = await resolveParty(ctx.q, ctx.orgId, row.party_id);
    for (const [who, level] of [
      [row.requester_id, DONE_LEVEL[row.kind]],
      [row.target_id, 'knows_of'],
    ] as const) {
      const up = await raiseAwareness(ctx.q, ctx.orgId, party.partyId, who, level);
      if (up) raised.push(toAwareness(up));
    }
  }
  const request = toRequest(await getRequest(ctx.q, ctx.orgId, row.request_id));
  await ctx.emit('directory.awareness.resolve', row.request_id, {
    ...base,
    raised: raised.map((a) => ({ awarenessId: a.id, principalId: a.principalId, level: a.level })),
  });
  return { request, raised, changed: true };
});

export const listAwarenessRequests = handler(c.listAwarenessRequests, async (ctx, p) => {
  const params = new Params([ctx.orgId, ctx.principal.id]);
  const where = [
    'r.org_id = $1',
    p.box === 'to_me' ? 'r.target_id = $2' : p.box === 'mine' ? 'r.requester_id = $2' : '(r.target_id = $2 OR r.requester_id = $2)',
  ];
  if (p.status !== undefined) where.push(`r.status = ${params.push(p.status)}`);
  if (p.partyId !== undefined) {
    const party = await resolveParty(ctx.q, ctx.orgId, p.partyId);
    where.push(`r.party_id = ANY(${params.push([...new Set([p.partyId, party.partyId])], '::text[]')})`);
  }
  if (p.cursor !== undefined) {
    const [at, id] = decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
    where.push(`(r.created_at, r.request_id) < (${params.push(at, '::timestamptz')}, ${params.push(id, '::text')})`);
  }
  const rows = await ctx.q.query<RequestRow>(
    `SELECT ${COLUMNS}, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort FROM ${FROM}
      WHERE ${where.join(' AND ')} ORDER BY r.created_at DESC, r.request_id DESC LIMIT ${params.push(p.limit + 1)}`,
    params.values,
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return { requests: page.map(toRequest), nextCursor: rows.length > p.limit && last ? encodeCursor([last.sort!, last.request_id]) : null };
});

/**
 * The pending requests asked of `principalId` (listAwarenessRequests box to_me, status pending), newest first:
 * what waits on it to accept, decline or do (GET /org/inbox).
 */
export async function pendingRequestsTo(q: Queryable, orgId: string, principalId: string, limit: number): Promise<ReturnType<typeof toRequest>[]> {
  const rows = await q.query<RequestRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE r.org_id = $1 AND r.target_id = $2 AND r.status = 'pending'
      ORDER BY r.created_at DESC, r.request_id DESC LIMIT $3`,
    [orgId, principalId, limit],
  );
  return rows.map(toRequest);
}

/**
 * The directory's part of GET /org/inbox: introduction requests to the caller. Introductions are directory data,
 * shown to a key that may read the directory, as listAwarenessRequests is.
 */
export const introductionsWaiting: WaitingSource = async ({ q, orgId, me, cap }) => {
  if (!me.scopes.has('directory.read')) return { items: [] };
  const items = (await pendingRequestsTo(q, orgId, me.id, cap)).map((r): InboxEntry => ({
    kind: 'introduction',
    id: r.id,
    title: r.party.displayName,
    since: r.createdAt,
    from: r.requesterId,
    link: { method: 'directory.resolveAwarenessRequest', params: { requestId: r.id } },
    requestKind: r.kind,
    party: { id: r.party.id, kind: r.party.kind },
  }));
  return { items };
};
