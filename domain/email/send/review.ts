import { ApiError, badRequest, notFound } from '../../../protocol/errors.js';
import { Changes, emailSend as c } from '../../../protocol/methods/email/send.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import type { ApprovalSubjectDecider } from '../../approval/index.js';
import { decodeCursor, encodeCursor, timeAndId } from '../../core/cursor.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { mailboxAccess, MY_MAILBOXES_SQL, type MailboxRole } from '../access.js';
import { submissionView } from './content.js';
import { decide, notPending, reviewForDecision, type Decided, type Decision } from './decide.js';
import { loadReview, OUTBOUND_KIND, reviewViews, type ReviewRow } from './held.js';
import { viewAs } from './outgoing.js';

/*
 * The review desk: email.approvals (what waits, with why), and the human acts on it (approve, amend, approveAll,
 * return), each one event of ids and hashes (a note only as its SHA-256). approval.resolve in the approval inbox
 * reaches the same decision through the `approvalSubjects` contribution (emailDecider).
 */

/** The caller's role in each of its mailboxes. */
async function myRoles(ctx: HandlerCtx): Promise<Map<string, MailboxRole>> {
  const rows = await ctx.q.query<{ mailbox_id: string; role: MailboxRole }>(
    'SELECT mailbox_id, role FROM email_mailbox_members WHERE org_id = $1 AND principal_id = $2',
    [ctx.orgId, ctx.principal.id],
  );
  return new Map(rows.map((r) => [r.mailbox_id, r.role]));
}

async function reviewView(ctx: HandlerCtx, review: ReviewRow) {
  const fresh = (await loadReview(ctx.q, ctx.orgId, review.approval_id))!;
  return (await reviewViews(ctx.q, ctx.orgId, [fresh], ctx.principal.id, await myRoles(ctx)))[0];
}

const noteHash = (note: string | null) => (note === null ? null : sha256Hex(note));

async function decided(ctx: HandlerCtx, d: Decided) {
  return {
    review: await reviewView(ctx, d.review),
    message: await viewAs(ctx.q, ctx.orgId, d.row.message_id, ctx.principal.id),
    submission: d.submission ? submissionView(d.submission) : null,
    changed: d.changed,
  };
}

const ids = (d: Decided) => ({
  mailboxId: d.review.mailbox_id,
  threadId: d.review.thread_id,
  messageId: d.review.message_id,
  approvalId: d.review.approval_id,
});

export const approve = handler(c.approve, async (ctx, p) => {
  const { review, mailbox } = await reviewForDecision(ctx, p.approvalId, 'approve');
  const d = await decide(ctx, review, mailbox, { act: 'approve', note: p.note ?? null });
  const out = await decided(ctx, d);
  await ctx.emit('email.review.approve', p.approvalId, {
    ...ids(d),
    submissionId: d.submission?.submission_id ?? null,
    sendAt: out.submission?.sendAt ?? null,
    payloadHash: d.payloadHash,
    noteSha256: noteHash(p.note ?? null),
    ...(d.changed ? {} : { noop: true }),
  });
  return out;
});

export const amend = handler(c.amend, async (ctx, p) => {
  const { review, mailbox } = await reviewForDecision(ctx, p.approvalId, 'amend');
  const d = await decide(ctx, review, mailbox, { act: 'amend', note: p.note ?? null, changes: p.changes, field: 'changes' });
  const out = await decided(ctx, d);
  await ctx.emit('email.review.amend', p.approvalId, {
    ...ids(d),
    submissionId: d.submission?.submission_id ?? null,
    sendAt: out.submission?.sendAt ?? null,
    payloadHash: d.payloadHash,
    releasedHash: d.releasedHash,
    amended: d.amended,
    noteSha256: noteHash(p.note ?? null),
  });
  return out;
});

export const returnReview = handler(c.return, async (ctx, p) => {
  const { review, mailbox } = await reviewForDecision(ctx, p.approvalId, 'return');
  const d = await decide(ctx, review, mailbox, { act: 'return', note: p.note });
  const out = await decided(ctx, d);
  await ctx.emit('email.review.return', p.approvalId, {
    ...ids(d),
    state: d.row.state,
    noteSha256: noteHash(p.note),
    ...(d.changed ? {} : { noop: true }),
  });
  return { review: out.review, message: out.message, changed: d.changed };
});

export const approveAll = handler(c.approveAll, async (ctx, p) => {
  const wanted = [...new Set(p.approvalIds)];
  // Every review locked in one order (two callers never wait on each other in a circle), then checked in the
  // caller's order: the first that cannot be approved refuses the whole call.
  await ctx.q.query('SELECT 1 FROM email_reviews WHERE org_id = $1 AND approval_id = ANY($2::text[]) ORDER BY approval_id FOR UPDATE', [ctx.orgId, wanted]);
  const ready = [];
  for (const id of wanted) {
    const { review, mailbox } = await reviewForDecision(ctx, id, 'approve');
    if (review.status !== 'pending' || review.expired) {
      const why = notPending(review, 'approve')?.message ?? `review ${id} is approved already`;
      throw new ApiError('CONFLICT', `${why}. approveAll is all or nothing: none of the ${wanted.length} reviews was approved`);
    }
    ready.push({ review, mailbox });
  }
  const done: Decided[] = [];
  for (const r of ready) done.push(await decide(ctx, r.review, r.mailbox, { act: 'approve', note: p.note ?? null }));
  const roles = await myRoles(ctx);
  const reviews = await reviewViews(
    ctx.q,
    ctx.orgId,
    await Promise.all(done.map(async (d) => (await loadReview(ctx.q, ctx.orgId, d.review.approval_id))!)),
    ctx.principal.id,
    roles,
  );
  const submissions = done.map((d) => submissionView(d.submission!));
  await ctx.emit('email.review.approve_all', wanted[0], {
    mailboxIds: [...new Set(done.map((d) => d.review.mailbox_id))].sort(),
    approvalIds: wanted,
    messageIds: done.map((d) => d.review.message_id),
    submissionIds: done.map((d) => d.submission!.submission_id),
    count: done.length,
    noteSha256: noteHash(p.note ?? null),
  });
  return { reviews, submissions, changed: true };
});

export const approvals = handler(c.approvals, async (ctx, p) => {
  const me = ctx.principal.id;
  if (p.mailboxId !== undefined) await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, me);
  const params: unknown[] = [ctx.orgId, me];
  const where = [`r.org_id = $1`, `r.mailbox_id IN ${MY_MAILBOXES_SQL('$1', '$2')}`];
  // An agent reads only the reviews of its own mail.
  if (ctx.principal.kind === 'agent') where.push('r.requested_by = $2');
  if (p.mailboxId !== undefined) where.push(`r.mailbox_id = $${params.push(p.mailboxId)}`);
  if (p.status === 'pending') where.push(`r.status = 'pending' AND r.expires_at > now()`);
  else if (p.status === 'expired') where.push(`(r.status = 'expired' OR (r.status = 'pending' AND r.expires_at <= now()))`);
  else if (p.status !== 'all') where.push(`r.status = $${params.push(p.status)}`);
  if (p.cursor !== undefined) {
    const [at, id] = decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
    where.push(`(r.created_at, r.approval_id) < ($${params.push(at)}::timestamptz, $${params.push(id)})`);
  }
  const rows = await ctx.q.query<ReviewRow>(
    `SELECT r.approval_id, r.message_id, r.mailbox_id, r.thread_id, r.kind, r.requested_by, r.status, r.reasons, r.payload_hash, r.released_hash,
            r.amended, r.content_key, r.send_at, r.undo_seconds, r.note, r.decided_by, r.decided_at, r.expires_at, r.created_at,
            (r.status = 'pending' AND r.expires_at <= now()) AS expired
       FROM email_reviews r WHERE ${where.join(' AND ')}
      ORDER BY r.created_at DESC, r.approval_id DESC LIMIT $${params.push(p.limit + 1)}`,
    params,
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return {
    reviews: await reviewViews(ctx.q, ctx.orgId, page, me, await myRoles(ctx)),
    nextCursor: rows.length > p.limit && last ? encodeCursor([new Date(last.created_at).toISOString(), last.approval_id]) : null,
  };
});

/**
 * approval.resolve on an email.outbound approval (the approval inbox): approve releases it (amendments amend it),
 * reject returns it to its author with the note. The approval family has checked the decider, the status and the
 * expiry; the mailbox role is checked again here, now.
 */
export const emailDecider: ApprovalSubjectDecider = {
  async decide(ctx, row, p) {
    let d: Decision;
    if (p.decision === 'reject') {
      if (p.amendments !== undefined) throw badRequest('amendments', 'only an approve takes amendments');
      d = { act: 'return', note: p.note ?? null };
    } else if (p.amendments !== undefined && Object.keys(p.amendments).length > 0) {
      // null clears a field, as the inbox amends: no cc, an empty subject, no html.
      const cleared = (k: string) => (k === 'to' || k === 'cc' || k === 'bcc' ? [] : k === 'html' ? null : '');
      const parsed = Changes.safeParse(Object.fromEntries(Object.entries(p.amendments).map(([k, v]) => [k, v === null ? cleared(k) : v])));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw badRequest(['amendments', ...issue.path.map(String)].join('.'), issue.message);
      }
      d = { act: 'amend', note: p.note ?? null, changes: parsed.data, field: 'amendments' };
    } else {
      d = { act: 'approve', note: p.note ?? null };
    }
    const review = await loadReview(ctx.q, ctx.orgId, row.approval_id, { lock: true });
    if (!review) throw notFound(`review ${row.approval_id}`);
    const { review: locked, mailbox } = await reviewForDecision(ctx, review.approval_id, d.act);
    const done = await decide(ctx, locked, mailbox, d);
    return {
      mailboxId: done.review.mailbox_id,
      messageId: done.review.message_id,
      outcome: d.act === 'return' ? 'returned' : 'scheduled',
      submissionId: done.submission?.submission_id ?? null,
      releasedHash: d.act === 'return' ? null : done.releasedHash,
      amended: done.amended,
    };
  },
};

export const approvalSubjects = { [OUTBOUND_KIND]: emailDecider };
