import type { Queryable } from '../../../db/types.js';
import { appendEvent } from '../../../ledger/append.js';
import type { Dsn } from '../inbound/dsn.js';
import { recipientsOf, latestSubmission, type RedirectRow, type SubmissionRow } from './content.js';
import { OUTGOING_COLUMNS } from './outgoing.js';

/*
 * A bounce arriving later (a DSN, inbound/dsn.ts) for mail a mailbox sent. When the report names a message the
 * mailbox sent whose submission left (`sent`, or `bounced` by an earlier report): a recipient `failed` makes the
 * delivery `bounced`, last_error naming the status codes and how many of the message's recipients ("bounced: 5.1.1
 * for 1 of 2 recipients"); only `delayed` ones note it in last_error and leave the delivery as it is. The report is
 * filed in the sent message's thread (receive.ts) and one system event records what changed:
 * `email.submission.bounce` or `email.submission.delay`, ids, status codes and counts only. A report naming
 * nothing the mailbox sent is just mail. Each report's account replaces the one before (a row keeps no list of
 * who bounced; the events keep each report's).
 */

export interface Reported {
  messageId: string;
  threadId: string;
  rfcId: string;
  /** How many recipients the message went to. */
  recipients: number;
  submission: SubmissionRow;
}

/** The sent message of the mailbox the report is about, its newest submission locked; null when there is none. */
export async function reportedIn(q: Queryable, orgId: string, mailboxId: string, dsn: Dsn): Promise<Reported | null> {
  if (dsn.originalIds.length === 0) return null;
  const [row] = await q.query<RedirectRow>(
    `SELECT ${OUTGOING_COLUMNS} FROM email_messages m
      WHERE m.org_id = $1 AND m.mailbox_id = $2 AND m.rfc_message_id = ANY($3::text[]) AND m.state = 'sent'
      ORDER BY m.sort_at DESC LIMIT 1`,
    [orgId, mailboxId, dsn.originalIds],
  );
  if (!row) return null;
  const submission = await latestSubmission(q, orgId, row.message_id, { lock: true });
  if (!submission || (submission.delivery !== 'sent' && submission.delivery !== 'bounced')) return null;
  return { messageId: row.message_id, threadId: row.thread_id, rfcId: row.rfc_message_id, recipients: recipientsOf(row).length, submission };
}

/** What the report says of the message's recipients, in last_error's words; null when it says nothing to record. */
export function reportAccount(dsn: Dsn, recipients: number): { kind: 'bounce' | 'delay'; statuses: string[]; count: number; error: string } | null {
  const failed = dsn.recipients.filter((r) => r.action === 'failed');
  const chosen = failed.length > 0 ? failed : dsn.recipients.filter((r) => r.action === 'delayed');
  if (chosen.length === 0) return null;
  const statuses = [...new Set(chosen.map((r) => r.status))].sort();
  const named = new Set(chosen.filter((r) => r.address !== '').map((r) => r.address)).size + chosen.filter((r) => r.address === '').length;
  const count = Math.max(1, Math.min(named, recipients));
  const of = `${count} of ${recipients} recipient${recipients === 1 ? '' : 's'}`;
  return failed.length > 0
    ? { kind: 'bounce', statuses, count, error: `bounced: ${statuses.join(', ')} for ${of}` }
    : { kind: 'delay', statuses, count, error: `delayed: ${statuses.join(', ')} for ${of}; the receiving side is still trying` };
}

/**
 * Record the report `reportId` (the filed DSN) on the submission and append its event; the event's seq, or null
 * when nothing changed (a delay reported after a bounce, a report of delivery).
 */
export async function recordReport(
  q: Queryable,
  orgId: string,
  mailboxId: string,
  r: Reported,
  dsn: Dsn,
  reportId: string,
  now: string,
): Promise<number | null> {
  const account = reportAccount(dsn, r.recipients);
  if (!account || (account.kind === 'delay' && r.submission.delivery === 'bounced')) return null;
  const delivery = account.kind === 'bounce' ? 'bounced' : r.submission.delivery;
  await q.query('UPDATE email_submissions SET delivery = $3, last_error = $4, updated_at = $5 WHERE org_id = $1 AND submission_id = $2', [
    orgId,
    r.submission.submission_id,
    delivery,
    account.error,
    now,
  ]);
  const event = await appendEvent(q, orgId, {
    family: 'email',
    kind: account.kind === 'bounce' ? 'email.submission.bounce' : 'email.submission.delay',
    entityId: r.submission.submission_id,
    actor: '',
    payload: {
      mailboxId,
      threadId: r.threadId,
      messageId: r.messageId,
      submissionId: r.submission.submission_id,
      reportMessageId: reportId,
      statuses: account.statuses,
      [account.kind === 'bounce' ? 'failed' : 'delayed']: account.count,
      recipients: r.recipients,
      delivery,
      was: r.submission.delivery,
    },
  });
  return Number(event.seq);
}
