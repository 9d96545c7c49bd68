import { badRequest, notFound } from '../../../protocol/errors.js';
import { comments as c } from '../../../protocol/methods/files/comments.js';
import { listThreads } from '../annotation/list.js';
import { requireCommenter, setStatus, statusChange, threadFor, toAnnotation, toReply, findAnnotation } from '../annotation/model.js';
import { commentOn, startThread } from '../annotation/threads.js';
import { checkPlace, livePins, pinAt, pinOf, toPin, unpinRow } from '../file/pins.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { readTarget } from '../../refs.js';

/*
 * The drive's comment and pin views (docs/families/files.md): the same annotation rows and pins as annotation.* and
 * file.*, under files.read/files.write and the file's roles (viewers read, commenters comment and resolve). Events
 * carry ids, statuses and counts only.
 */

/** The file as the caller reads it (files.read is the method's own scope). */
const fileTarget = (ctx: HandlerCtx, fileId: string) => readTarget(ctx.deps.families, ctx.q, ctx.orgId, fileId, ctx.principal, `file ${fileId}`);

/** A thread of this file, locked: another file's thread is NOT_FOUND here. */
async function fileThread(ctx: HandlerCtx, fileId: string, annotationId: string) {
  const t = await threadFor(ctx.deps.families, ctx.q, ctx.orgId, annotationId, ctx.principal, true);
  if (t.row.target_id !== fileId) throw notFound(`annotation ${annotationId} on ${fileId}`);
  return t;
}

export const comments = handler(c.comments, async (ctx, p) => {
  await fileTarget(ctx, p.fileId);
  const page = await listThreads(ctx.deps.families, ctx.q, ctx.orgId, ctx.principal, {
    targetId: p.fileId,
    status: p.status,
    cursor: p.cursor,
    limit: p.limit,
  });
  return { comments: page.annotations, nextCursor: page.nextCursor };
});

export const commentAdd = handler(c.commentAdd, async (ctx, p) => {
  const target = await fileTarget(ctx, p.fileId);
  let w;
  if (p.annotationId !== undefined) {
    if (p.selector !== undefined) throw badRequest('selector', "a reply takes the thread's anchor: leave selector out with annotationId");
    const { row } = await fileThread(ctx, p.fileId, p.annotationId);
    w = await commentOn(ctx, row, target, p.body, p.clientMsgId);
  } else {
    w = await startThread(ctx, target, { kind: 'comment', selector: p.selector, body: p.body, clientMsgId: p.clientMsgId });
  }
  await ctx.emit('files.comment.add', p.fileId, {
    fileId: p.fileId,
    annotationId: w.row.annotation_id,
    replyId: w.reply!.reply_id,
    seq: Number(w.reply!.seq),
    newThread: p.annotationId === undefined,
    selectorType: w.row.selector_type,
    status: w.row.status,
    reopened: w.reopened,
    comments: Number(w.row.comment_count),
    ...(w.changed ? {} : { noop: true }),
  });
  // Unchanged only when clientMsgId named an earlier comment (annotation/threads.ts): a replay, said so in the result.
  return { annotation: toAnnotation(w.row), comment: toReply(w.reply!), changed: w.changed, ...(w.changed ? {} : { replayed: true as const }) };
});

export const commentResolve = handler(c.commentResolve, async (ctx, p) => {
  const { row, target } = await fileThread(ctx, p.fileId, p.annotationId);
  requireCommenter(target);
  const next = statusChange(row, p.resolved ? 'resolved' : 'open');
  if (next !== null) await setStatus(ctx.q, ctx.orgId, row.annotation_id, next, ctx.principal.id, ctx.deps.clock.now());
  const after = next === null ? row : (await findAnnotation(ctx.q, ctx.orgId, row.annotation_id))!;
  await ctx.emit('files.comment.resolve', p.fileId, {
    fileId: p.fileId,
    annotationId: row.annotation_id,
    from: row.status,
    status: after.status,
    ...(next === null ? { noop: true } : {}),
  });
  return { annotation: toAnnotation(after), changed: next !== null };
});

export const pin = handler(c.pin, async (ctx, p) => {
  const target = await fileTarget(ctx, p.fileId);
  const f = target.file!.file;
  // Default place: the file's folder (pinned in it), or the org home for a file at the root.
  const place = p.place ?? f.parent_id ?? 'org';
  const placeType = await checkPlace(ctx.deps.families, ctx.q, ctx.orgId, place, ctx.principal, true);
  const now = ctx.deps.clock.now();
  const w = p.pinned ? await pinAt(ctx.q, ctx.orgId, target, place, placeType, ctx.principal.id, now) : await unpinFile(ctx, place, p.fileId, now);
  await ctx.emit('files.pin.set', p.fileId, {
    fileId: p.fileId,
    pinId: w.pin?.pin_id ?? null,
    place,
    placeType,
    pinned: p.pinned,
    pins: w.pins,
    ...(w.changed ? {} : { noop: true }),
  });
  return { pin: w.pin ? toPin(w.pin) : null, changed: w.changed };
});

async function unpinFile(ctx: HandlerCtx, place: string, fileId: string, now: Date) {
  const row = await pinOf(ctx.q, ctx.orgId, place, fileId);
  if (row) return unpinRow(ctx.q, ctx.orgId, row, ctx.principal.id, now);
  return { pin: null, changed: false, pins: await livePins(ctx.q, ctx.orgId, place) };
}

/** files.comments, commentAdd, commentResolve and pin: spread into the files family (domain/files/index.ts). */
export const commentHandlers = { comments, commentAdd, commentResolve, pin };
