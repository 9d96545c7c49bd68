import { file as c } from '../../../protocol/methods/file.js';
import { commentsAfter, threadComments } from '../annotation/list.js';
import { toReply } from '../annotation/model.js';
import { addToDiscussion, discussionOf } from '../annotation/threads.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { readTarget } from '../../refs.js';
import { checkPlace, pinAt, pinFor, pinsAt, toPin, unpinRow } from './pins.js';
import { recordVisibility } from '../../event-records.js';

/*
 * file.*: pins of any readable record to a place, and the unanchored discussion on any record (its one discussion
 * thread in the annotation store). Scopes are org.read and org.write plus the target's read scope. Events carry
 * ids and counts only.
 */

export const addComment = handler(c.addComment, async (ctx, p) => {
  const target = await readTarget(ctx.deps.families, ctx.q, ctx.orgId, p.targetId, ctx.principal);
  const w = await addToDiscussion(ctx, target, p.body, p.clientMsgId);
  await ctx.emit('file.comment.add', target.id, {
    targetId: target.id,
    targetType: target.type,
    annotationId: w.row.annotation_id,
    replyId: w.reply!.reply_id,
    seq: Number(w.reply!.seq),
    comments: Number(w.row.comment_count),
    ...(w.changed ? {} : { noop: true }),
  });
  // Unchanged only when clientMsgId named an earlier comment (threads.ts): a replay, said so in the result.
  return { annotationId: w.row.annotation_id, comment: toReply(w.reply!), changed: w.changed, ...(w.changed ? {} : { replayed: true as const }) };
});

export const listComments = handler(c.listComments, async (ctx, p) => {
  const target = await readTarget(ctx.deps.families, ctx.q, ctx.orgId, p.targetId, ctx.principal);
  commentsAfter(p.cursor);
  const thread = await discussionOf(ctx, target, false);
  if (!thread) return { annotationId: null, comments: [], nextCursor: null };
  return { annotationId: thread.annotation_id, ...(await threadComments(ctx.q, ctx.orgId, thread.annotation_id, p.cursor, p.limit)) };
});

export const pin = handler(c.pin, async (ctx, p) => {
  const target = await readTarget(ctx.deps.families, ctx.q, ctx.orgId, p.targetId, ctx.principal);
  const placeType = await checkPlace(ctx.deps.families, ctx.q, ctx.orgId, p.place, ctx.principal, true);
  const w = await pinAt(ctx.q, ctx.orgId, target, p.place, placeType, ctx.principal.id, ctx.deps.clock.now());
  await ctx.emit('file.pin.add', w.pin.pin_id, {
    pinId: w.pin.pin_id,
    place: w.pin.place,
    placeType,
    targetId: target.id,
    targetType: target.type,
    pins: w.pins,
    ...(w.changed ? {} : { noop: true }),
  });
  return { pin: toPin(w.pin), changed: w.changed };
});

export const unpin = handler(c.unpin, async (ctx, p) => {
  const row = await pinFor(ctx.deps.families, ctx.q, ctx.orgId, p.pinId, ctx.principal);
  await checkPlace(ctx.deps.families, ctx.q, ctx.orgId, row.place, ctx.principal, true, 'pinId');
  const w = await unpinRow(ctx.q, ctx.orgId, row, ctx.principal.id, ctx.deps.clock.now());
  await ctx.emit('file.pin.remove', row.pin_id, {
    pinId: row.pin_id,
    place: row.place,
    targetId: row.target_id,
    pins: w.pins,
    ...(w.changed ? {} : { noop: true }),
  });
  return { pin: toPin(w.pin), changed: w.changed };
});

export const listPinned = handler(c.listPinned, async (ctx, p) => {
  await checkPlace(ctx.deps.families, ctx.q, ctx.orgId, p.place, ctx.principal, false);
  return { pins: (await pinsAt(ctx.deps.families, ctx.q, ctx.orgId, p.place, ctx.principal)).map(toPin) };
});

export const fileHandlers = family('file', { addComment, listComments, pin, unpin, listPinned });

/** Who sees a file.* event: those who may read its target and, for a pin, its place; its actor. */
export const fileEvents = recordVisibility({ records: (e, p) => [p.targetId ?? p.subjectId, ...(p.place === undefined ? [] : [p.place])] });

/** The file family, as domain/deployed.ts lists it. */
export const fileFamily: Family = { name: 'file', methods: fileHandlers, eventVisibility: { file: fileEvents } };
