import { Readable } from 'node:stream';
import type { AddressObject, ParsedMail } from 'mailparser';
import { MAX_MESSAGE_BYTES } from '../../protocol/methods/email/shapes.js';
import type { Queryable } from '../../db/types.js';
import { appendEvent } from '../../ledger/append.js';
import { referenceBlob } from '../../blobs/index.js';
import type { Deps } from '../core/deps.js';
import { newId } from '../core/ids.js';
import { folderByRole, refreshThreads } from './folders.js';
import { mailboxesAt } from './mailboxes.js';
import { domainOf, type Addr } from './model.js';
import { findThread, parseIds, subjectKey } from './threading.js';

/*
 * Receiving one message (the SMTP listener and IMAP sync of later slices call exactly this): the MIME is parsed by
 * mailparser, the raw bytes stored once as a blob of the org and each attachment as one, then, in one transaction,
 * one message row per recipient mailbox of the org, each holding the blobs, threaded, put in Inbox, with one
 * system event `email.message.receive` per row (ids, counts, verdicts and the sender's domain: never an address,
 * subject or body). Blob uploads run before the transaction (each its own, as every upload does); if the
 * transaction fails, what they stored is held by nothing and collected after the grace period. A listener answers
 * 250 only once this resolves (committed), 550/552/451 from its ReceiveError or any other error.
 */

export type ReceiveFailure = 'no_mailbox' | 'too_large';

/** A refusal the SMTP listener maps to its reply: `smtpCode` 550 (no mailbox) or 552 (too large). */
export class ReceiveError extends Error {
  constructor(
    readonly reason: ReceiveFailure,
    readonly smtpCode: 550 | 552,
    message: string,
  ) {
    super(message);
    this.name = 'ReceiveError';
  }
}

export type Verdict = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror' | 'policy';

export interface ReceiveInput {
  orgId: string;
  raw: Buffer;
  /** The SMTP envelope: MAIL FROM and every RCPT TO (mailboxes of the org among them get a copy). */
  envelope: { from: string; to: readonly string[] };
  /** SPF, DKIM and DMARC verdicts (mailauth, in the listener). */
  auth?: { spf?: Verdict; dkim?: Verdict; dmarc?: Verdict };
}

export interface Received {
  sha256: string;
  /** One per mailbox that got the message (a mailbox that already holds these exact bytes is left out). */
  messages: { messageId: string; mailboxId: string; threadId: string; folderId: string; seq: number }[];
  /** Envelope recipients with no mailbox in the org. */
  unknown: string[];
}

type ReceiveDeps = Pick<Deps, 'db' | 'blobs' | 'clock' | 'stream'>;

const flat = (o: AddressObject | AddressObject[] | undefined): Addr[] => {
  const list = o === undefined ? [] : Array.isArray(o) ? o : [o];
  const out: Addr[] = [];
  const walk = (v: { address?: string; name: string; group?: { address?: string; name: string }[] }) => {
    if (v.group) for (const g of v.group) walk(g);
    else if (v.address) out.push({ address: v.address.trim().toLowerCase().slice(0, 320), name: (v.name ?? '').slice(0, 200) });
  };
  for (const a of list) for (const v of a.value) walk(v);
  return out;
};

async function parse(raw: Buffer): Promise<ParsedMail> {
  const { simpleParser } = await import('mailparser');
  return simpleParser(raw, { skipImageLinks: true, keepCidLinks: true });
}

export async function receiveMessage(deps: ReceiveDeps, input: ReceiveInput): Promise<Received> {
  const { orgId, raw } = input;
  if (raw.length > MAX_MESSAGE_BYTES) {
    throw new ReceiveError('too_large', 552, `message is ${raw.length} bytes; at most ${MAX_MESSAGE_BYTES} are accepted`);
  }
  const targets = await mailboxesAt(deps.db, orgId, input.envelope.to);
  const known = new Set(targets.map((t) => t.address));
  const unknown = [...new Set(input.envelope.to.map((a) => a.trim().toLowerCase()))].filter((a) => !known.has(a));
  if (targets.length === 0) throw new ReceiveError('no_mailbox', 550, 'no mailbox here for any recipient');

  const mail = await parse(raw);
  const stored = await deps.blobs.upload({ orgId, principalId: '', body: Readable.from([raw]), contentType: 'message/rfc822', madeHere: true });
  const files: { sha256: string; size: number; contentType: string; filename: string; contentId: string | null; inline: boolean }[] = [];
  for (const a of mail.attachments) {
    const up = await deps.blobs.upload({ orgId, principalId: '', body: Readable.from([a.content]), contentType: a.contentType || 'application/octet-stream' });
    files.push({
      sha256: up.sha256,
      size: up.size,
      contentType: up.contentType,
      filename: (a.filename ?? '').slice(0, 255),
      contentId: a.contentId ?? null,
      inline: a.contentDisposition === 'inline' || a.related === true,
    });
  }

  const from = flat(mail.from)[0] ?? { address: input.envelope.from.trim().toLowerCase(), name: '' };
  const to = flat(mail.to);
  const cc = flat(mail.cc);
  const replyTo = flat(mail.replyTo);
  const subject = (mail.subject ?? '').slice(0, 998);
  const text = mail.text ?? '';
  const html = typeof mail.html === 'string' ? mail.html : null;
  const inReplyTo = parseIds(mail.inReplyTo)[0] ?? null;
  const references = parseIds(mail.references).slice(-50);
  // Mail without a Message-ID gets one (the same in every copy), so replies to it thread.
  const rfcId = parseIds(mail.messageId)[0] ?? `${newId('eml').slice(4)}@${domainOf(targets[0].address)}`;
  const at = deps.clock.now();
  const now = at.toISOString();
  const auth = input.auth ?? {};
  const participants = [...new Set([from.address, ...to.map((a) => a.address), ...cc.map((a) => a.address)].filter((a) => a !== ''))].slice(0, 200);

  const out = await deps.db.tx(async (q) => {
    const made: Received['messages'] = [];
    for (const box of targets) {
      if (await alreadyHeld(q, orgId, box.mailbox_id, rfcId, stored.sha256)) continue;
      const found = await findThread(q, orgId, box.mailbox_id, { inReplyTo, references, subject, from: from.address, at });
      const threadId = found ?? newId('thr');
      if (found) {
        await q.query(
          `UPDATE email_threads SET participants = (SELECT array_agg(DISTINCT p ORDER BY p) FROM unnest(participants || $3::text[]) AS p)
            WHERE org_id = $1 AND thread_id = $2`,
          [orgId, threadId, participants],
        );
      } else {
        await q.query(
          `INSERT INTO email_threads (org_id, thread_id, mailbox_id, subject, subject_key, participants, last_message_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
          [orgId, threadId, box.mailbox_id, subject, subjectKey(subject), participants, now],
        );
      }
      // Rules (a later slice) choose Inbox, a folder of theirs or Spam here.
      const folder = await folderByRole(q, orgId, box.mailbox_id, 'inbox');
      const messageId = newId('eml');
      await q.query(
        `INSERT INTO email_messages (org_id, message_id, mailbox_id, thread_id, folder_id, state, rfc_message_id, in_reply_to, rfc_references,
           from_address, from_name, from_domain, to_addresses, cc_addresses, reply_to, subject, text, html, has_attachments,
           auth_spf, auth_dkim, auth_dmarc, raw_sha256, size_bytes, received_at, sort_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'received', $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14::jsonb, $15, $16, $17, $18,
           $19, $20, $21, $22, $23, $24, $24, $24, $24)`,
        [
          orgId,
          messageId,
          box.mailbox_id,
          threadId,
          folder.folder_id,
          rfcId,
          inReplyTo,
          references,
          from.address,
          from.name,
          domainOf(from.address),
          JSON.stringify(to),
          JSON.stringify(cc),
          JSON.stringify(replyTo),
          subject,
          text,
          html,
          files.length > 0,
          auth.spf ?? null,
          auth.dkim ?? null,
          auth.dmarc ?? null,
          stored.sha256,
          raw.length,
          now,
        ],
      );
      await referenceBlob(q, { orgId, sha256: stored.sha256, holder: messageId, by: '' });
      for (const [position, f] of files.entries()) {
        await q.query(
          `INSERT INTO email_attachments (org_id, attachment_id, message_id, position, sha256, filename, content_type, size_bytes, content_id, inline)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [orgId, newId('eatt'), messageId, position, f.sha256, f.filename, f.contentType, f.size, f.contentId, f.inline],
        );
        await referenceBlob(q, { orgId, sha256: f.sha256, holder: messageId, by: '' });
      }
      await refreshThreads(q, orgId, [threadId]);
      const event = await appendEvent(q, orgId, {
        family: 'email',
        kind: 'email.message.receive',
        entityId: messageId,
        actor: '',
        payload: {
          mailboxId: box.mailbox_id,
          threadId,
          messageId,
          folderId: folder.folder_id,
          newThread: !found,
          senderDomain: domainOf(from.address),
          recipients: to.length + cc.length,
          attachmentCount: files.length,
          sizeBytes: raw.length,
          sha256: stored.sha256,
          auth: { spf: auth.spf ?? null, dkim: auth.dkim ?? null, dmarc: auth.dmarc ?? null },
        },
      });
      made.push({ messageId, mailboxId: box.mailbox_id, threadId, folderId: folder.folder_id, seq: Number(event.seq) });
    }
    return made;
  });
  const last = out[out.length - 1];
  if (last) deps.stream.appended(orgId, last.seq);
  return { sha256: stored.sha256, messages: out, unknown };
}

/** The same bytes under the same Message-ID in the mailbox: a delivery repeated (a relay's retry), kept once. */
async function alreadyHeld(q: Queryable, orgId: string, mailboxId: string, rfcId: string, sha256: string): Promise<boolean> {
  const rows = await q.query('SELECT 1 FROM email_messages WHERE org_id = $1 AND mailbox_id = $2 AND rfc_message_id = $3 AND raw_sha256 = $4 LIMIT 1', [
    orgId,
    mailboxId,
    rfcId,
    sha256,
  ]);
  return rows.length > 0;
}
