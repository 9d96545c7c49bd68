import { z } from 'zod';
import { replayedField } from '../../dedupe.js';
import { method } from '../../contract.js';
import { id, proofFields, text } from '../../schema.js';
import { Bookmark, Message, changed, channelId, messageId } from './shapes.js';
import { sendParams } from './send.js';

/**
 * A message's life after (or before) it is sent: scheduling, edits with revisions, the tombstone, pins, reactions,
 * channel bookmarks and polls. Every answer is the message (or bookmark) as the caller now sees it, and `changed`.
 */

export const MAX_PENDING_SCHEDULED = 100;
export const POST_AT_MIN_SECONDS = 10;
export const POST_AT_MAX_DAYS = 120;
export const MAX_REVISIONS = 50;
export const MAX_PINS = 100;
export const MAX_DISTINCT_REACTIONS = 50;
export const MAX_BOOKMARKS = 100;

const postAt = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-01T09:00:00Z' })
  .describe(`When it posts: ${POST_AT_MIN_SECONDS} seconds to ${POST_AT_MAX_DAYS} days from now.`);

const msg = messageId('The message.');
const messageResult = z.strictObject({ message: Message, changed });
const bookmarkResult = z.strictObject({ bookmark: Bookmark, changed });

export const optionId = (description: string) => id('opt', description);
export const bookmarkId = (description: string) => id('bkm', description);

export const messagingLifecycle = {
  schedule: method({
    hold: { completion: 'retry', when: "an agent's <!channel> will reach more than 20 humans" },
    summary: `Schedule a message: send's params plus postAt (${POST_AT_MIN_SECONDS} s to ${POST_AT_MAX_DAYS} days ahead). Only you see it until it posts (an agent's <!channel> reaching more than 20 humans holds for a human); at postAt it posts if you may still write there, else it fails with a reason. At most ${MAX_PENDING_SCHEDULED} pending per author. The same idempotencyId and params: changed:false.`,
    params: z.strictObject({ ...sendParams.shape, postAt, ...proofFields }),
    result: messageResult.extend({ replayed: replayedField('idempotencyId') }),
    dedupeBy: 'idempotencyId',
    events: ['messaging.message.schedule'],
    example: { channelId: 'ch_0123456789abcdef', idempotencyId: 'standup-2026-11-02', text: 'Standup in 5 minutes <!channel>', postAt: '2026-11-02T08:55:00Z' },
  }),
  edit: method({
    hold: { completion: 'retry', when: "an agent's edit adds <!channel> to a scheduled message that will reach more than 20 humans" },
    summary: `Edit your own message: new text (the old kept as a revision, the last ${MAX_REVISIONS}; mentions and task refs read again) and, while it is scheduled, postAt. The same text: changed:false.`,
    params: z.strictObject({
      messageId: msg,
      text: text({ min: 1, max: 16_000, description: 'The new text; `<@usr_…>` mentions, `<!channel>`, `<task_…>` refs.' }).optional(),
      postAt: postAt.optional().describe(`A scheduled message's new posting time (${POST_AT_MIN_SECONDS} s to ${POST_AT_MAX_DAYS} days ahead).`),
      ...proofFields,
    }),
    result: messageResult,
    events: ['messaging.message.edit'],
    example: { messageId: 'msg_0123456789abcdef', text: 'Deploy is done (edited: staging too).' },
  }),
  delete: method({
    hold: { completion: 'retry', when: "an agent deletes another member's message" },
    summary:
      "Delete a message (its author, or an owner or admin of the channel): a tombstone keeps id, seq and thread; text, revisions, reactions, votes, pin and bookmarks of it are erased. Cancels a scheduled one. An agent deleting another's message holds for a human. Already deleted: changed:false.",
    params: z.strictObject({ messageId: msg, ...proofFields }),
    result: messageResult,
    events: ['messaging.message.delete'],
    example: { messageId: 'msg_0123456789abcdef' },
  }),
  pin: method({
    summary: `Pin a posted message to its channel (members, not observers); at most ${MAX_PINS} pins per channel. Already pinned: changed:false.`,
    params: z.strictObject({ messageId: msg }),
    result: messageResult,
    events: ['messaging.message.pin'],
    example: { messageId: 'msg_0123456789abcdef' },
  }),
  unpin: method({
    summary: 'Unpin a message. Not pinned: changed:false.',
    params: z.strictObject({ messageId: msg }),
    result: messageResult,
    events: ['messaging.message.unpin'],
    example: { messageId: 'msg_0123456789abcdef' },
  }),
  react: method({
    summary: `Set or clear your reaction on a posted message (observers too): \`:shortcode:\` or one emoji; at most ${MAX_DISTINCT_REACTIONS} distinct per message. Already so: changed:false.`,
    params: z.strictObject({
      messageId: msg,
      emoji: z
        .string()
        .min(1, 'must be a :shortcode: or one emoji')
        .max(64, 'must be at most 64 characters')
        .describe('`:shortcode:` (a-z, 0-9, _ + -) or exactly one emoji.'),
      on: z.boolean().default(true).describe('true: react; false: take your reaction back.'),
    }),
    result: messageResult,
    events: ['messaging.reaction.set'],
    example: { messageId: 'msg_0123456789abcdef', emoji: ':white_check_mark:', on: true },
  }),
  bookmark: method({
    summary: `Bookmark one of: a posted message of the channel, an http(s) URL, or a file, with a title; at most ${MAX_BOOKMARKS} per channel. The same target already bookmarked: that bookmark, changed:false.`,
    params: z.strictObject({
      channelId: channelId('The channel to bookmark in.'),
      title: text({ min: 1, max: 200, description: 'What the bookmark is called.' }),
      messageId: messageId('Target: a posted message of this channel.').optional(),
      url: z
        .url({ protocol: /^https?$/, hostname: z.regexes.hostname, message: 'must be an http or https URL' })
        .max(2_000, 'must be at most 2000 characters')
        .refine((u) => u.isWellFormed() && !/[\s\u0000-\u001f\u007f]/.test(u), 'must not contain spaces or control characters (percent-encode them)')
        .describe('Target: an http or https URL.')
        .optional(),
      fileId: id('fil', 'Target: a file.').optional(),
    }),
    result: bookmarkResult,
    events: ['messaging.bookmark.add'],
    example: { channelId: 'ch_0123456789abcdef', title: 'Runbook', url: 'https://example.com/runbook' },
  }),
  unbookmark: method({
    summary: 'Remove a bookmark of a channel you write in. Already removed: changed:false.',
    params: z.strictObject({ bookmarkId: bookmarkId('The bookmark.') }),
    result: bookmarkResult,
    events: ['messaging.bookmark.remove'],
    example: { bookmarkId: 'bkm_0123456789abcdef' },
  }),
  createPoll: method({
    summary:
      'Post a poll: a message of kind poll whose text is the question, with 2-10 options; single or multiple choice, optionally anonymous (voters hidden from members), optionally closing at closesAt.',
    params: z.strictObject({
      channelId: channelId('The channel to post it in.'),
      question: text({ min: 1, max: 1_000, description: 'The question (the message text).' }),
      options: z
        .array(text({ min: 1, max: 200, description: 'An option.' }))
        .min(2, 'must hold at least 2 options')
        .max(10, 'must hold at most 10 options')
        .describe('The options, 2 to 10, each different.'),
      multiple: z.boolean().default(false).describe('Whether a ballot may hold more than one option.'),
      anonymous: z.boolean().default(false).describe('Hide who voted for what from members.'),
      closesAt: z.iso
        .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-01T17:00:00Z' })
        .describe('When voting ends (in the future, within a year); none: it stays open.')
        .optional(),
    }),
    result: messageResult,
    events: ['messaging.poll.create'],
    example: { channelId: 'ch_0123456789abcdef', question: 'Ship on Friday?', options: ['Yes', 'No', 'Next week'], multiple: false, anonymous: false },
  }),
  votePoll: method({
    summary:
      'Cast your ballot on an open poll: optionIds (one for a single-choice poll; empty takes your vote back). It replaces your earlier ballot. A closed poll: CONFLICT. The same ballot: changed:false.',
    params: z.strictObject({
      messageId: messageId("The poll's message."),
      optionIds: z
        .array(optionId('An option of the poll.'))
        .max(10, 'must hold at most 10 options')
        .describe('Your ballot: option ids of the poll (empty: no vote).'),
    }),
    result: messageResult,
    events: ['messaging.poll.vote'],
    example: { messageId: 'msg_0123456789abcdef', optionIds: ['opt_0123456789abcdef'] },
  }),
};
