import { badRequest, conflict } from '../../protocol/errors.js';
import { MAX_REVISIONS, messagingLifecycle as c } from '../../protocol/methods/messaging/lifecycle.js';
import { one, type Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { getMessage, messageAccess } from './model.js';
import { readText } from './text.js';
import { broadcastHold, checkPostAt, schedulePosting } from './schedule.js';
import { shapeOf } from './writes.js';

/*
 * messaging.edit, by the author only. A posted message keeps its earlier text as a revision (the last 50; older
 * ones dropped) and shows editedAt; a scheduled one is only a draft, so its text is replaced outright. A new postAt
 * (scheduled only) enqueues a new job; the old one finds post_at moved and does nothing.
 */

export const edit = handler(c.edit, async (ctx, p) => {
  if (p.text === undefined && p.postAt === undefined) throw badRequest('text', 'give the new text, a new postAt, or both');
  const now = ctx.deps.clock.now();
  const postAt = p.postAt === undefined ? undefined : checkPostAt(p.postAt, now);
  const { message: seen } = await messageAccess(ctx.q, ctx.orgId, p.messageId, ctx.principal.id, 'write');
  if (seen.author_id !== ctx.principal.id)
    throw conflict(`message ${p.messageId} is ${seen.author_id}'s: only its author edits it (reply in its thread instead)`);
  const message = await getMessage(ctx.q, ctx.orgId, p.messageId, { lock: true });
  if (message.status === 'deleted') throw conflict(`message ${p.messageId} is deleted: nothing is left to edit (send a new message)`);
  if (message.status === 'failed')
    throw conflict(`message ${p.messageId} failed to post (${message.failure ?? 'no reason recorded'}): schedule or send it again`);
  if (message.kind === 'call') throw conflict(`message ${p.messageId} is a call's root message: it changes with its call, not by edit`);
  if (postAt && message.status !== 'scheduled') throw conflict(`message ${p.messageId} is already posted: postAt applies only while it is scheduled`);

  const textChanged = p.text !== undefined && p.text !== message.text;
  const postAtChanged = postAt !== undefined && postAt.getTime() !== new Date(message.post_at as string).getTime();
  const fields = [...(textChanged ? ['text'] : []), ...(postAtChanged ? ['postAt'] : [])];
  const ids = { channelId: message.channel_id, messageId: p.messageId, status: message.status };
  if (fields.length === 0) {
    const shape = await shapeOf(ctx, p.messageId);
    await ctx.emit('messaging.message.edit', p.messageId, { ...ids, fields, noop: true });
    return { message: shape, changed: false };
  }
  const at = now.toISOString();
  let revisions: number | null = null;
  let mentions: number | null = null;
  let approvalId: string | null = null;
  if (textChanged) {
    const links = await readText(ctx.q, ctx.orgId, p.text!);
    mentions = links.mentions.length;
    // A scheduled message that newly says <!channel> will notify when it posts: the same hold as at scheduling.
    if (links.mentionChannel && !message.mention_channel && message.status === 'scheduled') {
      approvalId = await broadcastHold(ctx, message.channel_id, p, `Change scheduled message ${p.messageId} into one`);
    }
    const posted = message.status === 'posted';
    if (posted) revisions = await keepRevision(ctx.q, ctx.orgId, p.messageId, message.text ?? '', at);
    await ctx.q.query(
      `UPDATE messages SET text = $3, mentions = $4::text[], mention_channel = $5, refs = $6::text[], edited_at = CASE WHEN $7 THEN $8::timestamptz ELSE edited_at END
        WHERE org_id = $1 AND message_id = $2`,
      [ctx.orgId, p.messageId, p.text, links.mentions, links.mentionChannel, links.refs, posted, at],
    );
  }
  if (postAtChanged) {
    await ctx.q.query('UPDATE messages SET post_at = $3 WHERE org_id = $1 AND message_id = $2', [ctx.orgId, p.messageId, postAt.toISOString()]);
    schedulePosting(ctx, p.messageId, postAt);
  }
  const shape = await shapeOf(ctx, p.messageId);
  await ctx.emit('messaging.message.edit', p.messageId, {
    ...ids,
    fields,
    ...(revisions !== null ? { revisions } : {}),
    ...(mentions !== null ? { mentions } : {}),
    ...(postAtChanged ? { postAt: postAt.toISOString() } : {}),
    ...(approvalId ? { approvalId } : {}),
  });
  return { message: shape, changed: true };
});

/** Keep `text` as the next revision, dropping the oldest beyond 50; the number kept. */
async function keepRevision(q: Queryable, orgId: string, messageId: string, text: string, at: string): Promise<number> {
  const { n } = one(
    await q.query<{ n: number }>('SELECT COALESCE(max(n), 0)::int + 1 AS n FROM message_revisions WHERE org_id = $1 AND message_id = $2', [orgId, messageId]),
  );
  await q.query('INSERT INTO message_revisions (org_id, message_id, n, text, replaced_at) VALUES ($1, $2, $3, $4, $5)', [orgId, messageId, n, text, at]);
  await q.query('DELETE FROM message_revisions WHERE org_id = $1 AND message_id = $2 AND n <= $3', [orgId, messageId, n - MAX_REVISIONS]);
  const kept = one(await q.query<{ k: number }>('SELECT count(*)::int AS k FROM message_revisions WHERE org_id = $1 AND message_id = $2', [orgId, messageId]));
  return Number(kept.k);
}
