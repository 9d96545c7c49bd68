import { parseIds } from '../threading.js';

/*
 * A delivery status notification (RFC 3464), hand-written as the design asks: a multipart/report with
 * report-type=delivery-status (RFC 6522), found at the top of the message or inside a multipart one. From its
 * message/delivery-status part, each recipient's Final-Recipient (or Original-Recipient), Action, Status and
 * Diagnostic-Code; from its message/rfc822 or text/rfc822-headers part, the Message-ID (and Resent-Message-ID) of
 * the message it reports on, else the report's own In-Reply-To and References. Everything else in it is mail, read
 * as any other. Bytes are read as latin1, so nothing a sender writes can make this throw.
 */

export type DsnAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded';

export interface DsnRecipient {
  /** The address, lower-cased (Original-Recipient when given: what we sent to), '' when the report names none. */
  address: string;
  action: DsnAction;
  /**
   * The RFC 3463 status code (`5.1.1`): Status, or the Diagnostic-Code's when Status only gives the class (`5.0.0`);
   * for a report with neither, the class of its action (`5.0.0`, `4.0.0`, `2.0.0`).
   */
  status: string;
  /** Diagnostic-Code as the reporting server gave it (may name addresses: never put it in a ledger event). */
  diagnostic: string | null;
}

export interface Dsn {
  reportingMta: string | null;
  recipients: DsnRecipient[];
  /** Message-IDs of the message reported on, most certain first. */
  originalIds: string[];
}

interface Part {
  headers: Map<string, string>;
  body: string;
}

const MAX_DEPTH = 3;
const MAX_RECIPIENTS = 100;
const ACTIONS: readonly string[] = ['failed', 'delayed', 'delivered', 'relayed', 'expanded'];
const STATUS = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;

/** The report in `raw`, or null when it is not a delivery status report naming at least one recipient. */
export function parseDsn(raw: Buffer): Dsn | null {
  const top = splitPart(raw.toString('latin1'));
  const report = findReport(top, 0);
  if (!report) return null;
  const boundary = contentType(report.headers.get('content-type')).params.get('boundary');
  if (!boundary) return null;
  let status: Part | undefined;
  let original: Part | undefined;
  for (const part of multipart(report.body, boundary)) {
    const type = contentType(part.headers.get('content-type')).type;
    if (!status && (type === 'message/delivery-status' || type === 'message/global-delivery-status')) status = part;
    else if (!original && ['message/rfc822', 'text/rfc822-headers', 'message/global', 'message/global-headers'].includes(type)) original = part;
  }
  if (!status) return null;
  const groups = fieldGroups(decode(status));
  const perMessage = groups.find((g) => !g.has('action') && !g.has('final-recipient'));
  const recipients = groups
    .filter((g) => g.has('action') || g.has('final-recipient'))
    .flatMap(recipientOf)
    .slice(0, MAX_RECIPIENTS);
  if (recipients.length === 0) return null;
  const embedded = original ? splitPart(decode(original)).headers : new Map<string, string>();
  const originalIds = [
    ...new Set([
      ...parseIds(embedded.get('message-id')),
      ...parseIds(embedded.get('resent-message-id')),
      ...parseIds(top.headers.get('in-reply-to')),
      ...parseIds(top.headers.get('references')).reverse(),
    ]),
  ].slice(0, 20);
  return { reportingMta: typed(perMessage?.get('reporting-mta')) || null, recipients, originalIds };
}

/** Whether a Content-Type names a delivery status report. */
function isDeliveryReport(type: string | undefined, reportType: string | undefined): boolean {
  return type?.toLowerCase() === 'multipart/report' && reportType?.toLowerCase() === 'delivery-status';
}

/** The multipart/report; report-type=delivery-status at or under `part`. */
function findReport(part: Part, depth: number): Part | null {
  const ct = contentType(part.headers.get('content-type'));
  if (isDeliveryReport(ct.type, ct.params.get('report-type'))) return part;
  const boundary = ct.params.get('boundary');
  if (!ct.type.startsWith('multipart/') || !boundary || depth >= MAX_DEPTH) return null;
  for (const child of multipart(part.body, boundary)) {
    const found = findReport(child, depth + 1);
    if (found) return found;
  }
  return null;
}

function recipientOf(g: Map<string, string>): DsnRecipient[] {
  const action = (g.get('action') ?? '')
    .trim()
    .toLowerCase()
    .split(/[\s(;]/)[0];
  if (!ACTIONS.includes(action)) return [];
  const diagnostic = g.get('diagnostic-code') ?? null;
  const given = STATUS.exec(g.get('status') ?? '');
  const told = diagnostic ? STATUS.exec(diagnostic) : null;
  // Exim says 5.0.0 and leaves the real code to the remote server's reply: the reply's, when of the same class.
  const code = given && !(given[0].endsWith('.0.0') && told && told[1] === given[1]) ? given : (told ?? given);
  const fallback = action === 'failed' ? '5.0.0' : action === 'delayed' ? '4.0.0' : '2.0.0';
  const address = (typed(g.get('original-recipient')) || typed(g.get('final-recipient'))).replace(/^<|>$/g, '').toLowerCase();
  return [
    { address: address.slice(0, 320), action: action as DsnAction, status: code ? code[0] : fallback, diagnostic: diagnostic ? typed(diagnostic) : null },
  ];
}

/** `rfc822; ann@x` -> `ann@x`: a typed field's value without its type (RFC 3464 2.1.2). */
function typed(value: string | undefined): string {
  if (!value) return '';
  const semi = value.indexOf(';');
  return (semi >= 0 ? value.slice(semi + 1) : value).replace(/\s+/g, ' ').trim();
}

/** Header fields and body; field names lower-cased, folded lines joined, the first of a repeated field kept. */
function splitPart(text: string): Part {
  const bare = /^\r?\n/.exec(text);
  if (bare) return { headers: new Map(), body: text.slice(bare[0].length) };
  const m = /\r?\n\r?\n/.exec(text);
  const head = m ? text.slice(0, m.index) : text;
  const body = m ? text.slice(m.index + m[0].length) : '';
  return { headers: fields(head), body };
}

function fields(block: string): Map<string, string> {
  const out = new Map<string, string>();
  let name: string | null = null;
  let value = '';
  const flush = () => {
    if (name !== null && !out.has(name)) out.set(name, value.trim());
  };
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && name !== null) {
      value += ` ${line.trim()}`;
      continue;
    }
    flush();
    const colon = line.indexOf(':');
    name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : null;
    value = colon > 0 ? line.slice(colon + 1) : '';
  }
  flush();
  return out;
}

/** The field groups of a delivery-status body: the per-message one, then one per recipient, blank-line separated. */
function fieldGroups(body: string): Map<string, string>[] {
  return body
    .split(/\r?\n[ \t]*\r?\n/)
    .map((block) => fields(block.replace(/^(\r?\n)+/, '')))
    .filter((g) => g.size > 0);
}

/** A Content-Type's type (lower-cased; text/plain when absent) and parameters (names lower-cased, quotes removed). */
function contentType(value: string | undefined): { type: string; params: Map<string, string> } {
  const params = new Map<string, string>();
  if (!value) return { type: 'text/plain', params };
  const [type, ...rest] = splitParams(value);
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq <= 0) continue;
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"')) v = v.slice(1, v.endsWith('"') && v.length > 1 ? -1 : undefined).replace(/\\(.)/g, '$1');
    params.set(p.slice(0, eq).trim().toLowerCase(), v);
  }
  return { type: type.trim().toLowerCase(), params };
}

/** `a; b="x;y"; c` -> ['a', 'b="x;y"', 'c']: semicolons inside quotes do not split. */
function splitParams(value: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '\\' && quoted && i + 1 < value.length) {
      cur += ch + value[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === ';' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** The parts of a multipart body between `--boundary` lines, up to the closing `--boundary--`. */
function multipart(body: string, boundary: string): Part[] {
  const parts: Part[] = [];
  const delimiter = `--${boundary}`;
  let current: string[] | null = null;
  for (const line of body.split(/\r?\n/)) {
    const trimmed = line.trimEnd();
    if (trimmed === delimiter || trimmed === `${delimiter}--`) {
      if (current) parts.push(splitPart(current.join('\r\n')));
      if (trimmed !== delimiter) return parts;
      current = [];
    } else if (current) current.push(line);
  }
  if (current && current.length > 0) parts.push(splitPart(current.join('\r\n')));
  return parts;
}

/** A part's body after its Content-Transfer-Encoding (base64, quoted-printable; anything else as it is). */
function decode(part: Part): string {
  const cte = (part.headers.get('content-transfer-encoding') ?? '').trim().toLowerCase();
  if (cte === 'base64') return Buffer.from(part.body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64').toString('latin1');
  if (cte === 'quoted-printable') {
    return part.body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return part.body;
}
