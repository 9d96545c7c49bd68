import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ChainVerifier,
  canonicalJson,
  computeRowHash,
  ledgerIdOf,
  rowHashInput,
  sha256Hex,
  verifyChain,
  type ChainRow,
  type HashedEvent,
} from '../../protocol/hashing.js';

/** Independent of the code under test: node:crypto over a hand-written string. */
const sha = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

describe('canonicalJson', () => {
  it('sorts object keys recursively, inside arrays too, and emits no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ b: [], a: {} })).toBe('{"a":{},"b":[]}');
    expect(canonicalJson([{ b: 2, a: 1 }, [{ d: 4, c: 3 }]])).toBe('[{"a":1,"b":2},[{"c":3,"d":4}]]');
  });

  it('keeps insertion order irrelevant', () => {
    expect(canonicalJson({ x: 1, y: { q: 1, p: 2 } })).toBe(canonicalJson({ y: { p: 2, q: 1 }, x: 1 }));
  });

  it('leaves unicode unescaped and sorts keys by UTF-16 code units', () => {
    expect(canonicalJson({ name: 'Café ü 日本 😀' })).toBe('{"name":"Café ü 日本 😀"}');
    // 'z' (0x7a) < 'é' (0xe9) < '😀' (0xd83d 0xde00) < '\ufffd': UTF-16 order, not code point order.
    expect(canonicalJson({ '\ufffd': 2, '😀': 1, é: 4, z: 3 })).toBe('{"z":3,"é":4,"😀":1,"\ufffd":2}');
  });

  it('escapes exactly as JSON.stringify: quote, backslash, control characters', () => {
    expect(canonicalJson('\n\t\r\b\f"\\/\u0001\u001f\u007f\u2028')).toBe('"\\n\\t\\r\\b\\f\\"\\\\/\\u0001\\u001f\u007f\u2028"');
    expect(canonicalJson({ 'a"b': 'c\\d' })).toBe('{"a\\"b":"c\\\\d"}');
  });

  it('writes integers in ECMAScript form', () => {
    expect(canonicalJson([0, -0, 1, -5, 123456789012345, Number.MAX_SAFE_INTEGER])).toBe('[0,0,1,-5,123456789012345,9007199254740991]');
    expect(canonicalJson(1e21)).toBe('1e+21');
  });

  it('writes literals, drops undefined properties, refuses a value without JSON', () => {
    expect(canonicalJson([true, false, null])).toBe('[true,false,null]');
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});

const E1: HashedEvent = {
  seq: 1,
  family: 'org',
  kind: 'org.created',
  entity_id: 'org_abc',
  actor: 'usr_x',
  at: '2026-01-02T03:04:05.678Z',
  payload: { slug: 'acme', n: 2, nested: { b: [1, 'ü'], a: true } },
};
const E1_CANONICAL =
  '{"actor":"usr_x","at":"2026-01-02T03:04:05.678Z","entity_id":"org_abc","family":"org","kind":"org.created",' +
  '"payload":{"n":2,"nested":{"a":true,"b":[1,"ü"]},"slug":"acme"},"prev":"","seq":1}';
const E1_HASH = 'a1c4a72665cec26570bd2e430826d8f1b031a1076cd3c60b37f726ec8b734cab';

// Second row: no actor, no entity, no payload (actor and entity_id hash as '', payload as null).
const E2 = { seq: 2, family: 'messaging', kind: 'messaging.sent', at: '2026-01-02T03:04:06.000Z' } as unknown as HashedEvent;
const E2_CANONICAL = (prev: string) =>
  `{"actor":"","at":"2026-01-02T03:04:06.000Z","entity_id":"","family":"messaging","kind":"messaging.sent","payload":null,"prev":"${prev}","seq":2}`;
const E2_HASH = 'f13be02024b2a317b0c952f0fa43c1f83edf95a4f96c7147c58fbc3c0ff73dcb';

describe('computeRowHash', () => {
  it('is SHA-256 lowercase hex over the canonical {prev, seq, family, kind, entity_id, actor, at, payload}', () => {
    expect(sha(E1_CANONICAL)).toBe(E1_HASH);
    expect(computeRowHash('', E1)).toBe(sha(E1_CANONICAL));
    expect(computeRowHash('', E1)).toBe(E1_HASH);
    expect(computeRowHash('', E1)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes an absent actor and entity as empty strings and an absent payload as null', () => {
    expect(sha(E2_CANONICAL(E1_HASH))).toBe(E2_HASH);
    expect(computeRowHash(E1_HASH, E2)).toBe(E2_HASH);
    expect(computeRowHash(E1_HASH, { ...E2, actor: '', entity_id: '', payload: null })).toBe(E2_HASH);
  });

  it('changes with every hashed field', () => {
    const variants: Partial<HashedEvent>[] = [
      { seq: 2 },
      { family: 'orgs' },
      { kind: 'org.deleted' },
      { entity_id: 'org_abd' },
      { actor: 'usr_y' },
      { at: '2026-01-02T03:04:05.679Z' },
      { payload: { slug: 'acme', n: 3, nested: { b: [1, 'ü'], a: true } } },
    ];
    for (const v of variants) expect(computeRowHash('', { ...E1, ...v }), JSON.stringify(v)).not.toBe(E1_HASH);
    expect(computeRowHash('0'.repeat(64), E1)).not.toBe(E1_HASH);
  });

  it('sha256Hex and ledgerIdOf', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(ledgerIdOf(E1_HASH)).toBe('a1c4a726');
  });
});

describe('rowHashInput agrees with computeRowHash', () => {
  const cases: [string, HashedEvent][] = [
    ['', E1],
    [E1_HASH, { ...E2, actor: '', entity_id: '', payload: null }],
    [
      'ab',
      {
        seq: 77,
        family: 'books',
        kind: 'books.bill.approve',
        entity_id: 'bill_"q"\\',
        actor: 'agt_ü😀',
        at: '2026-12-31T23:59:59.999Z',
        payload: { heldReason: null, payee: 'Zoë\n', totalCents: -1200, runId: 'r', arr: [{ z: 1, a: [] }] },
      },
    ],
  ];
  it.each(cases)('prev %j', (prev, e) => {
    const payloadCanonical = canonicalJson(e.payload ?? null);
    const input = rowHashInput(prev, e, payloadCanonical);
    expect(input).toBe(
      canonicalJson({ prev, seq: e.seq, family: e.family, kind: e.kind, entity_id: e.entity_id, actor: e.actor, at: e.at, payload: e.payload }),
    );
    expect(sha(input)).toBe(computeRowHash(prev, e));
  });
});

describe('rowHashInput escapes every string field exactly as JSON.stringify', () => {
  // Any UTF-16 code unit, lone surrogates and control characters included.
  const anyString = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 24 });
  it('for arbitrary actor, entity_id, family, kind, at and prev', () => {
    fc.assert(
      fc.property(anyString, anyString, anyString, anyString, anyString, anyString, (actor, entity_id, family, kind, at, prev) => {
        const e = { seq: 5, family, kind, entity_id, actor, at };
        const j = JSON.stringify;
        expect(rowHashInput(prev, e, 'null')).toBe(
          `{"actor":${j(actor)},"at":${j(at)},"entity_id":${j(entity_id)},"family":${j(family)},"kind":${j(kind)},"payload":null,"prev":${j(prev)},"seq":5}`,
        );
      }),
      { numRuns: 2000 },
    );
  });
});

/** A valid chain of n rows built with computeRowHash. */
function chain(n: number): ChainRow[] {
  const rows: ChainRow[] = [];
  let prev = '';
  for (let seq = 1; seq <= n; seq++) {
    const e: HashedEvent = {
      seq,
      family: 'test',
      kind: 'test.row',
      entity_id: `ent_${seq}`,
      actor: seq % 2 ? 'usr_a' : '',
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
      payload: seq === 3 ? null : { seq, text: `row ${seq} ü`, nested: { list: [seq, { k: 'v' }] } },
    };
    const row_hash = computeRowHash(prev, e);
    rows.push({ ...e, prev_hash: seq === 1 ? null : prev, row_hash });
    prev = row_hash;
  }
  return rows;
}

describe('verifyChain', () => {
  it('passes a good chain and reports its head', () => {
    const rows = chain(6);
    expect(verifyChain(rows)).toEqual({ ok: true, count: 6, head: { seq: 6, rowHash: rows[5].row_hash } });
  });

  it('passes an empty chain with an empty head', () => {
    expect(verifyChain([])).toEqual({ ok: true, count: 0, head: { seq: 0, rowHash: '' } });
  });

  it('treats an empty-string prev_hash on the first row like null', () => {
    const rows = chain(2);
    rows[0] = { ...rows[0], prev_hash: '' };
    expect(verifyChain(rows).ok).toBe(true);
  });

  it('reports a broken link (prev_hash) at its seq', () => {
    const rows = chain(6);
    rows[3] = { ...rows[3], prev_hash: 'f'.repeat(64) };
    const v = verifyChain(rows);
    expect(v).toMatchObject({ ok: false, count: 3, break: { seq: 4, kind: 'prev_hash' } });
    expect(!v.ok && v.break.message).toContain('seq 4');
  });

  it('reports a first row whose prev_hash is not empty as a broken link', () => {
    const rows = chain(2);
    rows[0] = { ...rows[0], prev_hash: 'a'.repeat(64) };
    expect(verifyChain(rows)).toMatchObject({ ok: false, count: 0, break: { seq: 1, kind: 'prev_hash' } });
  });

  it('reports a broken row (row_hash) when a hashed field changed', () => {
    for (const change of [{ payload: { seq: 3, text: 'edited' } }, { actor: 'usr_mallory' }, { at: '2027-01-01T00:00:00.000Z' }, { kind: 'test.other' }]) {
      const rows = chain(6);
      rows[2] = { ...rows[2], ...change };
      expect(verifyChain(rows), JSON.stringify(change)).toMatchObject({ ok: false, count: 2, break: { seq: 3, kind: 'row_hash' } });
    }
  });

  it('reports a forged row_hash at the forged row, not at the next link', () => {
    const rows = chain(6);
    rows[2] = { ...rows[2], row_hash: '0'.repeat(64) };
    expect(verifyChain(rows)).toMatchObject({ ok: false, break: { seq: 3, kind: 'row_hash' } });
  });

  it('reports a gap at the missing seq', () => {
    const rows = chain(6);
    rows.splice(2, 1);
    const v = verifyChain(rows);
    expect(v).toMatchObject({ ok: false, count: 2, break: { seq: 3, kind: 'gap' } });
    expect(!v.ok && v.break.message).toContain('seq 3');
    expect(verifyChain(chain(3).slice(1))).toMatchObject({ ok: false, count: 0, break: { seq: 1, kind: 'gap' } });
  });

  it('reports a duplicated seq (a fork) as a break', () => {
    const rows = chain(4);
    rows.splice(2, 0, rows[1]);
    expect(verifyChain(rows)).toMatchObject({ ok: false, count: 2, break: { seq: 3, kind: 'gap' } });
  });

  it('ChainVerifier resumes after a known head', () => {
    const rows = chain(6);
    const v = new ChainVerifier(3, rows[2].row_hash);
    for (const row of rows.slice(3)) expect(v.push(row)).toBe(true);
    expect(v.verdict()).toEqual({ ok: true, count: 3, head: { seq: 6, rowHash: rows[5].row_hash } });
    const wrong = new ChainVerifier(3, 'x');
    expect(wrong.push(rows[3])).toBe(false);
    expect(wrong.verdict()).toMatchObject({ ok: false, break: { seq: 4, kind: 'prev_hash' } });
  });

  it('ChainVerifier uses the stored canonical payload text when given', () => {
    const rows = chain(2);
    const v = new ChainVerifier();
    expect(v.push(rows[0], canonicalJson(rows[0].payload))).toBe(true);
    expect(v.push(rows[1], '{"different":true}')).toBe(false);
    expect(v.verdict()).toMatchObject({ ok: false, break: { seq: 2, kind: 'row_hash' } });
  });
});
