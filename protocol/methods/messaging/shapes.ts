import { z } from 'zod';
import { id } from '../../schema.js';

/**
 * What the messaging and channel families answer with: a channel as its caller sees it, a member, a message (a
 * tombstone once deleted), its poll and reactions, a bookmark. Shared by every messaging contract and by calling,
 * whose root message and in-call chat are messages.
 */

export const CHANNEL_KINDS = ['public', 'private', 'dm', 'group'] as const;
export const CHANNEL_ROLES = ['owner', 'admin', 'member', 'observer'] as const;
export const POSTING_POLICIES = ['everyone', 'admins'] as const;
export const MESSAGE_STATUSES = ['scheduled', 'posted', 'deleted', 'failed'] as const;

export const channelId = (description: string) => id('ch', description);
export const messageId = (description: string) => id('msg', description);
/** A member of the org: a human `usr_` or an agent `agt_`. */
export const principalId = (description: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id (usr_… or agt_…)')
    .describe(description);

export const ChannelName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,79}$/, 'must be 1-80 characters of a-z, 0-9, - and _, starting with a letter or digit')
  .describe('Lower-case name, unique among live channels: a-z, 0-9, - and _, up to 80 characters.');

export const Channel = z.strictObject({
  id: z.string().describe('ch_…'),
  kind: z.enum(CHANNEL_KINDS),
  name: z.string().nullable().describe('public and private channels; null for a DM or group conversation.'),
  title: z.string().nullable().describe("A group conversation's title."),
  topic: z.string(),
  postingPolicy: z.enum(POSTING_POLICIES).describe('everyone: any member but observers posts; admins: owners and admins only.'),
  archived: z.boolean(),
  memberCount: z.number().int(),
  lastSeq: z.number().int().describe('The seq of its latest posted message (0: none yet).'),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  membership: z
    .strictObject({
      role: z.enum(CHANNEL_ROLES),
      lastReadSeq: z.number().int().describe('Everything at or below this seq is read.'),
      unreadCount: z.number().int().describe('Posted messages above lastReadSeq, counted from the rows (deletes never skew it).'),
      mentionCount: z.number().int().describe('Unread messages that mention the caller or the channel.'),
    })
    .nullable()
    .describe("The caller's membership; null when the caller reads a public channel without being in it."),
});

export const ChannelMember = z.strictObject({
  principalId: z.string(),
  role: z.enum(CHANNEL_ROLES),
  lastReadSeq: z.number().int(),
  addedBy: z.string(),
  addedAt: z.string(),
});

export const Reaction = z.strictObject({
  emoji: z.string().describe('`:shortcode:` or one emoji.'),
  count: z.number().int(),
  me: z.boolean().describe('Whether the caller reacted so.'),
  principalIds: z.array(z.string()).describe('Who reacted so, earliest first.'),
});

export const PollOption = z.strictObject({
  id: z.string().describe('opt_…'),
  text: z.string(),
  votes: z.number().int(),
  voterIds: z.array(z.string()).nullable().describe('Who voted for it; null in an anonymous poll.'),
});

export const Poll = z.strictObject({
  multiple: z.boolean().describe('Whether a ballot may hold more than one option.'),
  anonymous: z.boolean().describe('Voters hidden from members (the ledger still counts ballots, never their options).'),
  closesAt: z.string().nullable(),
  closed: z.boolean(),
  options: z.array(PollOption),
  myVote: z.array(z.string()).describe("The caller's ballot: option ids (empty: none)."),
  voterCount: z.number().int(),
});

export const Message = z.strictObject({
  id: z.string().describe('msg_…'),
  channelId: z.string(),
  seq: z.number().int().nullable().describe('Its place in the channel, given when posted; null while scheduled.'),
  authorId: z.string(),
  kind: z.enum(['message', 'call', 'poll']).describe("call: a call's root message; poll: the question of a poll."),
  status: z.enum(MESSAGE_STATUSES).describe('deleted: a tombstone (id, seq and thread kept; no text).'),
  text: z.string().nullable().describe('null once deleted.'),
  threadId: z.string().nullable().describe("The thread's root message, for a reply."),
  alsoToChannel: z.boolean().describe('A reply also shown in the channel.'),
  replyCount: z.number().int().describe('Posted replies, for a root message.'),
  mentions: z.array(z.string()).describe('Members mentioned with <@usr_…> or <@agt_…>.'),
  mentionsChannel: z.boolean().describe('Whether it says <!channel>.'),
  fileIds: z.array(z.string()),
  artifactIds: z.array(z.string()),
  refs: z.array(z.string()).describe('Board tasks named as <task_…>, checked at send.'),
  reactions: z.array(Reaction),
  pinned: z.boolean(),
  poll: Poll.nullable(),
  postAt: z.string().nullable().describe('When a scheduled message posts.'),
  postedAt: z.string().nullable(),
  editedAt: z.string().nullable(),
  deletedAt: z.string().nullable(),
  failure: z.string().nullable().describe('Why a scheduled message failed to post.'),
  createdAt: z.string(),
});

export const Bookmark = z.strictObject({
  id: z.string().describe('bkm_…'),
  channelId: z.string(),
  title: z.string(),
  messageId: z.string().nullable(),
  url: z.string().nullable(),
  fileId: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
});

/** Every M answer says whether the call changed anything (false: it found it already so; its event says noop). */
export const changed = z.boolean().describe('false when the call found it already so (its event says noop).');
