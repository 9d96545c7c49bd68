import { z } from 'zod';
import { method } from '../contract.js';
import { text } from '../schema.js';
import { CHANNEL_ROLES, Channel, ChannelMember, ChannelName, POSTING_POLICIES, changed, channelId, messageId, principalId } from './messaging/shapes.js';

/**
 * Channels: public and private named channels, group conversations and DMs, their members and roles, and each
 * member's one read marker. Unread and mention counts are read from the message rows, never stored.
 */

export const MAX_CHANNEL_MEMBERS_AT_CREATE = 1000;
export const MAX_TOPIC = 250;
export const MAX_TITLE = 80;

const ch = channelId('The channel (ch_…).');
const topic = text({ max: MAX_TOPIC, description: 'What the channel is about, up to 250 characters (any member may change it).' });
const title = text({ min: 1, max: MAX_TITLE, description: "A group conversation's title, up to 80 characters." });
const postingPolicy = z.enum(POSTING_POLICIES).describe('everyone: any member but observers posts; admins: owners and admins only.');
const distinctIds = (min: number, max: number, description: string) =>
  z
    .array(principalId('A member of the org (usr_… or agt_…).'))
    .min(min, `must list at least ${min}`)
    .max(max, `must list at most ${max}`)
    .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id')
    .describe(description);

const readMarks = {
  lastReadSeq: z.number().int().describe("The caller's read marker: everything at or below this seq is read."),
  unreadCount: z.number().int().describe('Posted messages by others above the marker, counted from the rows.'),
  mentionCount: z.number().int().describe('Of those, the ones that mention the caller or the channel.'),
};

export const channel = {
  create: method({
    summary: 'Create a public or private named channel; you become its owner and memberIds its members. A name already taken by a live channel is CONFLICT.',
    params: z.strictObject({
      name: ChannelName,
      private: z.boolean().default(false).describe('Private: visible only to its members (others get NOT_FOUND).'),
      topic: topic.optional(),
      postingPolicy: postingPolicy.default('everyone'),
      memberIds: distinctIds(0, MAX_CHANNEL_MEMBERS_AT_CREATE, 'Members to add besides you, up to 1000.').default([]),
    }),
    result: z.strictObject({ channel: Channel, changed }),
    events: ['channel.channel.create'],
    example: { name: 'deploys', private: false, topic: 'Release train', memberIds: ['usr_0123456789abcdef'] },
  }),
  createConversation: method({
    summary: 'Start a private group conversation with 2 to 49 others (no name; an optional title). Any member may add others; you become its owner.',
    params: z.strictObject({
      principalIds: distinctIds(2, 49, 'The others in it (2-49), besides you.'),
      title: title.optional(),
    }),
    result: z.strictObject({ channel: Channel, changed }),
    events: ['channel.conversation.create'],
    example: { principalIds: ['usr_0123456789abcdef', 'agt_0123456789abcdef'], title: 'Launch prep' },
  }),
  resolveOrCreateDm: method({
    summary:
      'The one DM between you and principalIds (0-8 others; none: a DM with yourself), created if it does not exist yet (an existing one: changed:false).',
    params: z.strictObject({
      principalIds: distinctIds(0, 8, 'The others in the DM (0-8), besides you.'),
    }),
    result: z.strictObject({ channel: Channel, changed }),
    events: ['channel.dm.resolve'],
    example: { principalIds: ['usr_0123456789abcdef'] },
  }),
  addMember: method({
    summary:
      'Add a member. Public channel: any member, or anyone adding themselves; private: owners and admins; group: any member; a DM never (CONFLICT). Already a member: changed:false.',
    params: z.strictObject({
      channelId: ch,
      principalId: principalId('Who to add (yourself to join a public channel).'),
      role: z
        .enum(['member', 'observer'])
        .default('member')
        .describe('member, or observer (reads and reacts only). Owners and admins are made with updateMemberRole.'),
    }),
    result: z.strictObject({ member: ChannelMember, changed }),
    events: ['channel.member.add'],
    example: { channelId: 'ch_0123456789abcdef', principalId: 'usr_0123456789abcdef' },
  }),
  removeMember: method({
    summary:
      "Remove a member: yourself, or others if you are an owner or admin. Removing the last owner is CONFLICT (make another owner first); a DM's members are fixed. Not a member: changed:false.",
    params: z.strictObject({
      channelId: ch,
      principalId: principalId('Who to remove (yourself to leave).'),
    }),
    result: z.strictObject({ changed }),
    events: ['channel.member.remove'],
    example: { channelId: 'ch_0123456789abcdef', principalId: 'usr_0123456789abcdef' },
  }),
  update: method({
    summary:
      'Change a channel: topic by any member; name, title, postingPolicy and archived by an owner or admin. An archived channel takes only archived:false. Nothing different: changed:false.',
    params: z.strictObject({
      channelId: ch,
      name: ChannelName.optional().describe('New name (public and private channels), unique among live channels.'),
      title: title.optional().describe('New title (group conversations).'),
      topic: topic.optional(),
      postingPolicy: postingPolicy.optional(),
      archived: z.boolean().describe('true archives (read-only, its name free for a new channel); false unarchives. Never a DM.').optional(),
    }),
    result: z.strictObject({ channel: Channel, changed }),
    events: ['channel.channel.update'],
    example: { channelId: 'ch_0123456789abcdef', topic: 'Release train: Tuesdays' },
  }),
  updateMemberRole: method({
    summary:
      "Change a member's role (owner, admin, member, observer), by an owner or admin; only owners grant or take owner and admin. Demoting the last owner is CONFLICT. Same role: changed:false.",
    params: z.strictObject({
      channelId: ch,
      principalId: principalId('The member whose role changes.'),
      role: z.enum(CHANNEL_ROLES).describe('The new role.'),
    }),
    result: z.strictObject({ member: ChannelMember, changed }),
    events: ['channel.member.change_role'],
    example: { channelId: 'ch_0123456789abcdef', principalId: 'usr_0123456789abcdef', role: 'admin' },
  }),
  markRead: method({
    summary:
      "Move your read marker forward to seq (default the channel's lastSeq). Older than your marker: changed:false; past lastSeq: BAD_REQUEST. Debounce it: each call appends an event.",
    params: z.strictObject({
      channelId: ch,
      seq: z
        .number()
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(Number.MAX_SAFE_INTEGER)
        .describe('Read up to and including this seq (default the latest).')
        .optional(),
    }),
    result: z.strictObject({ ...readMarks, changed }),
    events: ['channel.read.mark'],
    example: { channelId: 'ch_0123456789abcdef', seq: 42 },
  }),
  markUnreadFrom: method({
    summary: 'Mark a message and everything after it unread: your marker moves to its seq minus 1 (back or forward).',
    params: z.strictObject({
      messageId: messageId('The first message to show as unread (posted, in a channel you are in).'),
    }),
    result: z.strictObject({ ...readMarks, changed }),
    events: ['channel.read.unmark'],
    example: { messageId: 'msg_0123456789abcdef' },
  }),
};
