import { ApiError, conflict } from '../../protocol/errors.js';
import { WORK_TYPES, board as c } from '../../protocol/methods/board.js';
import { one, type Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { NO_OPEN_BLOCKER, TASK_COLUMNS, endOfColumn, getTask, openBlockers, rawClaim, toTask, type TaskRow } from './model.js';

/*
 * Claims: a principal takes a task or bug for a lease and keeps it alive with heartbeats. A claim is live
 * while claim_expires_at is in the future; a lapsed claim may be taken over by anyone.
 *
 * Completing and blocking are allowed to the claimer, or to anyone while the item has no live claim
 * (planning work such as closing an unclaimed milestone). Someone else's live claim answers CONFLICT.
 */

const WORK = WORK_TYPES.map((t) => `'${t}'`).join(', ');

/** Why a claim was refused, read after the conditional UPDATE matched nothing. */
async function explainRefusedClaim(q: Queryable, orgId: string, taskId: string, caller: string): Promise<ApiError> {
  const task = await getTask(q, orgId, taskId);
  if (!(WORK_TYPES as readonly string[]).includes(task.type)) {
    return conflict(`task ${taskId} is a ${task.type}; only ${WORK_TYPES.join(' and ')} items can be claimed`);
  }
  if (task.col === 'done') return conflict(`task ${taskId} is done`);
  if (task.col === 'blocked') return conflict(`task ${taskId} is blocked (${task.blocked_reason}); move it out of blocked first`);
  if (task.claimed_by) {
    const who = task.claimed_by === caller ? 'you (use board.heartbeat to extend it)' : task.claimed_by;
    return conflict(`task ${taskId} is already claimed by ${who} until ${task.claim_expires_at}`);
  }
  const blockers = await openBlockers(q, orgId, taskId);
  if (blockers.length) return conflict(`task ${taskId} is blocked by open item${blockers.length > 1 ? 's' : ''} ${blockers.join(', ')}`);
  return conflict(`task ${taskId} changed while being claimed; retry`);
}

export const claim = handler(c.claim, async (ctx, p) => {
  // One conditional UPDATE: of racing claims, the row lock lets exactly one match; the others re-check
  // the WHERE against the winner's committed row and match nothing.
  const [row] = await ctx.q.query<TaskRow>(
    `UPDATE board_tasks t SET
        claimed_by = $3,
        claim_expires_at = now() + make_interval(secs => $4),
        position = CASE WHEN t.col = 'doing' THEN t.position ELSE ${endOfColumn("'doing'")} END,
        col = 'doing',
        updated_at = now()
      WHERE t.org_id = $1 AND t.task_id = $2
        AND t.type IN (${WORK}) AND t.col NOT IN ('done', 'blocked')
        AND (t.claimed_by IS NULL OR t.claim_expires_at <= now())
        AND ${NO_OPEN_BLOCKER}
      RETURNING ${TASK_COLUMNS}`,
    [ctx.orgId, p.taskId, ctx.principal.id, p.leaseSeconds],
  );
  if (!row) throw await explainRefusedClaim(ctx.q, ctx.orgId, p.taskId, ctx.principal.id);
  const task = toTask(row);
  await ctx.emit('item.claimed', task.id, { claimedBy: task.claimedBy, claimExpiresAt: task.claimExpiresAt, leaseSeconds: p.leaseSeconds });
  return task;
});

export const heartbeat = handler(c.heartbeat, async (ctx, p) => {
  const [row] = await ctx.q.query<TaskRow>(
    `UPDATE board_tasks SET claim_expires_at = now() + make_interval(secs => $4), updated_at = now()
      WHERE org_id = $1 AND task_id = $2 AND claimed_by = $3 AND claim_expires_at > now()
      RETURNING ${TASK_COLUMNS}`,
    [ctx.orgId, p.taskId, ctx.principal.id, p.leaseSeconds],
  );
  if (!row) {
    await getTask(ctx.q, ctx.orgId, p.taskId); // NOT_FOUND first
    const held = await rawClaim(ctx.q, ctx.orgId, p.taskId);
    if (held?.claimed_by === ctx.principal.id) throw conflict(`your claim on task ${p.taskId} lapsed at ${held.claim_expires_at}; claim it again`);
    if (held?.live) throw conflict(`task ${p.taskId} is claimed by ${held.claimed_by}; only the claimer may heartbeat`);
    throw conflict(`task ${p.taskId} is not claimed; claim it first`);
  }
  const task = toTask(row);
  await ctx.emit('item.heartbeat', task.id, { claimExpiresAt: task.claimExpiresAt, leaseSeconds: p.leaseSeconds });
  return task;
});

/** Lock the item and refuse when someone else holds a live claim on it. */
async function lockForWork(q: Queryable, orgId: string, taskId: string, caller: string, act: string): Promise<TaskRow> {
  const task = await getTask(q, orgId, taskId, 'FOR UPDATE');
  if (task.claimed_by && task.claimed_by !== caller) {
    throw conflict(`task ${taskId} is claimed by ${task.claimed_by} until ${task.claim_expires_at}; only the claimer may ${act} it`);
  }
  return task;
}

export const block = handler(c.block, async (ctx, p) => {
  const current = await lockForWork(ctx.q, ctx.orgId, p.taskId, ctx.principal.id, 'block');
  if (current.col === 'done') throw conflict(`task ${p.taskId} is done; reopen it with board.moveTask first`);
  if (current.col === 'blocked') throw conflict(`task ${p.taskId} is already blocked (${current.blocked_reason})`);
  const row = one(
    await ctx.q.query<TaskRow>(
      `UPDATE board_tasks SET col = 'blocked', blocked_reason = $3, claimed_by = NULL, claim_expires_at = NULL,
            position = ${endOfColumn("'blocked'")}, updated_at = now()
      WHERE org_id = $1 AND task_id = $2 RETURNING ${TASK_COLUMNS}`,
      [ctx.orgId, p.taskId, p.reason],
    ),
  );
  const task = toTask(row);
  await ctx.emit('item.blocked', task.id, { fromCol: current.col, reasonLength: p.reason.length });
  return task;
});

export const complete = handler(c.complete, async (ctx, p) => {
  const current = await lockForWork(ctx.q, ctx.orgId, p.taskId, ctx.principal.id, 'complete');
  if (current.col === 'done') throw conflict(`task ${p.taskId} is already done`);
  const open = one(
    await ctx.q.query<{ n: number }>(`SELECT count(*)::int AS n FROM board_tasks WHERE org_id = $1 AND parent_id = $2 AND col <> 'done'`, [
      ctx.orgId,
      p.taskId,
    ]),
  );
  if (open.n > 0) throw conflict(`task ${p.taskId} has ${open.n} open child item${open.n > 1 ? 's' : ''}; complete them first`);
  const row = one(
    await ctx.q.query<TaskRow>(
      `UPDATE board_tasks SET col = 'done', completed_at = now(), blocked_reason = NULL, claimed_by = NULL, claim_expires_at = NULL,
            position = ${endOfColumn("'done'")}, updated_at = now()
      WHERE org_id = $1 AND task_id = $2 RETURNING ${TASK_COLUMNS}`,
      [ctx.orgId, p.taskId],
    ),
  );
  const task = toTask(row);
  await ctx.emit('item.completed', task.id, { fromCol: current.col, title: task.title });
  return task;
});
