import { z } from 'zod';
import { replayedField } from '../../dedupe.js';
import { method } from '../../contract.js';
import { limit, proofFields, text } from '../../schema.js';
import { Bookmark, CHANNEL_KINDS, Channel, Message, changed, channelId, messageId, principalId } from './shapes.js';
import { sendParams } from './send.js';

/**
 * The messaging core: send a message, read history (a channel, a thread, one message with its revisions, a full
 * text search, pins, your scheduled messages, bookmarks; long-polling for what comes next) and list channels
 * with the caller's unread and mention counts.
 */

export const MAX_HISTORY_LIMIT = 500;
export const MAX_WAIT_MS = 30_000;
/** A search page is ranked by db/search.ts, which pages at most this many hits. */
export const MAX_SEARCH_LIMIT = 100;
export const BROADCAST_HUMANS = 20;

const seq = (description: string) => z.number().int('must be an integer').min(0, 'must be >= 0').max(Number.MAX_SAFE_INTEGER).describe(description);
const when = (description: string) =>
  z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-01T09:00:00Z' }).describe(description);
const cursor = z.string().max(400, 'must be at most 400 characters').describe('The nextCursor of the previous page.');

const Segment = z.strictObject({ text: z.string(), match: z.boolean().describe('A word the query matched.') });

const Revision = z.strictObject({
  n: z.number().int().describe('1 is the first text; higher is later.'),
  text: z.string(),
  replacedAt: z.string().describe('When an edit replaced it.'),
});

export const messagingCore = {
  send: method({
    hold: { completion: 'retry', when: "an agent's <!channel> would reach more than 20 humans" },
    summary:
      "Post a message to a channel or, with threadId, a thread. The same idempotencyId and params again: the same message (changed:false); other params: CONFLICT. An agent's <!channel> reaching more than 20 humans holds for a human.",
    params: z.strictObject({ ...sendParams.shape, ...proofFields }),
    result: z.strictObject({ message: Message, changed, replayed: replayedField('idempotencyId') }),
    dedupeBy: 'idempotencyId',
    events: ['messaging.message.send'],
    example: { channelId: 'ch_0123456789abcdef', idempotencyId: 'deploy-1042-done', text: 'Deploy 1042 is live <@usr_0123456789abcdef>' },
  }),
  history: method({
    summary:
      'Read messages; give exactly one of channelId (newest first; before/after/around a seq; after+waitMs long-polls up to 30 s), threadId (root then replies), messageId (with revisions for its author and channel admins), query (full text over channels you may read; from/since/until; ranked with highlights), scheduled (your own). With channelId, pinned:true lists its pins and bookmarks:true its bookmarks. Deleted messages are tombstones.',
    params: z.strictObject({
      channelId: channelId('A channel: its messages newest first (or its pins, bookmarks; or the channel a query searches).').optional(),
      threadId: messageId('A thread: its root, then its replies oldest first.').optional(),
      messageId: messageId("One message, with its earlier texts (revisions) for its author and the channel's owners and admins.").optional(),
      query: text({
        min: 1,
        max: 256,
        description: 'Full text search (websearch syntax: "exact phrase", -exclude, or). Ranked, with highlights; at most 100 a page.',
      }).optional(),
      pinned: z.literal(true, { message: 'must be true' }).describe('With channelId: its pinned messages, latest pin first.').optional(),
      bookmarks: z.literal(true, { message: 'must be true' }).describe('With channelId: its bookmarks, oldest first.').optional(),
      scheduled: z.literal(true, { message: 'must be true' }).describe('Your own scheduled messages, soonest first.').optional(),
      before: seq('With channelId: messages below this seq, newest first.').optional(),
      after: seq("With channelId: messages above this seq, oldest first (a poller's cursor).").optional(),
      around: seq('With channelId: the messages around this seq, newest first (half the page each side).').optional(),
      waitMs: z
        .number()
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(MAX_WAIT_MS, `must be at most ${MAX_WAIT_MS}`)
        .describe('With after: wait up to this long (ms, at most 30,000) for a message above it.')
        .optional(),
      from: principalId('With query: only messages by this member.').optional(),
      since: when('With query: only messages posted at or after this time.').optional(),
      until: when('With query: only messages posted before this time.').optional(),
      cursor: cursor.optional(),
      limit: limit(MAX_HISTORY_LIMIT, 50),
    }),
    result: z.strictObject({
      messages: z.array(Message).describe('The page (empty for bookmarks).'),
      bookmarks: z.array(Bookmark).optional().describe("bookmarks:true: the channel's live bookmarks."),
      hits: z
        .array(z.strictObject({ messageId: z.string(), score: z.number(), highlight: z.array(Segment) }))
        .optional()
        .describe("query: each message's rank and its matched words, in the order of messages."),
      revisions: z
        .array(Revision)
        .nullable()
        .optional()
        .describe('messageId: its earlier texts, oldest first; null unless you are its author or an owner or admin of its channel.'),
      lastSeq: z.number().int().optional().describe("channelId: the channel's latest seq (a poller's next after)."),
      timedOut: z.boolean().optional().describe('after+waitMs: true when nothing came within waitMs.'),
      nextCursor: z.string().nullable(),
    }),
    example: { channelId: 'ch_0123456789abcdef', limit: 50 },
  }),
  channels: method({
    summary:
      'Channels you may see, by name: the ones you are in (default) or also every public one (membership all); filter by kinds or a name prefix; each with your unreadCount, mentionCount and lastReadSeq.',
    params: z.strictObject({
      membership: z.enum(['member', 'all']).default('member').describe('member: channels you are in; all: also the public channels you are not in.'),
      kinds: z
        .array(z.enum(CHANNEL_KINDS))
        .min(1, 'must list at least one kind')
        .max(4, 'must list at most 4 kinds')
        .describe('Only these kinds (public, private, dm, group).')
        .optional(),
      query: text({ min: 1, max: 80, description: 'Only channels whose name (or group title) starts with this, case-insensitive.' }).optional(),
      includeArchived: z.boolean().default(false).describe('Also archived channels.'),
      cursor: cursor.optional(),
      limit: limit(MAX_HISTORY_LIMIT, 100),
    }),
    result: z.strictObject({ channels: z.array(Channel), nextCursor: z.string().nullable() }),
    example: { membership: 'all', kinds: ['public', 'private'], query: 'dep', limit: 50 },
  }),
};
