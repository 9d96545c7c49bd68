import { createHash } from 'node:crypto';

/*
 * A vCard 4.0 writer (RFC 6350), for every family that exports people: the member directory, later the
 * directory family's parties. Values are escaped (3.4), parameter values caret-encoded (RFC 6868), content
 * lines folded at 75 octets without splitting a UTF-8 sequence (3.2), every line ended by CRLF.
 */

/** A text value, or a structured one (N, ADR, ORG): components separated by ';', each a text or a list (','). */
export type VCardValue = string | readonly (string | readonly string[])[];

export interface VCardProperty {
  name: string;
  value: VCardValue;
  params?: Readonly<Record<string, string | readonly string[]>>;
  /** A URI value (UID, TEL;VALUE=uri, URL, PHOTO): written as is, control characters removed, not text-escaped. */
  uri?: boolean;
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const NAME = /^[A-Za-z0-9-]+$/;

/** TEXT escaping (RFC 6350 3.4): backslash, comma, semicolon, and line breaks as \n. */
export function escapeText(value: string): string {
  return value
    .replace(CONTROL, '')
    .replace(/\\/g, '\\\\')
    .replace(/,/g, '\\,')
    .replace(/;/g, '\\;')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** A parameter value (RFC 6868 caret encoding), double-quoted when it holds ':', ';' or ','. */
function paramValue(value: string): string {
  const encoded = value
    .replace(CONTROL, '')
    .replace(/\^/g, '^^')
    .replace(/\r\n|\r|\n/g, '^n')
    .replace(/"/g, "^'");
  return /[:;,]/.test(encoded) ? `"${encoded}"` : encoded;
}

function valueText(p: VCardProperty): string {
  if (p.uri) return String(p.value).replace(CONTROL, '').replace(/[\r\n]/g, '');
  if (typeof p.value === 'string') return escapeText(p.value);
  return p.value.map((c) => (typeof c === 'string' ? escapeText(c) : c.map(escapeText).join(','))).join(';');
}

/** Fold a content line so no physical line exceeds 75 octets; continuations start with one space. */
export function foldLine(line: string): string {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 75) return line;
  const parts: string[] = [];
  let start = 0;
  let limit = 75;
  while (start < bytes.length) {
    let end = Math.min(start + limit, bytes.length);
    // Never cut inside a UTF-8 sequence: back off continuation bytes (10xxxxxx).
    while (end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
    parts.push(bytes.subarray(start, end).toString('utf8'));
    start = end;
    limit = 74; // the leading space counts
  }
  return parts.join('\r\n ');
}

export function contentLine(p: VCardProperty): string {
  if (!NAME.test(p.name)) throw new Error(`vCard property name ${JSON.stringify(p.name)}`);
  const params = Object.entries(p.params ?? {}).map(([k, v]) => {
    if (!NAME.test(k)) throw new Error(`vCard parameter name ${JSON.stringify(k)}`);
    return `;${k.toUpperCase()}=${(typeof v === 'string' ? [v] : v).map(paramValue).join(',')}`;
  });
  return foldLine(`${p.name.toUpperCase()}${params.join('')}:${valueText(p)}`);
}

/** One vCard: BEGIN, VERSION:4.0, the properties in order, END. FN is required (RFC 6350 6.2.1). */
export function writeVCard(props: readonly VCardProperty[]): string {
  if (!props.some((p) => p.name.toUpperCase() === 'FN')) throw new Error('a vCard needs an FN property');
  return ['BEGIN:VCARD', 'VERSION:4.0', ...props.map(contentLine), 'END:VCARD'].map((l) => `${l}\r\n`).join('');
}

export const writeVCards = (cards: readonly (readonly VCardProperty[])[]): string => cards.map(writeVCard).join('');

/** A stable urn:uuid for a record (UID), derived from its scope and id: the same contact on every export. */
export function uidFor(scope: string, id: string): string {
  const h = createHash('sha256').update(`${scope}\n${id}`).digest();
  h[6] = (h[6] & 0x0f) | 0x80; // version 8: a custom, hash-based UUID (RFC 9562)
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
