import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate } from '../../helpers/calls.js';
import { at, calOrg, listItems, type CalOrg } from './kit.js';

/*
 * Design scenario 2: a weekly 09:00 in Sydney with an EXDATE stays 09:00 local
 * across 2026-04-05, when Sydney leaves daylight saving; calendar.list gives each occurrence in UTC and local.
 * (radicale's expansion of the same event is compared in interop.test.ts.)
 */

let o: CalOrg;
beforeAll(async () => {
  o = await calOrg();
}, 60_000);
afterAll(() => o?.s.close());

describe('scenario 2: recurrence across a DST change', () => {
  it('weekly 09:00 Australia/Sydney with an EXDATE stays 09:00 local', async () => {
    const { result, event } = await mutate(
      o.s,
      'calendar.create',
      {
        title: 'Sydney weekly',
        start: at('2026-03-23T09:00:00', 'Australia/Sydney'),
        end: at('2026-03-23T09:30:00', 'Australia/Sydney'),
        recurrence: { rrule: 'FREQ=WEEKLY;UNTIL=20260428T000000Z', exdates: ['2026-04-06T09:00:00'] },
        attendees: [{ principalId: o.berlin.id }],
        notify: 'none',
      },
      'calendar.event.create',
      { key: o.sydney.key },
    );
    expect(event.payload).toMatchObject({ recurring: true, attendees: 1 });
    const items = await listItems(o, '2026-03-01T00:00:00Z', '2026-05-31T00:00:00Z', {}, o.sydney.key);
    expect(items.map((i) => [i.start.local, i.start.utc, i.originalStart])).toEqual([
      ['2026-03-23T09:00:00+11:00', '2026-03-22T22:00:00.000Z', '2026-03-22T22:00:00.000Z'],
      ['2026-03-30T09:00:00+11:00', '2026-03-29T22:00:00.000Z', '2026-03-29T22:00:00.000Z'],
      ['2026-04-13T09:00:00+10:00', '2026-04-12T23:00:00.000Z', '2026-04-12T23:00:00.000Z'],
      ['2026-04-20T09:00:00+10:00', '2026-04-19T23:00:00.000Z', '2026-04-19T23:00:00.000Z'],
      ['2026-04-27T09:00:00+10:00', '2026-04-26T23:00:00.000Z', '2026-04-26T23:00:00.000Z'],
    ]);
    expect(items.every((i) => i.end.local.slice(11, 16) === '09:30' && i.id === result.event.id)).toBe(true);
    // Berlin sees the same instants in its own list (an attendee), 09:00 Sydney being 00:00 or 01:00 there.
    const theirs = await listItems(o, '2026-03-01T00:00:00Z', '2026-05-31T00:00:00Z', {}, o.berlin.key);
    expect(theirs.map((i) => i.start.utc)).toEqual(items.map((i) => i.start.utc));
  });
});
