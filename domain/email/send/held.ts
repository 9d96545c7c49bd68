import type { z } from 'zod';
import type { Review as ReviewShape } from '../../../protocol/methods/email/send.js';
import type { Queryable } from '../../../db/types.js';
import { fileFamilyApproval } from '../../approval/index.js';
import type { Deps } from '../../core/deps.js';
import type { JobData, ScheduleOptions } from '../../jobs/define.js';
import type { MailboxRole, MailboxRow } from '../access.js';
import { addrs, snippetOf, type Addr } from '../model.js';
import { heldContent, resentTo, type RedirectRow } from './content.js';
import type { Reason } from './gate.js';
import { setState } from './outgoing.js';

/*
 * A held message and its review. Holding files an approval of subject kind email.outbound (the approval family's
 * fileFamilyApproval): its held call is the content the reviewer reads, its deciders the mailbox's owners and
 * reviewers, and email_reviews keeps the family's side (reasons, what the sender asked for, the outcome) in step,
 * in the same transaction. A review ends approved (released), returned (back to draft with the note), withdrawn
 * (the author's undoSend) or expired (7 days; back to draft).
 */

export const OUTBOUND_KIND = 'email.outbound';
export const REVIEW_EXPIRE_JOB = 'email.reviewExpire';
/** What a human may change before releasing: the content of a send, where a redirect goes. */
export const AMENDABLE_SEND = ['to', 'cc', 'bcc', 'subject', 'text', 'html'] as const;
export const AMENDABLE_REDIRECT = ['to'] as const;

/** A job to schedule with the event that causes it (a call's ctx.schedule, or a job's own enqueue). */
export interface Later {
  name: string;
  data: JobData;
  opts: ScheduleOptions;
}

export interface ReviewRow {
  approval_id: string;
  message_id: string;
  mailbox_id: string;
  thread_id: string;
  kind: 'send' | 'redirect';
  requested_by: string;
  status: 'pending' | 'approved' | 'returned' | 'withdrawn' | 'expired';
  reasons: Reason[] | string;
  payload_hash: string;
  released_hash: string | null;
  amended: string[];
  content_key: string;
  send_at: string | Date | null;
  undo_seconds: number | null;
  note: string | null;
  decided_by: string | null;
  decided_at: string | Date | null;
  expires_at: string | Date;
  created_at: string | Date;
  /** Past expires_at and still pending: expired, whether or not the expiry job has run. */
  expired: boolean;
}

const REVIEW_COLUMNS = `r.approval_id, r.message_id, r.mailbox_id, r.thread_id, r.kind, r.requested_by, r.status, r.reasons, r.payload_hash,
  r.released_hash, r.amended, r.content_key, r.send_at, r.undo_seconds, r.note, r.decided_by, r.decided_at, r.expires_at, r.created_at,
  (r.status = 'pending' AND r.expires_at <= now()) AS expired`;

/** A review of the org, or undefined. */
export async function loadReview(q: Queryable, orgId: string, approvalId: string, opts: { lock?: boolean } = {}): Promise<ReviewRow | undefined> {
  const [row] = await q.query<ReviewRow>(
    `SELECT ${REVIEW_COLUMNS} FROM email_reviews r WHERE r.org_id = $1 AND r.approval_id = $2${opts.lock ? ' FOR UPDATE OF r' : ''}`,
    [orgId, approvalId],
  );
  return row;
}

/** The message's newest review, if any. */
export async function latestReview(q: Queryable, orgId: string, messageId: string): Promise<ReviewRow | undefined> {
  const [row] = await q.query<ReviewRow>(
    `SELECT ${REVIEW_COLUMNS} FROM email_reviews r WHERE r.org_id = $1 AND r.message_id = $2 ORDER BY r.created_at DESC, r.approval_id DESC LIMIT 1`,
    [orgId, messageId],
  );
  return row;
}

/** A pending review of the same content in the mailbox (the duplicate guard), if any. */
export async function pendingWithKey(q: Queryable, orgId: string, mailboxId: string, key: string): Promise<ReviewRow | undefined> {
  const [row] = await q.query<ReviewRow>(
    `SELECT ${REVIEW_COLUMNS} FROM email_reviews r WHERE r.org_id = $1 AND r.mailbox_id = $2 AND r.content_key = $3 AND r.status = 'pending'
      ORDER BY r.created_at DESC LIMIT 1`,
    [orgId, mailboxId, key],
  );
  return row;
}

export const reasonsOf = (r: ReviewRow): Reason[] => (typeof r.reasons === 'string' ? (JSON.parse(r.reasons) as Reason[]) : r.reasons);

/** The humans who decide a mailbox's reviews: its owners and reviewers. */
export async function decidersOf(q: Queryable, orgId: string, mailboxId: string): Promise<string[]> {
  const rows = await q.query<{ principal_id: string }>(
    `SELECT principal_id FROM email_mailbox_members WHERE org_id = $1 AND mailbox_id = $2 AND role IN ('owner', 'reviewer') ORDER BY principal_id`,
    [orgId, mailboxId],
  );
  return rows.map((r) => r.principal_id);
}

const listed = (to: readonly Addr[]) => (to.length === 0 ? 'nobody' : `${to[0].address}${to.length > 1 ? ` and ${to.length - 1} more` : ''}`);

/** What the approval inbox shows: who, what, to whom, from where, and why it waits. */
async function summaryOf(q: Queryable, orgId: string, row: RedirectRow, mailbox: Pick<MailboxRow, 'address'>, requestedBy: string, reasons: Reason[]) {
  const [who] = await q.query<{ name: string }>('SELECT name FROM principals WHERE org_id = $1 AND principal_id = $2', [orgId, requestedBy]);
  const name = who ? `${who.name} (${requestedBy})` : requestedBy;
  const to = row.redirect_of ? resentTo(row) : [...addrs(row.to_addresses), ...addrs(row.cc_addresses), ...addrs(row.bcc_addresses)];
  const act = row.redirect_of ? 'redirects' : 'sends';
  const subject = row.subject.length > 120 ? `${row.subject.slice(0, 117)}...` : row.subject;
  const text = `${name} ${act} "${subject}" from ${mailbox.address} to ${listed(to)}: held because ${reasons.map((r) => r.text).join('; ')}`;
  return text.length > 1000 ? `${text.slice(0, 997)}...` : text;
}

/** A scheduled agent message pulled back into review (a hold placed meanwhile, or the gate at release). */
export async function pullIntoReview(
  q: Queryable,
  deps: Pick<Deps, 'config'>,
  p: {
    orgId: string;
    submissionId: string;
    row: RedirectRow & { author_id: string | null };
    mailbox: Pick<MailboxRow, 'mailbox_id' | 'address' | 'display_name'>;
    reasons: Reason[];
    key: string;
    now: string;
  },
) {
  await q.query(`UPDATE email_submissions SET undo_status = 'canceled', updated_at = $3 WHERE org_id = $1 AND submission_id = $2`, [
    p.orgId,
    p.submissionId,
    p.now,
  ]);
  return fileReview(q, deps, { ...p, requestedBy: p.row.author_id ?? '', sendAt: null, undoSeconds: null });
}

/**
 * Hold the message for a human: file the review (approval and email_reviews), move it to held. Returns the review
 * and the expiry job to schedule with the event that holds it.
 */
export async function fileReview(
  q: Queryable,
  deps: Pick<Deps, 'config'>,
  p: {
    orgId: string;
    row: RedirectRow;
    mailbox: Pick<MailboxRow, 'mailbox_id' | 'address' | 'display_name'>;
    requestedBy: string;
    reasons: Reason[];
    key: string;
    sendAt: string | null;
    undoSeconds: number | null;
    now: string;
  },
): Promise<{ approvalId: string; expiresAt: string; deciders: string[]; payloadHash: string; expire: Later }> {
  const redirect = p.row.redirect_of !== null && p.row.redirect_of !== undefined;
  const deciders = await decidersOf(q, p.orgId, p.mailbox.mailbox_id);
  const filed = await fileFamilyApproval(q, {
    orgId: p.orgId,
    actionClass: redirect ? 'email.redirect' : 'email.send',
    subjectKind: OUTBOUND_KIND,
    subjectId: p.row.message_id,
    summary: await summaryOf(q, p.orgId, p.row, p.mailbox, p.requestedBy, p.reasons),
    requestedBy: p.requestedBy,
    heldMethod: redirect ? 'email.redirect' : 'email.send',
    heldParams: heldContent(p.row, p.mailbox),
    deciders,
    amendable: [...(redirect ? AMENDABLE_REDIRECT : AMENDABLE_SEND)],
    ttlMs: deps.config.emailSending.reviewTtlMs,
  });
  await q.query(
    `INSERT INTO email_reviews (org_id, approval_id, message_id, mailbox_id, thread_id, kind, requested_by, reasons, payload_hash, content_key,
                                send_at, undo_seconds, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, $14)`,
    [
      p.orgId,
      filed.approvalId,
      p.row.message_id,
      p.mailbox.mailbox_id,
      p.row.thread_id,
      redirect ? 'redirect' : 'send',
      p.requestedBy,
      JSON.stringify(p.reasons),
      filed.payloadHash,
      p.key,
      p.sendAt,
      p.undoSeconds,
      filed.expiresAt,
      p.now,
    ],
  );
  await setState(q, p.orgId, p.row, 'held', p.now);
  return {
    approvalId: filed.approvalId,
    expiresAt: filed.expiresAt,
    deciders,
    payloadHash: filed.payloadHash,
    expire: { name: REVIEW_EXPIRE_JOB, data: { approvalId: filed.approvalId }, opts: { startAfter: new Date(filed.expiresAt) } },
  };
}

/** Record how a review ended without release; the held message goes back to draft (a redirect: discarded). */
export async function closeReview(
  q: Queryable,
  orgId: string,
  review: ReviewRow,
  row: RedirectRow,
  s: { status: 'returned' | 'withdrawn' | 'expired'; by: string | null; note: string | null; now: string },
): Promise<void> {
  await q.query(`UPDATE email_reviews SET status = $3, decided_by = $4, decided_at = $5, note = $6 WHERE org_id = $1 AND approval_id = $2`, [
    orgId,
    review.approval_id,
    s.status,
    s.by,
    s.now,
    s.note,
  ]);
  review.status = s.status;
  review.decided_by = s.by;
  review.decided_at = s.now;
  review.note = s.note;
  if (row.state === 'held') await setState(q, orgId, row, 'draft', s.now);
}

type ReviewView = z.infer<typeof ReviewShape>;

/** Reviews as `me` (with `roles`, mine by mailbox) reads them: the message's content now, and whether I may decide. */
export async function reviewViews(
  q: Queryable,
  orgId: string,
  rows: readonly ReviewRow[],
  me: string,
  roles: ReadonlyMap<string, MailboxRole>,
): Promise<ReviewView[]> {
  if (rows.length === 0) return [];
  const messages = await q.query<RedirectRow & { address: string; display_name: string }>(
    `SELECT m.message_id, m.subject, m.text, m.to_addresses, m.cc_addresses, m.bcc_addresses, m.file_ids, m.redirect_of, m.resent_to, b.address, b.display_name
       FROM email_messages m JOIN email_mailboxes b ON b.org_id = m.org_id AND b.mailbox_id = m.mailbox_id
      WHERE m.org_id = $1 AND m.message_id = ANY($2::text[])`,
    [orgId, rows.map((r) => r.message_id)],
  );
  const byId = new Map(messages.map((m) => [m.message_id, m]));
  const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());
  return rows.map((r) => {
    const m = byId.get(r.message_id)!;
    const redirect = m.redirect_of !== null;
    const status = r.expired ? 'expired' : r.status;
    const role = roles.get(r.mailbox_id);
    return {
      approvalId: r.approval_id,
      status,
      kind: r.kind,
      mailboxId: r.mailbox_id,
      threadId: r.thread_id,
      messageId: r.message_id,
      requestedBy: r.requested_by,
      requestedAt: iso(r.created_at)!,
      expiresAt: iso(r.expires_at)!,
      reasons: reasonsOf(r),
      from: { address: m.address, name: m.display_name },
      to: redirect ? resentTo(m) : addrs(m.to_addresses),
      cc: redirect ? [] : addrs(m.cc_addresses),
      bcc: redirect ? [] : addrs(m.bcc_addresses),
      subject: m.subject,
      snippet: snippetOf(m.text),
      fileIds: m.file_ids,
      payloadHash: r.payload_hash,
      releasedHash: r.released_hash,
      amended: r.amended,
      note: r.note,
      decidedBy: r.decided_by,
      decidedAt: iso(r.decided_at),
      mayDecide: status === 'pending' && (role === 'owner' || role === 'reviewer') && r.requested_by !== me,
    };
  });
}
