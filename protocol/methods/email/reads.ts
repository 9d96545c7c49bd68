import { z } from 'zod';
import { method } from '../../contract.js';
import { limit, text } from '../../schema.js';
import { Decision, Mailbox, Message, MessageLine, Signature, Thread, cursor, emailId, folderId, mailboxId, memberId, threadId } from './shapes.js';

/**
 * The email family's reads (scope email.read). Every read sees only the mailboxes the caller is a member of: any
 * other mailbox, thread or message (or another org's) is NOT_FOUND. Read state is the caller's own.
 */

export const MAX_LIST = 100;

const Summary = z
  .strictObject({
    points: z.array(z.strictObject({ text: z.string(), quote: z.string(), cites: z.array(z.string()) })),
    openQuestions: z.array(z.string()),
  })
  .nullable()
  .describe('The stored summary (email.summarise); null until one is made.');

const Draft = z.strictObject({
  ...Message.shape,
  note: z.string().nullable().describe("A reviewer's note when the draft was returned; null otherwise."),
  collision: z.boolean().describe('Another member also has a draft on this thread.'),
});

export const emailReads = {
  mailboxes: method({
    summary: 'Your mailboxes: your role, members, policy, hold, folders with thread and unread counts, and whether mail leaves by relay or outbox.',
    params: z.strictObject({ cursor: cursor.optional(), limit: limit(MAX_LIST, 50) }),
    result: z.strictObject({ mailboxes: z.array(Mailbox), nextCursor: z.string().nullable() }),
    example: { limit: 20 },
  }),
  threads: method({
    summary: "A mailbox's threads in one folder (Inbox by default), newest activity first; optionally only those assigned to a member.",
    params: z.strictObject({
      mailboxId: mailboxId('The mailbox.'),
      folderId: folderId('The folder (default: Inbox).').optional(),
      assignee: memberId('Only threads assigned to this member.').optional(),
      cursor: cursor.optional(),
      limit: limit(MAX_LIST, 50),
    }),
    result: z.strictObject({ threads: z.array(Thread), nextCursor: z.string().nullable() }),
    example: { mailboxId: 'mbx_0123456789abcdef', limit: 50 },
  }),
  thread: method({
    summary: 'One thread: its messages oldest first (discarded drafts left out) with quoted text cut into quoted, its decisions and summary.',
    params: z.strictObject({ threadId: threadId('The thread.') }),
    result: z.strictObject({ thread: Thread, messages: z.array(Message), decisions: z.array(Decision), summary: Summary }),
    example: { threadId: 'thr_0123456789abcdef' },
  }),
  message: method({
    summary: 'One message whole: addresses, text, html, attachments, and the SPF, DKIM and DMARC verdicts of mail received.',
    params: z.strictObject({ messageId: emailId('The message.') }),
    result: z.strictObject({ message: Message }),
    example: { messageId: 'eml_0123456789abcdef' },
  }),
  messages: method({
    summary:
      'Search your mailboxes: words (websearch syntax) plus from:<text> subject:<text> has:attachment is:unread is:read before:<YYYY-MM-DD> after:<YYYY-MM-DD> in:<folder path>. Words rank by relevance; without words, newest first.',
    params: z.strictObject({
      query: text({ min: 1, max: 256, description: 'E.g. `from:acme.com is:unread invoice overdue`.' }),
      mailboxId: mailboxId('Only this mailbox.').optional(),
      cursor: cursor.optional(),
      limit: limit(MAX_LIST, 20),
    }),
    result: z.strictObject({ messages: z.array(MessageLine), nextCursor: z.string().nullable() }),
    example: { query: 'from:acme.com has:attachment invoice', limit: 20 },
  }),
  inbox: method({
    summary:
      'Your Inbox threads across every mailbox you are in, newest first: all, assigned to you, or unassigned; optionally unread or needing a reply only.',
    params: z.strictObject({
      assignee: z.enum(['anyone', 'me', 'unassigned']).default('anyone').describe('anyone (default), me, or unassigned.'),
      unreadOnly: z.boolean().default(false).describe('Only threads with mail you have not read.'),
      needsReply: z.boolean().optional().describe('Only threads triaged as needing a reply (true) or not (false).'),
      cursor: cursor.optional(),
      limit: limit(MAX_LIST, 50),
    }),
    result: z.strictObject({ threads: z.array(Thread), nextCursor: z.string().nullable() }),
    example: { assignee: 'me', unreadOnly: true },
  }),
  drafts: method({
    summary:
      "Drafts in your mailboxes (a mailbox's drafts are shared with its members), newest first; collision marks another member's draft on the same thread.",
    params: z.strictObject({
      mailboxId: mailboxId('Only this mailbox.').optional(),
      mine: z.boolean().default(false).describe('Only drafts you wrote.'),
      cursor: cursor.optional(),
      limit: limit(MAX_LIST, 50),
    }),
    result: z.strictObject({ drafts: z.array(Draft), nextCursor: z.string().nullable() }),
    example: { mine: true },
  }),
  signatures: method({
    summary: "Signatures you may use: your own in each mailbox and each mailbox's shared ones.",
    params: z.strictObject({ mailboxId: mailboxId('Only this mailbox.').optional() }),
    result: z.strictObject({ signatures: z.array(Signature) }),
    example: { mailboxId: 'mbx_0123456789abcdef' },
  }),
};
