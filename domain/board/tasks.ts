import { one } from '../../db/types.js';
import { conflict } from '../../protocol/errors.js';
import { board as c, type Task } from '../../protocol/methods/board.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import {
  TASK_COLUMNS,
  endOfColumn,
  findWorkstream,
  getTask,
  getWorkstream,
  lockBoard,
  placeAt,
  renumber,
  requirePrincipal,
  toTask,
  type TaskRow,
} from './model.js';

/** Items: creating, editing, ordering, assigning and decomposing. Claims live in claims.ts. */

interface NewItem {
  type: Task['type'];
  title: string;
  description: string;
  priority: Task['priority'];
  col: 'triage' | 'todo';
  workstreamId?: string;
  parentId?: string;
  assignee?: string;
}

async function insertItem(ctx: HandlerCtx, item: NewItem): Promise<Task> {
  // Referenced rows are share-locked (workstream before item, the order deleteWorkstream locks in).
  if (item.workstreamId) await getWorkstream(ctx.q, ctx.orgId, item.workstreamId, 'FOR KEY SHARE');
  if (item.parentId) await getTask(ctx.q, ctx.orgId, item.parentId, 'FOR KEY SHARE');
  if (item.assignee) await requirePrincipal(ctx.q, ctx.orgId, item.assignee);
  const row = one(
    await ctx.q.query<TaskRow>(
      `INSERT INTO board_tasks (org_id, task_id, type, title, description, priority, col, workstream_id, parent_id, assignee, created_by, position)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, ${endOfColumn('$7')})
     RETURNING ${TASK_COLUMNS}`,
      [
        ctx.orgId,
        newId('task'),
        item.type,
        item.title,
        item.description,
        item.priority,
        item.col,
        item.workstreamId ?? null,
        item.parentId ?? null,
        item.assignee ?? null,
        ctx.principal.id,
      ],
    ),
  );
  const task = toTask(row);
  await ctx.emit('item.created', task.id, {
    type: task.type,
    title: task.title,
    col: task.col,
    priority: task.priority,
    workstreamId: task.workstreamId,
    parentId: task.parentId,
  });
  return task;
}

export const create = handler(c.create, (ctx, p) => insertItem(ctx, p));

export const createTask = handler(c.createTask, (ctx, p) => insertItem(ctx, { ...p, type: 'task', col: 'triage' }));

export const updateTask = handler(c.updateTask, async (ctx, p) => {
  if (p.workstreamId) await getWorkstream(ctx.q, ctx.orgId, p.workstreamId, 'FOR KEY SHARE');
  await getTask(ctx.q, ctx.orgId, p.taskId, 'FOR UPDATE');
  const sets: string[] = [];
  const args: unknown[] = [ctx.orgId, p.taskId];
  const fields: string[] = [];
  const set = (column: string, field: string, value: unknown) => {
    args.push(value);
    sets.push(`${column} = $${args.length}`);
    fields.push(field);
  };
  if (p.title !== undefined) set('title', 'title', p.title);
  if (p.description !== undefined) set('description', 'description', p.description);
  if (p.priority !== undefined) set('priority', 'priority', p.priority);
  if (p.workstreamId !== undefined) set('workstream_id', 'workstreamId', p.workstreamId);
  const row = one(
    await ctx.q.query<TaskRow>(
      `UPDATE board_tasks SET ${sets.join(', ')}, updated_at = now() WHERE org_id = $1 AND task_id = $2 RETURNING ${TASK_COLUMNS}`,
      args,
    ),
  );
  const task = toTask(row);
  await ctx.emit('item.updated', task.id, { fields, title: task.title, priority: task.priority, workstreamId: task.workstreamId });
  return task;
});

export const moveTask = handler(c.moveTask, async (ctx, p) => {
  // Reordering rewrites many rows of a column: one mover at a time per org, so movers never deadlock.
  await lockBoard(ctx.q, ctx.orgId, 'taskOrder');
  const current = await getTask(ctx.q, ctx.orgId, p.taskId, 'FOR UPDATE');
  const target = p.col ?? current.col;
  const changesCol = target !== current.col;
  if (!changesCol && p.position === undefined) {
    throw conflict(`task ${p.taskId} is already in ${target}; give position to reorder it within the column`);
  }
  const sets = ['col = $3', 'updated_at = now()'];
  if (changesCol) {
    // Leaving blocked clears the reason; leaving done reopens; back to triage or todo puts the work down.
    sets.push('blocked_reason = NULL', 'completed_at = NULL');
    if (target === 'triage' || target === 'todo') sets.push('claimed_by = NULL', 'claim_expires_at = NULL');
    sets.push(`position = ${endOfColumn('$3')}`);
  }
  await ctx.q.query(`UPDATE board_tasks SET ${sets.join(', ')} WHERE org_id = $1 AND task_id = $2`, [ctx.orgId, p.taskId, target]);
  if (p.position !== undefined) {
    const column = await ctx.q.query<{ task_id: string }>(
      'SELECT task_id FROM board_tasks WHERE org_id = $1 AND col = $2 ORDER BY position, created_at, task_id',
      [ctx.orgId, target],
    );
    await renumber(
      ctx.q,
      ctx.orgId,
      'board_tasks',
      placeAt(
        column.map((r) => r.task_id),
        p.taskId,
        p.position,
      ),
    );
  }
  const task = toTask(await getTask(ctx.q, ctx.orgId, p.taskId));
  await ctx.emit('item.moved', task.id, { fromCol: current.col, col: task.col, position: task.position });
  return task;
});

export const assignTask = handler(c.assignTask, async (ctx, p) => {
  const current = await getTask(ctx.q, ctx.orgId, p.taskId, 'FOR UPDATE');
  if (p.assignee !== null) await requirePrincipal(ctx.q, ctx.orgId, p.assignee);
  const row = one(
    await ctx.q.query<TaskRow>(`UPDATE board_tasks SET assignee = $3, updated_at = now() WHERE org_id = $1 AND task_id = $2 RETURNING ${TASK_COLUMNS}`, [
      ctx.orgId,
      p.taskId,
      p.assignee,
    ]),
  );
  const task = toTask(row);
  await ctx.emit('item.assigned', task.id, { assignee: task.assignee, previous: current.assignee });
  return task;
});

/**
 * Lock an item FOR UPDATE with its workstream share-locked first (the order deleteWorkstream locks in), so
 * rows that inherit its workstream cannot point at a deleted one. A concurrent move of the item to another
 * workstream (deleteWorkstream with moveTasksTo) is followed.
 */
async function lockWithItsWorkstream(ctx: HandlerCtx, taskId: string): Promise<TaskRow> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const peek = await getTask(ctx.q, ctx.orgId, taskId);
    if (peek.workstream_id && !(await findWorkstream(ctx.q, ctx.orgId, peek.workstream_id, 'FOR KEY SHARE'))) continue;
    const row = await getTask(ctx.q, ctx.orgId, taskId, 'FOR UPDATE');
    if (row.workstream_id === peek.workstream_id) return row;
  }
  throw conflict(`task ${taskId} kept changing workstream while being locked; retry`);
}

export const decompose = handler(c.decompose, async (ctx, p) => {
  const parent = await lockWithItsWorkstream(ctx, p.taskId);
  if (parent.col === 'done') throw conflict(`task ${p.taskId} is done; reopen it with board.moveTask before decomposing it`);
  const ids = p.titles.map(() => newId('task'));
  const rows = await ctx.q.query<TaskRow>(
    `INSERT INTO board_tasks (org_id, task_id, type, title, priority, col, workstream_id, parent_id, created_by, position)
     SELECT $1, c.id, 'task', c.title, $2, 'triage', $3, $4, $5, ${endOfColumn("'triage'")} + c.n - 1
       FROM unnest($6::text[], $7::text[]) WITH ORDINALITY AS c(id, title, n)
     RETURNING ${TASK_COLUMNS}`,
    [ctx.orgId, parent.priority, parent.workstream_id, parent.task_id, ctx.principal.id, ids, p.titles],
  );
  const byId = new Map(rows.map((r) => [r.task_id, toTask(r)]));
  const children = ids.map((id) => byId.get(id)!);
  await ctx.emit('item.decomposed', parent.task_id, { childIds: ids, count: ids.length, title: parent.title });
  return { task: toTask(parent), children };
});
