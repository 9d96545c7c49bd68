import { badRequest, conflict } from '../../../protocol/errors.js';
import { emailSend as c } from '../../../protocol/methods/email/send.js';
import { one } from '../../../db/types.js';
import { settleFamilyApproval } from '../../approval/index.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { mailboxAccess, messageAccess, requireRole, threadAccess, type MailboxRole } from '../access.js';
import { latestSubmission, SUBMISSION_COLUMNS, type SubmissionRow } from './content.js';
import { closeReview, latestReview, loadReview, pullIntoReview } from './held.js';
import { loadOutgoing, setState, viewAs } from './outgoing.js';
import { noteOf } from './submit.js';

/*
 * Taking mail back. undoSend: inside the undo window the submission is canceled; a held message's review is
 * withdrawn (its approval too); the message is a draft again. holdReplies: a hold on a mailbox or a thread makes
 * agents' mail wait for a human, and pulls their scheduled sends there back into review; lifting it is a human's
 * act. Locks are taken submission or review first, then the message, as the delivery job and the decisions take
 * them, so none of them waits on another in a circle.
 */

const HUMANS: readonly MailboxRole[] = ['owner', 'reviewer', 'member'];

export const undoSend = handler(c.undoSend, async (ctx, p) => {
  const me = ctx.principal.id;
  const { message: seen, role } = await messageAccess(ctx.q, ctx.orgId, p.messageId, me);
  if (seen.author_id !== me) requireRole(role, ['owner', 'reviewer'], "take back another member's mail");
  const now = ctx.deps.clock.now().toISOString();
  const ids = { mailboxId: seen.mailbox_id, threadId: seen.thread_id, messageId: seen.message_id };
  // Locks: the submission or the review first, then the message.
  const sub = await latestSubmission(ctx.q, ctx.orgId, seen.message_id, { lock: true });
  const pending = seen.state === 'held' ? await latestReview(ctx.q, ctx.orgId, seen.message_id) : undefined;
  const review = pending ? await loadReview(ctx.q, ctx.orgId, pending.approval_id, { lock: true }) : undefined;
  const row = await loadOutgoing(ctx.q, ctx.orgId, seen.message_id, { lock: true });
  let canceled: 'submission' | 'review' | null = null;
  if (row.state === 'held' && review?.status === 'pending') {
    await settleFamilyApproval(ctx.q, ctx.orgId, review.approval_id, { status: 'withdrawn', decidedBy: me, note: null });
    await closeReview(ctx.q, ctx.orgId, review, row, { status: 'withdrawn', by: me, note: null, now });
    canceled = 'review';
  } else if (row.state === 'scheduled' && sub?.undo_status === 'pending') {
    await ctx.q.query(`UPDATE email_submissions SET undo_status = 'canceled', updated_at = $3 WHERE org_id = $1 AND submission_id = $2`, [
      ctx.orgId,
      sub.submission_id,
      now,
    ]);
    await setState(ctx.q, ctx.orgId, row, 'draft', now);
    canceled = 'submission';
  } else if (row.state === 'sent' || row.state === 'scheduled' || row.state === 'held') {
    throw conflict(`message ${row.message_id} cannot be recalled: ${noteOf({ status: 'sent', submission: sub ?? null, review: null }, row.message_id)}`);
  } else if (row.state === 'received') {
    throw conflict(`message ${row.message_id} was received, not sent: there is nothing to take back`);
  }
  const message = await viewAs(ctx.q, ctx.orgId, row.message_id, me);
  await ctx.emit('email.submission.cancel', row.message_id, {
    ...ids,
    canceled,
    submissionId: canceled === 'submission' ? sub!.submission_id : null,
    approvalId: canceled === 'review' ? review!.approval_id : null,
    state: row.state,
    ...(canceled ? {} : { noop: true }),
  });
  return { message, canceled, changed: canceled !== null };
});

/** The scheduled agent sends of the mailbox (or thread), their submissions locked, to pull back into review. */
async function scheduledAgentSends(ctx: HandlerCtx, mailboxId: string, threadId: string | null): Promise<SubmissionRow[]> {
  return ctx.q.query<SubmissionRow>(
    `SELECT ${SUBMISSION_COLUMNS}
       FROM email_submissions s
       JOIN email_messages m ON m.org_id = s.org_id AND m.message_id = s.message_id
       JOIN principals pr ON pr.org_id = m.org_id AND pr.principal_id = m.author_id AND pr.kind = 'agent'
      WHERE s.org_id = $1 AND s.undo_status = 'pending' AND m.state = 'scheduled' AND m.mailbox_id = $2 AND ($3::text IS NULL OR m.thread_id = $3)
      ORDER BY s.submission_id FOR UPDATE OF s`,
    [ctx.orgId, mailboxId, threadId],
  );
}

export const holdReplies = handler(c.holdReplies, async (ctx, p) => {
  const me = ctx.principal.id;
  if ((p.mailboxId === undefined) === (p.threadId === undefined))
    throw badRequest('mailboxId', 'give mailboxId (the whole mailbox) or threadId (one thread), not both');
  const now = ctx.deps.clock.now();
  if (p.until !== undefined) {
    if (!p.hold) throw badRequest('until', 'only with hold: true (when the hold ends by itself)');
    if (new Date(p.until) <= now) throw badRequest('until', `must be in the future (now is ${now.toISOString()})`);
  }
  const target = p.threadId !== undefined ? await threadAccess(ctx.q, ctx.orgId, p.threadId, me, { lock: true }) : null;
  const mailboxId = target ? target.thread.mailbox_id : p.mailboxId!;
  const { role } = target ?? (await mailboxAccess(ctx.q, ctx.orgId, mailboxId, me, { lock: true }));
  if (!p.hold) requireRole(role, HUMANS, 'lift a hold on agent mail (agents may place one)');
  const table = target ? 'email_threads' : 'email_mailboxes';
  const key = target ? 'thread_id' : 'mailbox_id';
  const id = target ? target.thread.thread_id : mailboxId;
  const current = one(
    await ctx.q.query<{ hold: boolean; hold_until: string | Date | null }>(`SELECT hold, hold_until FROM ${table} WHERE org_id = $1 AND ${key} = $2`, [
      ctx.orgId,
      id,
    ]),
  );
  const until = p.hold ? (p.until ? new Date(p.until).toISOString() : null) : null;
  const was = current.hold_until === null ? null : new Date(current.hold_until).toISOString();
  const same = current.hold === p.hold && (!p.hold || was === until);
  const pulledBack: string[] = [];
  const approvalIds: string[] = [];
  if (!same) {
    await ctx.q.query(`UPDATE ${table} SET hold = $3, hold_until = $4, hold_by = $5 WHERE org_id = $1 AND ${key} = $2`, [
      ctx.orgId,
      id,
      p.hold,
      until,
      p.hold ? me : null,
    ]);
  }
  if (p.hold) {
    // Agent mail waiting to leave goes back into review: the hold is a reason it would now be held for.
    const mailbox = one(
      await ctx.q.query<{ mailbox_id: string; address: string; display_name: string }>(
        'SELECT mailbox_id, address, display_name FROM email_mailboxes WHERE org_id = $1 AND mailbox_id = $2',
        [ctx.orgId, mailboxId],
      ),
    );
    const at = now.toISOString();
    for (const sub of await scheduledAgentSends(ctx, mailboxId, target ? id : null)) {
      const row = await loadOutgoing(ctx.q, ctx.orgId, sub.message_id, { lock: true });
      const filed = await pullIntoReview(ctx.q, ctx.deps, {
        orgId: ctx.orgId,
        submissionId: sub.submission_id,
        row,
        mailbox,
        reasons: [
          target
            ? { code: 'thread_hold', text: 'agent replies on this thread were put on hold while it waited to leave' }
            : { code: 'mailbox_hold', text: 'agent mail from this mailbox was put on hold while it waited to leave' },
        ],
        key: sub.params_hash ?? '',
        now: at,
      });
      ctx.schedule(filed.expire.name, filed.expire.data, filed.expire.opts);
      pulledBack.push(row.message_id);
      approvalIds.push(filed.approvalId);
    }
  }
  const changed = !same || pulledBack.length > 0;
  await ctx.emit('email.hold.set', id, {
    mailboxId,
    threadId: target ? id : null,
    hold: p.hold,
    until,
    pulledBack: pulledBack.length,
    messageIds: pulledBack,
    approvalIds,
    ...(changed ? {} : { noop: true }),
  });
  return { mailboxId, threadId: target ? id : null, hold: p.hold, until, pulledBack, changed };
});
