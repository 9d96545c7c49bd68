import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { board as c } from '../../protocol/methods/board.js';
import { one, type Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { WORKSTREAM_COLUMNS, getWorkstream, lockBoard, placeAt, renumber, requirePrincipal, toWorkstream, type WorkstreamRow } from './model.js';

/** Workstreams: named groups of items, ordered, each with an optional owner holding its decision right. */

export const createWorkstream = handler(c.createWorkstream, async (ctx, p) => {
  const row = one(
    await ctx.q.query<WorkstreamRow>(
      `INSERT INTO board_workstreams (org_id, workstream_id, name, description, created_by, position)
     VALUES ($1, $2, $3, $4, $5, COALESCE((SELECT max(position) + 1 FROM board_workstreams WHERE org_id = $1), 0))
     RETURNING ${WORKSTREAM_COLUMNS}`,
      [ctx.orgId, newId('ws'), p.name, p.description, ctx.principal.id],
    ),
  );
  const ws = toWorkstream(row);
  await ctx.emit('workstream.created', ws.id, { name: ws.name, position: ws.position });
  return ws;
});

export const updateWorkstream = handler(c.updateWorkstream, async (ctx, p) => {
  const [row] = await ctx.q.query<WorkstreamRow>(
    `UPDATE board_workstreams SET
        name = CASE WHEN $3::boolean THEN $4 ELSE name END,
        description = CASE WHEN $5::boolean THEN $6 ELSE description END,
        updated_at = now()
      WHERE org_id = $1 AND workstream_id = $2
      RETURNING ${WORKSTREAM_COLUMNS}`,
    [ctx.orgId, p.workstreamId, p.name !== undefined, p.name ?? null, p.description !== undefined, p.description ?? null],
  );
  if (!row) throw notFound(`workstream ${p.workstreamId}`);
  const ws = toWorkstream(row);
  const fields = (['name', 'description'] as const).filter((f) => p[f] !== undefined);
  await ctx.emit('workstream.updated', ws.id, { fields, name: ws.name });
  return ws;
});

export const moveWorkstream = handler(c.moveWorkstream, async (ctx, p) => {
  await lockBoard(ctx.q, ctx.orgId, 'workstreamOrder');
  await getWorkstream(ctx.q, ctx.orgId, p.workstreamId, 'FOR UPDATE');
  const all = await ctx.q.query<{ workstream_id: string }>(
    'SELECT workstream_id FROM board_workstreams WHERE org_id = $1 ORDER BY position, created_at, workstream_id',
    [ctx.orgId],
  );
  await renumber(
    ctx.q,
    ctx.orgId,
    'board_workstreams',
    placeAt(
      all.map((r) => r.workstream_id),
      p.workstreamId,
      p.position,
    ),
  );
  await ctx.q.query('UPDATE board_workstreams SET updated_at = now() WHERE org_id = $1 AND workstream_id = $2', [ctx.orgId, p.workstreamId]);
  const ws = toWorkstream(await getWorkstream(ctx.q, ctx.orgId, p.workstreamId));
  await ctx.emit('workstream.moved', ws.id, { position: ws.position });
  return ws;
});

/**
 * Deleting a workstream erases what cannot be restored (its comments): an agent's call holds in release mode. The
 * server files the approval; the workstream's owner, when a human, is the one to decide it (else any approver),
 * and may amend where its items go (moveTasksTo) before the decision runs it. Humans delete directly.
 */
export const deleteWorkstream = handler(c.deleteWorkstream, async (ctx, p) => {
  if (p.moveTasksTo === p.workstreamId) throw badRequest('moveTasksTo', 'must be another workstream than the one deleted');
  // Both order locks, tasks first: no mover can hold rows this call is about to rewrite.
  await lockBoard(ctx.q, ctx.orgId, 'taskOrder');
  await lockBoard(ctx.q, ctx.orgId, 'workstreamOrder');
  const ws = await getWorkstream(ctx.q, ctx.orgId, p.workstreamId, 'FOR UPDATE');
  const target = p.moveTasksTo ? await getWorkstream(ctx.q, ctx.orgId, p.moveTasksTo, 'FOR KEY SHARE') : null;
  const counts = one(
    await ctx.q.query<{ all: number; open: number; comments: number }>(
      `SELECT (SELECT count(*)::int FROM board_tasks WHERE org_id = $1 AND workstream_id = $2) AS all,
              (SELECT count(*)::int FROM board_tasks WHERE org_id = $1 AND workstream_id = $2 AND col <> 'done') AS open,
              (SELECT count(*)::int FROM board_comments WHERE org_id = $1 AND workstream_id = $2) AS comments`,
      [ctx.orgId, p.workstreamId],
    ),
  );
  if (!target && counts.open > 0) {
    throw conflict(`workstream ${p.workstreamId} still has ${counts.open} open item${counts.open > 1 ? 's' : ''}; complete or move them, or pass moveTasksTo`);
  }
  let approvalId: string | null = null;
  if (ctx.principal.kind === 'agent') {
    const items = `${counts.all} item${counts.all === 1 ? '' : 's'}`;
    const proof = await ctx.requireSignature({
      actionClass: 'board.delete_workstream',
      subjectId: p.workstreamId,
      summary:
        `Delete workstream "${ws.name}" and its ${counts.comments} comment${counts.comments === 1 ? '' : 's'}; ` +
        (target ? `move its ${items} to "${target.name}"` : `leave its ${items} (all done) without a workstream`),
      params: p,
      completion: 'release',
      amendable: ['moveTasksTo'],
      deciders: await humanOwner(ctx.q, ctx.orgId, ws.owner),
    });
    approvalId = proof.approvalId;
  }
  let movedTasks = 0;
  let detachedTasks = 0;
  if (p.moveTasksTo) {
    const moved = await ctx.q.query('UPDATE board_tasks SET workstream_id = $3, updated_at = now() WHERE org_id = $1 AND workstream_id = $2 RETURNING 1', [
      ctx.orgId,
      p.workstreamId,
      p.moveTasksTo,
    ]);
    movedTasks = moved.length;
  } else {
    const detached = await ctx.q.query('UPDATE board_tasks SET workstream_id = NULL, updated_at = now() WHERE org_id = $1 AND workstream_id = $2 RETURNING 1', [
      ctx.orgId,
      p.workstreamId,
    ]);
    detachedTasks = detached.length;
  }
  await ctx.q.query('DELETE FROM board_comments WHERE org_id = $1 AND workstream_id = $2', [ctx.orgId, p.workstreamId]);
  await ctx.q.query('DELETE FROM board_workstreams WHERE org_id = $1 AND workstream_id = $2', [ctx.orgId, p.workstreamId]);
  await ctx.emit('workstream.deleted', p.workstreamId, {
    name: ws.name,
    movedTasks,
    detachedTasks,
    moveTasksTo: p.moveTasksTo ?? null,
    ...(approvalId ? { approvalId } : {}),
  });
  return { workstreamId: p.workstreamId, deleted: true as const, movedTasks, detachedTasks };
});

/** The owner as the one decider, when the owner is a human (the decision right over the workstream). */
async function humanOwner(q: Queryable, orgId: string, owner: string | null): Promise<string[] | undefined> {
  if (!owner) return undefined;
  const [row] = await q.query<{ kind: string }>('SELECT kind FROM principals WHERE org_id = $1 AND principal_id = $2', [orgId, owner]);
  return row?.kind === 'human' ? [owner] : undefined;
}

export const assign = handler(c.assign, async (ctx, p) => {
  const current = await getWorkstream(ctx.q, ctx.orgId, p.workstreamId, 'FOR UPDATE');
  if (p.owner !== null) await requirePrincipal(ctx.q, ctx.orgId, p.owner);
  const row = one(
    await ctx.q.query<WorkstreamRow>(
      `UPDATE board_workstreams SET owner = $3, updated_at = now() WHERE org_id = $1 AND workstream_id = $2 RETURNING ${WORKSTREAM_COLUMNS}`,
      [ctx.orgId, p.workstreamId, p.owner],
    ),
  );
  const ws = toWorkstream(row);
  await ctx.emit('workstream.assigned', ws.id, { owner: ws.owner, previous: current.owner });
  return ws;
});
