import type { Queryable } from '../../db/types.js';
import { newId } from '../core/ids.js';

/*
 * Threading, hand-written as the design says: a message joins the thread of the newest message of its mailbox whose
 * Message-ID its In-Reply-To or References name (RFC 5322 3.6.4). Only a message with neither header and a subject
 * starting `Re:` falls back to the subject: the newest thread of the mailbox with the same subject (prefixes
 * removed), on which the sender has taken part, active in the last 30 days. Anything else starts a thread, so two
 * unrelated mails with one subject ("Invoice") never merge.
 */

const PREFIXES = /^\s*((re|fw|fwd|aw|wg|sv|vs|antw|tr|rif)\s*(\[\d+\])?\s*[:：]\s*)+/i;
const FALLBACK_DAYS = 30;
/** Most References an outgoing reply carries (the oldest is kept, then the newest ones: RFC 5322's advice). */
export const MAX_REFERENCES = 20;

/** The subject without reply and forward prefixes, spaces collapsed, lower-cased: what a fallback compares. */
export function subjectKey(subject: string): string {
  return subject.replace(PREFIXES, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

export const isReplySubject = (subject: string): boolean => /^\s*re\s*(\[\d+\])?\s*[:：]/i.test(subject);

/** `Re: <subject>` unless it already starts with Re:. */
export const replySubject = (subject: string): string => (isReplySubject(subject) ? subject : `Re: ${subject}`.trim());

/** Message ids in a header (`<a@b> <c@d>`), without angle brackets; a bare id without brackets is taken as is. */
export function parseIds(header: string | readonly string[] | undefined | null): string[] {
  if (!header) return [];
  const text = Array.isArray(header) ? header.join(' ') : (header as string);
  const bracketed = [...text.matchAll(/<([^<>\s]{1,900})>/g)].map((m) => m[1]);
  if (bracketed.length > 0) return bracketed;
  return text
    .split(/\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && s.length <= 900 && s.includes('@'));
}

/** References of a reply to a message: its References and its own Message-ID, bounded (the first one kept). */
export function replyReferences(original: { rfc_references: readonly string[]; rfc_message_id: string }): string[] {
  const all = [...original.rfc_references.filter((r) => r !== original.rfc_message_id), original.rfc_message_id];
  return all.length <= MAX_REFERENCES ? all : [all[0], ...all.slice(all.length - MAX_REFERENCES + 1)];
}

export interface ThreadClues {
  inReplyTo: string | null;
  references: readonly string[];
  subject: string;
  /** The sender's address, lower-cased. */
  from: string;
  at: Date;
}

/** The thread a message joins in its mailbox, or null for a new one. */
export async function findThread(q: Queryable, orgId: string, mailboxId: string, clues: ThreadClues): Promise<string | null> {
  const ids = [...new Set([...(clues.inReplyTo ? [clues.inReplyTo] : []), ...clues.references])];
  if (ids.length > 0) {
    const [hit] = await q.query<{ thread_id: string }>(
      `SELECT thread_id FROM email_messages
        WHERE org_id = $1 AND mailbox_id = $2 AND rfc_message_id = ANY($3::text[]) AND state <> 'discarded'
        ORDER BY sort_at DESC LIMIT 1`,
      [orgId, mailboxId, ids],
    );
    return hit?.thread_id ?? null;
  }
  if (!isReplySubject(clues.subject) || clues.from === '') return null;
  const key = subjectKey(clues.subject);
  if (key === '') return null;
  const since = new Date(clues.at.getTime() - FALLBACK_DAYS * 86_400_000).toISOString();
  const [hit] = await q.query<{ thread_id: string }>(
    `SELECT thread_id FROM email_threads
      WHERE org_id = $1 AND mailbox_id = $2 AND subject_key = $3 AND last_message_at >= $4 AND $5 = ANY(participants)
      ORDER BY last_message_at DESC LIMIT 1`,
    [orgId, mailboxId, key, since, clues.from],
  );
  return hit?.thread_id ?? null;
}

/** The thread a message joins (found by its clues, with its participants added), or a new one made for it. */
export async function joinThread(
  q: Queryable,
  orgId: string,
  mailboxId: string,
  clues: ThreadClues,
  participants: readonly string[],
  now: string,
): Promise<{ threadId: string; found: boolean }> {
  const found = await findThread(q, orgId, mailboxId, clues);
  if (found) {
    await q.query(
      `UPDATE email_threads SET participants = (SELECT array_agg(DISTINCT p ORDER BY p) FROM unnest(participants || $3::text[]) AS p)
        WHERE org_id = $1 AND thread_id = $2`,
      [orgId, found, participants],
    );
    return { threadId: found, found: true };
  }
  const threadId = newId('thr');
  await q.query(
    `INSERT INTO email_threads (org_id, thread_id, mailbox_id, subject, subject_key, participants, last_message_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [orgId, threadId, mailboxId, clues.subject, subjectKey(clues.subject), participants, now],
  );
  return { threadId, found: false };
}
