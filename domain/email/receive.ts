import { Readable } from 'node:stream';
import type { AddressObject, ParsedMail } from 'mailparser';
import { MAX_MESSAGE_BYTES } from '../../protocol/methods/email/shapes.js';
import type { Queryable } from '../../db/types.js';
import { appendEvent } from '../../ledger/append.js';
import { referenceBlob } from '../../blobs/index.js';
import type { Deps } from '../core/deps.js';
import { newId } from '../core/ids.js';
import { landing, type Into, type SpamReason } from './inbound/place.js';
import { mailboxesAt } from './mailboxes.js';
import { domainOf, type Addr } from './model.js';
import { applyThreadActs, decide, enabledRules, markReadForAll } from './rules/apply.js';
import { prepareFacts } from './rules/evaluate.js';
import { joinThread, parseIds } from './threading.js';

/*
 * Receiving one message (the SMTP listener and IMAP sync call exactly this): the MIME is parsed by mailparser, the
 * raw bytes stored once as a blob of the org and each attachment as one, then, in one transaction, one message row
 * per recipient mailbox of the org, each holding the blobs, threaded, run through the mailbox's rules and put in
 * the folder they and the spam checks choose (inbound/place.ts), with one system event `email.message.receive` per
 * row (ids, counts, verdicts, rules applied and the sender's domain: never an address, subject or body). Blob uploads run before the transaction (each its own, as every upload does); if the
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
  /** A folder to put it in instead of where rules and spam checks would (IMAP sync of a folder other than INBOX). */
  into?: Into;
  /** How it came (the event says so): the SMTP listener or an IMAP import. */
  via?: 'smtp' | 'imap';
}

export interface Received {
  sha256: string;
  /** One per mailbox that got the message (a mailbox that already holds these exact bytes is left out). */
  messages: { messageId: string; mailboxId: string; threadId: string; folderId: string; seq: number; spam: SpamReason | null; ruleIds: string[] }[];
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
  return simpleParser(raw, { skipImageLinks: true, keepCidLinks: true, skipTextToHtml: true, skipTextLinks: true });
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
  // Mail without a Message-ID gets one, made of its bytes: the same in every copy (replies to it thread) and on a
  // retry of the same bytes (a sender's after a lost 250, an IMAP re-read), which is then kept once.
  const rfcId = parseIds(mail.messageId)[0] ?? `${stored.sha256.slice(0, 32)}@${domainOf(targets[0].address)}`;
  const at = deps.clock.now();
  const now = at.toISOString();
  const auth = input.auth ?? {};
  const listId = listIdOf(mail);
  const facts = prepareFacts({
    from: from.address,
    fromDomain: domainOf(from.address),
    to: to.map((a) => a.address),
    cc: cc.map((a) => a.address),
    subject,
    body: text,
    hasAttachment: files.length > 0,
    dmarc: auth.dmarc ?? null,
    listId,
  });
  const participants = [...new Set([from.address, ...to.map((a) => a.address), ...cc.map((a) => a.address)].filter((a) => a !== ''))].slice(0, 200);

  const out = await deps.db.tx(async (q) => {
    const made: Received['messages'] = [];
    for (const box of targets) {
      if (await alreadyHeld(q, orgId, box.mailbox_id, rfcId, stored.sha256)) continue;
      const { threadId, found } = await joinThread(q, orgId, box.mailbox_id, { inReplyTo, references, subject, from: from.address, at }, participants, now);
      // After threading, before the row: the rules, then where it lands (Spam for a DMARC failure or a block).
      const decision = decide(await enabledRules(q, orgId, box.mailbox_id), facts);
      const { folder, spam } = await landing(q, orgId, box.mailbox_id, {
        into: input.into,
        dmarc: auth.dmarc ?? null,
        from: from.address,
        fromDomain: domainOf(from.address),
        decision,
        now,
      });
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
          listId,
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
      if (decision.markRead) await markReadForAll(q, orgId, box.mailbox_id, [messageId], now);
      await applyThreadActs(q, orgId, box.mailbox_id, threadId, decision);
      await countIn(q, orgId, box.mailbox_id, folder.folder_id, threadId, now);
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
          folderRole: folder.role,
          spam,
          ruleIds: decision.ruleIds,
          ...(input.via ? { via: input.via } : {}),
        },
      });
      made.push({ messageId, mailboxId: box.mailbox_id, threadId, folderId: folder.folder_id, seq: Number(event.seq), spam, ruleIds: decision.ruleIds });
    }
    return made;
  });
  const last = out[out.length - 1];
  if (last) deps.stream.appended(orgId, last.seq);
  return { sha256: stored.sha256, messages: out, unknown };
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

/** The List-Id's id (inside the angle brackets), lower-cased: what a rule's listId compares. */
function listIdOf(mail: ParsedMail): string | null {
  const line = mail.headerLines.find((h) => h.key === 'list-id')?.line;
  if (!line) return null;
  const value = line.slice(line.indexOf(':') + 1).trim();
  const id = (/<([^<>]+)>/.exec(value)?.[1] ?? value).trim().toLowerCase();
  return id === '' ? null : id.slice(0, 255);
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
