import { defineJob } from '../../jobs/define.js';
import { closeReview, loadReview, REVIEW_EXPIRE_JOB } from './held.js';
import { loadOutgoing } from './outgoing.js';

/*
 * A review nobody decided within its time (7 days by default) expires: its message goes back to its author as a
 * draft (a redirect is discarded). The approval needs no write: past its expiry it reads as expired and can no
 * longer be decided. The job does nothing for a review decided or withdrawn meanwhile.
 */
export const expireReview = defineJob<{ approvalId: string }>({
  name: REVIEW_EXPIRE_JOB,
  retryLimit: 5,
  retryDelaySeconds: 60,
  retryBackoff: true,
  expireInSeconds: 60,
  events: ['email.review.expire'],
  async run(ctx, data) {
    const review = await loadReview(ctx.q, ctx.orgId, data.approvalId, { lock: true });
    if (!review || review.status !== 'pending' || !review.expired) return;
    const row = await loadOutgoing(ctx.q, ctx.orgId, review.message_id, { lock: true });
    await closeReview(ctx.q, ctx.orgId, review, row, { status: 'expired', by: null, note: null, now: ctx.deps.clock.now().toISOString() });
    await ctx.emit('email.review.expire', review.approval_id, {
      mailboxId: review.mailbox_id,
      threadId: review.thread_id,
      messageId: review.message_id,
      approvalId: review.approval_id,
      state: row.state,
    });
  },
});
