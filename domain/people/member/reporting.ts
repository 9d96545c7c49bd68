import { badRequest } from '../../../protocol/errors.js';
import { member as c } from '../../../protocol/methods/member.js';
import type { Queryable } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { bumpChartRevision, chartRevision, moveUnder, renumber, siblingsOf } from './chart.js';
import { laneSignature } from './lane.js';
import { checkVersion, getMember, lockPeople, requireNamableMember, toMember } from './model.js';

/*
 * member.reassignReporting, member.savePosition, member.resetPositions: the chart acts on members, all under the
 * people lock, each bumping the chart revision when it changes something. Events carry ids and counts only.
 */

/**
 * The first of `moved` that `managerId` sits below (walking up from it), with the path for the message: putting
 * the moved members under it would close a cycle.
 */
async function movedAbove(q: Queryable, orgId: string, managerId: string, moved: readonly string[]): Promise<string[] | undefined> {
  const rows = await q.query<{ id: string }>(
    `WITH RECURSIVE up(id, depth) AS (
        SELECT $2::text, 0
        UNION ALL
        SELECT p.manager_id, up.depth + 1 FROM up JOIN principals p ON p.org_id = $1 AND p.principal_id = up.id
         WHERE p.manager_id IS NOT NULL AND up.depth < 10000)
     SELECT id FROM up ORDER BY depth`,
    [orgId, managerId],
  );
  const path = rows.map((r) => r.id);
  const hit = path.findIndex((id) => moved.includes(id));
  return hit < 0 ? undefined : path.slice(0, hit + 1);
}

export const reassignReporting = handler(c.reassignReporting, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  await getMember(ctx.q, ctx.orgId, p.fromManagerId);
  await requireNamableMember(ctx.q, ctx.orgId, p.toManagerId, 'toManagerId');
  const reports = await ctx.q.query<{ principal_id: string }>(
    `SELECT principal_id FROM principals WHERE org_id = $1 AND manager_id = $2 AND status <> 'archived' ORDER BY principal_id`,
    [ctx.orgId, p.fromManagerId],
  );
  const direct = new Set(reports.map((r) => r.principal_id));
  const wanted = p.memberIds ? [...new Set(p.memberIds)] : [...direct];
  if (p.memberIds) {
    const i = p.memberIds.findIndex((id) => !direct.has(id));
    if (i >= 0) throw badRequest(`memberIds.${i}`, `${p.memberIds[i]} does not report to ${p.fromManagerId}`);
  }
  const moving = p.toManagerId === p.fromManagerId ? [] : wanted;
  if (moving.length > 0) {
    const path = await movedAbove(ctx.q, ctx.orgId, p.toManagerId, moving);
    if (path) {
      const reason = path.length === 1 ? `${path[0]} would report to itself` : `${path[0]} is below ${path[path.length - 1]} (${path.join(' -> ')})`;
      throw badRequest('toManagerId', `${reason}; leave it out of memberIds or pick another manager`);
    }
  }
  const humans = moving.length
    ? await ctx.q.query<{ principal_id: string }>(
        `SELECT principal_id FROM principals WHERE org_id = $1 AND principal_id = ANY($2::text[]) AND kind = 'human' ORDER BY principal_id`,
        [ctx.orgId, moving],
      )
    : [];
  // The agent lane (lane.ts): humans' reporting lines move by a human's hand or approval.
  await laneSignature(ctx, humans.length > 0, {
    subjectId: p.fromManagerId,
    summary: `Move ${moving.length} report${moving.length === 1 ? '' : 's'} of ${p.fromManagerId} (${humans.length} human${humans.length === 1 ? '' : 's'}: ${humans.map((h) => h.principal_id).join(', ')}) to ${p.toManagerId}`,
    params: p,
    completion: 'release',
  });
  const moved = await moveUnder(ctx.q, ctx.orgId, moving, p.toManagerId);
  const revision = moved.length > 0 ? await bumpChartRevision(ctx.q, ctx.orgId) : await chartRevision(ctx.q, ctx.orgId);
  await ctx.emit('member.reports.reassign', p.fromManagerId, {
    fromManagerId: p.fromManagerId,
    toManagerId: p.toManagerId,
    moved: moved.length,
    memberIds: moved,
    revision,
    ...(moved.length === 0 ? { noop: true } : {}),
  });
  return { moved: moved.length, memberIds: moved, revision, changed: moved.length > 0 };
});

export const savePosition = handler(c.savePosition, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await getMember(ctx.q, ctx.orgId, p.memberId, 'FOR UPDATE OF p');
  checkVersion('member', p.memberId, row.version, p.ifVersion);
  if (row.status === 'archived') throw badRequest('memberId', `${p.memberId} is archived and not in the chart`);
  const siblings = await siblingsOf(ctx.q, ctx.orgId, row.manager_id);
  const order = siblings.map((s) => s.id).filter((id) => id !== p.memberId);
  const slot = Math.min(p.position, order.length);
  order.splice(slot, 0, p.memberId);
  const renumbered = await renumber(ctx.q, ctx.orgId, order);
  const revision = renumbered > 0 ? await bumpChartRevision(ctx.q, ctx.orgId) : await chartRevision(ctx.q, ctx.orgId);
  const m = toMember(await getMember(ctx.q, ctx.orgId, p.memberId));
  await ctx.emit('member.position.save', p.memberId, {
    memberId: p.memberId,
    managerId: m.managerId,
    position: m.position,
    siblings: order.length,
    renumbered,
    version: m.version,
    revision,
    ...(renumbered === 0 ? { noop: true } : {}),
  });
  return { member: m, siblings: order.length, revision, changed: renumbered > 0 };
});

export const resetPositions = handler(c.resetPositions, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  if (p.managerId !== undefined) await getMember(ctx.q, ctx.orgId, p.managerId);
  const rows = await ctx.q.query(
    `UPDATE principals SET position = NULL, version = version + 1, updated_at = now()
      WHERE org_id = $1 AND position IS NOT NULL AND ($2::text IS NULL OR manager_id = $2) RETURNING principal_id`,
    [ctx.orgId, p.managerId ?? null],
  );
  const revision = rows.length > 0 ? await bumpChartRevision(ctx.q, ctx.orgId) : await chartRevision(ctx.q, ctx.orgId);
  await ctx.emit('member.positions.reset', p.managerId ?? ctx.orgId, {
    managerId: p.managerId ?? null,
    reset: rows.length,
    revision,
    ...(rows.length === 0 ? { noop: true } : {}),
  });
  return { reset: rows.length, revision, changed: rows.length > 0 };
});
