import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarTime } from '../../../protocol/methods/calendar/time.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { expectFrame } from '../../helpers/frames.js';
import { findOrg, setHours, weekdays, type FindOrg } from './find-kit.js';

/*
 * calendar.findATime and calendar.ask fuzzed field by field (wrong types, unknown fields, huge strings, unicode,
 * nulls, odd dates), as a member, an agent and a viewer: never a 5xx, and the chain still verifies.
 */

let o: FindOrg;
beforeAll(async () => {
  o = await findOrg();
  await setHours(o, o.berlin, weekdays());
});
afterAll(async () => {
  expect((await verifyOrgChain(o.s.runtime.db, o.s.org.orgId)).ok).toBe(true);
  await o.s.close();
});

const odd = fc.constantFrom(
  '\u0000',
  '\ud800',
  'x\ud83d',
  '🎉',
  '',
  ' ',
  '"',
  '\\',
  '%',
  '<script>',
  'a'.repeat(5000),
  'cev_nosuch',
  'usr_x',
  'per_x',
  'a@b.c',
);
const anyValue = fc.oneof(
  odd,
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.integer(),
  fc.constantFrom(-1, 0, 1, 5, 59, 60, 1440, 1441, 2 ** 31, 2 ** 53, 1.5, Number.MAX_SAFE_INTEGER),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('2026-03-09T00:00:00Z', '2026-03-09T00:00:00+14:00', '1899-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '275760-09-13T00:00:00Z', 'not a date'),
  fc.array(fc.oneof(odd, fc.record({ id: odd, optional: fc.oneof(fc.boolean(), odd) })), { maxLength: 25 }),
  fc.record({ id: odd }),
);

describe('findATime and ask, fuzzed', () => {
  it.each([['calendar.findATime'], ['calendar.ask']])('%s: never INTERNAL', async (name) => {
    const base: Record<string, unknown> =
      name === 'calendar.ask'
        ? { question: 'What is on 2026-03-10?', from: '2026-03-09T23:00:00Z', to: '2026-03-10T23:00:00Z' }
        : { ...calendarTime.findATime.example, attendees: [{ id: o.berlin.id }, { id: o.newYork.id, optional: true }] };
    const fields = [...new Set([...Object.keys(base), ...Object.keys(calendarTime.findATime.params.shape), 'question', 'extra'])];
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: 3 }),
        fc.constantFrom(o.berlin, o.agent, o.viewer),
        async (changes, who) => {
          const params = { ...base, ...changes };
          const res = await o.s.client.rpc(name, params, { key: who.key });
          const context = `${name} ${JSON.stringify(params).slice(0, 300)} -> ${res.status} ${res.raw.slice(0, 300)}`;
          expect(res.status, context).toBeLessThan(500);
          if (res.status !== 200) expectFrame({ status: res.status, raw: res.raw }, context);
        },
      ),
      { numRuns: 60, interruptAfterTimeLimit: 30_000 },
    );
  });
});
