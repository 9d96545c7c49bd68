import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '../../protocol/registry.js';
import { METHOD_HANDLERS, READ_HANDLERS } from '../../domain/deployed.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import { testServer, type TestServer } from '../helpers/harness.js';
import { expectFrame } from '../helpers/frames.js';
import { cleanPrototype, getAt, pathsOf, setAt, withKey, type Path } from '../helpers/hostile.js';
import { walkSchema } from '../helpers/schema-walk.js';
import type { z } from 'zod';

/**
 * Random params at every deployed method: wrong types, unknown fields, huge strings, unicode (lone
 * surrogates, NUL), nulls, deep nesting, arrays; then each nested field on its own (NUL, lone surrogate, huge
 * strings, wrong types, reserved keys) with the rest of the example intact, so the mutation reaches the field's
 * own validation and the handler. Whatever comes in, the answer is a well-formed frame, never a 5xx, and
 * Object.prototype gains nothing.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);

let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(async () => {
  // Whatever the fuzzer did, the chain still verifies.
  expect((await verifyOrgChain(s.runtime.db, s.org.orgId)).ok).toBe(true);
  await s.close();
});

const nasty = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\ud83d\ude00',
  '\u2028\u2029',
  '"\\\'',
  '\u202e',
  'é',
  '日本語',
  '\ufeff',
  '%00',
  '../../',
  '<script>',
  ' ',
  '',
);
const str = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: nasty },
  { weight: 2, arbitrary: fc.array(nasty, { maxLength: 8 }).map((a) => a.join('')) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1_000, max: 100_000 }), fc.constantFrom('x', 'é', '😀', '\u0000', 'ab\ud800'))
      .map(([n, c]) => c.repeat(Math.ceil(n / c.length)).slice(0, n)),
  },
  // Strings shaped like the ids, slugs and scopes the schemas expect.
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'key_0123456789abcdef',
      'org_0123456789abcdef',
      'apr_0123456789abcdef',
      'pair_0123456789abcdef',
      'agt_abc',
      'usr_abc',
      'acme-au',
      'admin',
      'agent',
      'reader',
      'org.read',
      'K7QM-4ZPX',
    ),
  },
);
const num = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1e21, 2 ** 53, -(2 ** 63), 1.5, Number.MAX_SAFE_INTEGER + 2));
const leaf = fc.oneof(str, num, fc.boolean(), fc.constant(null));
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(str, tie('value'), { maxKeys: 4 }) },
  ),
}));
const deep = fc.tuple(fc.integer({ min: 50, max: 3000 }), fc.boolean()).map(([depth, arrays]) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

/** Params for one method: mostly near its example, so the fuzzer gets past the first field. */
function paramsFor(example: Record<string, unknown>) {
  const fields = Object.keys(example);
  const anyField = fields.length ? fc.constantFrom(...fields) : str;
  return fc.oneof(
    value,
    deep,
    fc.constant(example),
    // One field of the example replaced by anything (including deep nesting).
    fc.tuple(anyField, fc.oneof(value, deep)).map(([k, v]) => ({ ...example, [k]: v })),
    // One field dropped, one unknown field added.
    fc.tuple(anyField, str, value).map(([drop, k, v]) => {
      const p: Record<string, unknown> = { ...example, [k]: v };
      delete p[drop];
      return p;
    }),
    // Only the known field names, every value random.
    fc
      .tuple(...(fields.length ? fields.map(() => fc.option(value, { nil: undefined })) : [fc.constant(undefined)]))
      .map((vals) => Object.fromEntries(fields.map((f, i) => [f, vals[i]]).filter(([, v]) => v !== undefined))),
  );
}

/**
 * Every place a value can go in a method's params: each field of its example at any depth, and each node of its
 * schema (optional fields the example leaves out, array items, record values, union options' fields).
 */
function fieldPaths(example: Record<string, unknown>, schema: z.core.$ZodType): Path[] {
  const paths = new Map<string, Path>();
  for (const p of pathsOf(example)) if (p.length > 0) paths.set(JSON.stringify(p), p);
  walkSchema(schema, (_, p) => {
    if (p.length > 0) paths.set(JSON.stringify(p), p);
  });
  return [...paths.values()];
}

/** What one nested field becomes: the hostile text, then wrong types, huge strings and reserved keys. */
type Mutation = [string, (current: unknown) => unknown];
const TEXT: Mutation[] = [
  ['NUL', () => 'a\u0000b'],
  ['lone surrogate', () => 'x\ud800'],
];
const OTHERS: Mutation[] = [
  ['huge string', () => 'x'.repeat(200_000)],
  ['huge unicode string', () => '😀'.repeat(60_000)],
  ['number', () => 12345.5],
  ['negative', () => -1],
  ['boolean', () => true],
  ['null', () => null],
  ['empty array', () => []],
  ['array of junk', () => [1, 'x', null, {}]],
  ['object', () => ({ nested: { deep: 'x' } })],
  ['__proto__ object', () => withKey({}, '__proto__', { polluted: 'yes' })],
  ['constructor.prototype object', () => withKey({}, 'constructor', { prototype: { polluted: 'yes' } })],
  ['sibling __proto__', (current) => withKey(current, '__proto__', { polluted: 'yes' })],
  ['id-like', () => 'usr_0123456789abcdef'],
  ['empty string', () => ''],
];

const idemKey = fc.option(
  fc.oneof(
    fc.string({ minLength: 1, maxLength: 300 }).filter((k) => /^[\x20-\x7e]+$/.test(k)),
    fc.constant('fixed-key'),
  ),
  { nil: undefined },
);

/** A raw JSON body to a method as the org's admin, with an idempotency key when given. */
const post = (name: string, body: string, idempotencyKey?: string) =>
  s.app.inject({
    method: 'POST',
    url: `/api/v1/${name}`,
    headers: {
      authorization: `Bearer ${s.org.adminKey}`,
      'content-type': 'application/json',
      ...(idempotencyKey !== undefined ? { 'x-idempotency-key': idempotencyKey } : {}),
    },
    payload: body,
  });

describe('fuzzing every deployed method', () => {
  it.each([...METHOD_HANDLERS.keys()].sort())('%s: never INTERNAL, always a well-formed frame', async (name) => {
    const spec = METHODS.get(name)!;
    const example = METHOD_HANDLERS.get(name)!.contract.example as Record<string, unknown>;
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(paramsFor(example), fc.boolean(), idemKey, async (params, wrapped, idem) => {
        const body = wrapped ? JSON.stringify({ params }) : JSON.stringify(params);
        const res = await post(name, body, spec.idempotent ? idem : undefined);
        seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
        const context = `${name} ${body.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, context).not.toBe(500);
        expectFrame({ status: res.statusCode, raw: res.body }, context);
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 60_000 },
    );
    // The fuzzer reached the method: something was answered.
    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it.each([...METHOD_HANDLERS.keys()].sort())('%s: each nested field mutated on its own: never 5xx, nothing polluted', async (name) => {
    const spec = METHODS.get(name)!;
    const contract = METHOD_HANDLERS.get(name)!.contract;
    const example = (contract.example ?? {}) as Record<string, unknown>;
    // Every path, not a sample: each gets one of the text rule's two (sent with an idempotency key, which hashes
    // the params) and two of the others in turn, so every mutation meets many paths of every method.
    const cases = fieldPaths(example, contract.params as z.core.$ZodType).flatMap((path, i) =>
      [TEXT[i % TEXT.length], OTHERS[i % OTHERS.length], OTHERS[(i + 7) % OTHERS.length]].map((m, j) => ({ path, m, idem: j === 0 || i % 2 === 0 })),
    );
    for (const [
      n,
      {
        path,
        m: [what, mutate],
        idem,
      },
    ] of cases.entries()) {
      const params = setAt(example, path, mutate(getAt(example, path)));
      const body = n % 2 ? JSON.stringify({ params }) : JSON.stringify(params);
      const res = await post(name, body, idem && spec.idempotent ? `nested-${name}-${n}` : undefined);
      const context = `${name} ${path.join('.')} (${what}) ${body.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
      expect(res.statusCode, context).toBeLessThan(500);
      expectFrame({ status: res.statusCode, raw: res.body }, context);
      expect(cleanPrototype(), context).toEqual([]);
    }
  });

  // approval.wait is a long-poll (a random timeout would hold the test): its query is fuzzed in its own tests.
  const fuzzedReads = [...READ_HANDLERS.keys()].filter((p) => p !== 'approval.wait' && p !== 'events').sort();
  it.each(fuzzedReads)('GET %s with random query and path values: never INTERNAL', async (path) => {
    const example = READ_HANDLERS.get(path)!.contract.example as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(example), 'x'])];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...keys), fc.oneof(str, num.map(String)), { maxKeys: 4 }), async (query) => {
        const inPath = (k: string) => path.includes(`{${k}}`);
        const url = `/api/v1/${path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(String(query[k] ?? example[k] ?? 'x').toWellFormed()))}`;
        const qs = new URLSearchParams(
          Object.entries(query)
            .filter(([k]) => !inPath(k))
            .map(([k, v]): [string, string] => [k, String(v)]),
        ).toString();
        const res = await s.app.inject({ method: 'GET', url: `${url}${qs ? `?${qs}` : ''}`, headers: { authorization: `Bearer ${s.org.adminKey}` } });
        const context = `${url}?${qs.slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, context).not.toBe(500);
        if (res.statusCode >= 400) expectFrame({ status: res.statusCode, raw: res.body }, context);
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 60_000 },
    );
  });

  it('GET /events with random query strings: never INTERNAL', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('cursor', 'limit', 'x'), fc.oneof(fc.string({ maxLength: 20 }), num.map(String)), { maxKeys: 3 }),
        async (query) => {
          const qs = new URLSearchParams(query).toString();
          const res = await s.app.inject({ method: 'GET', url: `/api/v1/events?${qs}`, headers: { authorization: `Bearer ${s.org.adminKey}` } });
          expect(res.statusCode, `${qs} -> ${res.body.slice(0, 200)}`).not.toBe(500);
          if (res.statusCode !== 200) expectFrame({ status: res.statusCode, raw: res.body }, qs);
          else expect(Object.keys(res.json()).sort()).toEqual(['events', 'nextCursor']);
        },
      ),
      { numRuns: 100 },
    );
  });
});
