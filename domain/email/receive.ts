import { Readable } from 'node:stream';
import type { AddressObject, ParsedMail } from 'mailparser';
import { MAX_MESSAGE_BYTES } from '../../protocol/methods/email/shapes.js';
import { silentLogger, type Deps } from '../core/deps.js';
import { triageAfter, triaging, type TriageDeps } from './ai/background.js';
import { fileArrival, prepareArrival, type ArrivalFile, type Filed, type Verdict } from './inbound/arrive.js';
import { calendarParts } from './inbound/calendar-parts.js';
import { parseDsn } from './inbound/dsn.js';
import type { Into } from './inbound/place.js';
import { mailboxesAt } from './mailboxes.js';
import { domainOf, type Addr } from './model.js';
import { recordReport, reportedIn } from './send/bounce.js';
import { parseIds } from './threading.js';

/*
 * Receiving one message (the SMTP listener and IMAP sync call exactly this): the MIME is parsed by mailparser, the
 * raw bytes stored once as a blob of the org and each attachment as one, then, in one transaction, one message row
 * per recipient mailbox of the org, each holding the blobs, filed by inbound/arrive.ts (threaded, through the
 * mailbox's rules and spam checks, one system event `email.message.receive` per row: ids, counts, verdicts, never
 * an address, subject or body). A delivery status report (inbound/dsn.ts) on a message the mailbox sent goes to
 * Inbox, in that message's thread, and marks its submission (send/bounce.ts). Mail landing in an Inbox schedules the
 * mailbox's background triage where it is on (ai/background.ts). Blob uploads run before the
 * transaction (each its own, as every upload does); if the transaction fails, what they stored is held by nothing
 * and collected after the grace period. A listener answers 250 only once this resolves (committed), 550/552/451
 * from its ReceiveError or any other error.
 */

export type { Verdict };

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
  /** Already read where it came from (IMAP \Seen): imported read for the mailbox's people. */
  read?: boolean;
}

export interface Received {
  sha256: string;
  /**
   * One per mailbox that got the message (a mailbox that already holds these exact bytes, or sent it, is left
   * out); `bounce`: the submission a delivery report marked (`seq` is then its event's).
   */
  messages: (Filed & { bounce?: string })[];
  /** Envelope recipients with no mailbox in the org. */
  unknown: string[];
}

// `families`: the hooks that read calendar parts (inbound/calendar-parts.ts); without it, none run.
type ReceiveDeps = Pick<Deps, 'db' | 'blobs' | 'clock' | 'stream'> & TriageDeps & Partial<Pick<Deps, 'families' | 'log'>>;

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
  const files: ArrivalFile[] = [];
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
  // Mail without a Message-ID gets one, made of its bytes: the same in every copy (replies to it thread) and on a
  // retry of the same bytes (a sender's after a lost 250, an IMAP re-read), which is then kept once.
  const rfcId = parseIds(mail.messageId)[0] ?? `${stored.sha256.slice(0, 32)}@${domainOf(targets[0].address)}`;
  const arrival = prepareArrival({
    from,
    to: flat(mail.to),
    cc: flat(mail.cc),
    replyTo: flat(mail.replyTo),
    subject: (mail.subject ?? '').slice(0, 998),
    text: mail.text ?? '',
    html: typeof mail.html === 'string' ? mail.html : null,
    rfcId,
    inReplyTo: parseIds(mail.inReplyTo)[0] ?? null,
    references: parseIds(mail.references).slice(-50),
    listId: listIdOf(mail),
    raw: { sha256: stored.sha256, size: stored.size },
    sizeBytes: raw.length,
    attachments: files,
    auth: input.auth ?? null,
    via: input.via ?? null,
  });
  // A delivery status report (at the top, or inside a multipart) is believed unless the domain it claims to come
  // from disowns it (DMARC fail). The look at the bytes only spares other mail the parse.
  const type = (mail.headers.get('content-type') as { value?: string } | undefined)?.value ?? '';
  const reportLike = /^multipart\//i.test(type) && (raw.includes('delivery-status') || raw.includes('Delivery-Status'));
  const dsn = reportLike && input.auth?.dmarc !== 'fail' ? parseDsn(raw) : null;
  const at = deps.clock.now();
  const parts = input.auth?.dmarc === 'fail' ? [] : calendarParts(mail);
  const hooks = parts.length > 0 ? (deps.families?.contributions('mailArrivals') ?? []) : [];

  const out = await deps.db.tx(async (q) => {
    const made: Received['messages'] = [];
    for (const box of targets) {
      const reported = dsn ? await reportedIn(q, orgId, box.mailbox_id, dsn) : null;
      const filed = await fileArrival(q, orgId, box.mailbox_id, arrival, {
        at,
        // A report on the mailbox's own mail: Inbox, in that mail's thread.
        into: input.into ?? (reported ? { role: 'inbox' } : undefined),
        threadWith: reported ? [reported.rfcId] : [],
        read: input.read,
      });
      if (!filed) continue;
      const seq = reported && dsn ? await recordReport(q, orgId, box.mailbox_id, reported, dsn, filed.messageId, at.toISOString()) : null;
      made.push(seq === null || !reported ? filed : { ...filed, seq, bounce: reported.submission.submission_id });
    }
    // Mail in an Inbox whose mailbox triages in the background: its pass, unless one is waiting already.
    await triageAfter(q, deps, orgId, made, triaging(targets));
    // Calendar parts of mail filed outside Spam, to the families that apply them, in this transaction.
    const clean = made.filter((m) => m.spam === null && input.into === undefined);
    if (hooks.length > 0 && clean.length > 0) {
      const to = targets.filter((t) => clean.some((m) => m.mailboxId === t.mailbox_id)).map((t) => t.address);
      for (const h of hooks) await h.value(q, { orgId, at, from: from.address, to, parts, messages: clean, log: deps.log ?? silentLogger });
    }
    return made;
  });
  const last = out[out.length - 1];
  if (last) deps.stream.appended(orgId, last.seq);
  return { sha256: stored.sha256, messages: out, unknown };
}

/** The List-Id's id (inside the angle brackets), lower-cased: what a rule's listId compares. */
function listIdOf(mail: ParsedMail): string | null {
  const line = mail.headerLines.find((h) => h.key === 'list-id')?.line;
  if (!line) return null;
  const value = line.slice(line.indexOf(':') + 1).trim();
  const id = (/<([^<>]+)>/.exec(value)?.[1] ?? value).trim().toLowerCase();
  return id === '' ? null : id.slice(0, 255);
}
