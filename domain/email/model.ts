import type { z } from 'zod';
import type { DELIVERIES, Message, MessageLine, Thread } from '../../protocol/methods/email/shapes.js';
import type { Queryable } from '../../db/types.js';
import { splitQuoted } from './quoted.js';

type Delivery = (typeof DELIVERIES)[number];

/*
 * The rows of the email family and how a member sees them: a message with the caller's read state, reactions and
 * attachments (read for a whole page in three statements), a thread with the caller's unread count.
 */

export interface Addr {
  address: string;
  name: string;
}

export interface MessageRow {
  message_id: string;
  mailbox_id: string;
  thread_id: string;
  folder_id: string;
  state: 'draft' | 'held' | 'scheduled' | 'sent' | 'received' | 'discarded';
  rfc_message_id: string;
  in_reply_to: string | null;
  rfc_references: string[];
  from_address: string;
  from_name: string;
  from_domain: string;
  to_addresses: Addr[] | string;
  cc_addresses: Addr[] | string;
  bcc_addresses: Addr[] | string;
  reply_to: Addr[] | string;
  subject: string;
  text: string;
  html: string | null;
  author_id: string | null;
  version: number;
  reply_to_message_id: string | null;
  file_ids: string[];
  has_attachments: boolean;
  auth_spf: string | null;
  auth_dkim: string | null;
  auth_dmarc: string | null;
  raw_sha256: string | null;
  size_bytes: number;
  sent_at: string | null;
  received_at: string | null;
  sort_at: string;
  discarded_at: string | null;
  created_at: string;
  updated_at: string;
}

export const MESSAGE_COLUMNS = `m.message_id, m.mailbox_id, m.thread_id, m.folder_id, m.state, m.rfc_message_id, m.in_reply_to, m.rfc_references,
  m.from_address, m.from_name, m.from_domain, m.to_addresses, m.cc_addresses, m.bcc_addresses, m.reply_to, m.subject, m.text, m.html,
  m.author_id, m.version, m.reply_to_message_id, m.file_ids, m.has_attachments, m.auth_spf, m.auth_dkim, m.auth_dmarc, m.raw_sha256,
  m.size_bytes, m.sent_at, m.received_at, m.sort_at, m.discarded_at, m.created_at, m.updated_at`;

export interface ThreadRow {
  thread_id: string;
  mailbox_id: string;
  subject: string;
  subject_key: string;
  participants: string[];
  message_count: number;
  last_message_at: string;
  assignee_id: string | null;
  triage_category: string | null;
  triage_priority: 'low' | 'normal' | 'high' | 'urgent' | null;
  needs_reply: boolean;
  summary: unknown;
  hold: boolean;
}

export const THREAD_COLUMNS = `t.thread_id, t.mailbox_id, t.subject, t.subject_key, t.participants, t.message_count, t.last_message_at,
  t.assignee_id, t.triage_category, t.triage_priority, t.needs_reply, t.summary, t.hold`;

/** jsonb as both drivers give it (parsed, or text in some paths). */
export const addrs = (v: Addr[] | string | null): Addr[] => (v === null ? [] : typeof v === 'string' ? (JSON.parse(v) as Addr[]) : v);

/** The start of a body, quoted text left out, on one line. */
export function snippetOf(text: string): string {
  return splitQuoted(text).body.replace(/\s+/g, ' ').trim().slice(0, 200);
}

type MessageView = z.infer<typeof Message>;
type ThreadView = z.infer<typeof Thread>;
type LineView = z.infer<typeof MessageLine>;

/** The caller's read state, reactions and the attachments of these messages: three statements for a page. */
async function extras(q: Queryable, orgId: string, ids: readonly string[], principalId: string) {
  const [reads, reactions, attachments, submissions] = await Promise.all([
    q.query<{ message_id: string }>('SELECT message_id FROM email_message_reads WHERE org_id = $1 AND principal_id = $2 AND message_id = ANY($3::text[])', [
      orgId,
      principalId,
      ids,
    ]),
    q.query<{ message_id: string; emoji: string; count: number; mine: boolean }>(
      `SELECT message_id, emoji, count(*)::int AS count, bool_or(principal_id = $2) AS mine
         FROM email_reactions WHERE org_id = $1 AND message_id = ANY($3::text[])
        GROUP BY message_id, emoji ORDER BY message_id, min(reacted_at), emoji`,
      [orgId, principalId, ids],
    ),
    q.query<{ message_id: string; attachment_id: string; filename: string; content_type: string; size_bytes: number; sha256: string; inline: boolean }>(
      `SELECT message_id, attachment_id, filename, content_type, size_bytes, sha256, inline
         FROM email_attachments WHERE org_id = $1 AND message_id = ANY($2::text[]) ORDER BY message_id, position`,
      [orgId, ids],
    ),
    // Each outbound message's newest submission: whether and how it left.
    q.query<{
      message_id: string;
      submission_id: string;
      send_at: string | Date;
      undo_status: 'pending' | 'final' | 'canceled';
      delivery: Delivery | null;
      last_error: string | null;
    }>(
      `SELECT DISTINCT ON (message_id) message_id, submission_id, send_at, undo_status, delivery, last_error
         FROM email_submissions WHERE org_id = $1 AND message_id = ANY($2::text[]) ORDER BY message_id, created_at DESC, submission_id DESC`,
      [orgId, ids],
    ),
  ]);
  const submission = new Map(
    submissions.map((s) => [
      s.message_id,
      { id: s.submission_id, sendAt: new Date(s.send_at).toISOString(), undoStatus: s.undo_status, delivery: s.delivery, error: s.last_error },
    ]),
  );
  return { read: new Set(reads.map((r) => r.message_id)), reactions, attachments, submission };
}

const group = <T extends { message_id: string }>(rows: readonly T[]) => {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.message_id);
    if (list) list.push(r);
    else out.set(r.message_id, [r]);
  }
  return out;
};

const fromOf = (r: MessageRow): Addr | null => (r.from_address === '' ? null : { address: r.from_address, name: r.from_name });

/** Messages as `principalId` sees them; `quoted`: cut quoted text out of text (email.thread). */
export async function messageViews(
  q: Queryable,
  orgId: string,
  rows: readonly MessageRow[],
  principalId: string,
  opts: { quoted?: boolean } = {},
): Promise<MessageView[]> {
  if (rows.length === 0) return [];
  const x = await extras(
    q,
    orgId,
    rows.map((r) => r.message_id),
    principalId,
  );
  const reactions = group(x.reactions);
  const attachments = group(x.attachments);
  return rows.map((r) => {
    const split = opts.quoted ? splitQuoted(r.text) : null;
    return {
      id: r.message_id,
      mailboxId: r.mailbox_id,
      threadId: r.thread_id,
      folderId: r.folder_id,
      state: r.state,
      rfcMessageId: r.rfc_message_id,
      inReplyTo: r.in_reply_to,
      references: r.rfc_references,
      from: fromOf(r),
      to: addrs(r.to_addresses),
      cc: addrs(r.cc_addresses),
      bcc: addrs(r.bcc_addresses),
      subject: r.subject,
      text: split ? split.body : r.text,
      ...(split ? { quoted: split.quoted } : {}),
      html: r.html,
      authorId: r.author_id,
      version: Number(r.version),
      replyToMessageId: r.reply_to_message_id,
      fileIds: r.file_ids,
      attachments: (attachments.get(r.message_id) ?? []).map((a) => ({
        id: a.attachment_id,
        filename: a.filename,
        contentType: a.content_type,
        size: Number(a.size_bytes),
        sha256: a.sha256,
        inline: a.inline,
      })),
      auth: r.state === 'received' ? { spf: r.auth_spf, dkim: r.auth_dkim, dmarc: r.auth_dmarc } : null,
      sizeBytes: Number(r.size_bytes),
      unread: r.state === 'received' && !x.read.has(r.message_id),
      reactions: (reactions.get(r.message_id) ?? []).map((e) => ({ emoji: e.emoji, count: Number(e.count), mine: e.mine })),
      sentAt: r.sent_at,
      receivedAt: r.received_at,
      submission: x.submission.get(r.message_id) ?? null,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    };
  });
}

/** List lines: no bodies, the caller's read state. */
export async function messageLines(q: Queryable, orgId: string, rows: readonly MessageRow[], principalId: string): Promise<LineView[]> {
  if (rows.length === 0) return [];
  const reads = await q.query<{ message_id: string }>(
    'SELECT message_id FROM email_message_reads WHERE org_id = $1 AND principal_id = $2 AND message_id = ANY($3::text[])',
    [orgId, principalId, rows.map((r) => r.message_id)],
  );
  const read = new Set(reads.map((r) => r.message_id));
  return rows.map((r) => ({
    id: r.message_id,
    mailboxId: r.mailbox_id,
    threadId: r.thread_id,
    folderId: r.folder_id,
    state: r.state,
    from: fromOf(r),
    to: addrs(r.to_addresses),
    subject: r.subject,
    snippet: snippetOf(r.text),
    hasAttachments: r.has_attachments,
    unread: r.state === 'received' && !read.has(r.message_id),
    at: r.sort_at,
  }));
}

/** Threads as `principalId` sees them: unread counts and the newest message's snippet, two statements a page. */
export async function threadViews(q: Queryable, orgId: string, rows: readonly ThreadRow[], principalId: string): Promise<ThreadView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.thread_id);
  const facts = await q.query<{ thread_id: string; unread: number; snippet_text: string | null }>(
    `SELECT t.id AS thread_id,
            (SELECT count(*)::int FROM email_messages m
              WHERE m.org_id = $1 AND m.thread_id = t.id AND m.state = 'received'
                AND NOT EXISTS (SELECT 1 FROM email_message_reads r WHERE r.org_id = $1 AND r.principal_id = $2 AND r.message_id = m.message_id)) AS unread,
            (SELECT left(m.text, 4000) FROM email_messages m
              WHERE m.org_id = $1 AND m.thread_id = t.id AND m.state <> 'discarded' ORDER BY m.sort_at DESC LIMIT 1) AS snippet_text
       FROM unnest($3::text[]) AS t(id)`,
    [orgId, principalId, ids],
  );
  const byId = new Map(facts.map((f) => [f.thread_id, f]));
  return rows.map((r) => ({
    id: r.thread_id,
    mailboxId: r.mailbox_id,
    subject: r.subject,
    participants: r.participants,
    messageCount: Number(r.message_count),
    unread: Number(byId.get(r.thread_id)?.unread ?? 0),
    lastMessageAt: r.last_message_at,
    snippet: snippetOf(byId.get(r.thread_id)?.snippet_text ?? ''),
    assigneeId: r.assignee_id,
    triage: { category: r.triage_category, priority: r.triage_priority, needsReply: r.needs_reply },
    hold: r.hold,
  }));
}

/** Lower-cased address parts: the domain of `a@b.com` is `b.com` (the one sender fact events may carry). */
export const domainOf = (address: string): string => address.slice(address.lastIndexOf('@') + 1).toLowerCase();
