import type { z } from 'zod';
import { ApiError, badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { MAX_RECIPIENTS } from '../../../protocol/methods/email/shapes.js';
import type { Changes } from '../../../protocol/methods/email/send.js';
import type { Queryable } from '../../../db/types.js';
import { settleFamilyApproval, signaturePayloadHash } from '../../approval/index.js';
import type { HandlerCtx } from '../../core/handler.js';
import { mailboxAccess, requireRole, type MailboxRow } from '../access.js';
import { parseAddress } from '../drafts.js';
import { refreshThreads } from '../folders.js';
import { addrs, type Addr } from '../model.js';
import { subjectKey } from '../threading.js';
import { heldContent, type RedirectRow, type SubmissionRow } from './content.js';
import { closeReview, loadReview, type ReviewRow } from './held.js';
import { loadOutgoing } from './outgoing.js';
import { leavesAt, scheduleSubmission } from './submit.js';

/*
 * A human's decision on a held message: approve (it is scheduled: the undo window starts), amend (the changed
 * content is released; the review keeps both hashes) or return (back to its author as a draft with the note). The
 * same steps serve email.approve, amend, approveAll, return and approval.resolve in the approval inbox: the
 * approval and email_reviews move together, in the deciding call's transaction. Only an owner or reviewer of the
 * mailbox decides, never the author; a review already so is a no-op, one decided otherwise or expired a CONFLICT.
 */

export type Decision =
  | { act: 'approve'; note: string | null }
  | { act: 'amend'; note: string | null; changes: z.output<typeof Changes>; field: string }
  | { act: 'return'; note: string | null };

export interface Decided {
  review: ReviewRow;
  row: RedirectRow;
  submission: SubmissionRow | null;
  changed: boolean;
  /** The content's hash as held, and as released (differs when amended). */
  payloadHash: string;
  releasedHash: string | null;
  amended: string[];
}

const ACT_WORDS = { approve: 'approve mail', amend: 'amend mail', return: 'return mail' } as const;

/** The review, locked, and the mailbox, when the caller is an owner or reviewer of it (NOT_FOUND when not a member). */
export async function reviewForDecision(ctx: HandlerCtx, approvalId: string, act: Decision['act']): Promise<{ review: ReviewRow; mailbox: MailboxRow }> {
  const review = await loadReview(ctx.q, ctx.orgId, approvalId, { lock: true });
  if (!review) throw notFound(`review ${approvalId}`);
  const { mailbox, role } = await mailboxAccess(ctx.q, ctx.orgId, review.mailbox_id, ctx.principal.id);
  requireRole(role, ['owner', 'reviewer'], ACT_WORDS[act]);
  if (review.requested_by === ctx.principal.id) throw conflict(`review ${approvalId} is of your own mail: another owner or reviewer decides it`);
  return { review, mailbox };
}

/** Why a review that is not pending cannot take this decision; null when the decision is a no-op (already so). */
export function notPending(review: ReviewRow, act: Decision['act']): ApiError | null {
  const id = review.approval_id;
  if (review.status === 'pending' && review.expired) {
    return conflict(
      `review ${id} expired at ${new Date(review.expires_at).toISOString()}: its message went back to its author as a draft; nothing was decided`,
    );
  }
  if (review.status === 'approved' && act === 'approve') return null;
  if (review.status === 'returned' && act === 'return') return null;
  const how = {
    approved: 'approved already',
    returned: 'returned to its author',
    withdrawn: 'withdrawn by its author',
    expired: 'expired',
    pending: 'pending',
  }[review.status];
  const next = review.status === 'approved' ? ' (undoSend takes it back within its undo window)' : '';
  return conflict(`review ${id} is ${how}${next}: it cannot be ${act === 'return' ? 'returned' : act === 'amend' ? 'amended' : 'approved'} now`);
}

/** Apply a human's changes to a held message; the fields that changed. */
async function applyChanges(q: Queryable, orgId: string, row: RedirectRow, d: Extract<Decision, { act: 'amend' }>, now: string): Promise<string[]> {
  const parse = (list: readonly string[] | undefined, name: string): Addr[] | undefined => list?.map((v, i) => parseAddress(v, `${d.field}.${name}.${i}`));
  const c = d.changes;
  if (row.redirect_of) {
    const other = Object.keys(c).find((k) => k !== 'to');
    if (other) throw badRequest(`${d.field}.${other}`, 'a redirect sends its original unchanged: only to (where it goes) is amended');
  }
  const next = {
    to: parse(c.to, 'to') ?? (row.redirect_of ? addrs(row.resent_to) : addrs(row.to_addresses)),
    cc: parse(c.cc, 'cc') ?? addrs(row.cc_addresses),
    bcc: parse(c.bcc, 'bcc') ?? addrs(row.bcc_addresses),
    subject: c.subject ?? row.subject,
    text: c.text ?? row.text,
    html: c.html === undefined ? row.html : c.html,
  };
  const count = row.redirect_of ? next.to.length : next.to.length + next.cc.length + next.bcc.length;
  if (count === 0) throw badRequest(`${d.field}.to`, 'the message would name no recipient');
  if (count > MAX_RECIPIENTS) throw badRequest(`${d.field}.to`, `at most ${MAX_RECIPIENTS} recipients in to, cc and bcc together`);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const before = { to: row.redirect_of ? addrs(row.resent_to) : addrs(row.to_addresses), cc: addrs(row.cc_addresses), bcc: addrs(row.bcc_addresses) };
  const amended = (['to', 'cc', 'bcc', 'subject', 'text', 'html'] as const).filter((k) =>
    k === 'to' || k === 'cc' || k === 'bcc' ? !same(next[k], before[k]) : next[k] !== row[k],
  );
  if (amended.length === 0) return [];
  if (row.redirect_of) {
    await q.query(`UPDATE email_messages SET resent_to = $3::jsonb, version = version + 1, updated_at = $4 WHERE org_id = $1 AND message_id = $2`, [
      orgId,
      row.message_id,
      JSON.stringify(next.to),
      now,
    ]);
    return amended;
  }
  await q.query(
    `UPDATE email_messages SET to_addresses = $3::jsonb, cc_addresses = $4::jsonb, bcc_addresses = $5::jsonb, subject = $6, text = $7, html = $8,
            version = version + 1, updated_at = $9
      WHERE org_id = $1 AND message_id = $2`,
    [orgId, row.message_id, JSON.stringify(next.to), JSON.stringify(next.cc), JSON.stringify(next.bcc), next.subject, next.text, next.html, now],
  );
  // A thread that is this message alone takes the new subject.
  if (amended.includes('subject')) {
    await q.query(
      `UPDATE email_threads t SET subject = $3, subject_key = $4
        WHERE t.org_id = $1 AND t.thread_id = $2 AND NOT EXISTS (SELECT 1 FROM email_messages m WHERE m.org_id = $1 AND m.thread_id = $2 AND m.message_id <> $5 AND m.state <> 'discarded')`,
      [orgId, row.thread_id, next.subject, subjectKey(next.subject), row.message_id],
    );
    await refreshThreads(q, orgId, [row.thread_id]);
  }
  return amended;
}

/**
 * Decide a review the caller may decide (reviewForDecision), in the call's transaction. A release schedules its
 * delivery job through ctx.schedule, so the call's event causes it.
 */
export async function decide(ctx: HandlerCtx, review: ReviewRow, mailbox: MailboxRow, d: Decision): Promise<Decided> {
  const refusal = notPending(review, d.act);
  const base = { review, submission: null, payloadHash: review.payload_hash, releasedHash: review.released_hash, amended: review.amended };
  if (review.status !== 'pending' || review.expired) {
    if (refusal) throw refusal;
    return { ...base, row: await loadOutgoing(ctx.q, ctx.orgId, review.message_id), changed: false };
  }
  const row = await loadOutgoing(ctx.q, ctx.orgId, review.message_id, { lock: true });
  if (row.state !== 'held') throw conflict(`message ${row.message_id} of review ${review.approval_id} is ${row.state}, not held: nothing was decided`);
  const now = ctx.deps.clock.now();
  const at = now.toISOString();
  const me = ctx.principal.id;
  if (d.act === 'return') {
    await settleFamilyApproval(ctx.q, ctx.orgId, review.approval_id, { status: 'rejected', decidedBy: me, note: d.note });
    await closeReview(ctx.q, ctx.orgId, review, row, { status: 'returned', by: me, note: d.note, now: at });
    return { ...base, row, changed: true };
  }
  const amended = d.act === 'amend' ? await applyChanges(ctx.q, ctx.orgId, row, d, at) : [];
  const released = amended.length > 0 ? await loadOutgoing(ctx.q, ctx.orgId, row.message_id, { lock: true }) : row;
  const params = heldContent(released, mailbox);
  const actionClass = released.redirect_of ? 'email.redirect' : 'email.send';
  const releasedHash = signaturePayloadHash(actionClass, released.message_id, params);
  await settleFamilyApproval(ctx.q, ctx.orgId, review.approval_id, {
    status: 'approved',
    decidedBy: me,
    note: d.note,
    released: { params, payloadHash: releasedHash, amended, by: `${ctx.method.name} by ${me}` },
  });
  await ctx.q.query(
    `UPDATE email_reviews SET status = 'approved', decided_by = $3, decided_at = $4, note = $5, released_hash = $6, amended = $7 WHERE org_id = $1 AND approval_id = $2`,
    [ctx.orgId, review.approval_id, me, at, d.note, amended.length > 0 ? releasedHash : null, amended],
  );
  Object.assign(review, { status: 'approved', decided_by: me, decided_at: at, note: d.note, released_hash: amended.length > 0 ? releasedHash : null, amended });
  // What the author asked for: a later send time still ahead, its own undo window.
  const asked = review.send_at && new Date(review.send_at) > now ? new Date(review.send_at).toISOString() : null;
  const when = leavesAt(now, asked, review.undo_seconds ?? Number(mailbox.undo_seconds));
  const key = review.content_key;
  const { submission, deliver } = await scheduleSubmission(ctx.q, {
    orgId: ctx.orgId,
    row: released,
    at: when,
    key,
    authorId: review.requested_by,
    approvalId: review.approval_id,
    now: at,
  });
  ctx.schedule(deliver.name, deliver.data, deliver.opts);
  return { review, row: released, submission, changed: true, payloadHash: review.payload_hash, releasedHash, amended };
}
