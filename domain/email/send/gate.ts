import type { z } from 'zod';
import type { Reason as ReasonShape } from '../../../protocol/methods/email/send.js';
import type { Queryable } from '../../../db/types.js';
import type { MailboxRow } from '../access.js';
import { MANY_RECIPIENTS } from './config.js';
import { externalOf, orgDomains } from './content.js';

/*
 * The gate: whether an agent's message waits for a human before it leaves. Checked when it is sent and again when
 * its undo window ends (the delivery job), so a hold placed or a policy changed meanwhile still catches it. Humans'
 * mail is never held. Each reason is a code (events may carry it) and words (results and the review read).
 */

export type Reason = z.infer<typeof ReasonShape>;

export interface GateInput {
  orgId: string;
  authorId: string;
  /** Only an agent's mail is ever held. */
  authorIsAgent: boolean;
  mailbox: Pick<MailboxRow, 'mailbox_id' | 'policy'>;
  threadId: string;
  recipients: readonly string[];
  files: number;
  redirect: boolean;
  /** The DMARC verdict of the message it replies to, if a reply. */
  replyDmarc: string | null;
  /** A submission of this message already counted (left out of the hourly count). */
  excludeSubmission?: string;
  hourlyCap: number;
  now: Date;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export async function gate(q: Queryable, g: GateInput): Promise<Reason[]> {
  if (!g.authorIsAgent) return [];
  const reasons: Reason[] = [];
  const external = externalOf(g.recipients, await orgDomains(q, g.orgId));
  const policy = g.mailbox.policy;
  if (g.redirect && external.length > 0) {
    reasons.push({ code: 'redirect_outside', text: `it redirects mail to ${plural(external.length, 'recipient')} outside the org` });
  } else if (policy === 'review_all') {
    reasons.push({ code: 'review_all', text: 'the mailbox has every agent message reviewed (policy review_all)' });
  } else if (policy === 'review_external' && external.length > 0) {
    reasons.push({ code: 'external_recipient', text: `${plural(external.length, 'recipient is', 'recipients are')} outside the org (policy review_external)` });
  }
  if (policy === 'review_new_contacts' && external.length > 0) {
    const fresh = await newContacts(q, g.orgId, g.mailbox.mailbox_id, external);
    if (fresh.length > 0) {
      reasons.push({
        code: 'new_contact',
        text: `${plural(fresh.length, 'recipient has', 'recipients have')} never written to or heard from this mailbox (policy review_new_contacts)`,
      });
    }
  }
  if (g.recipients.length > MANY_RECIPIENTS)
    reasons.push({ code: 'many_recipients', text: `it has ${g.recipients.length} recipients, more than ${MANY_RECIPIENTS}` });
  if (g.files > 0 && external.length > 0) reasons.push({ code: 'attachments', text: `it attaches ${plural(g.files, 'file')} going outside the org` });
  if (g.replyDmarc === 'fail') reasons.push({ code: 'dmarc_failed_reply', text: 'it replies to a message that failed DMARC: its sender may be forged' });
  const holds = await activeHolds(q, g.orgId, g.mailbox.mailbox_id, g.threadId, g.now);
  if (holds.mailbox)
    reasons.push({ code: 'mailbox_hold', text: `agent mail from this mailbox is on hold${holds.mailbox === true ? '' : ` until ${holds.mailbox}`}` });
  if (holds.thread)
    reasons.push({ code: 'thread_hold', text: `agent replies on this thread are on hold${holds.thread === true ? '' : ` until ${holds.thread}`}` });
  if (external.length > 0) {
    const sent = await externalThisHour(q, g.orgId, g.authorId, g.now, g.excludeSubmission);
    if (sent >= g.hourlyCap) {
      reasons.push({ code: 'hourly_cap', text: `the agent already sent ${sent} external messages in the last hour (at most ${g.hourlyCap} without review)` });
    }
  }
  return reasons;
}

/** External recipients this mailbox has never heard from nor written to. */
async function newContacts(q: Queryable, orgId: string, mailboxId: string, external: readonly string[]): Promise<string[]> {
  const known = await q.query<{ a: string }>(
    `SELECT a FROM unnest($3::text[]) AS a
      WHERE EXISTS (SELECT 1 FROM email_messages m WHERE m.org_id = $1 AND m.mailbox_id = $2 AND m.state = 'received' AND m.from_address = a)
         OR EXISTS (SELECT 1 FROM email_messages m WHERE m.org_id = $1 AND m.mailbox_id = $2 AND m.state = 'sent'
                       AND (m.to_addresses @> jsonb_build_array(jsonb_build_object('address', a))
                         OR m.cc_addresses @> jsonb_build_array(jsonb_build_object('address', a))
                         OR m.bcc_addresses @> jsonb_build_array(jsonb_build_object('address', a))))`,
    [orgId, mailboxId, [...external]],
  );
  const seen = new Set(known.map((r) => r.a));
  return external.filter((a) => !seen.has(a));
}

/** A hold in force on the mailbox or the thread: true (until lifted), its end, or false. */
export async function activeHolds(q: Queryable, orgId: string, mailboxId: string, threadId: string | null, now: Date) {
  const [row] = await q.query<{ mbox: boolean; mbox_until: string | Date | null; thr: boolean | null; thr_until: string | Date | null }>(
    `SELECT b.hold AS mbox, b.hold_until AS mbox_until, t.hold AS thr, t.hold_until AS thr_until
       FROM email_mailboxes b LEFT JOIN email_threads t ON t.org_id = b.org_id AND t.thread_id = $3 AND t.mailbox_id = b.mailbox_id
      WHERE b.org_id = $1 AND b.mailbox_id = $2`,
    [orgId, mailboxId, threadId],
  );
  const inForce = (on: boolean | null | undefined, until: string | Date | null | undefined): true | string | false => {
    if (!on) return false;
    if (until === null || until === undefined) return true;
    return new Date(until) > now ? new Date(until).toISOString() : false;
  };
  return { mailbox: inForce(row?.mbox, row?.mbox_until), thread: inForce(row?.thr, row?.thr_until) };
}

/** The agent's messages with an external recipient that left or wait to leave, made in the hour before `now`. */
async function externalThisHour(q: Queryable, orgId: string, authorId: string, now: Date, exclude?: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM email_submissions
      WHERE org_id = $1 AND created_by = $2 AND created_at > $3 AND undo_status <> 'canceled' AND external_count > 0 AND submission_id <> $4`,
    [orgId, authorId, new Date(now.getTime() - 3600_000).toISOString(), exclude ?? ''],
  );
  return Number(row?.n ?? 0);
}
