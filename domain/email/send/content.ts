import type { z } from 'zod';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import type { Submission } from '../../../protocol/methods/email/send.js';
import type { Queryable } from '../../../db/types.js';
import type { MailboxRow } from '../access.js';
import { addrs, domainOf, type Addr, type MessageRow } from '../model.js';

/*
 * What a message sends, as the gate, the review and the delivery read it: its recipients (a redirect's are its
 * resent_to), its content, the key the duplicate guard compares, and which recipients are inside the org (on one
 * of the domains of the org's mailboxes) or mailboxes of the org (delivered directly).
 */

export interface Content {
  to: Addr[];
  cc: Addr[];
  bcc: Addr[];
  subject: string;
  text: string;
  html: string | null;
  fileIds: string[];
}

export const contentOf = (row: MessageRow): Content => ({
  to: addrs(row.to_addresses),
  cc: addrs(row.cc_addresses),
  bcc: addrs(row.bcc_addresses),
  subject: row.subject,
  text: row.text,
  html: row.html,
  fileIds: row.file_ids,
});

/** The row of a redirect (email.redirect): the original it sends on, and where. */
export interface RedirectRow extends MessageRow {
  redirect_of: string | null;
  resent_to: Addr[] | string;
  /** A calendar invitation, reply or cancellation (send/calendar.ts): its text/calendar part. */
  calendar_method?: 'REQUEST' | 'CANCEL' | 'REPLY' | null;
  calendar_ics?: string | null;
}

export const resentTo = (row: MessageRow & Partial<RedirectRow>): Addr[] => addrs(row.resent_to ?? []);

/** Every address the message goes to, lower-cased, once each: a redirect's resent_to, else to, cc and bcc. */
export function recipientsOf(row: MessageRow & Partial<RedirectRow>): string[] {
  const list = row.redirect_of ? resentTo(row) : [...addrs(row.to_addresses), ...addrs(row.cc_addresses), ...addrs(row.bcc_addresses)];
  return [...new Set(list.map((a) => a.address.toLowerCase()))];
}

/**
 * The duplicate guard's key: the mailbox, the recipients (sorted) and the content, or what a redirect sends on. The
 * same key within 10 minutes is the same message sent again.
 */
export function contentKey(mailboxId: string, row: MessageRow & Partial<RedirectRow>): string {
  const c = contentOf(row);
  const body = row.redirect_of ? { redirectOf: row.redirect_of } : { subject: c.subject, text: c.text, html: c.html, fileIds: [...c.fileIds].sort() };
  return sha256Hex(canonicalJson({ mailboxId, recipients: recipientsOf(row).sort(), ...body }));
}

/**
 * The content a reviewer reads and approves: the approval's held call, whose hash (with the action class and the
 * message id) is the review's payloadHash. Names and addresses as they will go out.
 */
export function heldContent(row: MessageRow & Partial<RedirectRow>, mailbox: Pick<MailboxRow, 'mailbox_id' | 'address' | 'display_name'>) {
  const c = contentOf(row);
  const base = { mailboxId: mailbox.mailbox_id, messageId: row.message_id, from: { address: mailbox.address, name: mailbox.display_name } };
  if (row.redirect_of) return { ...base, redirectOf: row.redirect_of, to: resentTo(row), subject: c.subject };
  return { ...base, to: c.to, cc: c.cc, bcc: c.bcc, subject: c.subject, text: c.text, html: c.html, fileIds: c.fileIds, inReplyTo: row.in_reply_to };
}

/** The domains of the org's mailboxes: a recipient on one of them is inside the org. */
export async function orgDomains(q: Queryable, orgId: string): Promise<Set<string>> {
  const rows = await q.query<{ domain: string }>(`SELECT DISTINCT split_part(address, '@', 2) AS domain FROM email_mailboxes WHERE org_id = $1`, [orgId]);
  return new Set(rows.map((r) => r.domain));
}

/** Recipients outside the org's domains. */
export const externalOf = (recipients: readonly string[], domains: ReadonlySet<string>): string[] => recipients.filter((a) => !domains.has(domainOf(a)));

export interface SubmissionRow {
  submission_id: string;
  message_id: string;
  send_at: string | Date;
  undo_status: 'pending' | 'final' | 'canceled';
  delivery: z.infer<typeof Submission>['delivery'];
  approval_id: string | null;
  attempts: number;
  last_error: string | null;
  params_hash: string | null;
  external_count: number;
  internal_count: number;
  internal_done: boolean;
  created_by: string;
  created_at: string | Date;
}

export const SUBMISSION_COLUMNS = `s.submission_id, s.message_id, s.send_at, s.undo_status, s.delivery, s.approval_id, s.attempts, s.last_error,
  s.params_hash, s.external_count, s.internal_count, s.internal_done, s.created_by, s.created_at`;

const iso = (v: string | Date): string => new Date(v).toISOString();

export const submissionView = (s: SubmissionRow): z.infer<typeof Submission> => ({
  id: s.submission_id,
  sendAt: iso(s.send_at),
  undoStatus: s.undo_status,
  delivery: s.delivery,
  error: s.last_error,
});

/** The message's newest submission, if any. */
export async function latestSubmission(q: Queryable, orgId: string, messageId: string, opts: { lock?: boolean } = {}): Promise<SubmissionRow | undefined> {
  const [row] = await q.query<SubmissionRow>(
    `SELECT ${SUBMISSION_COLUMNS} FROM email_submissions s WHERE s.org_id = $1 AND s.message_id = $2 ORDER BY s.created_at DESC, s.submission_id DESC LIMIT 1${
      opts.lock ? ' FOR UPDATE' : ''
    }`,
    [orgId, messageId],
  );
  return row;
}
