import { ApiError, badRequest, conflict } from '../../protocol/errors.js';
import { BROADCAST_HUMANS } from '../../protocol/methods/messaging/core.js';
import { MAX_PENDING_SCHEDULED, POST_AT_MAX_DAYS, POST_AT_MIN_SECONDS, messagingLifecycle as c } from '../../protocol/methods/messaging/lifecycle.js';
import { proofFields } from '../../protocol/schema.js';
import { actionClassOf } from '../../protocol/contract.js';
import { one, type Queryable } from '../../db/types.js';
import { paramsHash } from '../../ledger/idempotency.js';
import { channelAccess, managesChannel, type ChannelRole } from './channel/access.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { defineJob } from '../jobs/define.js';
import { getMembers } from '../people/index.js';
import { getMessage } from './model.js';
import { nextSeq } from './post.js';
import { checkPostingPolicy, checkThread, humansReached, sameIdempotencyId } from './send.js';
import { checkFiles, readText } from './text.js';
import { attachEmbeds, checkEmbeds } from './embeds.js';
import { shapeOf } from './writes.js';

/*
 * messaging.schedule and the job that posts a scheduled message. The row waits as status scheduled (its author's
 * alone) with post_at; one pg-boss job per (message, postAt), enqueued in the call's transaction with startAfter =
 * postAt. The job posts only a row still scheduled for exactly that postAt, so an edit of postAt (a new job) or a
 * delete leaves the old job nothing to do, and two jobs of one row post it once. At posting time the author's
 * right to write is checked again: lost, the message fails with the reason.
 */

export const POST_SCHEDULED_JOB = 'messaging.postScheduled';
const PROOF_FIELDS = Object.keys(proofFields);

/** postAt as a Date, or BAD_REQUEST unless it is 10 s to 120 days from the clock's now. */
export function checkPostAt(postAt: string, now: Date): Date {
  const at = new Date(postAt);
  const ahead = at.getTime() - now.getTime();
  if (ahead < POST_AT_MIN_SECONDS * 1000) throw badRequest('postAt', `must be at least ${POST_AT_MIN_SECONDS} seconds from now (now is ${now.toISOString()})`);
  if (ahead > POST_AT_MAX_DAYS * 86_400_000) throw badRequest('postAt', `must be at most ${POST_AT_MAX_DAYS} days from now`);
  return at;
}

/** Enqueue the posting of `messageId` at `postAt` (with the call's event; before emit). */
export function schedulePosting(ctx: HandlerCtx, messageId: string, postAt: Date): void {
  ctx.schedule(POST_SCHEDULED_JOB, { messageId, postAt: postAt.toISOString() }, { startAfter: postAt });
}

/**
 * An agent's `<!channel>` that will reach more than 20 humans holds for a human, as messaging.send's does; the
 * class is the calling method's own (the signature law binds one class to one method).
 */
export async function broadcastHold(ctx: HandlerCtx, channelId: string, params: Record<string, unknown>, act: string): Promise<string | null> {
  if (ctx.principal.kind !== 'agent') return null;
  const humans = await humansReached(ctx.q, ctx.orgId, channelId, ctx.principal.id);
  if (humans <= BROADCAST_HUMANS) return null;
  const proof = await ctx.requireSignature({
    actionClass: actionClassOf(ctx.method.name),
    subjectId: channelId,
    summary: `${act} that notifies everyone in channel ${channelId} (<!channel>) when it posts: ${humans} people`,
    params,
  });
  return proof.approvalId;
}

export const schedule = handler(c.schedule, async (ctx, p) => {
  if (p.alsoToChannel !== undefined && p.threadId === undefined) throw badRequest('alsoToChannel', 'only with threadId (a reply also shown in the channel)');
  const now = ctx.deps.clock.now();
  const postAt = checkPostAt(p.postAt, now);
  const me = ctx.principal.id;
  const a = await channelAccess(ctx.q, ctx.orgId, p.channelId, me, 'write', { lock: true });
  const hash = paramsHash({ method: 'messaging.schedule', ...p }, PROOF_FIELDS);
  const existing = await sameIdempotencyId(ctx.q, ctx.orgId, p.channelId, p.idempotencyId, me, hash, 'schedule');
  if (existing) {
    const shape = await shapeOf(ctx, existing.message_id);
    await ctx.emit('messaging.message.schedule', existing.message_id, {
      channelId: p.channelId,
      messageId: existing.message_id,
      status: existing.status,
      noop: true,
    });
    return { message: shape, changed: false, replayed: true };
  }
  checkPostingPolicy(a);
  if (p.threadId !== undefined) await checkThread(ctx.q, ctx.orgId, p.channelId, p.threadId);
  const links = await readText(ctx.q, ctx.orgId, p.text);
  await checkFiles(ctx.q, ctx.orgId, ctx.principal, p.fileIds);
  await checkEmbeds(ctx.deps, ctx.q, ctx.orgId, ctx.principal, p);
  // Per author, across channels: one author's schedules queue behind each other, so the count holds.
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('messaging.schedule:' || $1 || ':' || $2))`, [ctx.orgId, me]);
  const { n: pending } = one(
    await ctx.q.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE org_id = $1 AND author_id = $2 AND status = 'scheduled'`, [ctx.orgId, me]),
  );
  if (Number(pending) >= MAX_PENDING_SCHEDULED) {
    throw conflict(`you have ${MAX_PENDING_SCHEDULED} scheduled messages pending, the most allowed: wait for some to post, or delete some (messaging.delete)`);
  }
  const approvalId = links.mentionChannel ? await broadcastHold(ctx, p.channelId, p, 'Schedule a message') : null;
  const messageId = newId('msg');
  await ctx.q.query(
    `INSERT INTO messages (org_id, message_id, channel_id, author_id, status, text, thread_id, also_to_channel, mentions, mention_channel,
                             file_ids, artifact_ids, refs, kind, idempotency_id, params_hash, post_at, created_at)
       VALUES ($1, $2, $3, $4, 'scheduled', $5, $6, $7, $8::text[], $9, $10::text[], $11::text[], $12::text[], 'message', $13, $14, $15, $16)`,
    [
      ctx.orgId,
      messageId,
      p.channelId,
      me,
      p.text,
      p.threadId ?? null,
      p.alsoToChannel ?? false,
      links.mentions,
      links.mentionChannel,
      p.fileIds ?? [],
      p.artifactIds ?? [],
      links.refs,
      p.idempotencyId,
      hash,
      postAt.toISOString(),
      now.toISOString(),
    ],
  );
  schedulePosting(ctx, messageId, postAt);
  const shape = await shapeOf(ctx, messageId);
  await ctx.emit('messaging.message.schedule', messageId, {
    channelId: p.channelId,
    messageId,
    status: 'scheduled',
    postAt: postAt.toISOString(),
    threadId: p.threadId ?? null,
    mentions: links.mentions.length,
    mentionsChannel: links.mentionChannel,
    refs: links.refs.length,
    files: p.fileIds?.length ?? 0,
    artifacts: p.artifactIds?.length ?? 0,
    pending: Number(pending) + 1,
    ...(approvalId ? { approvalId } : {}),
  });
  return { message: shape, changed: true };
});

/** Why the author may no longer post a message in the channel, as a code for the ledger and words for the author; null if it may. */
async function postingRefusal(q: Queryable, orgId: string, channelId: string, authorId: string): Promise<{ code: string; text: string } | null> {
  let role: ChannelRole | null;
  let archived: boolean;
  let policy: string;
  try {
    // Locks the channel row first (the writers' order): the seq is taken under it.
    const a = await channelAccess(q, orgId, channelId, authorId, 'read', { lock: true });
    role = a.role;
    archived = a.channel.archived_at !== null;
    policy = a.channel.posting_policy;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return { code: 'not_a_member', text: `the author is no longer in ${channelId}` };
    throw err;
  }
  const [author] = await getMembers(q, orgId, [authorId]);
  if (!author || author.status !== 'active') return { code: 'author_inactive', text: `the author is ${author?.status ?? 'gone'}, no longer active in the org` };
  if (role === null) return { code: 'not_a_member', text: `the author is no longer in ${channelId}` };
  if (archived) return { code: 'archived', text: `${channelId} was archived` };
  if (role === 'observer') return { code: 'observer', text: `the author is now an observer of ${channelId} (observers do not post)` };
  if (policy === 'admins' && !managesChannel(role)) return { code: 'posting_policy', text: `only owners and admins post in ${channelId} now` };
  return null;
}

export interface PostScheduledData {
  [key: string]: string;
  messageId: string;
  postAt: string;
}

const sameInstant = (a: string | Date | null, b: string) => a !== null && new Date(a).getTime() === new Date(b).getTime();

export const postScheduled = defineJob<PostScheduledData>({
  name: POST_SCHEDULED_JOB,
  retryLimit: 5,
  retryDelaySeconds: 5,
  retryBackoff: true,
  expireInSeconds: 60,
  events: ['messaging.message.deliver', 'messaging.message.fail'],
  async run(ctx, data) {
    const [peek] = await ctx.q.query<{ channel_id: string; author_id: string; status: string; post_at: string | Date | null }>(
      'SELECT channel_id, author_id, status, post_at FROM messages WHERE org_id = $1 AND message_id = $2',
      [ctx.orgId, data.messageId],
    );
    if (!peek || peek.status !== 'scheduled' || !sameInstant(peek.post_at, data.postAt)) return; // moved on: nothing to do
    const channelId = peek.channel_id;
    const refusal = await postingRefusal(ctx.q, ctx.orgId, channelId, peek.author_id);
    const message = await getMessage(ctx.q, ctx.orgId, data.messageId, { lock: true });
    // Re-read under the locks: another run, an edit or a delete may have come first.
    if (message.status !== 'scheduled' || !sameInstant(message.post_at, data.postAt)) return;
    const ids = { channelId, messageId: data.messageId, authorId: message.author_id };
    const now = ctx.deps.clock.now().toISOString();
    if (refusal) {
      await ctx.q.query(`UPDATE messages SET status = 'failed', failure = $3 WHERE org_id = $1 AND message_id = $2`, [ctx.orgId, data.messageId, refusal.text]);
      await ctx.emit('messaging.message.fail', data.messageId, { ...ids, status: 'failed', reason: refusal.code });
      return;
    }
    const seq = await nextSeq(ctx.q, ctx.orgId, channelId);
    await ctx.q.query(`UPDATE messages SET status = 'posted', seq = $3, posted_at = $4 WHERE org_id = $1 AND message_id = $2`, [
      ctx.orgId,
      data.messageId,
      seq,
      now,
    ]);
    // Embeds still embeddable are posted with it (one posted meanwhile in another message is skipped).
    const embed = { authorId: message.author_id, artifactIds: message.artifact_ids, channelId, messageId: data.messageId, at: now, strict: false };
    await attachEmbeds(ctx.deps, ctx.q, ctx.orgId, embed);
    const { n: members } = one(
      await ctx.q.query<{ n: number }>('SELECT count(*)::int AS n FROM channel_members WHERE org_id = $1 AND channel_id = $2 AND removed_at IS NULL', [
        ctx.orgId,
        channelId,
      ]),
    );
    await ctx.emit('messaging.message.deliver', data.messageId, {
      ...ids,
      status: 'posted',
      seq,
      threadId: message.thread_id,
      recipients: Math.max(0, Number(members) - 1),
      mentions: message.mentions,
      mentionsChannel: message.mention_channel,
      refs: message.refs,
      files: message.file_ids.length,
      artifacts: message.artifact_ids.length,
    });
  },
});
