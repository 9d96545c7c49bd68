import { createHash } from 'node:crypto';

/*
 * A vCard writer for every family that exports people: the member directory and the directory family's parties.
 * vCard 4.0 (RFC 6350): values escaped (3.4), parameter values caret-encoded (RFC 6868), content lines folded at
 * 75 octets without splitting a UTF-8 sequence (3.2), every line ended by CRLF. vCard 3.0 (RFC 2426) for the
 * clients 4.0 fails in: the same lines, parameter values without caret encoding. jCard (RFC 7095): the same
 * properties as JSON.
 */

/** A text value, or a structured one (N, ADR, ORG): components separated by ';', each a text or a list (','). */
export type VCardValue = string | readonly (string | readonly string[])[];

export interface VCardProperty {
  name: string;
  value: VCardValue;
  params?: Readonly<Record<string, string | readonly string[]>>;
  /** A URI value (UID, TEL;VALUE=uri, URL, PHOTO): written as is, control characters removed, not text-escaped. */
  uri?: boolean;
  /** Several values of one property (CATEGORIES, NICKNAME): `value` lists them, written comma-separated. */
  list?: boolean;
  /** A timestamp value (REV), written in the basic format 20261127T081400Z (jCard: 2026-11-27T08:14:00Z). */
  timestamp?: boolean;
}

export type VCardVersion = '4.0' | '3.0';

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

/**
 * A parameter value, double-quoted when it holds ':', ';' or ','. 4.0: RFC 6868 caret encoding; 3.0 has none, so
 * a double quote or a line break, which it cannot carry, is dropped.
 */
function paramValue(value: string, version: VCardVersion): string {
  const clean = value.replace(CONTROL, '');
  const encoded =
    version === '4.0'
      ? clean
          .replace(/\^/g, '^^')
          .replace(/\r\n|\r|\n/g, '^n')
          .replace(/"/g, "^'")
      : clean.replace(/\r\n|\r|\n/g, ' ').replace(/"/g, '');
  return /[:;,]/.test(encoded) ? `"${encoded}"` : encoded;
}

const uriText = (value: string) => value.replace(CONTROL, '').replace(/[\r\n]/g, '');

function valueText(p: VCardProperty): string {
  if (p.uri) return uriText(String(p.value));
  if (typeof p.value === 'string') return escapeText(p.value);
  if (p.list) return p.value.map((v) => escapeText(String(v))).join(',');
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

export function contentLine(p: VCardProperty, version: VCardVersion = '4.0'): string {
  if (!NAME.test(p.name)) throw new Error(`vCard property name ${JSON.stringify(p.name)}`);
  const params = Object.entries(p.params ?? {}).map(([k, v]) => {
    if (!NAME.test(k)) throw new Error(`vCard parameter name ${JSON.stringify(k)}`);
    return `;${k.toUpperCase()}=${(typeof v === 'string' ? [v] : v).map((x) => paramValue(x, version)).join(',')}`;
  });
  return foldLine(`${p.name.toUpperCase()}${params.join('')}:${valueText(p)}`);
}

/**
 * One vCard: BEGIN, VERSION, the properties in order, END. FN is required (RFC 6350 6.2.1); 3.0 also requires N
 * (RFC 2426 5.4).
 */
export function writeVCard(props: readonly VCardProperty[], version: VCardVersion = '4.0'): string {
  if (!props.some((p) => p.name.toUpperCase() === 'FN')) throw new Error('a vCard needs an FN property');
  if (version === '3.0' && !props.some((p) => p.name.toUpperCase() === 'N')) throw new Error('a vCard 3.0 needs an N property');
  return ['BEGIN:VCARD', `VERSION:${version}`, ...props.map((p) => contentLine(p, version)), 'END:VCARD'].map((l) => `${l}\r\n`).join('');
}

export const writeVCards = (cards: readonly (readonly VCardProperty[])[], version: VCardVersion = '4.0'): string =>
  cards.map((c) => writeVCard(c, version)).join('');

/** A jCard property: [name, parameters, value type, value...] (RFC 7095 3.3). */
export type JCardProperty = [string, Record<string, string | string[]>, string, ...unknown[]];

/** 20261127T081400Z -> 2026-11-27T08:14:00Z (jCard writes dates in the extended format, RFC 7095 3.5.5). */
const extendedTimestamp = (basic: string) => basic.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/, '$1-$2-$3T$4:$5:$6$7');

/**
 * One vCard 4.0 as jCard (RFC 7095): ["vcard", [properties]], names and parameter names lower case, the value
 * type third (VALUE=uri becomes the type "uri", not a parameter), a structured value (N, ADR, ORG) as an array
 * of components, a component of several values as an array, a list property (CATEGORIES) as several values.
 */
export function toJCard(props: readonly VCardProperty[]): ['vcard', JCardProperty[]] {
  if (!props.some((p) => p.name.toUpperCase() === 'FN')) throw new Error('a vCard needs an FN property');
  const out: JCardProperty[] = [['version', {}, 'text', '4.0']];
  for (const p of props) {
    if (!NAME.test(p.name)) throw new Error(`vCard property name ${JSON.stringify(p.name)}`);
    const params: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(p.params ?? {})) {
      if (!NAME.test(k)) throw new Error(`vCard parameter name ${JSON.stringify(k)}`);
      if (k.toLowerCase() === 'value') continue;
      const values = (typeof v === 'string' ? [v] : [...v]).map((x) => x.replace(CONTROL, ''));
      params[k.toLowerCase()] = values.length === 1 ? values[0] : values;
    }
    const type = p.uri ? 'uri' : p.timestamp ? 'timestamp' : 'text';
    const clean = (x: string) => x.replace(CONTROL, '');
    let values: unknown[];
    if (p.uri) values = [uriText(String(p.value))];
    else if (p.timestamp) values = [extendedTimestamp(String(p.value))];
    else if (typeof p.value === 'string') values = [clean(p.value)];
    else if (p.list) values = p.value.map((v) => clean(String(v)));
    else values = [p.value.map((c) => (typeof c === 'string' ? clean(c) : c.map(clean)))];
    out.push([p.name.toLowerCase(), params, type, ...values]);
  }
  return ['vcard', out];
}

/**
 * A name-based UUID version 5 (RFC 9562 5.5: SHA-1 of the namespace's 16 bytes and the name's UTF-8), as a
 * urn:uuid: anyone holding the namespace and the name can recompute it.
 */
export function uuidV5Urn(namespace: string, name: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new Error(`uuidV5Urn: ${JSON.stringify(namespace)} is not a UUID`);
  const h = createHash('sha1').update(ns).update(name, 'utf8').digest();
  h[6] = (h[6] & 0x0f) | 0x50; // version 5
  h[8] = (h[8] & 0x3f) | 0x80; // the RFC 9562 variant
  const hex = h.subarray(0, 16).toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A stable urn:uuid for a member (UID), derived from its scope and id: the same card on every export. (Member
 * cards keep this version-8 form they were first published with; directory parties use uuidV5Urn.)
 */
export function uidFor(scope: string, id: string): string {
  const h = createHash('sha256').update(`${scope}\n${id}`).digest();
  h[6] = (h[6] & 0x0f) | 0x80; // version 8: a custom, hash-based UUID (RFC 9562)
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
