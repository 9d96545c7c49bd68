import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyValue, fuzzAtRows, oddStrings } from '../../helpers/fuzz.js';
import { calendarTime } from '../../../protocol/methods/calendar/time.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
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

const odd = oddStrings('cev_nosuch', 'usr_x', 'per_x', 'a@b.c');
const values = anyValue(
  odd,
  fc.constantFrom(5, 59, 60, 1440, 1441, '275760-09-13T00:00:00Z'),
  fc.array(fc.oneof(odd, fc.record({ id: odd, optional: fc.oneof(fc.boolean(), odd) })), { maxLength: 25 }),
  fc.record({ id: odd }),
);

describe('findATime and ask, fuzzed', () => {
  it.each([['calendar.findATime'], ['calendar.ask']])('%s: never INTERNAL', (name) =>
    fuzzAtRows(name, {
      client: o.s.client,
      example:
        name === 'calendar.ask'
          ? { question: 'What is on 2026-03-10?', from: '2026-03-09T23:00:00Z', to: '2026-03-10T23:00:00Z' }
          : { ...calendarTime.findATime.example, attendees: [{ id: o.berlin.id }, { id: o.newYork.id, optional: true }] },
      ids: {},
      fields: [...Object.keys(calendarTime.findATime.params.shape), 'question', 'extra'],
      keys: [o.berlin.key, o.agent.key, o.viewer.key],
      values,
      numRuns: 60,
    }),
  );
});
