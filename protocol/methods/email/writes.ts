import { z } from 'zod';
import { method } from '../../contract.js';
import { id, int32, text } from '../../schema.js';
import {
  DECISION_KINDS,
  Decision,
  Folder,
  MAX_RECIPIENTS,
  Message,
  Reaction,
  Signature,
  Thread,
  changed,
  emailId,
  folderId,
  mailboxId,
  memberId,
  signatureId,
  threadId,
} from './shapes.js';

/**
 * The email family's writes of slice 1 (scope email.write): drafts, and each member's acts on the mail (read state,
 * moves, folders, reactions, signatures, delegation, decisions). Nothing here sends. Every call appends one event
 * of ids, counts and hashes: never an address, subject, body, folder name or decision text.
 */

export const MAX_IDS = 500;
export const MAX_SUBJECT = 998;
export const MAX_BODY = 500_000;
export const MAX_PATH = 200;

const recipient = z.string().max(320, 'must be at most 320 characters').describe('An address, optionally with a name: `a@b.com` or `Ann Lee <a@b.com>`.');
const recipients = (description: string) => z.array(recipient).max(MAX_RECIPIENTS, `must list at most ${MAX_RECIPIENTS} recipients`).describe(description);
/** A message or a whole thread. */
const mailRef = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(/^(eml|thr)_[A-Za-z0-9]+$/, 'must be a message (eml_…) or thread (thr_…) id');
const ids = (description: string) =>
  z.array(mailRef).min(1, 'must list at least one id').max(MAX_IDS, `must list at most ${MAX_IDS} ids`).describe(description);
const path = text({ min: 1, max: MAX_PATH, description: 'A folder path: segments joined by /, e.g. Clients/Acme.' });

export const emailWrites = {
  draftSave: method({
    summary:
      'Create a draft (mailboxId, or replyToMessageId: a reply gets Re:, In-Reply-To and References and is addressed to the sender) or save a draft again (draftId: fields given replace, others stay; expectedVersion guards against a newer save). Not a draft or a stale version: CONFLICT. The same content: changed:false.',
    params: z.strictObject({
      draftId: emailId('The draft to save again.').optional(),
      mailboxId: mailboxId('The mailbox a new draft sends from.').optional(),
      replyToMessageId: emailId('A new draft replying to this message (in the same mailbox).').optional(),
      to: recipients('To (a reply defaults to the sender, or Reply-To).').optional(),
      cc: recipients('Cc.').optional(),
      bcc: recipients('Bcc.').optional(),
      subject: z
        .string()
        .max(MAX_SUBJECT, `must be at most ${MAX_SUBJECT} characters`)
        .describe('Subject (a reply defaults to Re: and the original subject).')
        .optional(),
      text: z.string().max(MAX_BODY, `must be at most ${MAX_BODY} characters`).describe('The plain text body.').optional(),
      html: z.string().max(MAX_BODY, `must be at most ${MAX_BODY} characters`).nullable().describe('An HTML body, or null for none.').optional(),
      fileIds: z
        .array(id('fil', 'A workspace file to attach.'))
        .max(20, 'must list at most 20 files')
        .describe('Workspace files to attach (files you may read).')
        .optional(),
      expectedVersion: int32(1, 'With draftId: the version you edited; a newer one is CONFLICT.').optional(),
    }),
    result: z.strictObject({ draft: Message, changed }),
    events: ['email.draft.save'],
    example: { mailboxId: 'mbx_0123456789abcdef', to: ['Ann Lee <ann@example.com>'], subject: 'Quote for March', text: 'Hi Ann, the quote is attached.' },
  }),
  draftDiscard: method({
    summary: 'Discard a draft. Held, scheduled or sent mail is not a draft: CONFLICT. Already discarded: changed:false.',
    params: z.strictObject({ draftId: emailId('The draft.') }),
    result: z.strictObject({ draft: Message, changed }),
    events: ['email.draft.discard'],
    example: { draftId: 'eml_0123456789abcdef' },
  }),
  markRead: method({
    summary: 'Mark messages (or whole threads) read or unread for you alone: an agent reading leaves mail unread for everyone else.',
    params: z.strictObject({
      ids: ids('Messages (eml_…) or threads (thr_…), up to 500.'),
      read: z.boolean().default(true).describe('true: read; false: unread.'),
    }),
    result: z.strictObject({ updated: z.number().int().describe('Messages whose read state changed.'), changed }),
    events: ['email.message.mark_read'],
    example: { ids: ['thr_0123456789abcdef'], read: true },
  }),
  markAllRead: method({
    summary: 'Mark every message of a mailbox received up to `before` (default: now) read for you; mail arriving meanwhile stays unread.',
    params: z.strictObject({
      mailboxId: mailboxId('The mailbox.'),
      before: z.iso
        .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-01T09:00:00Z' })
        .describe('Mail received at or before this time (default: the time of the call).')
        .optional(),
    }),
    result: z.strictObject({ updated: z.number().int(), before: z.string(), changed }),
    events: ['email.mailbox.mark_all_read'],
    example: { mailboxId: 'mbx_0123456789abcdef' },
  }),
  move: method({
    summary:
      'Move messages (or threads) into a folder of their mailbox, by folderId or path (a new path creates the folder). Ids keep their value. Another mailbox: BAD_REQUEST. Agents may not move mail to Spam or Trash.',
    params: z.strictObject({
      ids: ids('Messages (eml_…) or threads (thr_…), up to 500; drafts stay in Drafts.'),
      folderId: folderId('The folder.').optional(),
      path: path.optional(),
    }),
    result: z.strictObject({ folder: Folder, moved: z.number().int(), created: z.boolean().describe('The path made a new folder.'), changed }),
    events: ['email.message.move'],
    example: { ids: ['thr_0123456789abcdef'], path: 'Clients/Acme' },
  }),
  folderRename: method({
    summary: 'Rename a folder (and the paths below it). System folders and a path already taken: CONFLICT. Owners and members only.',
    params: z.strictObject({ folderId: folderId('The folder.'), path }),
    result: z.strictObject({ folder: Folder, changed }),
    events: ['email.folder.rename'],
    example: { folderId: 'fld_0123456789abcdef', path: 'Clients/Acme Ltd' },
  }),
  folderDelete: method({
    summary: 'Delete a folder and the folders below it; their mail moves to Archive. System folders: CONFLICT. Owners and members only.',
    params: z.strictObject({ folderId: folderId('The folder.') }),
    result: z.strictObject({ deleted: z.number().int().describe('Folders deleted.'), moved: z.number().int().describe('Messages moved to Archive.'), changed }),
    events: ['email.folder.delete'],
    example: { folderId: 'fld_0123456789abcdef' },
  }),
  react: method({
    summary: 'Set or clear your reaction on a message: `:shortcode:` or one emoji. Internal: reactions are never sent. Already so: changed:false.',
    params: z.strictObject({
      messageId: emailId('The message.'),
      emoji: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').describe('`:shortcode:` or one emoji.'),
      on: z.boolean().default(true).describe('true sets it, false clears it.'),
    }),
    result: z.strictObject({ reactions: z.array(Reaction), changed }),
    events: ['email.message.react'],
    example: { messageId: 'eml_0123456789abcdef', emoji: ':thumbsup:' },
  }),
  signatureSave: method({
    summary:
      "Create or update a signature: your own in a mailbox, or (owners only) the mailbox's shared one. isDefault makes it your default there. The same content: changed:false.",
    params: z.strictObject({
      signatureId: signatureId('The signature to update.').optional(),
      mailboxId: mailboxId('With a new signature: its mailbox.').optional(),
      name: text({ min: 1, max: 80, description: 'A name to pick it by.' }),
      text: z.string().max(10_000, 'must be at most 10000 characters').describe('The plain text.'),
      html: z.string().max(50_000, 'must be at most 50000 characters').nullable().describe('An HTML version, or null.').optional(),
      shared: z.boolean().default(false).describe("With a new signature: the mailbox's shared one (owners only)."),
      isDefault: z.boolean().default(false).describe('Your default in the mailbox (one at a time).'),
    }),
    result: z.strictObject({ signature: Signature, changed }),
    events: ['email.signature.save'],
    example: { mailboxId: 'mbx_0123456789abcdef', name: 'Work', text: 'Ann Lee\nAcme Pty Ltd', isDefault: true },
  }),
  signatureDelete: method({
    summary: 'Delete a signature (yours, or a shared one as an owner). Already deleted: changed:false.',
    params: z.strictObject({ signatureId: signatureId('The signature.') }),
    result: z.strictObject({ changed }),
    events: ['email.signature.delete'],
    example: { signatureId: 'sig_0123456789abcdef' },
  }),
  delegate: method({
    summary:
      'Say who answers a thread: a member of its mailbox, or null for no one. An agent may hand on only a thread that is unassigned or its own. Already so: changed:false.',
    params: z.strictObject({ threadId: threadId('The thread.'), to: memberId('A member of the mailbox; null unassigns.').nullable() }),
    result: z.strictObject({ thread: Thread, changed }),
    events: ['email.thread.delegate'],
    example: { threadId: 'thr_0123456789abcdef', to: 'usr_0123456789abcdef' },
  }),
  logDecision: method({
    summary:
      'Record why a thread was handled as it was (reply, no_reply, escalate, decline, note); shown in email.thread. The ledger keeps only the text’s SHA-256.',
    params: z.strictObject({
      threadId: threadId('The thread.'),
      kind: z.enum(DECISION_KINDS).describe('reply, no_reply, escalate, decline or note.'),
      text: text({ min: 1, max: 4000, description: 'Why, in a few words.' }),
    }),
    result: z.strictObject({ decision: Decision, changed }),
    events: ['email.decision.log'],
    example: { threadId: 'thr_0123456789abcdef', kind: 'no_reply', text: 'Newsletter; nothing to answer.' },
  }),
};
