import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RowFields } from '../../ledger/copy-rows.js';
import { ByteChainVerifier } from '../../ledger/verify-bytes.js';
import { ChainVerifier, canonicalJson, rowHashInput, sha256Hex, type ChainVerdict } from '../../protocol/hashing.js';

/**
 * ledger/verify-bytes.ts hashes rows from the bytes of a binary COPY; it must give exactly ChainVerifier's
 * verdict on the same rows as node-postgres would decode them (text as UTF-8), for honest chains and for every
 * kind of tampering, including bytes the fast path cannot take as they are.
 */

// The columns in the order verify-copy.ts selects them (BYTE_COLUMNS).
const FIELDS = ['seq', 'prev_hash', 'row_hash', 'actor', 'at', 'entity_id', 'family', 'kind', 'payload'] as const;
type Field = (typeof FIELDS)[number];
type RawRow = Record<Field, Buffer | null>;

const text = (s: string) => Buffer.from(s, 'utf8');
const int8 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};

const safeInt8 = (b: Buffer) => b.length === 8 && Number.isSafeInteger(Number(b.readBigInt64BE(0)));

/** One row as a COPY binary message (field count, then length and bytes per field) and where its fields are. */
function message(row: RawRow): { row: Buffer; fields: RowFields } {
  const parts: Buffer[] = [Buffer.from([0, FIELDS.length])];
  const fields: RowFields = { starts: new Int32Array(FIELDS.length), lengths: new Int32Array(FIELDS.length) };
  let pos = 2;
  FIELDS.forEach((name, i) => {
    const value = row[name];
    const length = Buffer.alloc(4);
    length.writeInt32BE(value ? value.length : -1);
    parts.push(length);
    fields.starts[i] = pos + 4;
    fields.lengths[i] = value ? value.length : -1;
    pos += 4;
    if (value) {
      parts.push(value);
      pos += value.length;
    }
  });
  return { row: Buffer.concat(parts), fields };
}

/** The row as node-postgres hands it to the paged walk. */
function decoded(row: RawRow) {
  const s = (name: Field) => (row[name] ? row[name].toString('utf8') : null) as string;
  return {
    seq: (row.seq ? Number(row.seq.readBigInt64BE(0)) : null) as number,
    family: s('family'),
    kind: s('kind'),
    entity_id: s('entity_id'),
    actor: s('actor'),
    at: s('at'),
    payload: s('payload'),
    prev_hash: s('prev_hash'),
    row_hash: s('row_hash'),
  };
}

interface EventFields {
  actor: string;
  at: string;
  entity_id: string;
  family: string;
  kind: string;
  payload: unknown;
}

/** An honest chain after (afterSeq, afterHash), hashed with protocol/hashing.ts. */
function chain(events: EventFields[], afterSeq = 0, afterHash = ''): RawRow[] {
  let prev = afterHash;
  return events.map((e, i) => {
    const seq = afterSeq + i + 1;
    const payload = canonicalJson(e.payload);
    const rowHash = sha256Hex(rowHashInput(prev, { ...e, seq }, payload));
    const row: RawRow = {
      seq: int8(seq),
      prev_hash: text(prev),
      row_hash: text(rowHash),
      actor: text(e.actor),
      at: text(e.at),
      entity_id: text(e.entity_id),
      family: text(e.family),
      kind: text(e.kind),
      payload: text(payload),
    };
    prev = rowHash;
    return row;
  });
}

function bothVerdicts(rows: RawRow[], afterSeq = 0, afterHash = ''): { bytes: ChainVerdict; reference: ChainVerdict } {
  const bytes = new ByteChainVerifier(afterSeq, afterHash);
  for (const row of rows) {
    const m = message(row);
    if (!bytes.push(m.row, m.fields)) break;
  }
  const reference = new ChainVerifier(afterSeq, afterHash);
  for (const row of rows) {
    const r = decoded(row);
    if (!reference.push(r, r.payload)) break;
  }
  return { bytes: bytes.verdict(), reference: reference.verdict() };
}

const plain = (i: number): EventFields => ({
  actor: 'prn_actor',
  at: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
  entity_id: `task_${i}`,
  family: 'board',
  kind: 'item.created',
  payload: { title: `Task ${i}`, n: i, done: false, tags: ['a', 'b'], parent: null },
});

describe('ByteChainVerifier', () => {
  it('passes an honest chain and reports the same head', () => {
    const rows = chain(Array.from({ length: 20 }, (_, i) => plain(i)));
    const { bytes, reference } = bothVerdicts(rows);
    expect(bytes).toEqual({ ok: true, count: 20, head: { seq: 20, rowHash: rows[19].row_hash?.toString() } });
    expect(bytes).toEqual(reference);
  });

  it('passes rows whose fields JSON escapes or that are not ASCII, and a chain that starts mid-way', () => {
    const odd = [
      { ...plain(1), actor: 'say "hi"' },
      { ...plain(2), entity_id: 'back\\slash', kind: 'tab\there' },
      { ...plain(3), family: 'line\nbreak\u0001', at: 'é 日本 😀 \u007f \u2028' },
      { ...plain(4), payload: { text: 'quote " backslash \\ newline \n ü 😀' } },
    ];
    const afterHash = sha256Hex('before');
    const rows = chain(odd, 41, afterHash);
    const { bytes, reference } = bothVerdicts(rows, 41, afterHash);
    expect(bytes).toMatchObject({ ok: true, count: 4, head: { seq: 45 } });
    expect(bytes).toEqual(reference);
  });

  it('refuses a forged row hashed over its fields unescaped, as the reference does', () => {
    // The actor smuggles in the text that would follow it: hashing the raw bytes between quotes is not JSON.
    const rows = chain([plain(1), plain(2)]);
    const forged = { ...plain(2), actor: 'prn_actor","at":"x' };
    const raw =
      `{"actor":"${forged.actor}","at":"${forged.at}","entity_id":"${forged.entity_id}","family":"board","kind":"item.created",` +
      `"payload":${canonicalJson(forged.payload)},"prev":"${rows[0].row_hash}","seq":2}`;
    rows[1] = { ...rows[1], actor: text(forged.actor), row_hash: text(createHash('sha256').update(raw).digest('hex')) };
    const { bytes, reference } = bothVerdicts(rows);
    expect(reference).toMatchObject({ ok: false, count: 1, break: { seq: 2, kind: 'row_hash' } });
    expect(bytes).toEqual(reference);
  });

  it('refuses a row hashed over invalid UTF-8, which node-postgres would have decoded differently', () => {
    const rows = chain([plain(1)]);
    const payload = Buffer.concat([text('{"x":"'), Buffer.from([0xc3, 0x28]), text('"}')]);
    const raw = Buffer.concat([
      text(`{"actor":"prn_actor","at":"${plain(1).at}","entity_id":"task_1","family":"board","kind":"item.created","payload":`),
      payload,
      text(',"prev":"","seq":1}'),
    ]);
    rows[0] = { ...rows[0], payload, row_hash: text(createHash('sha256').update(raw).digest('hex')) };
    const { bytes, reference } = bothVerdicts(rows);
    expect(reference).toMatchObject({ ok: false, count: 0, break: { seq: 1, kind: 'row_hash' } });
    expect(bytes).toEqual(reference);
  });

  it('refuses a seq past 2^53 as node-postgres does (db/normalise.ts parseInt8)', () => {
    const rows = chain([plain(1)]);
    rows[0] = { ...rows[0], seq: Buffer.from([0x7f, 0, 0, 0, 0, 0, 0, 1]) };
    const m = message(rows[0]);
    expect(() => new ByteChainVerifier(0, '').push(m.row, m.fields)).toThrow(RangeError);
  });

  it('gives the reference verdict for any chain with any one field of one row replaced or dropped', () => {
    const str = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', 'é', '日', '😀', '\u2028', ' ', ':', ',') });
    const event = fc.record({ actor: str, at: str, entity_id: str, family: str, kind: str, payload: fc.jsonValue() });
    const replacement = fc.oneof(
      str.map(text),
      fc.uint8Array({ maxLength: 80 }).map((a) => Buffer.from(a)),
      fc.constant(null),
      fc.integer({ min: -2, max: 40 }).map(int8),
    );
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.constantFrom(...FIELDS, 'drop'),
        replacement,
        fc.nat(30),
        (events, at, field, value, afterSeq) => {
          const afterHash = afterSeq ? sha256Hex(String(afterSeq)) : '';
          const rows = chain(events, afterSeq, afterHash);
          const i = at % rows.length;
          if (field === 'drop') rows.splice(i, 1);
          // PostgreSQL sends an int8 in 8 bytes; one past 2^53 is an error either way (see below).
          else if (field === 'seq') rows[i] = { ...rows[i], seq: value && !safeInt8(value) ? int8(value.length) : value };
          else rows[i] = { ...rows[i], [field]: value };
          const { bytes, reference } = bothVerdicts(rows, afterSeq, afterHash);
          expect(bytes).toEqual(reference);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
