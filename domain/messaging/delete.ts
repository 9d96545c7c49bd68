import { conflict } from '../../protocol/errors.js';
import { messagingLifecycle as c } from '../../protocol/methods/messaging/lifecycle.js';
import type { Queryable } from '../../db/types.js';
import type { Deps } from '../core/deps.js';
import { eraseEmbeds } from './embeds.js';
import { managesChannel } from './channel/access.js';
import { handler } from '../core/handler.js';
import { getMessage, messageAccess, seqOf } from './model.js';
import { shapeOf } from './writes.js';

/*
 * messaging.delete: the tombstone. Its author, or an owner or admin of the channel, erases the words and all
 * that hangs off them (revisions, reactions, poll, pin, bookmarks naming it, mentions, files, refs); the row
 * keeps id, seq and thread, so a thread and the unread counts (read from the rows) stay whole. A scheduled one
 * is cancelled: its job finds the row deleted and posts nothing. An agent erasing another's message holds for a
 * human (it cannot be undone); the class is the method's own, `messaging.delete`, as the signature law requires.
 */

/** Everything a tombstone erases, in one place (also what a deleted message must never show again), embeds included. */
export async function eraseMessage(q: Queryable, orgId: string, messageId: string, by: string, at: string, deps?: Deps): Promise<void> {
  await q.query('DELETE FROM message_revisions WHERE org_id = $1 AND message_id = $2', [orgId, messageId]);
  await q.query('DELETE FROM message_reactions WHERE org_id = $1 AND message_id = $2', [orgId, messageId]);
  await q.query('DELETE FROM message_poll_votes WHERE org_id = $1 AND message_id = $2', [orgId, messageId]);
  await q.query('DELETE FROM message_poll_options WHERE org_id = $1 AND message_id = $2', [orgId, messageId]);
  await q.query('DELETE FROM message_polls WHERE org_id = $1 AND message_id = $2', [orgId, messageId]);
  await q.query('DELETE FROM channel_bookmarks WHERE org_id = $1 AND message_id = $2', [orgId, messageId]);
  await eraseEmbeds(deps, q, orgId, messageId, at);
  // text NULL also empties the search document (a column generated from it).
  await q.query(
    `UPDATE messages SET status = 'deleted', text = NULL, mentions = '{}', mention_channel = false, file_ids = '{}', artifact_ids = '{}',
            refs = '{}', pinned_at = NULL, pinned_by = NULL, deleted_at = $3, deleted_by = $4
      WHERE org_id = $1 AND message_id = $2`,
    [orgId, messageId, at, by],
  );
}

export const del = handler(c.delete, async (ctx, p) => {
  const { message: seen, access } = await messageAccess(ctx.q, ctx.orgId, p.messageId, ctx.principal.id, 'read');
  const own = seen.author_id === ctx.principal.id;
  const channelId = seen.channel_id;
  if (!own && !managesChannel(access.role)) {
    throw conflict(`message ${p.messageId} is ${seen.author_id}'s: only its author or an owner or admin of ${channelId} deletes it`);
  }
  const message = await getMessage(ctx.q, ctx.orgId, p.messageId, { lock: true });
  const hold =
    ctx.principal.kind === 'agent' && !own
      ? {
          actionClass: 'messaging.delete',
          subjectId: p.messageId,
          summary: `Delete ${message.author_id}'s message ${p.messageId}${message.seq === null ? '' : ` (seq ${seqOf(message.seq)})`} in ${channelId}: its text, revisions, reactions, votes and bookmarks are erased for good`,
          params: p,
        }
      : null;
  const ids = { channelId, messageId: p.messageId, seq: seqOf(message.seq), authorId: message.author_id, by: own ? 'author' : 'manager' };
  if (message.status === 'deleted') {
    if (hold) await ctx.verifyProof(hold);
    const shape = await shapeOf(ctx, p.messageId);
    await ctx.emit('messaging.message.delete', p.messageId, { ...ids, from: 'deleted', noop: true });
    return { message: shape, changed: false };
  }
  if (access.channel.archived_at !== null) throw conflict(`${channelId} is archived: unarchive it first (channel.update archived:false, by an owner or admin)`);
  const proof = hold ? await ctx.requireSignature(hold) : null;
  await eraseMessage(ctx.q, ctx.orgId, p.messageId, ctx.principal.id, ctx.deps.clock.now().toISOString(), ctx.deps);
  const shape = await shapeOf(ctx, p.messageId);
  await ctx.emit('messaging.message.delete', p.messageId, { ...ids, from: message.status, ...(proof ? { approvalId: proof.approvalId } : {}) });
  return { message: shape, changed: true };
});
