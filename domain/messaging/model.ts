import type { z } from 'zod';
import { ApiError, notFound } from '../../protocol/errors.js';
import type { Message, Poll, Reaction } from '../../protocol/methods/messaging/shapes.js';
import type { Queryable } from '../../db/types.js';
import { CAN_READ_CHANNEL_SQL, channelAccess, type ChannelAccess, type ChannelIntent } from './channel/access.js';

/*
 * A message row and the Message shape messaging, channel and calling answer with. messagesFor builds a page of
 * shapes in a fixed number of queries whatever the page size: one for reactions, one for reply counts, one for
 * polls (only when the page holds one). Nothing is counted in a stored counter.
 */

export type MessageStatus = 'scheduled' | 'posted' | 'deleted' | 'failed';
export type MessageKind = 'message' | 'call' | 'poll';

export interface MessageRow {
  message_id: string;
  channel_id: string;
  seq: string | number | null;
  author_id: string;
  status: MessageStatus;
  text: string | null;
  thread_id: string | null;
  also_to_channel: boolean;
  mentions: string[];
  mention_channel: boolean;
  file_ids: string[];
  artifact_ids: string[];
  refs: string[];
  kind: MessageKind;
  idempotency_id: string | null;
  params_hash: string | null;
  post_at: string | Date | null;
  posted_at: string | Date | null;
  edited_at: string | Date | null;
  pinned_at: string | Date | null;
  pinned_by: string | null;
  deleted_at: string | Date | null;
  deleted_by: string | null;
  failure: string | null;
  created_at: string | Date;
}

/** Every column of MessageRow, qualified by the alias `m`. */
export const MESSAGE_COLUMNS = `m.message_id, m.channel_id, m.seq, m.author_id, m.status, m.text, m.thread_id, m.also_to_channel, m.mentions,
  m.mention_channel, m.file_ids, m.artifact_ids, m.refs, m.kind, m.idempotency_id, m.params_hash, m.post_at, m.posted_at, m.edited_at,
  m.pinned_at, m.pinned_by, m.deleted_at, m.deleted_by, m.failure, m.created_at`;

export type MessageShape = z.infer<typeof Message>;
type PollShape = z.infer<typeof Poll>;
type ReactionShape = z.infer<typeof Reaction>;

const iso = (v: string | Date) => new Date(v).toISOString();
const isoOrNull = (v: string | Date | null) => (v === null ? null : iso(v));
export const seqOf = (v: string | number | null): number | null => (v === null ? null : Number(v));

/** The message, or NOT_FOUND (another org's id looks exactly like one that never existed). */
export async function getMessage(q: Queryable, orgId: string, messageId: string, opts: { lock?: boolean } = {}): Promise<MessageRow> {
  const [row] = await q.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.org_id = $1 AND m.message_id = $2 ${opts.lock ? 'FOR UPDATE' : ''}`,
    [orgId, messageId],
  );
  if (!row) throw notFound(`message ${messageId}`);
  return row;
}

/**
 * The message and its channel as the caller may use them: a message in a channel the caller cannot see is
 * NOT_FOUND (named as the message, so its channel is not revealed); a scheduled one is its author's alone.
 */
export async function messageAccess(
  q: Queryable,
  orgId: string,
  messageId: string,
  principalId: string,
  intent: ChannelIntent,
  opts: { lock?: boolean } = {},
): Promise<{ message: MessageRow; access: ChannelAccess }> {
  const message = await getMessage(q, orgId, messageId, opts);
  let access: ChannelAccess;
  try {
    access = await channelAccess(q, orgId, message.channel_id, principalId, 'read');
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') throw notFound(`message ${messageId}`);
    throw err;
  }
  // Never posted (scheduled, failed, or deleted before its time: no seq) is its author's alone.
  const unposted = message.status === 'scheduled' || message.status === 'failed' || (message.status === 'deleted' && message.seq === null);
  if (unposted && message.author_id !== principalId) throw notFound(`message ${messageId}`);
  // Read checked without the channel's NOT_FOUND wording; now the write rules (membership, archive, observers).
  if (intent !== 'read') access = await channelAccess(q, orgId, message.channel_id, principalId, intent);
  return { message, access };
}

/**
 * SQL: the ids among `ids` (a text[] expression) of messages `principal` may read, as `id`: the batch form of
 * messageAccess's read check (its channel readable; never posted: its author's alone).
 */
export const READABLE_MESSAGE_IDS_SQL = (org: string, principal: string, ids: string) =>
  `SELECT m.message_id AS id FROM messages m JOIN channels c ON c.org_id = m.org_id AND c.channel_id = m.channel_id
    WHERE m.org_id = ${org} AND m.message_id = ANY(${ids}) AND ${CAN_READ_CHANNEL_SQL('c', principal)}
      AND (m.author_id = ${principal} OR NOT (m.status IN ('scheduled', 'failed') OR (m.status = 'deleted' AND m.seq IS NULL)))`;

interface ReactionAgg {
  message_id: string;
  emoji: string;
  principals: string[];
}

interface PollOptionAgg {
  message_id: string;
  multiple: boolean;
  anonymous: boolean;
  closes_at: string | Date | null;
  closed: boolean;
  option_id: string | null;
  text: string | null;
  voters: string[] | null;
}

/** The Message shapes of `rows` as `viewerId` sees them, in the order given. */
export async function messagesFor(
  q: Queryable,
  orgId: string,
  rows: readonly MessageRow[],
  viewerId: string,
  opts: { now?: Date } = {},
): Promise<MessageShape[]> {
  if (rows.length === 0) return [];
  const live = rows.filter((r) => r.status !== 'deleted').map((r) => r.message_id);
  const roots = rows.filter((r) => r.thread_id === null && r.status !== 'scheduled').map((r) => r.message_id);
  const polls = rows.filter((r) => r.kind === 'poll' && r.status !== 'deleted').map((r) => r.message_id);
  const now = (opts.now ?? new Date()).toISOString();
  const [reactions, replies, pollRows] = await Promise.all([
    live.length
      ? q.query<ReactionAgg>(
          `SELECT message_id, emoji, array_agg(principal_id ORDER BY reacted_at, principal_id) AS principals
             FROM message_reactions WHERE org_id = $1 AND message_id = ANY($2::text[])
            GROUP BY message_id, emoji ORDER BY message_id, min(reacted_at), emoji`,
          [orgId, live],
        )
      : [],
    roots.length
      ? q.query<{ thread_id: string; n: number }>(
          `SELECT thread_id, count(*)::int AS n FROM messages
            WHERE org_id = $1 AND thread_id = ANY($2::text[]) AND status = 'posted' GROUP BY thread_id`,
          [orgId, roots],
        )
      : [],
    polls.length
      ? q.query<PollOptionAgg>(
          `SELECT p.message_id, p.multiple, p.anonymous, p.closes_at,
                  (p.closed_at IS NOT NULL OR (p.closes_at IS NOT NULL AND p.closes_at <= $3::timestamptz)) AS closed,
                  o.option_id, o.text,
                  array_remove(array_agg(v.principal_id ORDER BY v.voted_at, v.principal_id), NULL) AS voters
             FROM message_polls p
             LEFT JOIN message_poll_options o ON o.org_id = p.org_id AND o.message_id = p.message_id
             LEFT JOIN message_poll_votes v ON v.org_id = o.org_id AND v.option_id = o.option_id
            WHERE p.org_id = $1 AND p.message_id = ANY($2::text[])
            GROUP BY p.message_id, p.multiple, p.anonymous, p.closes_at, p.closed_at, o.option_id, o.text, o.position
            ORDER BY p.message_id, o.position`,
          [orgId, polls, now],
        )
      : [],
  ]);
  const reactionsBy = new Map<string, ReactionShape[]>();
  for (const r of reactions) {
    const list = reactionsBy.get(r.message_id) ?? [];
    list.push({ emoji: r.emoji, count: r.principals.length, me: r.principals.includes(viewerId), principalIds: r.principals });
    reactionsBy.set(r.message_id, list);
  }
  const replyCount = new Map(replies.map((r) => [r.thread_id, Number(r.n)]));
  const pollBy = toPolls(pollRows, viewerId);
  return rows.map((r) => toMessage(r, reactionsBy.get(r.message_id) ?? [], replyCount.get(r.message_id) ?? 0, pollBy.get(r.message_id) ?? null));
}

function toPolls(rows: readonly PollOptionAgg[], viewerId: string): Map<string, PollShape> {
  const out = new Map<string, PollShape & { voters: Set<string> }>();
  for (const r of rows) {
    let poll = out.get(r.message_id);
    if (!poll) {
      poll = {
        multiple: r.multiple,
        anonymous: r.anonymous,
        closesAt: isoOrNull(r.closes_at),
        closed: Boolean(r.closed),
        options: [],
        myVote: [],
        voterCount: 0,
        voters: new Set(),
      };
      out.set(r.message_id, poll);
    }
    if (r.option_id === null) continue;
    const voters = r.voters ?? [];
    for (const v of voters) poll.voters.add(v);
    if (voters.includes(viewerId)) poll.myVote.push(r.option_id);
    poll.options.push({ id: r.option_id, text: r.text ?? '', votes: voters.length, voterIds: r.anonymous ? null : voters });
  }
  const polls = new Map<string, PollShape>();
  for (const [id, { voters, ...poll }] of out) polls.set(id, { ...poll, voterCount: voters.size });
  return polls;
}

/** One row as a Message; a tombstone shows no words, reactions or poll. */
export function toMessage(r: MessageRow, reactions: ReactionShape[], replyCount: number, poll: PollShape | null): MessageShape {
  const deleted = r.status === 'deleted';
  return {
    id: r.message_id,
    channelId: r.channel_id,
    seq: seqOf(r.seq),
    authorId: r.author_id,
    kind: r.kind,
    status: r.status,
    text: deleted ? null : r.text,
    threadId: r.thread_id,
    alsoToChannel: r.also_to_channel,
    replyCount,
    mentions: deleted ? [] : (r.mentions ?? []),
    mentionsChannel: deleted ? false : r.mention_channel,
    fileIds: deleted ? [] : (r.file_ids ?? []),
    artifactIds: deleted ? [] : (r.artifact_ids ?? []),
    refs: deleted ? [] : (r.refs ?? []),
    reactions: deleted ? [] : reactions,
    pinned: !deleted && r.pinned_at !== null,
    poll: deleted ? null : poll,
    postAt: isoOrNull(r.post_at),
    postedAt: isoOrNull(r.posted_at),
    editedAt: isoOrNull(r.edited_at),
    deletedAt: isoOrNull(r.deleted_at),
    failure: r.failure,
    createdAt: iso(r.created_at),
  };
}
