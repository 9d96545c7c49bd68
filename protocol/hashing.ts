import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { ApiError } from './errors.js';
import { jsonBoundsIssue, MAX_JSON_DEPTH } from './json-bounds.js';

/**
 * Canonical JSON as hashed by the ledger: RFC 8785 (JCS). Object keys sorted recursively by UTF-16 code
 * units, no whitespace, strings escaped as JSON.stringify does, numbers in ECMAScript form. Payloads hold only
 * strings, integers, booleans, null, arrays and objects, and every key the server writes is ASCII (keys come
 * from handler code, never from user input), so code-point order and UTF-16 order agree and any JSON library
 * that sorts keys and emits compact UTF-8 reproduces these bytes.
 */
export function canonicalJson(value: unknown): string {
  // canonicalize recurses: refuse hostile nesting by name instead of overflowing the stack. Inputs are bounded at
  // MAX_JSON_DEPTH where they arrive; twice that leaves room for the objects built around them (a derived key's
  // {method, params}, a payload hash's {actionClass, subjectId, params}). Size is the caller's business.
  const tooDeep = jsonBoundsIssue(value, { root: 'value' }, { maxDepth: 2 * MAX_JSON_DEPTH, maxSize: Number.POSITIVE_INFINITY });
  if (tooDeep) throw new ApiError('BAD_REQUEST', tooDeep);
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

// crypto.hash (Node >= 20.12) is the one-shot form of createHash().update().digest(): same bytes, no Hash object per call.
export const sha256Hex = (text: string): string => hash('sha256', text, 'hex');

/** The fields of an event that its row_hash covers. */
export interface HashedEvent {
  seq: number;
  family: string;
  kind: string;
  entity_id: string;
  actor: string;
  at: string;
  payload: unknown;
}

// Strings JSON.stringify writes as themselves between quotes: no quote, backslash, control character or
// surrogate (lone surrogates are escaped; paired ones just take the slow path).
const VERBATIM = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** JSON.stringify of a string, without its general machinery for the common case (ids, hashes, ISO times). */
const jsonString = (v: string): string => (VERBATIM.test(v) ? `"${v}"` : JSON.stringify(v));

/** The exact string hashed for a row, built from the payload's canonical text. Keys are already in order. */
export function rowHashInput(prev: string, e: Omit<HashedEvent, 'payload'>, payloadCanonical: string): string {
  const s = jsonString;
  return (
    `{"actor":${s(e.actor)},"at":${s(e.at)},"entity_id":${s(e.entity_id)},"family":${s(e.family)},` +
    `"kind":${s(e.kind)},"payload":${payloadCanonical},"prev":${s(prev)},"seq":${e.seq}}`
  );
}

/** row_hash = SHA-256 hex over canonical JSON of {prev, seq, family, kind, entity_id, actor, at, payload}. */
export function computeRowHash(prev: string, e: HashedEvent): string {
  return sha256Hex(
    canonicalJson({
      prev: prev ?? '',
      seq: e.seq,
      family: e.family,
      kind: e.kind,
      entity_id: e.entity_id ?? '',
      actor: e.actor ?? '',
      at: e.at,
      payload: e.payload ?? null,
    }),
  );
}

export interface ChainRow extends HashedEvent {
  prev_hash: string | null;
  row_hash: string;
}

export type ChainBreak =
  { seq: number; kind: 'gap'; message: string } | { seq: number; kind: 'prev_hash'; message: string } | { seq: number; kind: 'row_hash'; message: string };

export type ChainVerdict = { ok: true; count: number; head: { seq: number; rowHash: string } } | { ok: false; count: number; break: ChainBreak };

/**
 * Incremental verifier: feed rows in seq order; it reports the first break. Used by the pure verifyChain and
 * by the streaming verify, which feeds it page by page so memory stays flat.
 */
export class ChainVerifier {
  private prevHash = '';
  private expectedSeq: number;
  count = 0;
  broken: ChainBreak | null = null;

  /** Start after a known head (seq 0 and '' for a whole chain). */
  constructor(afterSeq = 0, afterHash = '') {
    this.expectedSeq = afterSeq + 1;
    this.prevHash = afterHash;
  }

  /** Feed one row; payloadCanonical skips re-canonicalising when the stored text is at hand. */
  push(row: ChainRow, payloadCanonical?: string): boolean {
    if (this.broken) return false;
    if (row.seq !== this.expectedSeq) {
      this.broken = {
        seq: this.expectedSeq,
        kind: 'gap',
        message: `seq ${this.expectedSeq}: missing row (next row found has seq ${row.seq})`,
      };
      return false;
    }
    if ((row.prev_hash ?? '') !== this.prevHash) {
      this.broken = {
        seq: row.seq,
        kind: 'prev_hash',
        message: `seq ${row.seq}: broken link, prev_hash ${row.prev_hash || '(empty)'} != previous row_hash ${this.prevHash || '(empty)'}`,
      };
      return false;
    }
    // The row itself carries the hashed fields (no copy per row) unless actor or entity_id is missing.
    const fields = row.entity_id == null || row.actor == null ? { ...row, entity_id: row.entity_id ?? '', actor: row.actor ?? '' } : row;
    const input = rowHashInput(this.prevHash, fields, payloadCanonical ?? canonicalJson(row.payload ?? null));
    const recomputed = sha256Hex(input);
    if (recomputed !== row.row_hash) {
      this.broken = {
        seq: row.seq,
        kind: 'row_hash',
        message: `seq ${row.seq}: broken row, stored row_hash ${row.row_hash} != recomputed ${recomputed}`,
      };
      return false;
    }
    this.prevHash = row.row_hash;
    this.expectedSeq += 1;
    this.count += 1;
    return true;
  }

  verdict(): ChainVerdict {
    if (this.broken) return { ok: false, count: this.count, break: this.broken };
    return { ok: true, count: this.count, head: { seq: this.expectedSeq - 1, rowHash: this.prevHash } };
  }
}

/** Verify a whole chain held in memory, from seq 1. */
export function verifyChain(rows: Iterable<ChainRow>): ChainVerdict {
  const v = new ChainVerifier();
  for (const row of rows) if (!v.push(row)) break;
  return v.verdict();
}

/** ledgerId in results: the first 8 hex characters of the event's row_hash. */
export const ledgerIdOf = (rowHash: string): string => rowHash.slice(0, 8);
