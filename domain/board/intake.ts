import type { Queryable } from '../../db/types.js';
import { newId } from '../core/ids.js';
import { endOfColumn } from './model.js';

/*
 * Work that another family hands the board (email.extractAction's actions): tasks put at the end of the triage
 * column, where new work waits to be sorted, as board.createTask puts them. Board appends no event of its own here:
 * the calling family's one event names the task ids, so one call stays one event.
 */

export interface IntakeTask {
  title: string;
  description: string;
  /** A member it is assigned to (meetings' action items name one); default none. */
  assignee?: string | null;
}

/** Insert the tasks in the caller's transaction, in order, created by `by`; their ids. */
export async function addIntakeTasks(q: Queryable, orgId: string, by: string, tasks: readonly IntakeTask[]): Promise<string[]> {
  if (tasks.length === 0) return [];
  const ids = tasks.map(() => newId('task'));
  await q.query(
    `INSERT INTO board_tasks (org_id, task_id, type, title, description, priority, col, assignee, created_by, position)
     SELECT $1, c.id, 'task', c.title, c.description, 'normal', 'triage', c.assignee, $2, ${endOfColumn("'triage'")} + c.n - 1
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS c(id, title, description, assignee, n)`,
    [orgId, by, ids, tasks.map((t) => t.title.slice(0, 200)), tasks.map((t) => t.description.slice(0, 10_000)), tasks.map((t) => t.assignee ?? null)],
  );
  return ids;
}
