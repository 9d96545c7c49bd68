import fc from 'fast-check';
import { expect } from 'vitest';
import { expectFrame } from './frames.js';
import type { TestClient } from './harness.js';

/*
 * Fuzzing a family's methods at real rows (tests/domain/<family>/fuzz.test.ts): the example params with the ids of
 * rows the test made, up to three fields replaced by hostile values, called as several principals. Never a 5xx, and
 * every refusal a well-formed error frame. tests/pipeline/fuzz.test.ts reaches every method with ids that do not
 * exist; these reach the code behind the lookups.
 */

/** Strings every family's fuzz tries: NUL, a lone surrogate, emoji, empty, quotes, markup, a huge string. */
export const HOSTILE_STRINGS = ['\u0000', '\ud800', 'x\ud83d', '🎉', '', ' ', '"', "'", '\\', '%', '<script>', 'a'.repeat(5000)] as const;

/** Hostile strings plus the family's own near-misses (unknown ids, wrong enum words, bad codes). */
export const oddStrings = (...own: string[]) => fc.constantFrom(...HOSTILE_STRINGS, ...own);

/**
 * Any JSON value a field might be sent: the odd strings, random strings (text and binary), integers and edge numbers,
 * booleans, null, date-times around the edges, small arrays of odd strings, and the family's own shapes.
 */
export function anyValue(odd: fc.Arbitrary<string>, ...own: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    odd,
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.integer(),
    fc.constantFrom(-1, 0, 1, 501, 2 ** 31, 2 ** 53, 1e16, 1.5, Number.MAX_SAFE_INTEGER),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('2026-03-09T13:00:00Z', '2026-03-09T00:00:00+14:00', '1899-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2026-01-01', 'not a date'),
    fc.array(odd, { maxLength: 3 }),
    ...own,
  );
}

export interface AtRows {
  client: TestClient;
  /** The method's example params (`contract.example`). */
  example: unknown;
  /** Ids of real rows, put in place of the example's fields of the same name. */
  ids: Readonly<Record<string, string>>;
  /** Fields to try besides the example's (optional params, unknown names). */
  fields?: readonly string[];
  /** The principals' keys to call as. */
  keys: readonly string[];
  values: fc.Arbitrary<unknown>;
  numRuns?: number;
}

/** Fuzz one method at real rows: never a 5xx; a refusal is a well-formed error frame. */
export async function fuzzAtRows(method: string, o: AtRows): Promise<void> {
  const base: Record<string, unknown> = { ...(o.example as Record<string, unknown>) };
  for (const k of Object.keys(base)) if (k in o.ids) base[k] = o.ids[k];
  const fields = [...new Set([...Object.keys(base), ...(o.fields ?? [])])];
  await fc.assert(
    fc.asyncProperty(fc.dictionary(fc.constantFrom(...fields), o.values, { maxKeys: 3 }), fc.constantFrom(...o.keys), async (changes, key) => {
      const params = { ...base, ...changes };
      const res = await o.client.rpc(method, params, { key });
      const context = `${method} ${JSON.stringify(params).slice(0, 300)} -> ${res.status} ${res.raw.slice(0, 300)}`;
      expect(res.status, context).toBeLessThan(500);
      if (res.status !== 200) expectFrame({ status: res.status, raw: res.raw }, context);
    }),
    { numRuns: o.numRuns ?? 30, interruptAfterTimeLimit: 30_000 },
  );
}
