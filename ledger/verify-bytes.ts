import { isUtf8 } from 'node:buffer';
import { hash } from 'node:crypto';
import { ChainVerifier, type ChainVerdict } from '../protocol/hashing.js';
import type { StoredEventRow } from './read.js';
import type { RowFields } from './copy-rows.js';

/** The columns verify-copy.ts selects, in this order. */
export const BYTE_COLUMNS = 'seq, prev_hash, row_hash, actor, at, entity_id, family, kind, payload';
const [SEQ, PREV, HASH, ACTOR, AT, ENTITY, FAMILY, KIND, PAYLOAD] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
export const BYTE_COLUMN_COUNT = BYTE_COLUMNS.split(',').length;

// The text between the fields of the hash input, as rowHashInput (protocol/hashing.ts) writes it.
const latin1 = (s: string) => Buffer.from(s, 'latin1');
const OPEN = latin1('{"actor":"');
const TO_AT = latin1('","at":"');
const TO_ENTITY = latin1('","entity_id":"');
const TO_FAMILY = latin1('","family":"');
const TO_KIND = latin1('","kind":"');
const TO_PAYLOAD = latin1('","payload":');
const TO_PREV = latin1(',"prev":"');
const TO_SEQ = latin1('","seq":');
// The input's length besides its fields: the text around them, up to 16 digits of seq and the closing brace.
const FIXED = [OPEN, TO_AT, TO_ENTITY, TO_FAMILY, TO_KIND, TO_PAYLOAD, TO_PREV, TO_SEQ].reduce((n, t) => n + t.length, 17);

/** Write the fixed text at p; returns the position after it (as the other put functions do). */
function put(text: Uint8Array, out: Buffer, p: number): number {
  out.set(text, p);
  return p + text.length;
}

/** Copy bytes [from, from + length) of out to p, within the buffer. */
function putWithin(out: Buffer, from: number, length: number, p: number): number {
  out.copyWithin(p, from, from + length);
  return p + length;
}

/**
 * Copy a string field's UTF-8 bytes (from further on in out), or return -1 if JSON would escape any of them
 * (a quote, a backslash or a control character): only then does JSON.stringify write something other than the
 * bytes themselves between quotes (lone surrogates cannot occur in UTF-8, which the whole input is checked to be).
 */
function putVerbatim(out: Buffer, from: number, length: number, p: number): number {
  for (let i = from, end = from + length; i < end; i++) {
    const b = out[i];
    if (b < 0x20 || b === 0x22 || b === 0x5c) return -1;
    out[p++] = b;
  }
  return p;
}

/** Write a non-negative integer in decimal, as String(n) does. */
function putDecimal(n: number, out: Buffer, p: number): number {
  let digits = 1;
  for (let t = n; t >= 10; t = Math.floor(t / 10)) digits++;
  for (let i = p + digits - 1, t = n; i >= p; i--, t = Math.floor(t / 10)) out[i] = 48 + (t % 10);
  return p + digits;
}

/**
 * ChainVerifier (protocol/hashing.ts) over rows as raw bytes from verify-copy.ts: builds each row's hash input
 * in one reused buffer straight from the field bytes and hashes that: no string per field, no object per row.
 *
 * The bytes hashed are exactly the UTF-8 of rowHashInput's string: the same text around the fields, each
 * string field verbatim between quotes (checked to need no escaping), the stored payload text as is, seq in
 * decimal, and the whole checked to be valid UTF-8 (so decoding it, as the paged walk does, changes nothing).
 * A row that is anything but plain and sound (a gap, a link or hash that does not match, a field JSON would
 * escape, NULLs, invalid UTF-8) is decoded and handed to ChainVerifier itself, so every verdict and message is
 * the reference one.
 */
export class ByteChainVerifier {
  count = 0;
  private expectedSeq: number;
  /** The previous row's row_hash: afterHash's bytes until a row is taken, then always a 64-byte hex digest. */
  private prev: Buffer;
  private prevLength: number;
  /** Whether prev goes into the input as is: JSON would not escape it (a hex digest never needs escaping). */
  private prevVerbatim: boolean;
  /** Receives the next row_hash, then swaps with prev. */
  private spare: Buffer = Buffer.alloc(64);
  private out = Buffer.allocUnsafe(1024);
  private broken: ChainVerdict | undefined;

  constructor(
    afterSeq: number,
    private readonly afterHash: string,
  ) {
    this.expectedSeq = afterSeq + 1;
    const bytes = Buffer.from(afterHash, 'utf8');
    this.prev = Buffer.alloc(Math.max(64, bytes.length));
    bytes.copy(this.prev);
    this.prevLength = bytes.length;
    this.prevVerbatim = JSON.stringify(afterHash) === `"${afterHash}"`;
  }

  /** Feed the next row; false once the chain is broken. */
  push(row: Buffer, f: RowFields): boolean {
    if (this.broken) return false;
    if (this.pushPlain(row, f)) return true;
    const reference = new ChainVerifier(this.expectedSeq - 1, this.prevText());
    const decoded = decodeRow(row, f);
    if (!reference.push(decoded, decoded.payload)) {
      const v = reference.verdict();
      if (!v.ok) this.broken = { ok: false, count: this.count, break: v.break };
      return false;
    }
    // Taken: its row_hash is a SHA-256 hex digest.
    this.prev.write(decoded.row_hash, 0, 64, 'latin1');
    this.accepted();
    return true;
  }

  verdict(): ChainVerdict {
    if (this.broken) return this.broken;
    return { ok: true, count: this.count, head: { seq: this.expectedSeq - 1, rowHash: this.prevText() } };
  }

  private prevText(): string {
    return this.count === 0 ? this.afterHash : this.prev.toString('latin1', 0, 64);
  }

  private accepted(): void {
    this.prevLength = 64;
    this.prevVerbatim = true;
    this.expectedSeq += 1;
    this.count += 1;
  }

  /**
   * Verify and take a plain, sound row from its bytes alone; false (nothing taken) sends it the slow way.
   * Plain: no NULLs, no field that JSON would escape, valid UTF-8.
   */
  private pushPlain(row: Buffer, f: RowFields): boolean {
    const { starts: s, lengths: n } = f;
    const prev = this.prev;
    const prevLength = this.prevLength;
    if (!this.prevVerbatim || (n[ACTOR] | n[AT] | n[ENTITY] | n[FAMILY] | n[KIND] | n[PAYLOAD]) < 0) return false;
    if (n[SEQ] !== 8 || row.readInt32BE(s[SEQ]) * 2 ** 32 + row.readUInt32BE(s[SEQ] + 4) !== this.expectedSeq) return false;
    // The link: prev_hash is the previous row_hash.
    if (n[PREV] !== prevLength || n[HASH] !== 64) return false;
    for (let i = 0, at = s[PREV]; i < prevLength; i++) if (row[at + i] !== prev[i]) return false;

    // The row is copied in after room for the input, so that the input is built inside one buffer.
    const r = FIXED + n[ACTOR] + n[AT] + n[ENTITY] + n[FAMILY] + n[KIND] + n[PAYLOAD] + prevLength;
    if (this.out.length < r + row.length) this.out = Buffer.allocUnsafe(2 * (r + row.length));
    const out = this.out;
    out.set(row, r);
    let p = put(OPEN, out, 0);
    if ((p = putVerbatim(out, r + s[ACTOR], n[ACTOR], p)) < 0) return false;
    p = put(TO_AT, out, p);
    if ((p = putVerbatim(out, r + s[AT], n[AT], p)) < 0) return false;
    p = put(TO_ENTITY, out, p);
    if ((p = putVerbatim(out, r + s[ENTITY], n[ENTITY], p)) < 0) return false;
    p = put(TO_FAMILY, out, p);
    if ((p = putVerbatim(out, r + s[FAMILY], n[FAMILY], p)) < 0) return false;
    p = put(TO_KIND, out, p);
    if ((p = putVerbatim(out, r + s[KIND], n[KIND], p)) < 0) return false;
    p = put(TO_PAYLOAD, out, p);
    p = putWithin(out, r + s[PAYLOAD], n[PAYLOAD], p);
    p = put(TO_PREV, out, p);
    // prev_hash's bytes, equal to prev (checked above).
    p = putWithin(out, r + s[PREV], prevLength, p);
    p = put(TO_SEQ, out, p);
    p = putDecimal(this.expectedSeq, out, p);
    out[p++] = 0x7d; // }
    const input = out.subarray(0, p);
    if (!isUtf8(input)) return false;

    // The stored row_hash must be the digest's hex; it becomes prev.
    const digest = hash('sha256', input, 'hex');
    const next = this.spare;
    for (let i = 0, at = s[HASH]; i < 64; i++) {
      const b = row[at + i];
      if (b !== digest.charCodeAt(i)) return false;
      next[i] = b;
    }
    this.spare = prev;
    this.prev = next;
    this.accepted();
    return true;
  }
}

/** The row as the paged walk reads it (node-postgres decodes text as UTF-8; int8 as a safe integer). */
function decodeRow(row: Buffer, f: RowFields): StoredEventRow {
  const text = (i: number) => (f.lengths[i] < 0 ? null : row.toString('utf8', f.starts[i], f.starts[i] + f.lengths[i])) as string;
  const int8 = f.lengths[SEQ] < 0 ? null : row.readBigInt64BE(f.starts[SEQ]);
  if (int8 !== null && !Number.isSafeInteger(Number(int8))) throw new RangeError(`int8 ${int8} does not fit a JS number`);
  return {
    seq: (int8 === null ? null : Number(int8)) as number,
    family: text(FAMILY),
    kind: text(KIND),
    entity_id: text(ENTITY),
    actor: text(ACTOR),
    at: text(AT),
    payload: text(PAYLOAD),
    prev_hash: text(PREV),
    row_hash: text(HASH),
  };
}
