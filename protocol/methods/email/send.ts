import { z } from 'zod';
import { method } from '../../contract.js';
import { id, limit, text } from '../../schema.js';
import { Address, MAX_RECIPIENTS, Message, Submission, changed, cursor, emailId, mailboxId, threadId } from './shapes.js';

export { DELIVERIES, Submission } from './shapes.js';

/**
 * The email family's sending and review (scope email.write; approvals email.read). An agent's message that the gate
 * holds waits for a human of the mailbox (owner or reviewer) in an approval of subject kind email.outbound; humans'
 * mail is never held. A send leaves after its undo window (the mailbox's undoSeconds, or sendAt) through the
 * delivery job; until then undoSend takes it back. Events carry ids, counts, statuses, reason codes and hashes:
 * never an address, subject, body or note.
 */

export const REVIEW_REASONS = [
  'external_recipient',
  'new_contact',
  'review_all',
  'many_recipients',
  'attachments',
  'redirect_outside',
  'dmarc_failed_reply',
  'mailbox_hold',
  'thread_hold',
  'hourly_cap',
] as const;
export const REVIEW_STATUSES = ['pending', 'approved', 'returned', 'withdrawn', 'expired'] as const;
/** Most reviews one approveAll decides. */
export const MAX_APPROVE_ALL = 50;
export const MAX_UNDO_SECONDS = 300;

const recipient = z.string().max(320, 'must be at most 320 characters').describe('An address, optionally with a name: `a@b.com` or `Ann Lee <a@b.com>`.');
const recipients = (description: string) => z.array(recipient).max(MAX_RECIPIENTS, `must list at most ${MAX_RECIPIENTS} recipients`).describe(description);
const approvalId = (description: string) => id('apr', description);
const sendAt = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-01T09:00:00Z' })
  .describe('Send later: the undo window lasts until then (at most 30 days ahead). Default: now plus the undo window.');
const undoSeconds = z
  .number()
  .int('must be an integer')
  .min(0, 'must be >= 0')
  .max(MAX_UNDO_SECONDS, `must be at most ${MAX_UNDO_SECONDS}`)
  .describe("Seconds to take it back with undoSend (default: the mailbox's undoSeconds).");
const allowDuplicate = z
  .boolean()
  .default(false)
  .describe('Send even though the same content went to the same recipients in the last 10 minutes (otherwise CONFLICT).');

export const Reason = z.strictObject({
  code: z.enum(REVIEW_REASONS).describe('Why the gate held it.'),
  text: z.string().describe('The reason in words.'),
});

export const ReviewRef = z.strictObject({
  approvalId: z.string().describe('apr_…: the review, decided by a human of the mailbox (email.approve, or the approval inbox).'),
  reasons: z.array(Reason),
  expiresAt: z.string().describe('Undecided by then, the message goes back to draft.'),
  deciders: z.array(z.string()).describe('Who may decide it: the owners and reviewers of the mailbox.'),
});

export const SendResult = z.strictObject({
  status: z
    .enum(['scheduled', 'held_for_review', 'sent'])
    .describe('scheduled: it leaves at submission.sendAt; held_for_review: NOT sent, a human decides; sent: it already left (a no-op).'),
  message: Message,
  submission: Submission.nullable(),
  review: ReviewRef.nullable(),
  note: z.string().describe('What happened and what to do next, in words.'),
  changed,
});

export const Review = z.strictObject({
  approvalId: z.string(),
  status: z.enum(REVIEW_STATUSES),
  kind: z.enum(['send', 'redirect']),
  mailboxId: z.string(),
  threadId: z.string(),
  messageId: z.string(),
  requestedBy: z.string().describe('The agent whose mail it is.'),
  requestedAt: z.string(),
  expiresAt: z.string(),
  reasons: z.array(Reason),
  from: Address,
  to: z.array(Address).describe('Recipients (a redirect: where it is redirected).'),
  cc: z.array(Address),
  bcc: z.array(Address),
  subject: z.string(),
  snippet: z.string().describe('The start of the text, quoted text left out.'),
  fileIds: z.array(z.string()),
  payloadHash: z.string().describe('SHA-256 of the content as held (the approval binds it).'),
  releasedHash: z.string().nullable().describe('SHA-256 of the content released, when a human amended it.'),
  amended: z.array(z.string()).describe('Fields a human changed before releasing.'),
  note: z.string().nullable().describe("The reviewer's note (a returned message carries it back to its author)."),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  mayDecide: z.boolean().describe('You may approve, amend or return it now.'),
});

export const Changes = z
  .strictObject({
    to: recipients('New To.').optional(),
    cc: recipients('New Cc.').optional(),
    bcc: recipients('New Bcc.').optional(),
    subject: z.string().max(998, 'must be at most 998 characters').optional(),
    text: z.string().max(500_000, 'must be at most 500000 characters').optional(),
    html: z.string().max(500_000, 'must be at most 500000 characters').nullable().optional(),
  })
  .refine((c) => Object.keys(c).length > 0, 'must change at least one of to, cc, bcc, subject, text, html')
  .describe('The fields to change before it leaves; the others stay.');

export const emailSend = {
  send: method({
    summary:
      "Write and send a message in one call (mailboxId, or replyToMessageId for a threaded reply). It leaves after the undo window (undoSeconds, or at sendAt): status scheduled. An agent's message the gate holds (a recipient outside the org, more than 20 recipients, files going out, a reply to DMARC-failed mail, a hold, the hourly cap) is NOT sent: status held_for_review, a human of the mailbox decides; do not send it again. The same content to the same recipients within 10 minutes: CONFLICT unless allowDuplicate.",
    params: z.strictObject({
      mailboxId: mailboxId('The mailbox it is sent from.').optional(),
      replyToMessageId: emailId('A reply to this message (Re:, In-Reply-To, References; addressed to its sender unless to is given).').optional(),
      to: recipients('To.').optional(),
      cc: recipients('Cc.').optional(),
      bcc: recipients('Bcc.').optional(),
      subject: z.string().max(998, 'must be at most 998 characters').describe('Subject (a reply defaults to Re: and the original subject).').optional(),
      text: z.string().max(500_000, 'must be at most 500000 characters').describe('The plain text body.').optional(),
      html: z.string().max(500_000, 'must be at most 500000 characters').nullable().describe('An HTML body, or null.').optional(),
      fileIds: z
        .array(id('fil', 'An uploaded workspace file to attach.'))
        .max(20, 'must list at most 20 files')
        .describe('Files to attach (uploads you may read).')
        .optional(),
      sendAt: sendAt.optional(),
      undoSeconds: undoSeconds.optional(),
      allowDuplicate,
    }),
    result: SendResult,
    events: ['email.message.send', 'email.message.hold'],
    example: { mailboxId: 'mbx_0123456789abcdef', to: ['Ann Lee <ann@example.com>'], subject: 'Quote for March', text: 'Hi Ann, the quote is attached.' },
  }),
  draftSend: method({
    summary:
      'Send a draft: as send (the gate, the undo window, the duplicate guard). A draft already scheduled, held or sent is a no-op answering where it is (changed:false).',
    params: z.strictObject({ draftId: emailId('The draft.'), sendAt: sendAt.optional(), undoSeconds: undoSeconds.optional(), allowDuplicate }),
    result: SendResult,
    events: ['email.message.send', 'email.message.hold'],
    example: { draftId: 'eml_0123456789abcdef' },
  }),
  redirect: method({
    summary:
      'Redirect a message unchanged (its From, subject, body and attachments) to other recipients, with Resent-* header fields; gated like send: an agent redirecting outside the org is held for a human.',
    params: z.strictObject({
      messageId: emailId('The message to redirect (received or sent).'),
      to: z
        .array(recipient)
        .min(1, 'must list at least one recipient')
        .max(MAX_RECIPIENTS, `must list at most ${MAX_RECIPIENTS} recipients`)
        .describe('Where it goes.'),
      allowDuplicate,
    }),
    result: SendResult,
    events: ['email.message.redirect'],
    example: { messageId: 'eml_0123456789abcdef', to: ['accounts@example.com'] },
  }),
  undoSend: method({
    summary:
      'Take a message back: inside its undo window the submission is canceled; a held message is withdrawn from review. Either way it is a draft again (a redirect is discarded). Once it left: CONFLICT, it cannot be recalled. A draft: changed:false.',
    params: z.strictObject({ messageId: emailId('The message sent, scheduled or held.') }),
    result: z.strictObject({ message: Message, canceled: z.enum(['submission', 'review']).nullable(), changed }),
    events: ['email.submission.cancel'],
    example: { messageId: 'eml_0123456789abcdef' },
  }),
  holdReplies: method({
    summary:
      "Hold agent mail from a mailbox, or agent replies on one thread (until a time, or until lifted): agents' sends wait for a human, and their scheduled sends there are pulled back into review. Lifting a hold is a human's act. Already so: changed:false.",
    params: z.strictObject({
      mailboxId: mailboxId('The whole mailbox.').optional(),
      threadId: threadId('One thread.').optional(),
      hold: z.boolean().describe('true holds, false lifts the hold.'),
      until: z.iso
        .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-01T09:00:00Z' })
        .describe('With hold: the hold ends then by itself.')
        .optional(),
    }),
    result: z.strictObject({
      mailboxId: z.string(),
      threadId: z.string().nullable(),
      hold: z.boolean(),
      until: z.string().nullable(),
      pulledBack: z.array(z.string()).describe('Scheduled agent messages taken back into review (eml_…).'),
      changed,
    }),
    events: ['email.hold.set'],
    example: { threadId: 'thr_0123456789abcdef', hold: true },
  }),
  approvals: method({
    summary:
      'Reviews of agent mail in your mailboxes, newest first, with why each was held, its recipients, subject and snippet, and its expiry; an agent sees only its own.',
    params: z.strictObject({
      mailboxId: mailboxId('Only this mailbox.').optional(),
      status: z
        .enum([...REVIEW_STATUSES, 'all'])
        .default('pending')
        .describe('pending (default), approved, returned, withdrawn, expired, or all.'),
      cursor: cursor.optional(),
      limit: limit(100, 50),
    }),
    result: z.strictObject({ reviews: z.array(Review), nextCursor: z.string().nullable() }),
    example: { status: 'pending' },
  }),
  approve: method({
    summary:
      "Approve an agent's held message (an owner or reviewer of its mailbox): it is scheduled and leaves after the undo window. Approved already: changed:false. Returned, withdrawn or expired: CONFLICT.",
    params: z.strictObject({ approvalId: approvalId('The review.'), note: text({ max: 2000, description: 'For the record and the author.' }).optional() }),
    result: z.strictObject({ review: Review, message: Message, submission: Submission.nullable(), changed }),
    events: ['email.review.approve'],
    example: { approvalId: 'apr_0123456789abcdef', note: 'Fine to send.' },
  }),
  amend: method({
    summary: "Edit an agent's held message and release it (an owner or reviewer): only the amended version leaves, after the undo window.",
    params: z.strictObject({
      approvalId: approvalId('The review.'),
      changes: Changes,
      note: text({ max: 2000, description: 'For the record and the author.' }).optional(),
    }),
    result: z.strictObject({ review: Review, message: Message, submission: Submission.nullable(), changed }),
    events: ['email.review.amend'],
    example: { approvalId: 'apr_0123456789abcdef', changes: { cc: [] } },
  }),
  approveAll: method({
    summary: `Approve up to ${MAX_APPROVE_ALL} held messages at once, all or nothing: one that is not pending is CONFLICT naming it, and nothing is approved.`,
    params: z.strictObject({
      approvalIds: z
        .array(approvalId('A review.'))
        .min(1, 'must list at least one review')
        .max(MAX_APPROVE_ALL, `must list at most ${MAX_APPROVE_ALL} reviews`)
        .describe('The reviews.'),
      note: text({ max: 2000, description: 'For the record and the authors.' }).optional(),
    }),
    result: z.strictObject({ reviews: z.array(Review), submissions: z.array(Submission), changed }),
    events: ['email.review.approve_all'],
    example: { approvalIds: ['apr_0123456789abcdef', 'apr_0123456789abcdeg'] },
  }),
  return: method({
    summary: "Send an agent's held message back to it as a draft with your note (an owner or reviewer): nothing leaves. Returned already: changed:false.",
    params: z.strictObject({
      approvalId: approvalId('The review.'),
      note: text({ min: 1, max: 2000, description: 'What to change: the author reads it on the draft.' }),
    }),
    result: z.strictObject({ review: Review, message: Message, changed }),
    events: ['email.review.return'],
    example: { approvalId: 'apr_0123456789abcdef', note: 'Drop the discount line, then send again.' },
  }),
};
