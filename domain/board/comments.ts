import { board as c, type Comment } from '../../protocol/methods/board.js';
import { one, type Queryable } from '../../db/types.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { COMMENT_COLUMNS, getTask, getWorkstream, toComment, type CommentRow } from './model.js';

/** Comments on items and workstreams. The ledger records a comment's id and length, never its text. */

async function addComment(ctx: HandlerCtx, target: { taskId?: string; workstreamId?: string }, body: string): Promise<Comment> {
  // Share-lock the target so a concurrent deleteWorkstream cannot remove it under the new comment.
  if (target.taskId) await getTask(ctx.q, ctx.orgId, target.taskId, 'FOR KEY SHARE');
  if (target.workstreamId) await getWorkstream(ctx.q, ctx.orgId, target.workstreamId, 'FOR KEY SHARE');
  const row = one(
    await ctx.q.query<CommentRow>(
      `INSERT INTO board_comments (org_id, comment_id, task_id, workstream_id, body, author)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COMMENT_COLUMNS}`,
      [ctx.orgId, newId('cmt'), target.taskId ?? null, target.workstreamId ?? null, body, ctx.principal.id],
    ),
  );
  const comment = toComment(row);
  const payload = { commentId: comment.id, length: body.length };
  if (comment.taskId) await ctx.emit('item.commented', comment.taskId, payload);
  else await ctx.emit('workstream.commented', comment.workstreamId!, payload);
  return comment;
}

export const comment = handler(c.comment, (ctx, p) => addComment(ctx, { taskId: p.taskId, workstreamId: p.workstreamId }, p.body));

export const addTaskComment = handler(c.addTaskComment, (ctx, p) => addComment(ctx, { taskId: p.taskId }, p.body));

/** One page of an item's comments after `cursor` (a comment seq), oldest first. */
export async function commentsPage(q: Queryable, orgId: string, taskId: string, cursor: number, limit: number) {
  const rows = await q.query<CommentRow>(
    `SELECT ${COMMENT_COLUMNS} FROM board_comments WHERE org_id = $1 AND task_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
    [orgId, taskId, cursor, limit + 1],
  );
  const more = rows.length > limit;
  const shown = rows.slice(0, limit);
  return { comments: shown.map(toComment), nextCursor: more ? shown[shown.length - 1].seq : null };
}

export const taskComments = handler(c.taskComments, async (ctx, p) => {
  await getTask(ctx.q, ctx.orgId, p.taskId);
  return commentsPage(ctx.q, ctx.orgId, p.taskId, p.cursor, p.limit);
});
