import type { Queryable, TxQueryable } from '../../../db/types.js';
import { appendEvent } from '../../../ledger/append.js';
import { referenceBlob } from '../../../blobs/index.js';
import { newId } from '../../core/ids.js';
import { domainOf, type Addr } from '../model.js';
import { applyThreadActs, decide, enabledRules, markReadForAll } from '../rules/apply.js';
import { prepareFacts, type PreparedFacts } from '../rules/evaluate.js';
import { joinThread } from '../threading.js';
import { landing, type Into, type SpamReason } from './place.js';

/*
 * Filing one arriving message in one mailbox: the one path for mail from outside (receiveMessage: the SMTP
 * listener, IMAP sync) and for mail a send delivers inside the org (send/internal.ts), so the two cannot drift. In
 * the caller's transaction: threading, the mailbox's rules (`decide`), where it lands (Spam for a DMARC failure or
 * a blocked sender, whatever a rule says: inbound/place.ts), the row, its blobs held, read state, the rules' thread
 * acts, the thread's and folder's counts, and one `email.message.receive` event (ids, counts, verdicts, codes and
 * the sender's domain: never an address, subject or body).
 */

export type Verdict = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror' | 'policy';

/** A blob the message holds as an attachment. */
export interface ArrivalFile {
  sha256: string;
  size: number;
  contentType: string;
  filename: string;
  contentId: string | null;
  inline: boolean;
}

export interface Arrival {
  from: Addr;
  to: Addr[];
  cc: Addr[];
  replyTo: Addr[];
  subject: string;
  text: string;
  html: string | null;
  /** Message-ID, In-Reply-To and References, without angle brackets. */
  rfcId: string;
  inReplyTo: string | null;
  references: string[];
  listId: string | null;
  /** The raw bytes as a blob of the org; null for a copy delivered inside the org (it never was bytes on a wire). */
  raw: { sha256: string; size: number } | null;
  sizeBytes: number;
  attachments: ArrivalFile[];
  /** SPF, DKIM and DMARC verdicts; null when it never crossed SMTP (inside the org) or was imported over IMAP. */
  auth: { spf?: Verdict; dkim?: Verdict; dmarc?: Verdict } | null;
  via: 'smtp' | 'imap' | 'internal' | null;
}

/** An arrival with what every mailbox's filing shares: the rules' facts and the thread's participants. */
export interface PreparedArrival extends Arrival {
  facts: PreparedFacts;
  participants: string[];
}

export function prepareArrival(a: Arrival): PreparedArrival {
  const facts = prepareFacts({
    from: a.from.address,
    fromDomain: domainOf(a.from.address),
    to: a.to.map((x) => x.address),
    cc: a.cc.map((x) => x.address),
    subject: a.subject,
    body: a.text,
    hasAttachment: a.attachments.length > 0,
    dmarc: a.auth?.dmarc ?? null,
    listId: a.listId,
  });
  const participants = [...new Set([a.from.address, ...a.to.map((x) => x.address), ...a.cc.map((x) => x.address)].filter((x) => x !== ''))].slice(0, 200);
  return { ...a, facts, participants };
}

export interface Filed {
  messageId: string;
  mailboxId: string;
  threadId: string;
  folderId: string;
  /** The folder's role (inbox, spam, archive, ... or none): Inbox mail may schedule the background triage. */
  folderRole: string;
  seq: number;
  spam: SpamReason | null;
  ruleIds: string[];
}

export interface FileOptions {
  at: Date;
  /** A folder to put it in instead of where rules and spam checks would (an IMAP folder other than INBOX, a bounce). */
  into?: Into;
  /** Message-IDs it belongs with beyond its own headers (a bounce: the message it reports on). */
  threadWith?: readonly string[];
  /** Already read where it came from (IMAP \Seen): read for the mailbox's people. */
  read?: boolean;
  /** More ids for the event (a delivery's submission, the job's cause). */
  event?: Record<string, string | number>;
}

const PEOPLE = ['owner', 'reviewer', 'member'];

/**
 * File `a` in the mailbox; null when the mailbox already has it: the same bytes under the same Message-ID (a
 * relay's retry, an IMAP re-read), or its own outgoing message coming back (its Sent row is the record).
 */
export async function fileArrival(q: Queryable, orgId: string, mailboxId: string, a: PreparedArrival, o: FileOptions): Promise<Filed | null> {
  // One filing of a Message-ID in a mailbox at a time: two copies arriving at once (a relay's retry racing the
  // first, two IMAP syncs) would both pass the check below, which no unique key backs. Held to commit.
  await q.query(`SELECT pg_advisory_xact_lock(hashtextextended('email.arrive:' || $1 || ':' || $2 || ':' || $3, 0))`, [orgId, mailboxId, a.rfcId]);
  if (await alreadyHere(q, orgId, mailboxId, a.rfcId, a.raw?.sha256 ?? null)) return null;
  const now = o.at.toISOString();
  const from = a.from.address;
  const clues = { inReplyTo: a.inReplyTo, references: [...a.references, ...(o.threadWith ?? [])], subject: a.subject, from, at: o.at };
  const { threadId, found } = await joinThread(q, orgId, mailboxId, clues, a.participants, now);
  // After threading, before the row: the rules, then where it lands.
  const decision = decide(await enabledRules(q, orgId, mailboxId), a.facts);
  const dmarc = a.auth?.dmarc ?? null;
  const { folder, spam } = await landing(q, orgId, mailboxId, { into: o.into, dmarc, from, fromDomain: domainOf(from), decision, now });
  const messageId = newId('eml');
  await q.query(
    `INSERT INTO email_messages (org_id, message_id, mailbox_id, thread_id, folder_id, state, rfc_message_id, in_reply_to, rfc_references,
       from_address, from_name, from_domain, to_addresses, cc_addresses, reply_to, subject, text, html, has_attachments,
       auth_spf, auth_dkim, auth_dmarc, raw_sha256, size_bytes, received_at, sort_at, created_at, updated_at, list_id)
     VALUES ($1, $2, $3, $4, $5, 'received', $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14::jsonb, $15, $16, $17, $18,
       $19, $20, $21, $22, $23, $24, $24, $24, $24, $25)`,
    [
      orgId,
      messageId,
      mailboxId,
      threadId,
      folder.folder_id,
      a.rfcId,
      a.inReplyTo,
      a.references,
      from,
      a.from.name,
      domainOf(from),
      JSON.stringify(a.to),
      JSON.stringify(a.cc),
      JSON.stringify(a.replyTo),
      a.subject,
      a.text,
      a.html,
      a.attachments.length > 0,
      a.auth?.spf ?? null,
      a.auth?.dkim ?? null,
      dmarc,
      a.raw?.sha256 ?? null,
      a.sizeBytes,
      now,
      a.listId,
    ],
  );
  const tx = q as TxQueryable;
  if (a.raw) await referenceBlob(tx, { orgId, sha256: a.raw.sha256, holder: messageId, by: '' });
  for (const [position, f] of a.attachments.entries()) {
    await q.query(
      `INSERT INTO email_attachments (org_id, attachment_id, message_id, position, sha256, filename, content_type, size_bytes, content_id, inline)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [orgId, newId('eatt'), messageId, position, f.sha256, f.filename, f.contentType, f.size, f.contentId, f.inline],
    );
    await referenceBlob(tx, { orgId, sha256: f.sha256, holder: messageId, by: '' });
  }
  if (decision.markRead) await markReadForAll(q, orgId, mailboxId, [messageId], now);
  else if (o.read) await markReadForPeople(q, orgId, mailboxId, messageId, now);
  await applyThreadActs(q, orgId, mailboxId, threadId, decision, now);
  await countIn(q, orgId, mailboxId, folder.folder_id, threadId, now);
  const event = await appendEvent(q, orgId, {
    family: 'email',
    kind: 'email.message.receive',
    entityId: messageId,
    actor: '',
    payload: {
      mailboxId,
      threadId,
      messageId,
      folderId: folder.folder_id,
      newThread: !found,
      senderDomain: domainOf(from),
      recipients: a.to.length + a.cc.length,
      attachmentCount: a.attachments.length,
      sizeBytes: a.sizeBytes,
      sha256: a.raw?.sha256 ?? null,
      auth: { spf: a.auth?.spf ?? null, dkim: a.auth?.dkim ?? null, dmarc },
      folderRole: folder.role,
      spam,
      ruleIds: decision.ruleIds,
      ...(a.via ? { via: a.via } : {}),
      ...(o.read ? { read: true } : {}),
      ...o.event,
    },
  });
  return { messageId, mailboxId, threadId, folderId: folder.folder_id, folderRole: folder.role, seq: Number(event.seq), spam, ruleIds: decision.ruleIds };
}

/**
 * Whether the mailbox holds this message already: the same bytes under the same Message-ID (a delivery repeated,
 * kept once), or the mailbox's own sent message under that Message-ID.
 */
async function alreadyHere(q: Queryable, orgId: string, mailboxId: string, rfcId: string, sha256: string | null): Promise<boolean> {
  const rows = await q.query(
    `SELECT 1 FROM email_messages WHERE org_id = $1 AND mailbox_id = $2 AND rfc_message_id = $3 AND (state = 'sent' OR raw_sha256 = $4) LIMIT 1`,
    [orgId, mailboxId, rfcId, sha256],
  );
  return rows.length > 0;
}

/** Read for the mailbox's people (owners, reviewers, members), not its agents: a person read it elsewhere. */
async function markReadForPeople(q: Queryable, orgId: string, mailboxId: string, messageId: string, now: string): Promise<void> {
  await q.query(
    `INSERT INTO email_message_reads (org_id, principal_id, message_id, read_at)
     SELECT $1, mm.principal_id, $3, $4 FROM email_mailbox_members mm WHERE mm.org_id = $1 AND mm.mailbox_id = $2 AND mm.role = ANY($5::text[])
     ON CONFLICT DO NOTHING`,
    [orgId, mailboxId, messageId, now, PEOPLE],
  );
}

/**
 * One more live message in the thread and in its folder: what refreshThreads would recompute, as two statements
 * (a full recompute of the thread's folders cost most of a receive: 23 of 50 ms on PGlite).
 */
async function countIn(q: Queryable, orgId: string, mailboxId: string, folderId: string, threadId: string, at: string): Promise<void> {
  await q.query(
    `INSERT INTO email_thread_folders (org_id, mailbox_id, folder_id, thread_id, last_message_at, message_count) VALUES ($1, $2, $3, $4, $5, 1)
     ON CONFLICT (org_id, folder_id, thread_id)
     DO UPDATE SET message_count = email_thread_folders.message_count + 1, last_message_at = greatest(email_thread_folders.last_message_at, EXCLUDED.last_message_at)`,
    [orgId, mailboxId, folderId, threadId, at],
  );
  await q.query(
    'UPDATE email_threads SET message_count = message_count + 1, last_message_at = greatest(last_message_at, $3) WHERE org_id = $1 AND thread_id = $2',
    [orgId, threadId, at],
  );
}
