import { addIntakeTasks } from '../board/index.js';
import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import type { ActionRow } from './model.js';
import type { Content } from './record-content.js';
import { textHash } from './record-content.js';
import { closeRows, type Base } from './record-store.js';

/* meetings.record's action items, and the board tasks (in triage) that those asking for one get once. */

/** Actions: kept ones (same words) keep their act_ and task; createTask makes a triage task once. The new task ids. */
export async function saveActions(ctx: HandlerCtx, b: Base, actions: Content['actions'], now: readonly ActionRow[]): Promise<string[]> {
  const seen = new Set<string>();
  const plan = actions.flatMap((a, i) => {
    const hash = textHash(a.text);
    if (seen.has(hash)) return [];
    seen.add(hash);
    return [{ ...a, hash, seq: i + 1, row: now.find((n) => n.text_sha256 === hash) }];
  });
  const gone = now.filter((n) => !seen.has(n.text_sha256)).map((n) => n.action_id);
  await closeRows(ctx, b, 'meeting_actions', 'action_id', gone);
  const needTask = plan.filter((a) => a.createTask && !a.row?.task_id);
  const taskIds = await addIntakeTasks(
    ctx.q,
    ctx.orgId,
    ctx.principal.id,
    needTask.map((a) => ({ title: a.text.slice(0, 200), description: `Action item of meeting ${b.meetingId}: "${a.text}"`, assignee: a.assigneeId })),
  );
  const taskOf = new Map(needTask.map((a, i) => [a.hash, taskIds[i]]));
  for (const a of plan) {
    const taskId = a.row?.task_id ?? taskOf.get(a.hash) ?? null;
    if (a.row) {
      await ctx.q.query('UPDATE meeting_actions SET seq = $3, assignee_id = $4, task_id = $5 WHERE org_id = $1 AND action_id = $2', [
        b.org,
        a.row.action_id,
        a.seq,
        a.assigneeId,
        taskId,
      ]);
    } else {
      await ctx.q.query(
        `INSERT INTO meeting_actions (org_id, action_id, meeting_id, text_sha256, seq, text, assignee_id, task_id, from_revision) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [b.org, newId('act'), b.meetingId, a.hash, a.seq, a.text, a.assigneeId, taskId, b.revision],
      );
    }
  }
  return taskIds;
}
