import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyValue, fuzzAtRows, oddStrings } from '../../helpers/fuzz.js';
import { calendarEvents } from '../../../protocol/methods/calendar/events.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
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

const odd = oddStrings('cev_nosuch', 'cal_x', 'usr_x', 'Mars/Base', '+05:00', 'UTC');
const values = anyValue(
  odd,
  fc.oneof(
    fc.record({
      dateTime: fc.constantFrom('2026-03-08T02:30:00', '2026-11-01T01:30:00', '2026-02-30T10:00:00', '0001-01-01T00:00:00', '2026-03-02T09:00:00Z', 'x'),
      timeZone: fc.constantFrom('America/New_York', 'Europe/Berlin', 'Nope/Zone', 'UTC'),
    }),
    fc.record({ date: fc.constantFrom('2026-03-02', '1899-12-31', '2026-13-01', '9999-12-31') }),
  ),
  fc.constantFrom(
    '2026-03-09T13:00:00Z',
    '2026-03-16T13:00:00Z',
    'this',
    'following',
    'all',
    'accepted',
    'rotate',
    'FREQ=HOURLY',
    'FREQ=DAILY;BYDAY=XX',
    'FREQ=YEARLY;COUNT=99999',
  ),
  fc.record({
    rrule: fc.constantFrom('FREQ=DAILY', 'FREQ=WEEKLY;UNTIL=20260101', 'FREQ=SECONDLY', 'RRULE:FREQ=MONTHLY;BYMONTHDAY=31', 'x'),
    exdates: fc.array(fc.constantFrom('2026-03-09T09:00:00', 'bad'), { maxLength: 2 }),
  }),
  fc.array(fc.oneof(fc.record({ principalId: odd }), fc.record({ email: odd }), fc.record({ personId: odd }), odd), { maxLength: 3 }),
);

describe('calendar events at real rows, fuzzed', () => {
  it.each(Object.entries(calendarEvents).map(([n, c]) => [`calendar.${n}`, c.example] as const))('%s: never INTERNAL', (name, example) =>
    fuzzAtRows(name, {
      client: o.s.client,
      example,
      ids,
      fields: ['originalStart', 'scope', 'start', 'end', 'recurrence', 'attendees', 'from', 'to', 'attendeeId', 'calendarId'],
      keys: [o.owner.key, o.agent.key, o.viewer.key, o.berlin.key],
      values,
      numRuns: 40,
    }),
  );
});
