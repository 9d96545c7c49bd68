import { ApiError, badRequest, conflict } from '../../protocol/errors.js';
import { BROADCAST_HUMANS, messagingCore as c } from '../../protocol/methods/messaging/core.js';
import { proofFields } from '../../protocol/schema.js';
import { one, type Queryable } from '../../db/types.js';
import { paramsHash } from '../../ledger/idempotency.js';
import { channelAccess, managesChannel, type ChannelAccess } from './channel/access.js';
import { liveMemberIds } from './channel/model.js';
import { getMembers } from '../people/index.js';
import { handler } from '../core/handler.js';
import { getMessage, MESSAGE_COLUMNS, messagesFor, type MessageRow } from './model.js';
import { postMessage } from './post.js';
import { checkFiles, readText } from './text.js';
import { attachEmbeds, checkEmbeds } from './embeds.js';

/*
 * messaging.send: Matrix's txnId as idempotencyId. Under the channel's row lock, an existing message with the same
 * (channel, idempotencyId) answers: the same params return it (changed:false), others are CONFLICT. Mentions and
 * task refs are checked; fileIds are kept as given; artifactIds (the sender's own drafts) are posted with the message
 * by the family that keeps them (embeds.ts).
 */

const PROOF_FIELDS = Object.keys(proofFields);

/** The hash a send's params are remembered by (the proof of a held retry is not part of the act). */
export const sendHash = (params: Record<string, unknown>): string => paramsHash({ method: 'messaging.send', ...params }, PROOF_FIELDS);

/** BAD_REQUEST threadId unless it is a posted root message of `channelId` (a reply is never a root). */
export async function checkThread(q: Queryable, orgId: string, channelId: string, threadId: string): Promise<void> {
  let root: MessageRow;
  try {
    root = await getMessage(q, orgId, threadId);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') throw badRequest('threadId', `no message ${threadId} in ${channelId}`);
    throw err;
  }
  if (root.channel_id !== channelId) throw badRequest('threadId', `no message ${threadId} in ${channelId}`);
  if (root.thread_id !== null) throw badRequest('threadId', `${threadId} is a reply in thread ${root.thread_id}: reply to that root instead`);
  if (root.status !== 'posted') throw badRequest('threadId', `${threadId} is ${root.status}: only a posted message starts a thread`);
}

/** CONFLICT unless the caller may post in the channel under its posting policy. */
export function checkPostingPolicy(a: ChannelAccess): void {
  if (a.channel.posting_policy === 'admins' && !managesChannel(a.role)) {
    throw conflict(`only owners and admins post in ${a.channel.channel_id} (posting policy admins); ask one of them, or reply where you may`);
  }
}

/** Humans among the channel's members besides the author: who a <!channel> reaches. */
export async function humansReached(q: Queryable, orgId: string, channelId: string, authorId: string): Promise<number> {
  const ids = (await liveMemberIds(q, orgId, channelId)).filter((id) => id !== authorId);
  return (await getMembers(q, orgId, ids)).filter((m) => m.kind === 'human').length;
}

/**
 * The message `idempotencyId` already names in the channel, if any: the same author and params return it, anything
 * else is CONFLICT (`verb` says what to do again: send, schedule).
 */
export async function sameIdempotencyId(
  q: Queryable,
  orgId: string,
  channelId: string,
  idempotencyId: string,
  authorId: string,
  hash: string,
  verb: string,
): Promise<MessageRow | null> {
  const [existing] = await q.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.org_id = $1 AND m.channel_id = $2 AND m.idempotency_id = $3`,
    [orgId, channelId, idempotencyId],
  );
  if (!existing) return null;
  if (existing.author_id !== authorId || existing.params_hash !== hash) {
    throw conflict(
      `idempotencyId ${idempotencyId} already names message ${existing.author_id === authorId ? existing.message_id : 'of another member'} in ${channelId} with other params: ${verb} it again with the same params, or use a new idempotencyId`,
    );
  }
  return existing;
}

export const send = handler(c.send, async (ctx, p) => {
  if (p.alsoToChannel !== undefined && p.threadId === undefined) throw badRequest('alsoToChannel', 'only with threadId (a reply also shown in the channel)');
  const me = ctx.principal.id;
  const a = await channelAccess(ctx.q, ctx.orgId, p.channelId, me, 'write', { lock: true });
  const hash = sendHash(p);
  const existing = await sameIdempotencyId(ctx.q, ctx.orgId, p.channelId, p.idempotencyId, me, hash, 'send');
  if (existing) {
    const [message] = await messagesFor(ctx.q, ctx.orgId, [existing], me);
    await ctx.emit('messaging.message.send', existing.message_id, {
      channelId: p.channelId,
      messageId: existing.message_id,
      seq: message.seq,
      noop: true,
    });
    // The same idempotencyId and params: a replay of the earlier send, said so in the result (nothing posted).
    return { message, changed: false, replayed: true };
  }
  checkPostingPolicy(a);
  if (p.threadId !== undefined) await checkThread(ctx.q, ctx.orgId, p.channelId, p.threadId);
  const links = await readText(ctx.q, ctx.orgId, p.text);
  await checkFiles(ctx.q, ctx.orgId, ctx.principal, p.fileIds);
  await checkEmbeds(ctx.deps, ctx.q, ctx.orgId, ctx.principal, p);
  if (links.mentionChannel && ctx.principal.kind === 'agent') {
    const humans = await humansReached(ctx.q, ctx.orgId, p.channelId, me);
    if (humans > BROADCAST_HUMANS) {
      // The hold takes the method's own action class, messaging.send, as the signature machinery requires.
      await ctx.requireSignature({
        actionClass: 'messaging.send',
        subjectId: p.channelId,
        summary: `Post a message that notifies everyone in channel ${p.channelId} (<!channel>): ${humans} people`,
        params: p,
      });
    }
  }
  const now = ctx.deps.clock.now();
  const { messageId, seq } = await postMessage(ctx.q, ctx.orgId, {
    channelId: p.channelId,
    authorId: me,
    text: p.text,
    threadId: p.threadId ?? null,
    alsoToChannel: p.alsoToChannel ?? false,
    mentions: links.mentions,
    mentionChannel: links.mentionChannel,
    fileIds: p.fileIds,
    artifactIds: p.artifactIds,
    refs: links.refs,
    idempotencyId: p.idempotencyId,
    paramsHash: hash,
    now,
  });
  if (p.artifactIds?.length) {
    const at = now.toISOString();
    await attachEmbeds(ctx.deps, ctx.q, ctx.orgId, { authorId: me, artifactIds: p.artifactIds, channelId: p.channelId, messageId, at, strict: true });
  }
  const { n: members } = one(
    await ctx.q.query<{ n: number }>('SELECT count(*)::int AS n FROM channel_members WHERE org_id = $1 AND channel_id = $2 AND removed_at IS NULL', [
      ctx.orgId,
      p.channelId,
    ]),
  );
  const [message] = await messagesFor(ctx.q, ctx.orgId, [await getMessage(ctx.q, ctx.orgId, messageId)], me, { now });
  await ctx.emit('messaging.message.send', messageId, {
    channelId: p.channelId,
    messageId,
    seq,
    threadId: p.threadId ?? null,
    recipients: Math.max(0, Number(members) - (a.role === null ? 0 : 1)),
    mentions: links.mentions,
    mentionsChannel: links.mentionChannel,
    refs: links.refs,
    files: p.fileIds?.length ?? 0,
    artifacts: p.artifactIds?.length ?? 0,
  });
  return { message, changed: true };
});
