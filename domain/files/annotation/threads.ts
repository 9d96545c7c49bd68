import { badRequest } from '../../../protocol/errors.js';
import type { SelectorValue } from '../../../protocol/methods/annotation.js';
import type { HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import type { Target } from '../../refs.js';
import {
  ANNOTATION_COLUMNS,
  appendComment,
  clientMsgIdTaken,
  earlierComment,
  findAnnotation,
  insertThread,
  requireCommenter,
  type AnnotationRow,
  type ReplyRow,
} from './model.js';
import { checkSelector } from './selectors.js';

/*
 * The writes every view shares: start a thread, comment on one, the target's discussion. Each returns what changed
 * and leaves the one event to its method (annotation.*, file.addComment, files.commentAdd name it their way). A
 * comment sent again with the author's clientMsgId returns the first one, changed:false, so retries of these
 * non-idempotent methods never double a comment.
 */

export interface ThreadWrite {
  row: AnnotationRow;
  reply: ReplyRow | null;
  changed: boolean;
  /** A comment reopened a resolved or dismissed thread. */
  reopened: boolean;
}

const fresh = async (ctx: HandlerCtx, annotationId: string): Promise<AnnotationRow> => (await findAnnotation(ctx.q, ctx.orgId, annotationId))!;

export interface StartParams {
  kind: 'comment' | 'highlight' | 'flag';
  selector?: SelectorValue;
  body?: string;
  clientMsgId?: string;
}

/** Start a thread on a target the caller may annotate (role commenter on a file); BAD_REQUEST names the field. */
export async function startThread(ctx: HandlerCtx, target: Target, p: StartParams): Promise<ThreadWrite> {
  requireCommenter(target);
  if (p.kind === 'comment' && p.body === undefined) throw badRequest('body', 'required for kind comment (a highlight or flag may go without)');
  if (p.clientMsgId !== undefined && p.body === undefined) throw badRequest('clientMsgId', 'names a comment: give a body with it');
  const selector = p.selector === undefined ? null : await checkSelector(ctx.deps.families, ctx.q, ctx.orgId, target, p.selector);
  const earlier = await earlierComment(ctx.q, ctx.orgId, ctx.principal.id, p.clientMsgId);
  if (earlier) {
    const row = await fresh(ctx, earlier.annotation_id);
    if (row.target_id !== target.id || earlier.seq !== 1 || row.discussion) throw clientMsgIdTaken(p.clientMsgId!, earlier);
    return { row, reply: earlier, changed: false, reopened: false };
  }
  const now = ctx.deps.clock.now();
  const row = await insertThread(ctx.q, ctx.orgId, { target, kind: p.kind, selector }, ctx.principal.id, now);
  const reply = p.body === undefined ? null : (await appendComment(ctx.q, ctx.orgId, row, ctx.principal.id, p.body, p.clientMsgId, now)).reply;
  return { row: await fresh(ctx, row.annotation_id), reply, changed: true, reopened: false };
}

/** Comment on a thread (locked by the caller); reopens it. The same clientMsgId on this thread: the first comment. */
export async function commentOn(ctx: HandlerCtx, row: AnnotationRow, target: Target, body: string, clientMsgId: string | undefined): Promise<ThreadWrite> {
  requireCommenter(target);
  const earlier = await earlierComment(ctx.q, ctx.orgId, ctx.principal.id, clientMsgId);
  if (earlier) {
    if (earlier.annotation_id !== row.annotation_id) throw clientMsgIdTaken(clientMsgId!, earlier);
    return { row, reply: earlier, changed: false, reopened: false };
  }
  const { reply, reopened } = await appendComment(ctx.q, ctx.orgId, row, ctx.principal.id, body, clientMsgId, ctx.deps.clock.now());
  return { row: await fresh(ctx, row.annotation_id), reply, changed: true, reopened };
}

/** The target's discussion thread (file.addComment), locked; created on the first comment when `create`. */
export async function discussionOf(ctx: HandlerCtx, target: Target, create: boolean): Promise<AnnotationRow | undefined> {
  const find = async () =>
    (
      await ctx.q.query<AnnotationRow>(
        `SELECT ${ANNOTATION_COLUMNS} FROM annotations a WHERE a.org_id = $1 AND a.target_id = $2 AND a.discussion ${create ? 'FOR UPDATE OF a' : ''}`,
        [ctx.orgId, target.id],
      )
    )[0];
  const found = await find();
  if (found || !create) return found;
  const at = ctx.deps.clock.now().toISOString();
  await ctx.q.query(
    `INSERT INTO annotations (org_id, annotation_id, target_id, target_type, kind, discussion, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'comment', true, $5, $6, $6) ON CONFLICT (org_id, target_id) WHERE discussion DO NOTHING`,
    [ctx.orgId, newId('ann'), target.id, target.type, ctx.principal.id, at],
  );
  return find();
}

/** Comment on the target's discussion: the thread is made on the first comment. */
export async function addToDiscussion(ctx: HandlerCtx, target: Target, body: string, clientMsgId: string | undefined): Promise<ThreadWrite> {
  requireCommenter(target);
  // A retry finds its comment before anything is made.
  const earlier = await earlierComment(ctx.q, ctx.orgId, ctx.principal.id, clientMsgId);
  if (earlier) {
    const row = await fresh(ctx, earlier.annotation_id);
    if (!row.discussion || row.target_id !== target.id) throw clientMsgIdTaken(clientMsgId!, earlier);
    return { row, reply: earlier, changed: false, reopened: false };
  }
  const row = (await discussionOf(ctx, target, true))!;
  return commentOn(ctx, row, target, body, clientMsgId);
}
