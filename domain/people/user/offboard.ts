import { badRequest, conflict } from '../../../protocol/errors.js';
import { user as c } from '../../../protocol/methods/user.js';
import { one, type Queryable } from '../../../db/types.js';
import { heldWork } from '../held-work.js';
import { revokeInvitationsOf } from '../invitation/model.js';
import { handler } from '../../core/handler.js';
import { bumpChartRevision, moveUnder } from '../member/chart.js';
import { laneSignature } from '../member/lane.js';
import { cycleThrough, lockPeople } from '../member/model.js';
import { revokeKeysOf } from '../org/keys.js';
import { lockAccess, refuseLastAdmin, refuseSelf, setStatus, toAccess } from './access.js';
import { endInboxSessions } from './inbox-sessions.js';

/*
 * user.deactivate: a human leaves. One transaction cuts every way in (keys, invitations, inbox sessions) and hands
 * every piece of work on (claims released, open items and workstreams to transferTo, reports up a level,
 * sponsored agents to transferTo), so no moment exists where the leaver is gone but their work is orphaned.
 */

const NOTHING = {
  keysRevoked: 0,
  invitationsRevoked: 0,
  sessionsEnded: 0,
  claimsReleased: 0,
  itemsMoved: 0,
  workstreamsMoved: 0,
  reportsMoved: 0,
  agentsMoved: 0,
};

/** BAD_REQUEST `transferTo` unless `to` is another active member who can take what moves to it. */
async function checkTransferee(q: Queryable, orgId: string, userId: string, to: string, named: boolean, sponsors: boolean): Promise<void> {
  const field = 'transferTo';
  const why = named ? '' : ` (the default, ${userId}'s manager); name another in transferTo`;
  if (to === userId) throw badRequest(field, `${userId} is the user leaving; name who takes over their work`);
  const [row] = await q.query<{ kind: string; status: string }>('SELECT kind, status FROM principals WHERE org_id = $1 AND principal_id = $2', [orgId, to]);
  if (!row) throw badRequest(field, `no member ${to} in this org`);
  if (row.status !== 'active') throw badRequest(field, `${to} is ${row.status}${why}`);
  if (sponsors && row.kind !== 'human') throw badRequest(field, `${to} is an agent, and ${userId} sponsors agents: a sponsor is a human${why}`);
}

/**
 * Move the leaver's direct reports under `to` (the leaver's manager, or transferTo). If `to` sits below the leaver,
 * the report on the way down to it takes the leaver's own place instead, so no loop closes. Returns how many moved.
 */
async function moveReports(q: Queryable, orgId: string, userId: string, leaverManager: string | null, to: string): Promise<number> {
  const reports = await q.query<{ principal_id: string }>('SELECT principal_id FROM principals WHERE org_id = $1 AND manager_id = $2', [orgId, userId]);
  if (reports.length === 0) return 0;
  const below = await cycleThrough(q, orgId, 'reporting', to, userId);
  const rest = reports.map((r) => r.principal_id).filter((id) => id !== below);
  const moved = (await moveUnder(q, orgId, rest, to)).length + (below ? (await moveUnder(q, orgId, [below], leaverManager)).length : 0);
  await bumpChartRevision(q, orgId);
  return moved;
}

export const deactivate = handler(c.deactivate, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await lockAccess(ctx.q, ctx.orgId, p.userId);
  if (row.status === 'deactivated') {
    await ctx.emit('user.access.deactivate', p.userId, { userId: p.userId, status: row.status, version: Number(row.version), noop: true });
    return { user: toAccess(row), transferTo: null, handedOver: NOTHING, changed: false };
  }
  refuseSelf(row, ctx.principal.id, 'offboard');
  if (row.status === 'archived') throw conflict(`member ${p.userId} is archived: it has no access to cut and no work to hand over`);
  await refuseLastAdmin(ctx.q, ctx.orgId, row, `offboard ${p.userId}`);
  const transferTo = p.transferTo ?? row.manager_id;
  if (!transferTo) throw badRequest('transferTo', `${p.userId} has no manager to take over their work: name who does`);
  const sponsored = one(
    await ctx.q.query<{ n: number }>('SELECT count(*)::int AS n FROM principals WHERE org_id = $1 AND sponsor_id = $2', [ctx.orgId, p.userId]),
  );
  await checkTransferee(ctx.q, ctx.orgId, p.userId, transferTo, p.transferTo !== undefined, Number(sponsored.n) > 0);

  // The agent lane (domain/people/member/lane.ts): a human is offboarded by a human's hand or approval, who may name transferTo.
  await laneSignature(ctx, undefined, {
    subjectId: p.userId,
    summary: `Offboard ${row.name} (${p.userId}): keys and invitations revoked, work, reports and sponsored agents to ${transferTo}`,
    params: p,
    completion: 'release',
    amendable: ['transferTo'],
  });
  // Every way in first, then every piece of work.
  const work = heldWork(ctx.deps.families);
  const handedOver = {
    keysRevoked: await revokeKeysOf(ctx.q, ctx.orgId, p.userId),
    invitationsRevoked: await revokeInvitationsOf(ctx.q, ctx.orgId, p.userId),
    sessionsEnded: await endInboxSessions(ctx.q, ctx.orgId, p.userId),
    claimsReleased: await work.releaseClaims(ctx.q, ctx.orgId, p.userId),
    itemsMoved: await work.moveOpenItems(ctx.q, ctx.orgId, p.userId, transferTo),
    workstreamsMoved: await work.moveWorkstreams(ctx.q, ctx.orgId, p.userId, transferTo),
    reportsMoved: await moveReports(ctx.q, ctx.orgId, p.userId, row.manager_id, row.manager_id ?? transferTo),
    agentsMoved: (
      await ctx.q.query(
        'UPDATE principals SET sponsor_id = $3, version = version + 1, updated_at = now() WHERE org_id = $1 AND sponsor_id = $2 RETURNING principal_id',
        [ctx.orgId, p.userId, transferTo],
      )
    ).length,
  };
  await setStatus(ctx.q, ctx.orgId, p.userId, 'deactivated', p.reason, ctx.principal.id);
  const after = await lockAccess(ctx.q, ctx.orgId, p.userId);
  await ctx.emit('user.access.deactivate', p.userId, {
    userId: p.userId,
    from: row.status,
    status: 'deactivated',
    transferTo,
    ...handedOver,
    version: Number(after.version),
  });
  return { user: toAccess(after), transferTo, handedOver, changed: true };
});
