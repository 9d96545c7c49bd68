import type { z } from 'zod';
import { badRequest, conflict } from '../../../protocol/errors.js';
import type { SendResult } from '../../../protocol/methods/email/send.js';
import { one, type Queryable } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import type { MailboxRow } from '../access.js';
import { mailboxesAt } from '../mailboxes.js';
import { takeAttachments, type OutgoingFile } from './attachments.js';
import { DUPLICATE_WINDOW_MS, MAX_SEND_AHEAD_MS } from './config.js';
import { contentKey, externalOf, orgDomains, recipientsOf, submissionView, type RedirectRow, type SubmissionRow } from './content.js';
import { gate } from './gate.js';
import { fileReview, pendingWithKey, type Later } from './held.js';
import { setState } from './outgoing.js';

/*
 * Submitting a message: it names someone, it is not the same content sent to the same people in the last 10
 * minutes, its files are taken, and the gate decides: an agent's message it holds waits for a human (held, a
 * review filed); anything else is scheduled: a submission row and the delivery job, both in the call's
 * transaction, so undoSend until sendAt finds the submission pending and the job then finds it canceled.
 */

export const DELIVER_JOB = 'email.deliver';

type Result = z.infer<typeof SendResult>;

/** When a message leaves: sendAt (not in the past, at most 30 days ahead) or now plus the undo window. */
export function leavesAt(now: Date, sendAt: string | null | undefined, undoSeconds: number): Date {
  if (sendAt === null || sendAt === undefined) return new Date(now.getTime() + undoSeconds * 1000);
  const at = new Date(sendAt);
  if (at.getTime() < now.getTime() - 1000) throw badRequest('sendAt', `must not be in the past (now is ${now.toISOString()})`);
  if (at.getTime() - now.getTime() > MAX_SEND_AHEAD_MS) throw badRequest('sendAt', 'must be at most 30 days ahead');
  return at.getTime() < now.getTime() ? now : at;
}

/**
 * A submission for the message (now scheduled) and its delivery job, due at `at`. The author is who the hourly cap
 * counts; `approvalId` names the review that released it.
 */
export async function scheduleSubmission(
  q: Queryable,
  p: { orgId: string; row: RedirectRow; at: Date; key: string; authorId: string; approvalId: string | null; now: string },
): Promise<{ submission: SubmissionRow; deliver: Later }> {
  const recipients = recipientsOf(p.row);
  const external = externalOf(recipients, await orgDomains(q, p.orgId)).length;
  const internal = (await mailboxesAt(q, p.orgId, recipients)).length;
  const submissionId = newId('sub');
  const submission = one(
    await q.query<SubmissionRow>(
      `INSERT INTO email_submissions (org_id, submission_id, message_id, send_at, approval_id, params_hash, external_count, internal_count,
                                    created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
     RETURNING submission_id, message_id, send_at, undo_status, delivery, approval_id, attempts, last_error, params_hash, external_count,
               internal_count, internal_done, created_by, created_at`,
      [p.orgId, submissionId, p.row.message_id, p.at.toISOString(), p.approvalId, p.key, external, internal, p.authorId, p.now],
    ),
  );
  await setState(q, p.orgId, p.row, 'scheduled', p.now);
  return { submission, deliver: { name: DELIVER_JOB, data: { submissionId }, opts: { startAfter: p.at } } };
}

/** CONFLICT when the same content went to the same recipients from this mailbox in the last 10 minutes. */
async function guardDuplicate(q: Queryable, orgId: string, mailboxId: string, key: string, messageId: string, now: Date): Promise<void> {
  const since = new Date(now.getTime() - DUPLICATE_WINDOW_MS).toISOString();
  const [sent] = await q.query<{ message_id: string; created_at: string | Date }>(
    `SELECT message_id, created_at FROM email_submissions
      WHERE org_id = $1 AND params_hash = $2 AND created_at > $3 AND undo_status <> 'canceled' AND message_id <> $4
      ORDER BY created_at DESC LIMIT 1`,
    [orgId, key, since, messageId],
  );
  const held = sent ? undefined : await pendingWithKey(q, orgId, mailboxId, key);
  const earlier = sent ?? (held && held.message_id !== messageId ? held : undefined);
  if (!earlier) return;
  throw conflict(
    `the same message went to the same recipients at ${new Date(earlier.created_at).toISOString()} (${earlier.message_id}, ${sent ? 'sent or scheduled' : 'held for review'}): ` +
      'nothing was sent again; pass allowDuplicate: true to send it anyway',
  );
}

export interface SubmitOptions {
  sendAt?: string;
  undoSeconds?: number;
  allowDuplicate: boolean;
  /** The files the message names, read before the transaction. */
  files: readonly OutgoingFile[];
  /** The DMARC verdict of the message it replies to. */
  replyDmarc: string | null;
}

/** What submitting did, for the result and the event. */
export interface Submitted {
  status: 'scheduled' | 'held_for_review';
  submission: SubmissionRow | null;
  review: { approvalId: string; expiresAt: string; deciders: string[]; reasons: { code: string; text: string }[]; payloadHash: string } | null;
  recipients: number;
  external: number;
}

/** Submit a draft (or a redirect row) the caller may send: hold it or schedule it. Jobs go through ctx.schedule. */
export async function submit(ctx: HandlerCtx, row: RedirectRow, mailbox: MailboxRow, o: SubmitOptions, field = 'to'): Promise<Submitted> {
  const now = ctx.deps.clock.now();
  const at = now.toISOString();
  const recipients = recipientsOf(row);
  if (recipients.length === 0) throw badRequest(field, 'names no recipient: give to, cc or bcc');
  const when = leavesAt(now, o.sendAt, o.undoSeconds ?? Number(mailbox.undo_seconds));
  const key = contentKey(mailbox.mailbox_id, row);
  if (!o.allowDuplicate) await guardDuplicate(ctx.q, ctx.orgId, mailbox.mailbox_id, key, row.message_id, now);
  if (!row.redirect_of)
    await takeAttachments(ctx.q, { orgId: ctx.orgId, messageId: row.message_id, fileIds: row.file_ids, files: o.files, by: ctx.principal.id });
  const external = externalOf(recipients, await orgDomains(ctx.q, ctx.orgId)).length;
  const reasons = await gate(ctx.q, {
    orgId: ctx.orgId,
    authorId: ctx.principal.id,
    authorIsAgent: ctx.principal.kind === 'agent',
    mailbox,
    threadId: row.thread_id,
    recipients,
    files: row.redirect_of ? 0 : row.file_ids.length,
    redirect: Boolean(row.redirect_of),
    replyDmarc: o.replyDmarc,
    hourlyCap: ctx.deps.config.emailSending.hourlyExternalCap,
    now,
  });
  if (reasons.length > 0) {
    const filed = await fileReview(ctx.q, ctx.deps, {
      orgId: ctx.orgId,
      row,
      mailbox,
      requestedBy: ctx.principal.id,
      reasons,
      key,
      sendAt: o.sendAt ?? null,
      undoSeconds: o.undoSeconds ?? null,
      now: at,
    });
    ctx.schedule(filed.expire.name, filed.expire.data, filed.expire.opts);
    return { status: 'held_for_review', submission: null, review: { ...filed, reasons }, recipients: recipients.length, external };
  }
  const { submission, deliver } = await scheduleSubmission(ctx.q, {
    orgId: ctx.orgId,
    row,
    at: when,
    key,
    authorId: ctx.principal.id,
    approvalId: null,
    now: at,
  });
  ctx.schedule(deliver.name, deliver.data, deliver.opts);
  return { status: 'scheduled', submission, review: null, recipients: recipients.length, external };
}

/** The note of a send's result: what happened and what to do next. */
export function noteOf(s: Pick<Result, 'status'> & { submission: SubmissionRow | null; review: Submitted['review'] }, messageId: string): string {
  if (s.status === 'held_for_review' && s.review) {
    return (
      `Held, not sent: a human of the mailbox reviews it first (approval ${s.review.approvalId}, undecided it returns to draft at ${s.review.expiresAt}). ` +
      `Why: ${s.review.reasons.map((r) => r.text).join('; ')}. Do not send it again: wait for the decision (approval.wait with approvalId ${s.review.approvalId}); when a human approves it, it leaves; ` +
      `if they return it, it comes back to you as a draft with their note (email.drafts). undoSend ${messageId} withdraws it.`
    );
  }
  if (s.status === 'scheduled' && s.submission) {
    return `Scheduled: it leaves at ${submissionView(s.submission).sendAt}; until then undoSend ${messageId} takes it back to a draft.`;
  }
  const sub = s.submission ? submissionView(s.submission) : null;
  if (!sub || sub.delivery === null) return 'It already left its undo window: it cannot be recalled.';
  const words: Record<string, string> = {
    sent: 'the relay accepted it',
    internal: 'it was delivered to mailboxes of the org',
    outboxed: 'not delivered: no relay configured; it was kept in the outbox as an .eml file',
    deferred: 'not delivered yet: the relay deferred it and it is being retried',
    failed: 'not delivered: it failed',
    bounced: 'not delivered: it bounced',
  };
  return `It already left its undo window (${words[sub.delivery]}${sub.error && sub.delivery !== 'outboxed' ? `: ${sub.error}` : ''}): it cannot be recalled.`;
}
