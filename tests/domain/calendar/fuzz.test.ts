import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarEvents } from '../../../protocol/methods/calendar/events.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { expectFrame } from '../../helpers/frames.js';
import { at, calOrg, createEvent, type CalOrg } from './kit.js';

/*
 * Every event method at real rows (a weekly series with an attendee, a single event), field by field, as the
 * organizer, an attendee agent and a viewer: never a 5xx, and the chain still verifies.
 */

let o: CalOrg;
const ids: Record<string, string> = {};
beforeAll(async () => {
  o = await calOrg();
  const s = await createEvent(o, {
    title: 'Fuzz series',
    start: at('2026-03-02T09:00:00', 'America/New_York'),
    end: at('2026-03-02T10:00:00', 'America/New_York'),
    recurrence: { rrule: 'FREQ=WEEKLY;COUNT=10' },
    attendees: [{ principalId: o.berlin.id }],
  });
  ids.eventId = s.event.id;
  ids.calendarId = s.event.calendarId;
}, 60_000);
afterAll(async () => {
  expect((await verifyOrgChain(o.s.runtime.db, o.s.org.orgId)).ok).toBe(true);
  await o.s.close();
});

const odd = fc.constantFrom(
  '\u0000',
  '\ud800',
  '🎉',
  '',
  ' ',
  '"',
  '\\',
  '<script>',
  'a'.repeat(5000),
  'cev_nosuch',
  'cal_x',
  'usr_x',
  'Mars/Base',
  '+05:00',
  'UTC',
);
const time = fc.oneof(
  fc.record({
    dateTime: fc.constantFrom('2026-03-08T02:30:00', '2026-11-01T01:30:00', '2026-02-30T10:00:00', '0001-01-01T00:00:00', '2026-03-02T09:00:00Z', 'x'),
    timeZone: fc.constantFrom('America/New_York', 'Europe/Berlin', 'Nope/Zone', 'UTC'),
  }),
  fc.record({ date: fc.constantFrom('2026-03-02', '1899-12-31', '2026-13-01', '9999-12-31') }),
  odd,
);
const anyValue = fc.oneof(
  odd,
  time,
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.constantFrom(-1, 0, 1, 501, 2 ** 53, 1.5),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('2026-03-09T13:00:00Z', '2026-03-16T13:00:00Z', '1899-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'not a date'),
  fc.constantFrom('this', 'following', 'all', 'accepted', 'rotate', 'FREQ=HOURLY', 'FREQ=DAILY;BYDAY=XX', 'FREQ=YEARLY;COUNT=99999'),
  fc.record({
    rrule: fc.constantFrom('FREQ=DAILY', 'FREQ=WEEKLY;UNTIL=20260101', 'FREQ=SECONDLY', 'RRULE:FREQ=MONTHLY;BYMONTHDAY=31', 'x'),
    exdates: fc.array(fc.constantFrom('2026-03-09T09:00:00', 'bad'), { maxLength: 2 }),
  }),
  fc.array(fc.oneof(fc.record({ principalId: odd }), fc.record({ email: odd }), fc.record({ personId: odd }), odd), { maxLength: 3 }),
);

describe('calendar events at real rows, fuzzed', () => {
  it.each(Object.entries(calendarEvents).map(([n, c]) => [`calendar.${n}`, c.example] as const))('%s: never INTERNAL', async (name, example) => {
    const base: Record<string, unknown> = { ...(example as Record<string, unknown>) };
    for (const k of Object.keys(base)) if (k in ids) base[k] = ids[k];
    const fields = [
      ...new Set([...Object.keys(base), 'originalStart', 'scope', 'start', 'end', 'recurrence', 'attendees', 'from', 'to', 'attendeeId', 'calendarId']),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: 3 }),
        fc.constantFrom(o.owner, o.agent, o.viewer, o.berlin),
        async (changes, who) => {
          const params = { ...base, ...changes };
          const res = await o.s.client.rpc(name, params, { key: who.key });
          const context = `${name} ${JSON.stringify(params).slice(0, 300)} -> ${res.status} ${res.raw.slice(0, 300)}`;
          expect(res.status, context).not.toBe(500);
          if (res.status !== 200) expectFrame({ status: res.status, raw: res.raw }, context);
        },
      ),
      { numRuns: 40, interruptAfterTimeLimit: 30_000 },
    );
  });
});
