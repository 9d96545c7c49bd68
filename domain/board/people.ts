import type { Queryable } from '../../db/types.js';
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
  const rows = await q.query(
    'UPDATE board_workstreams SET owner = $3, updated_at = now() WHERE org_id = $1 AND owner = $2 RETURNING workstream_id',
    [orgId, from, to],
  );
  return rows.length;
}
