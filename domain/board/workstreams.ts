import { badRequest, conflict } from '../../protocol/errors.js';
import { board as c } from '../../protocol/methods/board.js';
import { handler } from '../handler.js';
import { newId } from '../ids.js';
import {
  WORKSTREAM_COLUMNS,
  getWorkstream,
  lockBoard,
  placeAt,
  renumber,
  requirePrincipal,
  toWorkstream,
  type WorkstreamRow,
} from './model.js';

/** Workstreams: named groups of items, ordered, each with an optional owner holding its decision right. */

export const createWorkstream = handler(c.createWorkstream, async (ctx, p) => {
  const [row] = await ctx.q.query<WorkstreamRow>(
    `INSERT INTO board_workstreams (org_id, workstream_id, name, description, created_by, position)
     VALUES ($1, $2, $3, $4, $5, COALESCE((SELECT max(position) + 1 FROM board_workstreams WHERE org_id = $1), 0))
     RETURNING ${WORKSTREAM_COLUMNS}`,
    [ctx.orgId, newId('ws'), p.name, p.description, ctx.principal.id],
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
  if (!row) await getWorkstream(ctx.q, ctx.orgId, p.workstreamId); // NOT_FOUND
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
  await renumber(ctx.q, ctx.orgId, 'board_workstreams', placeAt(all.map((r) => r.workstream_id), p.workstreamId, p.position));
  await ctx.q.query('UPDATE board_workstreams SET updated_at = now() WHERE org_id = $1 AND workstream_id = $2', [ctx.orgId, p.workstreamId]);
  const ws = toWorkstream(await getWorkstream(ctx.q, ctx.orgId, p.workstreamId));
  await ctx.emit('workstream.moved', ws.id, { position: ws.position });
  return ws;
});

export const deleteWorkstream = handler(c.deleteWorkstream, async (ctx, p) => {
  if (p.moveTasksTo === p.workstreamId) throw badRequest('moveTasksTo', 'must be another workstream than the one deleted');
  // Both order locks, tasks first: no mover can hold rows this call is about to rewrite.
  await lockBoard(ctx.q, ctx.orgId, 'taskOrder');
  await lockBoard(ctx.q, ctx.orgId, 'workstreamOrder');
  const ws = await getWorkstream(ctx.q, ctx.orgId, p.workstreamId, 'FOR UPDATE');
  if (p.moveTasksTo) await getWorkstream(ctx.q, ctx.orgId, p.moveTasksTo, 'FOR KEY SHARE');
  let movedTasks = 0;
  let detachedTasks = 0;
  if (p.moveTasksTo) {
    const moved = await ctx.q.query(
      'UPDATE board_tasks SET workstream_id = $3, updated_at = now() WHERE org_id = $1 AND workstream_id = $2 RETURNING 1',
      [ctx.orgId, p.workstreamId, p.moveTasksTo],
    );
    movedTasks = moved.length;
  } else {
    const [open] = await ctx.q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM board_tasks WHERE org_id = $1 AND workstream_id = $2 AND col <> 'done'`,
      [ctx.orgId, p.workstreamId],
    );
    if (open.n > 0) {
      throw conflict(`workstream ${p.workstreamId} still has ${open.n} open item${open.n > 1 ? 's' : ''}; complete or move them, or pass moveTasksTo`);
    }
    const detached = await ctx.q.query(
      'UPDATE board_tasks SET workstream_id = NULL, updated_at = now() WHERE org_id = $1 AND workstream_id = $2 RETURNING 1',
      [ctx.orgId, p.workstreamId],
    );
    detachedTasks = detached.length;
  }
  await ctx.q.query('DELETE FROM board_comments WHERE org_id = $1 AND workstream_id = $2', [ctx.orgId, p.workstreamId]);
  await ctx.q.query('DELETE FROM board_workstreams WHERE org_id = $1 AND workstream_id = $2', [ctx.orgId, p.workstreamId]);
  await ctx.emit('workstream.deleted', p.workstreamId, { name: ws.name, movedTasks, detachedTasks, moveTasksTo: p.moveTasksTo ?? null });
  return { workstreamId: p.workstreamId, deleted: true as const, movedTasks, detachedTasks };
});

export const assign = handler(c.assign, async (ctx, p) => {
  const current = await getWorkstream(ctx.q, ctx.orgId, p.workstreamId, 'FOR UPDATE');
  if (p.owner !== null) await requirePrincipal(ctx.q, ctx.orgId, p.owner);
  const [row] = await ctx.q.query<WorkstreamRow>(
    `UPDATE board_workstreams SET owner = $3, updated_at = now() WHERE org_id = $1 AND workstream_id = $2 RETURNING ${WORKSTREAM_COLUMNS}`,
    [ctx.orgId, p.workstreamId, p.owner],
  );
  const ws = toWorkstream(row);
  await ctx.emit('workstream.assigned', ws.id, { owner: ws.owner, previous: current.owner });
  return ws;
});
