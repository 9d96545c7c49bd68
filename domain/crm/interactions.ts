import type { z } from 'zod';
import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import type { Interaction, LoggedInteraction } from '../../protocol/methods/crm/index.js';
import { one, type Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { loadAccount, loadContact, loadDeal } from './model.js';

/*
 * Interactions (ixn_) as rows and as the contract shows them, and what every timeline write shares: the targets
 * checked, the row and its links written, the linked deals' last activity moved. A link row per target copies the
 * interaction's time and pin, so a timeline is one index range (crm_interaction_links_target).
 */

export type TargetKind = 'deal' | 'account' | 'contact';
export interface Target {
  id: string;
  kind: TargetKind;
}

export interface InteractionRow {
  interaction_id: string;
  kind: z.output<typeof Interaction>['kind'];
  direction: 'inbound' | 'outbound' | 'internal';
  occurred_at: string | Date;
  summary: string;
  thread_id: string | null;
  decision: string | null;
  decided_by: string | null;
  pinned: boolean;
  pinned_at: string | Date | null;
  status: 'live' | 'redacted';
  redacted_reason: z.output<typeof Interaction>['redactedReason'];
  created_by: string;
  recorded_at: string | Date;
}
export const INTERACTION_COLUMNS = `i.interaction_id, i.kind, i.direction, i.occurred_at, i.summary, i.thread_id, i.decision, i.decided_by, i.pinned, i.pinned_at,
  i.status, i.redacted_reason, i.created_by, i.recorded_at`;

const iso = (v: string | Date | null): string | null => (v === null ? null : new Date(v).toISOString());

async function linksOf(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, Target[]>> {
  const rows = ids.length
    ? await q.query<{ interaction_id: string; target_id: string; target_kind: TargetKind }>(
        `SELECT interaction_id, target_id, target_kind FROM crm_interaction_links WHERE org_id = $1 AND interaction_id = ANY($2::text[])
          ORDER BY interaction_id, array_position(ARRAY['deal', 'account', 'contact'], target_kind), target_id`,
        [orgId, ids],
      )
    : [];
  const out = new Map<string, Target[]>();
  for (const r of rows) out.set(r.interaction_id, [...(out.get(r.interaction_id) ?? []), { id: r.target_id, kind: r.target_kind }]);
  return out;
}

/** What a write answers: no summary, decision or subject (the caller's own words; an idempotency frame keeps no copy). */
function logged(r: InteractionRow, links: ReadonlyMap<string, Target[]>): z.output<typeof LoggedInteraction> {
  return {
    id: r.interaction_id,
    kind: r.kind,
    direction: r.direction,
    occurredAt: iso(r.occurred_at)!,
    links: links.get(r.interaction_id) ?? [],
    pinned: r.pinned,
    status: r.status,
  };
}

export async function toLogged(q: Queryable, orgId: string, r: InteractionRow): Promise<z.output<typeof LoggedInteraction>> {
  return logged(r, await linksOf(q, orgId, [r.interaction_id]));
}

/** The timeline's view: what a write answers, and the words; an email's subject (its summary) only for email.read holders, while live. */
export async function toInteractions(
  q: Queryable,
  orgId: string,
  rows: readonly InteractionRow[],
  emailRead: boolean,
): Promise<z.output<typeof Interaction>[]> {
  const links = await linksOf(
    q,
    orgId,
    rows.map((r) => r.interaction_id),
  );
  return rows.map((r) => ({
    ...logged(r, links),
    summary: r.thread_id !== null && r.status === 'live' && !emailRead ? null : r.summary,
    decision: r.decision,
    decidedBy: r.decided_by,
    threadId: r.thread_id,
    pinnedAt: iso(r.pinned_at),
    redactedReason: r.redacted_reason,
    createdBy: r.created_by,
    recordedAt: iso(r.recorded_at)!,
  }));
}

export async function loadInteraction(q: Queryable, orgId: string, interactionId: string, lock = false): Promise<InteractionRow> {
  const [row] = await q.query<InteractionRow>(
    `SELECT ${INTERACTION_COLUMNS} FROM crm_interactions i WHERE i.org_id = $1 AND i.interaction_id = $2 ${lock ? 'FOR UPDATE' : ''}`,
    [orgId, interactionId],
  );
  if (!row) throw notFound(`interaction ${interactionId}`);
  return row;
}

/** A deal to put on a timeline: not deleted. Its account comes with it (an account's timeline shows its deals'). */
export async function dealTargets(q: Queryable, orgId: string, dealId: string, field = 'dealId'): Promise<Target[]> {
  const deal = await loadDeal(q, orgId, dealId);
  if (deal.status === 'deleted') throw conflict(`${field}: deal ${dealId} is deleted; nothing can be added to it (log it on its account instead)`);
  return [
    { id: deal.deal_id, kind: 'deal' },
    { id: deal.account_id, kind: 'account' },
  ];
}

export async function accountTarget(q: Queryable, orgId: string, accountId: string, field = 'accountId'): Promise<Target> {
  const a = await loadAccount(q, orgId, accountId);
  if (a.status === 'merged') throw conflict(`${field}: account ${accountId} was merged into ${a.merged_into}; use ${a.merged_into}`);
  return { id: a.account_id, kind: 'account' };
}

export async function contactTarget(q: Queryable, orgId: string, contactId: string, field = 'contactId'): Promise<Target> {
  const c = await loadContact(q, orgId, contactId);
  if (c.status === 'merged') throw conflict(`${field}: contact ${contactId} was merged into ${c.merged_into}; use ${c.merged_into}`);
  if (c.status === 'deleted') throw conflict(`${field}: contact ${contactId} is deleted; create a new contact for person ${c.person_id} (crm.createContact)`);
  return { id: c.contact_id, kind: 'contact' };
}

export const uniqueTargets = (ts: readonly Target[]): Target[] => [...new Map(ts.map((t) => [t.id, t])).values()];

/** An instant given or now; the future is refused (a deal's activity cannot be ahead of the clock). */
export function occurredAt(ctx: HandlerCtx, given: string | undefined, field = 'occurredAt'): string {
  const now = ctx.deps.clock.now();
  if (given === undefined) return now.toISOString();
  const at = new Date(given);
  if (at.getTime() > now.getTime() + 60_000) throw badRequest(field, `must not be in the future (now is ${now.toISOString()})`);
  return at.toISOString();
}

export interface NewInteraction {
  kind: InteractionRow['kind'];
  direction: InteractionRow['direction'];
  occurredAt: string;
  summary: string;
  threadId?: string;
  decision?: string;
  decidedBy?: string;
}

/** Links an interaction to targets (existing links kept) and moves the linked deals' last activity; the targets added. */
export async function addLinks(ctx: HandlerCtx, interactionId: string, at: string, pinned: boolean, targets: readonly Target[]): Promise<string[]> {
  if (targets.length === 0) return [];
  const added = await ctx.q.query<{ target_id: string }>(
    `INSERT INTO crm_interaction_links (org_id, interaction_id, target_id, target_kind, occurred_at, pinned)
     SELECT $1, $2, t.id, t.kind, $5, $6 FROM unnest($3::text[], $4::text[]) AS t(id, kind)
     ON CONFLICT (org_id, interaction_id, target_id) DO NOTHING RETURNING target_id`,
    [ctx.orgId, interactionId, targets.map((t) => t.id), targets.map((t) => t.kind), at, pinned],
  );
  const deals = targets.filter((t) => t.kind === 'deal').map((t) => t.id);
  // Activity, not an edit: no version bump (an agent's expectedVersion stays good).
  if (deals.length) {
    await ctx.q.query(`UPDATE crm_deals SET last_activity_at = greatest(last_activity_at, $3) WHERE org_id = $1 AND deal_id = ANY($2::text[])`, [
      ctx.orgId,
      deals,
      at,
    ]);
  }
  return added.map((r) => r.target_id);
}

export async function insertInteraction(ctx: HandlerCtx, i: NewInteraction, targets: readonly Target[]): Promise<InteractionRow> {
  const row = one(
    await ctx.q.query<InteractionRow>(
      `INSERT INTO crm_interactions AS i (org_id, interaction_id, kind, direction, occurred_at, summary, thread_id, decision, decided_by, created_by, recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${INTERACTION_COLUMNS}`,
      [
        ctx.orgId,
        newId('ixn'),
        i.kind,
        i.direction,
        i.occurredAt,
        i.summary,
        i.threadId ?? null,
        i.decision ?? null,
        i.decidedBy ?? null,
        ctx.principal.id,
        ctx.deps.clock.now().toISOString(),
      ],
    ),
  );
  await addLinks(ctx, row.interaction_id, i.occurredAt, false, targets);
  return row;
}

/** Ids by kind, for event payloads. */
export const idsOf = (ts: readonly Target[], kind: TargetKind): string[] => ts.filter((t) => t.kind === kind).map((t) => t.id);
