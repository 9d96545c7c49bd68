import { Readable } from 'node:stream';
import { ApiError } from '../../../protocol/errors.js';
import { one, type Queryable, type TxQueryable } from '../../../db/types.js';
import { referenceBlob, releaseBlob } from '../../../blobs/index.js';
import type { Delivery, MailAddress, MailMessage } from '../../../mail/types.js';
import { defineJob, type JobCtx } from '../../jobs/define.js';
import { triageAfter } from '../ai/background.js';
import { mailboxesAt } from '../mailboxes.js';
import { addrs, type Addr } from '../model.js';
import { attachmentsOf, type AttachmentRow } from './attachments.js';
import { contentKey, recipientsOf, resentTo, SUBMISSION_COLUMNS, type RedirectRow, type SubmissionRow } from './content.js';
import { gate } from './gate.js';
import { pullIntoReview, type Later } from './held.js';
import { deliverInternally, type InternalCopy } from './internal.js';
import { loadOutgoing, setState } from './outgoing.js';
import { DELIVER_JOB } from './submit.js';

/*
 * The delivery job (email.deliver), due at a submission's sendAt. The submission row is the truth: locked first,
 * nothing happens unless it is still pending (or deferred, for a retry). An agent's unreviewed message meets the
 * gate again here (a hold placed or a policy changed in its undo window holds it now). Then the message is sent
 * (in Sent, for good): everyone outside through the mail service, the relay (DKIM-signed) or, with no relay, an
 * .eml in the outbox, reported `outboxed`, never as delivered, the bytes that left kept as the sent row's raw; then
 * mailboxes of the org directly (send/internal.ts: their rules, blocks and spam checks, a receive event each). A
 * 4xx is retried (a new job, the delay doubling) for 24 hours; a 5xx fails. One system event per run that changes
 * something, besides the copies' receive events: email.submission.deliver, or email.message.hold when the gate
 * holds it at release.
 */

const CONTROL = /[\u0000-\u001f\u007f]/g;
const MESSAGE_ID = /^[^\s<>@]+@[^\s<>@]+$/;
const person = (a: Addr): MailAddress => (a.name ? { name: a.name.replace(CONTROL, ' '), address: a.address } : a.address);
const bracket = (id: string) => `<${id}>`;

async function bytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

interface Mailbox {
  mailbox_id: string;
  address: string;
  display_name: string;
  policy: 'review_all' | 'review_external' | 'review_new_contacts';
}

/** The message as it goes out: a send as written, a redirect as its original with Resent-* fields. */
async function outgoingMail(
  ctx: JobCtx,
  row: RedirectRow,
  original: RedirectRow,
  mailbox: Mailbox,
  attachments: readonly AttachmentRow[],
  envelope: string[] | null,
  now: Date,
): Promise<MailMessage> {
  const files = [];
  for (const a of attachments) {
    const stream = await ctx.deps.blobs.open({ orgId: ctx.orgId, sha256: a.sha256, size: Number(a.size_bytes), contentType: a.content_type });
    files.push({
      filename: a.filename || 'attachment',
      content: await bytes(stream),
      contentType: a.content_type,
      ...(a.content_id ? { cid: a.content_id } : {}),
    });
  }
  const own = { name: mailbox.display_name.replace(CONTROL, ' '), address: mailbox.address };
  const references = original.rfc_references.filter((r) => MESSAGE_ID.test(r)).map(bracket);
  const base: MailMessage = {
    from: row.redirect_of ? { name: original.from_name.replace(CONTROL, ' '), address: original.from_address } : own,
    to: addrs(original.to_addresses).map(person),
    cc: addrs(original.cc_addresses).map(person),
    bcc: row.redirect_of ? [] : addrs(original.bcc_addresses).map(person),
    subject: original.subject.replace(CONTROL, ' '),
    text: original.text,
    ...(original.html !== null ? { html: original.html } : {}),
    messageId: bracket(original.rfc_message_id),
    ...(original.in_reply_to && MESSAGE_ID.test(original.in_reply_to) ? { inReplyTo: bracket(original.in_reply_to) } : {}),
    ...(references.length ? { references } : {}),
    attachments: files,
    ...(original.calendar_method && original.calendar_ics ? { calendar: { method: original.calendar_method, content: original.calendar_ics } } : {}),
  };
  if (!row.redirect_of) return envelope ? { ...base, envelope: { to: envelope } } : base;
  // RFC 5322 3.6.6: the original's fields unchanged, the resending on top.
  const to = resentTo(row);
  return {
    ...base,
    headers: {
      // Bare addresses: the mail service writes extra fields as text, which would encode a display name's quotes.
      'Resent-From': own.address,
      'Resent-To': to.map((a) => a.address).join(', '),
      'Resent-Date': now.toUTCString(),
      'Resent-Message-ID': bracket(row.rfc_message_id),
    },
    envelope: { from: mailbox.address, to: envelope ?? to.map((a) => a.address) },
  };
}

/** The copy mailboxes of the org receive. */
function copyOf(original: RedirectRow, attachments: AttachmentRow[], mailbox: Mailbox, redirect: boolean): InternalCopy {
  return {
    from: redirect ? { address: original.from_address, name: original.from_name } : { address: mailbox.address, name: mailbox.display_name },
    to: addrs(original.to_addresses),
    cc: addrs(original.cc_addresses),
    subject: original.subject,
    text: original.text,
    html: original.html,
    rfcId: original.rfc_message_id,
    inReplyTo: original.in_reply_to,
    references: original.rfc_references,
    attachments,
    sizeBytes: Buffer.byteLength(original.text) + Buffer.byteLength(original.html ?? '') + attachments.reduce((n, a) => n + Number(a.size_bytes), 0),
  };
}

type Outcome = { delivery: 'sent' | 'outboxed' | 'deferred' | 'failed' | 'internal'; error: string | null; accepted: number; refused: number };

/** What the mail service's answer means for the submission; a temporary failure within the window is deferred. */
function outcomeOf(d: Delivery, withinWindow: boolean): Outcome {
  const counts = { accepted: d.accepted.length, refused: d.rejected.length };
  if (d.status === 'sent') return { delivery: 'sent', error: d.error ?? null, ...counts };
  if (d.status === 'internal') return { delivery: 'internal', error: d.error ?? null, ...counts };
  if (d.status === 'outboxed') return { delivery: 'outboxed', error: d.error ?? 'not delivered: no relay configured', accepted: 0, refused: counts.refused };
  if (d.temporary && withinWindow) return { delivery: 'deferred', error: d.error ?? 'deferred', ...counts };
  return { delivery: 'failed', error: d.error ?? 'not delivered', ...counts };
}

/**
 * The bytes that left (DKIM-signed, or the outbox's .eml) become a blob of the org held by the sent row, as
 * received mail holds its raw bytes; in the job's transaction, where an upload of its own would wait on PGlite.
 */
async function keepRaw(ctx: JobCtx, row: RedirectRow, raw: Buffer): Promise<void> {
  const q = ctx.q as TxQueryable;
  const up = await ctx.deps.blobs.uploadIn(q, { orgId: ctx.orgId, principalId: '', body: Readable.from([raw]), contentType: 'message/rfc822' });
  await referenceBlob(q, { orgId: ctx.orgId, sha256: up.sha256, holder: row.message_id, by: '' });
  if (row.raw_sha256 && row.raw_sha256 !== up.sha256) await releaseBlob(q, { orgId: ctx.orgId, sha256: row.raw_sha256, holder: row.message_id });
  await ctx.q.query('UPDATE email_messages SET raw_sha256 = $3, size_bytes = $4 WHERE org_id = $1 AND message_id = $2', [
    ctx.orgId,
    row.message_id,
    up.sha256,
    up.size,
  ]);
}

async function schedule(ctx: JobCtx, later: Later): Promise<void> {
  await ctx.deps.jobs.enqueue(ctx.q, ctx.orgId, ctx.causeSeq, [ctx.deps.jobs.check(later.name, later.data, later.opts)]);
}

async function authorIsAgent(q: Queryable, orgId: string, authorId: string | null): Promise<boolean> {
  if (!authorId) return false;
  const [p] = await q.query<{ kind: string }>('SELECT kind FROM principals WHERE org_id = $1 AND principal_id = $2', [orgId, authorId]);
  return p?.kind === 'agent';
}

export const deliver = defineJob<{ submissionId: string }>({
  name: DELIVER_JOB,
  retryLimit: 5,
  retryDelaySeconds: 30,
  retryBackoff: true,
  expireInSeconds: 300,
  events: ['email.submission.deliver', 'email.message.hold'],
  async run(ctx, data) {
    const [sub] = await ctx.q.query<SubmissionRow>(
      `SELECT ${SUBMISSION_COLUMNS} FROM email_submissions s WHERE s.org_id = $1 AND s.submission_id = $2 FOR UPDATE`,
      [ctx.orgId, data.submissionId],
    );
    const first = sub?.undo_status === 'pending';
    const retryOutside = sub?.undo_status === 'final' && sub.delivery === 'deferred';
    const retryInside = sub?.undo_status === 'final' && !sub.internal_done && Number(sub.internal_count) > 0;
    if (!sub || (!first && !retryOutside && !retryInside)) return; // undone, or delivered: nothing to do
    const row = await loadOutgoing(ctx.q, ctx.orgId, sub.message_id, { lock: true });
    if (first && row.state !== 'scheduled') return;
    const mailbox = one(
      await ctx.q.query<Mailbox>('SELECT mailbox_id, address, display_name, policy FROM email_mailboxes WHERE org_id = $1 AND mailbox_id = $2', [
        ctx.orgId,
        row.mailbox_id,
      ]),
    );
    const now = ctx.deps.clock.now();
    const at = now.toISOString();
    const recipients = recipientsOf(row);
    const ids = { mailboxId: row.mailbox_id, threadId: row.thread_id, messageId: row.message_id, submissionId: sub.submission_id };

    if (first) {
      // Released: the gate again for an agent's mail no human has reviewed.
      const original = row.redirect_of ? await loadOutgoing(ctx.q, ctx.orgId, row.redirect_of) : null;
      const replied = !original && row.reply_to_message_id ? await loadOutgoing(ctx.q, ctx.orgId, row.reply_to_message_id) : null;
      const reasons =
        sub.approval_id === null
          ? await gate(ctx.q, {
              orgId: ctx.orgId,
              authorId: row.author_id ?? '',
              authorIsAgent: await authorIsAgent(ctx.q, ctx.orgId, row.author_id),
              mailbox,
              threadId: row.thread_id,
              recipients,
              files: row.redirect_of ? 0 : row.file_ids.length,
              redirect: Boolean(row.redirect_of),
              replyDmarc: replied?.auth_dmarc ?? null,
              excludeSubmission: sub.submission_id,
              hourlyCap: ctx.deps.config.emailSending.hourlyExternalCap,
              now,
            })
          : [];
      if (reasons.length > 0) {
        const filed = await pullIntoReview(ctx.q, ctx.deps, {
          orgId: ctx.orgId,
          submissionId: sub.submission_id,
          row,
          mailbox,
          reasons,
          key: sub.params_hash ?? contentKey(row.mailbox_id, row),
          now: at,
        });
        await schedule(ctx, filed.expire);
        await ctx.emit('email.message.hold', row.message_id, { ...ids, approvalId: filed.approvalId, reasons: reasons.map((r) => r.code), atRelease: true });
        return;
      }
      await ctx.q.query(`UPDATE email_submissions SET undo_status = 'final', updated_at = $3 WHERE org_id = $1 AND submission_id = $2`, [
        ctx.orgId,
        sub.submission_id,
        at,
      ]);
      await setState(ctx.q, ctx.orgId, row, 'sent', at);
      // Sent mail reads as from its mailbox (a redirect keeps its original's sender).
      await ctx.q.query(
        `UPDATE email_messages SET from_address = $3, from_name = $4, from_domain = split_part($3, '@', 2) WHERE org_id = $1 AND message_id = $2 AND from_address = ''`,
        [ctx.orgId, row.message_id, mailbox.address, mailbox.display_name],
      );
    }

    const original = row.redirect_of ? await loadOutgoing(ctx.q, ctx.orgId, row.redirect_of) : row;
    const attachments = await attachmentsOf(ctx.q, ctx.orgId, original.message_id);
    const internalAddresses = new Set((await mailboxesAt(ctx.q, ctx.orgId, recipients)).map((b) => b.address));
    const external = recipients.filter((a) => !internalAddresses.has(a));
    // Outside first: the relay is asked before any receive event below takes the org's ledger lock. Only once: a
    // run that only files the copies inside the org keeps what the outside delivery was.
    const sendOutside = external.length > 0 && (first || retryOutside);
    let outcome: Outcome =
      external.length > 0 && !sendOutside
        ? { delivery: sub.delivery as Outcome['delivery'], error: sub.last_error, accepted: 0, refused: 0 }
        : { delivery: 'internal', error: null, accepted: 0, refused: 0 };
    if (sendOutside) {
      const withinWindow = now.getTime() - new Date(sub.send_at).getTime() < ctx.deps.config.emailSending.retryWindowMs;
      try {
        const mail = await outgoingMail(ctx, row, original, mailbox, attachments, internalAddresses.size > 0 ? external : null, now);
        const sent = await ctx.deps.mail.send(mail);
        outcome = outcomeOf(sent, withinWindow);
        if (sent.raw && (outcome.delivery === 'sent' || outcome.delivery === 'outboxed')) await keepRaw(ctx, row, sent.raw);
      } catch (err) {
        // A message the mail service refuses as malformed cannot go out as it is: it fails, saying why.
        if (!(err instanceof ApiError)) throw err;
        outcome = { delivery: 'failed', error: `not delivered: ${err.message}`, accepted: 0, refused: external.length };
      }
    }
    // The copies inside the org in a savepoint: should filing one fail (a deadlock with mail arriving in that
    // thread), the mail that already left is not sent again by a retry of the whole job; the copies are retried alone.
    let copies: Awaited<ReturnType<typeof deliverInternally>>['copies'] = [];
    let insideFailed = false;
    if (!sub.internal_done && internalAddresses.size > 0) {
      const copy = copyOf(original, attachments, mailbox, Boolean(row.redirect_of));
      await ctx.q.query('SAVEPOINT internal_copies');
      try {
        const inside = await deliverInternally(ctx.q, ctx.orgId, recipients, copy, {
          at: now,
          senderMailboxId: row.mailbox_id,
          submissionId: sub.submission_id,
          causeSeq: ctx.causeSeq,
        });
        copies = inside.copies;
        await triageAfter(ctx.q, ctx.deps, ctx.orgId, copies, inside.triaging);
        await ctx.q.query('RELEASE SAVEPOINT internal_copies');
      } catch (err) {
        await ctx.q.query('ROLLBACK TO SAVEPOINT internal_copies');
        insideFailed = true;
        const { name, code } = err as { name?: string; code?: string };
        ctx.deps.log.warn(
          { job: DELIVER_JOB, submissionId: sub.submission_id, err: { name, code } },
          'email.deliver: the copies inside the org were not filed; retried',
        );
        if (external.length === 0) outcome = { delivery: 'deferred', error: 'not delivered inside the org yet: retried', accepted: 0, refused: 0 };
      }
    }
    const attempts = Number(sub.attempts) + 1;
    let retryAt: Date | null = null;
    if (outcome.delivery === 'deferred' || insideFailed) {
      const { retryDelaySeconds } = ctx.deps.config.emailSending;
      retryAt = new Date(now.getTime() + Math.min(retryDelaySeconds * 2 ** (attempts - 1), 3600) * 1000);
      await schedule(ctx, { name: DELIVER_JOB, data: { submissionId: sub.submission_id }, opts: { startAfter: retryAt } });
    }
    await ctx.q.query(
      `UPDATE email_submissions SET delivery = $3, last_error = $4, attempts = $5, internal_done = internal_done OR $6, updated_at = $7,
              delivered_at = CASE WHEN $3 IN ('sent', 'internal') THEN coalesce(delivered_at, $7::timestamptz) ELSE delivered_at END
        WHERE org_id = $1 AND submission_id = $2`,
      [ctx.orgId, sub.submission_id, outcome.delivery, outcome.error, attempts, internalAddresses.size > 0 && !insideFailed, at],
    );
    await ctx.emit('email.submission.deliver', sub.submission_id, {
      ...ids,
      delivery: outcome.delivery,
      attempts,
      internal: copies.length,
      internalMessageIds: copies.map((c) => c.messageId),
      external: external.length,
      accepted: outcome.accepted,
      refused: outcome.refused,
      retryAt: retryAt?.toISOString() ?? null,
      insideRetried: insideFailed,
      redirect: Boolean(row.redirect_of),
    });
  },
});
