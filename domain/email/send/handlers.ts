import { badRequest, conflict } from '../../../protocol/errors.js';
import { emailSend as c } from '../../../protocol/methods/email/send.js';
import { handler, type HandlerCtx, type PrepareCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { mailboxAccess, messageAccess, requireRole } from '../access.js';
import { createDraft, list } from '../drafts.js';
import { folderByRole, refreshThreads } from '../folders.js';
import { domainOf } from '../model.js';
import { readFiles, type OutgoingFile } from './attachments.js';
import { latestSubmission, submissionView, type RedirectRow } from './content.js';
import { decidersOf, latestReview, reasonsOf } from './held.js';
import { loadOutgoing, viewAs } from './outgoing.js';
import { noteOf, submit, type Submitted } from './submit.js';

/*
 * email.send (write and submit in one call), email.draftSend (submit a draft) and email.redirect (send a message on
 * unchanged to others). Each makes or takes one message and submits it (submit.ts): scheduled, or held for a human.
 * The files a message attaches are read before the transaction (prepare), as the caller.
 */

/** The result and the one event of a submission. */
async function answer(ctx: HandlerCtx, row: RedirectRow, s: Submitted, files: number) {
  const message = await viewAs(ctx.q, ctx.orgId, row.message_id, ctx.principal.id);
  const ids = { mailboxId: row.mailbox_id, threadId: row.thread_id, messageId: row.message_id };
  const counts = { recipients: s.recipients, external: s.external, files, isReply: row.reply_to_message_id !== null };
  if (s.review) {
    await ctx.emit('email.message.hold', row.message_id, {
      ...ids,
      approvalId: s.review.approvalId,
      reasons: s.review.reasons.map((r) => r.code),
      payloadHash: s.review.payloadHash,
      ...counts,
    });
  } else {
    await ctx.emit('email.message.send', row.message_id, {
      ...ids,
      submissionId: s.submission!.submission_id,
      sendAt: submissionView(s.submission!).sendAt,
      ...counts,
    });
  }
  return {
    status: s.status,
    message,
    submission: s.submission ? submissionView(s.submission) : null,
    review: s.review ? { approvalId: s.review.approvalId, reasons: s.review.reasons, expiresAt: s.review.expiresAt, deciders: s.review.deciders } : null,
    note: noteOf(s, row.message_id),
    changed: true,
  };
}

/** The DMARC verdict of the message a reply answers. */
async function replyDmarc(ctx: HandlerCtx, row: RedirectRow): Promise<string | null> {
  if (!row.reply_to_message_id) return null;
  return (await loadOutgoing(ctx.q, ctx.orgId, row.reply_to_message_id)).auth_dmarc;
}

export const send = handler(
  c.send,
  async (ctx, p, files: OutgoingFile[]) => {
    const made = await createDraft(ctx, { ...p, to: list(p.to, 'to'), cc: list(p.cc, 'cc'), bcc: list(p.bcc, 'bcc') });
    const row = await loadOutgoing(ctx.q, ctx.orgId, made.messageId, { lock: true });
    const { mailbox } = await mailboxAccess(ctx.q, ctx.orgId, made.mailboxId, ctx.principal.id);
    const s = await submit(ctx, row, mailbox, { ...p, files, replyDmarc: made.original?.auth_dmarc ?? null });
    return answer(ctx, row, s, row.file_ids.length);
  },
  { prepare: (ctx: PrepareCtx, p) => readFiles(ctx, p.fileIds ?? []) },
);

/** The draft's files, read as the caller when the caller is in its mailbox (otherwise the call answers NOT_FOUND). */
async function draftFiles(ctx: PrepareCtx, draftId: string): Promise<OutgoingFile[]> {
  const [row] = await ctx.db.query<{ file_ids: string[] }>(
    `SELECT m.file_ids FROM email_messages m JOIN email_mailbox_members mm ON mm.org_id = m.org_id AND mm.mailbox_id = m.mailbox_id AND mm.principal_id = $3
      WHERE m.org_id = $1 AND m.message_id = $2 AND m.state = 'draft'`,
    [ctx.orgId, draftId, ctx.principal.id],
  );
  return row ? readFiles(ctx, row.file_ids, 'draft.fileIds') : [];
}

export const draftSend = handler(
  c.draftSend,
  async (ctx, p, files: OutgoingFile[]) => {
    const me = ctx.principal.id;
    const { role } = await messageAccess(ctx.q, ctx.orgId, p.draftId, me);
    const row = await loadOutgoing(ctx.q, ctx.orgId, p.draftId, { lock: true });
    if (row.state === 'scheduled' || row.state === 'held' || row.state === 'sent') return already(ctx, row);
    if (row.state !== 'draft')
      throw conflict(`message ${row.message_id} is ${row.state}, not a draft: only a draft is sent (reply to it with email.send replyToMessageId)`);
    if (row.author_id !== me) requireRole(role, ['owner', 'reviewer', 'member'], "send another member's draft");
    const { mailbox } = await mailboxAccess(ctx.q, ctx.orgId, row.mailbox_id, me);
    const s = await submit(ctx, row, mailbox, { ...p, files, replyDmarc: await replyDmarc(ctx, row) }, 'draftId');
    return answer(ctx, row, s, row.file_ids.length);
  },
  { prepare: (ctx: PrepareCtx, p) => draftFiles(ctx, p.draftId) },
);

/** draftSend of a message already submitted: where it is, changed:false, one event marked noop. */
async function already(ctx: HandlerCtx, row: RedirectRow) {
  const submission = (await latestSubmission(ctx.q, ctx.orgId, row.message_id)) ?? null;
  const review = row.state === 'held' ? await latestReview(ctx.q, ctx.orgId, row.message_id) : undefined;
  const status = row.state === 'held' ? 'held_for_review' : row.state === 'sent' ? 'sent' : 'scheduled';
  const ref = review
    ? {
        approvalId: review.approval_id,
        reasons: reasonsOf(review),
        expiresAt: new Date(review.expires_at).toISOString(),
        deciders: await decidersOf(ctx.q, ctx.orgId, row.mailbox_id),
      }
    : null;
  const message = await viewAs(ctx.q, ctx.orgId, row.message_id, ctx.principal.id);
  const ids = { mailboxId: row.mailbox_id, threadId: row.thread_id, messageId: row.message_id };
  if (review) await ctx.emit('email.message.hold', row.message_id, { ...ids, approvalId: review.approval_id, noop: true });
  else await ctx.emit('email.message.send', row.message_id, { ...ids, submissionId: submission?.submission_id ?? null, state: row.state, noop: true });
  const words = noteOf({ status, submission, review: ref && { ...ref, payloadHash: review!.payload_hash } }, row.message_id);
  return {
    status,
    message,
    submission: submission ? submissionView(submission) : null,
    review: ref,
    note: `Already ${status === 'held_for_review' ? 'held for review' : status}: nothing was sent again. ${words}`,
    changed: false,
  };
}

export const redirect = handler(c.redirect, async (ctx, p) => {
  const me = ctx.principal.id;
  const { message: found } = await messageAccess(ctx.q, ctx.orgId, p.messageId, me);
  if (found.state !== 'received' && found.state !== 'sent') {
    throw badRequest('messageId', `message ${found.message_id} is ${found.state}: only mail received or sent is redirected`);
  }
  const asked = await loadOutgoing(ctx.q, ctx.orgId, found.message_id);
  // Redirecting a redirect sends on its original.
  const original = asked.redirect_of ? await loadOutgoing(ctx.q, ctx.orgId, asked.redirect_of) : asked;
  const to = list(p.to, 'to')!;
  const { mailbox } = await mailboxAccess(ctx.q, ctx.orgId, original.mailbox_id, me);
  const now = ctx.deps.clock.now().toISOString();
  const messageId = newId('eml');
  const drafts = await folderByRole(ctx.q, ctx.orgId, original.mailbox_id, 'drafts');
  await ctx.q.query(
    `INSERT INTO email_messages (org_id, message_id, mailbox_id, thread_id, folder_id, state, rfc_message_id, in_reply_to, rfc_references,
       from_address, from_name, from_domain, to_addresses, cc_addresses, subject, text, html, author_id, has_attachments, redirect_of, resent_to,
       sort_at, created_at, updated_at)
     SELECT org_id, $3, mailbox_id, thread_id, $4, 'draft', $5, in_reply_to, rfc_references, from_address, from_name, from_domain, to_addresses,
            cc_addresses, subject, text, html, $6, has_attachments, message_id, $7::jsonb, $8, $8, $8
       FROM email_messages WHERE org_id = $1 AND message_id = $2`,
    [ctx.orgId, original.message_id, messageId, drafts.folder_id, `${newId('eml').slice(4)}@${domainOf(mailbox.address)}`, me, JSON.stringify(to), now],
  );
  await refreshThreads(ctx.q, ctx.orgId, [original.thread_id]);
  const row = await loadOutgoing(ctx.q, ctx.orgId, messageId, { lock: true });
  const s = await submit(ctx, row, mailbox, { allowDuplicate: p.allowDuplicate, files: [], replyDmarc: null });
  const message = await viewAs(ctx.q, ctx.orgId, messageId, me);
  await ctx.emit('email.message.redirect', messageId, {
    mailboxId: row.mailbox_id,
    threadId: row.thread_id,
    messageId,
    redirectOf: original.message_id,
    status: s.status,
    submissionId: s.submission?.submission_id ?? null,
    approvalId: s.review?.approvalId ?? null,
    reasons: s.review?.reasons.map((r) => r.code) ?? [],
    recipients: s.recipients,
    external: s.external,
  });
  return {
    status: s.status,
    message,
    submission: s.submission ? submissionView(s.submission) : null,
    review: s.review ? { approvalId: s.review.approvalId, reasons: s.review.reasons, expiresAt: s.review.expiresAt, deciders: s.review.deciders } : null,
    note: noteOf(s, messageId),
    changed: true,
  };
});
