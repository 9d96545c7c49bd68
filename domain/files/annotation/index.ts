import { annotation as c } from '../../../protocol/methods/annotation.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { readTarget, references } from '../../refs.js';
import { getThread, list } from './list.js';
import { requireCommenter, requireDismisser, setStatus, statusChange, threadFor, toAnnotation, toReply, findAnnotation } from './model.js';
import { commentOn, startThread } from './threads.js';
import { recordVisibility } from '../../event-records.js';

/*
 * annotation.*: the one store of threads on any readable record (docs/families/files.md). Scopes are org.read and
 * org.write plus the target's own read scope (domain/refs.ts); a file needs role commenter to annotate. Events
 * carry ids, kinds, statuses and counts: never a body, quote or selector.
 */

export const create = handler(c.create, async (ctx, p) => {
  const target = await readTarget(ctx.deps.families, ctx.q, ctx.orgId, p.targetId, ctx.principal);
  const w = await startThread(ctx, target, p);
  await ctx.emit('annotation.thread.create', w.row.annotation_id, {
    annotationId: w.row.annotation_id,
    targetId: target.id,
    targetType: target.type,
    kind: w.row.kind,
    selectorType: w.row.selector_type,
    anchorStatus: w.row.anchor_status,
    status: w.row.status,
    replyId: w.reply?.reply_id ?? null,
    comments: Number(w.row.comment_count),
    ...(w.changed ? {} : { noop: true }),
  });
  // Unchanged only when clientMsgId named an earlier comment (threads.ts): a replay, said so in the result.
  return { annotation: toAnnotation(w.row), changed: w.changed, ...(w.changed ? {} : { replayed: true as const }) };
});

export const comment = handler(c.comment, async (ctx, p) => {
  const { row, target } = await threadFor(ctx.deps.families, ctx.q, ctx.orgId, p.annotationId, ctx.principal, true);
  const w = await commentOn(ctx, row, target, p.body, p.clientMsgId);
  await ctx.emit('annotation.comment.add', row.annotation_id, {
    annotationId: row.annotation_id,
    targetId: row.target_id,
    replyId: w.reply!.reply_id,
    seq: Number(w.reply!.seq),
    status: w.row.status,
    reopened: w.reopened,
    comments: Number(w.row.comment_count),
    ...(w.changed ? {} : { noop: true }),
  });
  return { annotation: toAnnotation(w.row), comment: toReply(w.reply!), changed: w.changed, ...(w.changed ? {} : { replayed: true as const }) };
});

export const resolve = handler(c.resolve, async (ctx, p) => {
  const { row, target } = await threadFor(ctx.deps.families, ctx.q, ctx.orgId, p.annotationId, ctx.principal, true);
  requireCommenter(target);
  const next = statusChange(row, p.reopen ? 'open' : 'resolved');
  if (next !== null) await setStatus(ctx.q, ctx.orgId, row.annotation_id, next, ctx.principal.id, ctx.deps.clock.now());
  const after = next === null ? row : (await findAnnotation(ctx.q, ctx.orgId, row.annotation_id))!;
  await ctx.emit('annotation.thread.resolve', row.annotation_id, {
    annotationId: row.annotation_id,
    targetId: row.target_id,
    from: row.status,
    status: after.status,
    reopened: p.reopen,
    ...(next === null ? { noop: true } : {}),
  });
  return { annotation: toAnnotation(after), changed: next !== null };
});

export const dismiss = handler(c.dismiss, async (ctx, p) => {
  const { row, target } = await threadFor(ctx.deps.families, ctx.q, ctx.orgId, p.annotationId, ctx.principal, true);
  requireDismisser(row, target, ctx.principal);
  const changed = row.status !== 'dismissed';
  if (changed) await setStatus(ctx.q, ctx.orgId, row.annotation_id, 'dismissed', ctx.principal.id, ctx.deps.clock.now());
  const after = changed ? (await findAnnotation(ctx.q, ctx.orgId, row.annotation_id))! : row;
  await ctx.emit('annotation.thread.dismiss', row.annotation_id, {
    annotationId: row.annotation_id,
    targetId: row.target_id,
    from: row.status,
    status: after.status,
    byAuthor: row.created_by === ctx.principal.id,
    ...(changed ? {} : { noop: true }),
  });
  return { annotation: toAnnotation(after), changed };
});

export const annotationHandlers = family('annotation', { create, comment, resolve, dismiss, getThread, list });

/** Who sees an annotation event: those who may read its target (a file, message, call, event, ...), its actor. */
export const annotationEvents = recordVisibility({ records: (e, p) => [p.targetId ?? p.subjectId] });

/** The annotation family, as domain/deployed.ts lists it. */
export const annotationFamily: Family = {
  name: 'annotation',
  methods: annotationHandlers,
  eventVisibility: { annotation: annotationEvents },
  // Threads point at what families contribute as references: two families claiming one id prefix fail the start.
  verify: (set) => void references(set),
};
