import { z } from 'zod';
import { id } from '../../schema.js';

/**
 * What the email family answers with: a mailbox as its member sees it, a folder with counts, a thread, a message
 * (with the caller's own read state and reactions), a signature, a decision. Ids: mbx_ mailbox, fld_ folder, thr_
 * thread, eml_ message, eatt_ attachment, sig_ signature, mdec_ decision.
 */

export const MAILBOX_ROLES = ['owner', 'reviewer', 'member', 'agent'] as const;
export const MAILBOX_POLICIES = ['review_all', 'review_external', 'review_new_contacts'] as const;
export const FOLDER_ROLES = ['inbox', 'drafts', 'sent', 'archive', 'spam', 'trash', 'none'] as const;
export const MESSAGE_STATES = ['draft', 'held', 'scheduled', 'sent', 'received', 'discarded'] as const;
export const DECISION_KINDS = ['reply', 'no_reply', 'escalate', 'decline', 'note'] as const;

/** Most recipients of one message (to, cc and bcc together). */
export const MAX_RECIPIENTS = 100;
/** Largest message, raw (25 MB): inbound beyond it is refused (SMTP 552). */
export const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

export const mailboxId = (description: string) => id('mbx', description);
export const folderId = (description: string) => id('fld', description);
export const threadId = (description: string) => id('thr', description);
export const emailId = (description: string) => id('eml', description);
export const signatureId = (description: string) => id('sig', description);
/** A member of the org: a human `usr_` or an agent `agt_`. */
export const memberId = (description: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id (usr_… or agt_…)')
    .describe(description);

export const changed = z.boolean().describe('false when the call changed nothing (its one event then has noop: true).');
export const cursor = z.string().max(400, 'must be at most 400 characters').describe('The nextCursor of the previous page.');

export const Address = z.strictObject({
  address: z.string().describe('Lower-cased.'),
  name: z.string().describe('The display name, or empty.'),
});

export const Folder = z.strictObject({
  id: z.string().describe('fld_…'),
  path: z.string().describe('Segments joined by /; system folders are named after their role.'),
  role: z.enum(FOLDER_ROLES).describe('A system folder (inbox, drafts, sent, archive, spam, trash) or none.'),
  threads: z.number().int().describe('Threads with a message here.'),
  unread: z.number().int().describe('Received messages here you have not read (your own read state).'),
});

export const Mailbox = z.strictObject({
  id: z.string().describe('mbx_…'),
  address: z.string(),
  displayName: z.string(),
  role: z.enum(MAILBOX_ROLES).describe('Your role in it.'),
  policy: z.enum(MAILBOX_POLICIES).describe("Which agent mail waits for a human's review before it leaves."),
  undoSeconds: z.number().int().describe('The undo window of a send.'),
  hold: z.boolean().describe('Agent mail from it is held (holdReplies).'),
  triageAs: z
    .string()
    .nullable()
    .describe(
      'The agent seat the background triage runs as: Inbox threads with new mail are triaged a short while after it arrives (never moved, nobody assigned). null: triage runs only when called (email.triage, email.triageNow). The operator sets it (npm run cli -- mailbox-triage).',
    ),
  members: z.array(z.strictObject({ principalId: z.string(), role: z.enum(MAILBOX_ROLES) })),
  folders: z.array(Folder),
  delivery: z.enum(['relay', 'outbox']).describe('relay: mail leaves by SMTP; outbox: no relay is configured, external mail is kept as .eml, never sent.'),
});

export const Triage = z.strictObject({
  category: z.string().nullable(),
  priority: z.enum(['low', 'normal', 'high', 'urgent']).nullable(),
  needsReply: z.boolean(),
});

export const Thread = z.strictObject({
  id: z.string().describe('thr_…'),
  mailboxId: z.string(),
  subject: z.string(),
  participants: z.array(z.string()).describe('Addresses seen on the thread.'),
  messageCount: z.number().int(),
  unread: z.number().int().describe('Its received messages you have not read.'),
  lastMessageAt: z.string(),
  snippet: z.string().describe('The start of its newest message, quoted text left out.'),
  assigneeId: z.string().nullable().describe('Who answers it (email.delegate).'),
  triage: Triage,
  hold: z.boolean().describe('Agent replies on it are held (holdReplies).'),
});

export const Attachment = z.strictObject({
  id: z.string().describe('eatt_…'),
  filename: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  inline: z.boolean(),
});

export const Reaction = z.strictObject({ emoji: z.string(), count: z.number().int(), mine: z.boolean() });

export const DELIVERIES = ['sent', 'internal', 'outboxed', 'deferred', 'failed', 'bounced'] as const;

export const Submission = z.strictObject({
  id: z.string().describe('sub_…'),
  sendAt: z.string().describe('When it leaves; undoSend takes it back until then.'),
  undoStatus: z.enum(['pending', 'final', 'canceled']).describe('pending: still in the undo window; final: it left; canceled: undone.'),
  delivery: z
    .enum(DELIVERIES)
    .nullable()
    .describe(
      'null until it leaves. sent: the relay took it; internal: delivered to mailboxes of the org; outboxed: NOT delivered, no relay is configured (kept as an .eml file); deferred: the relay answered 4xx, retried for 24 h; failed: not delivered.',
    ),
  error: z.string().nullable().describe('What went wrong, for anything short of delivery.'),
});

export const Message = z.strictObject({
  id: z.string().describe('eml_…'),
  mailboxId: z.string(),
  threadId: z.string(),
  folderId: z.string(),
  state: z.enum(MESSAGE_STATES),
  rfcMessageId: z.string().describe('Its Message-ID, without angle brackets.'),
  inReplyTo: z.string().nullable(),
  references: z.array(z.string()),
  from: Address.nullable().describe('null on a draft (the mailbox sends it).'),
  to: z.array(Address),
  cc: z.array(Address),
  bcc: z.array(Address),
  subject: z.string(),
  text: z.string().describe('The plain text (in email.thread: the new part, quoted text cut into quoted).'),
  quoted: z.string().nullable().optional().describe('email.thread: the quoted text cut from text (earlier messages, collapsed); null when none.'),
  html: z.string().nullable(),
  authorId: z.string().nullable().describe('The member who wrote it; null for mail received.'),
  version: z.number().int().describe("A draft's version (email.draftSave expectedVersion)."),
  replyToMessageId: z.string().nullable(),
  fileIds: z.array(z.string()).describe('Workspace files attached to outbound mail.'),
  attachments: z.array(Attachment),
  auth: z
    .strictObject({ spf: z.string().nullable(), dkim: z.string().nullable(), dmarc: z.string().nullable() })
    .nullable()
    .describe('Inbound: the SPF, DKIM and DMARC verdicts; null for mail written here.'),
  sizeBytes: z.number().int(),
  unread: z.boolean().describe('Received and not read by you.'),
  reactions: z.array(Reaction),
  sentAt: z.string().nullable(),
  receivedAt: z.string().nullable(),
  submission: Submission.nullable().describe(
    'Outbound: its newest submission (when it leaves, whether it was delivered); null for mail received and drafts never sent.',
  ),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** A line of a list: no bodies. */
export const MessageLine = z.strictObject({
  id: z.string(),
  mailboxId: z.string(),
  threadId: z.string(),
  folderId: z.string(),
  state: z.enum(MESSAGE_STATES),
  from: Address.nullable(),
  to: z.array(Address),
  subject: z.string(),
  snippet: z.string(),
  hasAttachments: z.boolean(),
  unread: z.boolean(),
  at: z.string().describe('Received, sent, or last saved.'),
});

export const Signature = z.strictObject({
  id: z.string().describe('sig_…'),
  mailboxId: z.string(),
  principalId: z.string().nullable().describe("Whose it is; null for the mailbox's shared signature."),
  name: z.string(),
  text: z.string(),
  html: z.string().nullable(),
  isDefault: z.boolean(),
  updatedAt: z.string(),
});

export const Decision = z.strictObject({
  id: z.string().describe('mdec_…'),
  kind: z.enum(DECISION_KINDS),
  text: z.string(),
  authorId: z.string(),
  createdAt: z.string(),
});
