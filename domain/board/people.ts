import { one, type Queryable } from '../../db/types.js';
import type { HeldWork } from '../people/index.js';
import { lockBoard } from './model.js';

/*
 * What the board does when a person's access is cut (admin.deactivate, user.deactivate): called inside the
 * caller's transaction, which appends the one event counting what moved. Each is one statement over the
 * principal's rows (indexed by assignee, claimer and owner), so a leaver with 10,000 items costs three updates.
 */

/**
 * Release every claim the principal holds, live or lapsed: the items are nobody's work any more, so those in
 * doing go back to the end of todo (as board.moveTask to todo puts work down) and show in GET /board.ready.
 * Returns how many claims were released.
 */
export async function releaseClaimsOf(q: Queryable, orgId: string, principalId: string): Promise<number> {
  // Positions at the end of todo are rewritten: one column mover at a time (moveTask's lock).
  await lockBoard(q, orgId, 'taskOrder');
  const rows = await q.query(
    `WITH held AS (
       SELECT task_id, col, row_number() OVER (ORDER BY position, created_at, task_id) AS n
         FROM board_tasks WHERE org_id = $1 AND claimed_by = $2),
     tail AS (SELECT COALESCE(max(position) + 1, 0) AS at FROM board_tasks WHERE org_id = $1 AND col = 'todo')
     UPDATE board_tasks t SET claimed_by = NULL, claim_expires_at = NULL,
            col = CASE WHEN held.col = 'doing' THEN 'todo' ELSE t.col END,
            position = CASE WHEN held.col = 'doing' THEN tail.at + held.n - 1 ELSE t.position END,
            updated_at = now()
       FROM held, tail
      WHERE t.org_id = $1 AND t.task_id = held.task_id AND t.claimed_by = $2
      RETURNING t.task_id`,
    [orgId, principalId],
  );
  return rows.length;
}

/** Reassign the principal's open (not done) items to `to`; done items keep their assignee (history). */
export async function moveOpenItems(q: Queryable, orgId: string, from: string, to: string): Promise<number> {
  const rows = await q.query(
    `UPDATE board_tasks SET assignee = $3, updated_at = now() WHERE org_id = $1 AND assignee = $2 AND col <> 'done' RETURNING task_id`,
    [orgId, from, to],
  );
  return rows.length;
}

/** Give the workstreams the principal owns (and their decision right) to `to`. */
export async function moveWorkstreams(q: Queryable, orgId: string, from: string, to: string): Promise<number> {
  const rows = await q.query('UPDATE board_workstreams SET owner = $3, updated_at = now() WHERE org_id = $1 AND owner = $2 RETURNING workstream_id', [
    orgId,
    from,
    to,
  ]);
  return rows.length;
}

/** The board's part in cutting a person's access (the people group's `heldWork` extension point). */
export const boardHeldWork: HeldWork = { releaseClaims: releaseClaimsOf, moveOpenItems, moveWorkstreams };

/*
 * For handoffs (domain/handoff): who holds a task, and moving it to someone else. Board appends no event for
 * either; the handoff's one event records what moved.
 */

export interface TaskHolding {
  /** Its live claimer, else its assignee; null when nobody holds it. */
  holder: string | null;
  assignee: string | null;
  /** The claimer while the lease is live. */
  claimedBy: string | null;
  col: string;
}

/** A task's holding, or undefined when the org has no such task; FOR UPDATE before transferTask. */
export async function taskHolding(q: Queryable, orgId: string, taskId: string, lock: '' | 'FOR UPDATE' = ''): Promise<TaskHolding | undefined> {
  const [row] = await q.query<{ assignee: string | null; claimed_by: string | null; col: string }>(
    `SELECT assignee, CASE WHEN claim_expires_at > now() THEN claimed_by END AS claimed_by, col
       FROM board_tasks WHERE org_id = $1 AND task_id = $2 ${lock}`,
    [orgId, taskId],
  );
  if (!row) return undefined;
  return { holder: row.claimed_by ?? row.assignee, assignee: row.assignee, claimedBy: row.claimed_by, col: row.col };
}

/**
 * Give a task to `to` (a handoff accepted): `to` becomes its assignee and any claim, live or lapsed, is released;
 * an item in doing goes to the end of todo, as releaseClaimsOf puts work down (positions as board.claim computes
 * them, without the column lock, so this never waits on a mover while holding the task). Call with the task locked.
 */
export async function transferTask(
  q: Queryable,
  orgId: string,
  taskId: string,
  to: string,
): Promise<{ previousAssignee: string | null; claimReleased: boolean; col: string }> {
  const before = await taskHolding(q, orgId, taskId, 'FOR UPDATE');
  if (!before) throw new Error(`transferTask: no task ${taskId}`);
  const row = one(
    await q.query<{ col: string }>(
      `UPDATE board_tasks t SET assignee = $3, claimed_by = NULL, claim_expires_at = NULL,
            position = CASE WHEN t.col = 'doing' THEN COALESCE((SELECT max(position) + 1 FROM board_tasks WHERE org_id = $1 AND col = 'todo'), 0) ELSE t.position END,
            col = CASE WHEN t.col = 'doing' THEN 'todo' ELSE t.col END,
            updated_at = now()
      WHERE t.org_id = $1 AND t.task_id = $2 RETURNING col`,
      [orgId, taskId, to],
    ),
  );
  return { previousAssignee: before.assignee, claimReleased: before.claimedBy !== null, col: row.col };
}
