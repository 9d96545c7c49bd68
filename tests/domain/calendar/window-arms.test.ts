import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, refused } from '../../helpers/calls.js';
import { TestClock } from '../../helpers/clock.js';
import { at, calOrg, createEvent, day, sql, type CalOrg } from './kit.js';

/*
 * A window's single events are read in arms (domain/calendar/window.ts, migration 083): those of at most a day by
 * their start (bounded below by the window's start less a day), longer ones by their end. Events on every edge of
 * that split must come exactly when they overlap the window, in every shape of calendar.list (paged at several
 * limits, the q path's one read, series) and in findATime's busy time.
 */

let o: CalOrg;
const z = 'UTC';
const WINDOW = { from: '2026-10-10T00:00:00Z', to: '2026-10-12T00:00:00Z' };
/** The events overlapping [from, to), each with its start; every title has the word `edge` (the q path). */
const INSIDE: Record<string, string> = {
  'edge: a day less a second, ending a second in': '2026-10-09T00:00:02Z',
  'edge: all day before, one more day in': '2026-10-09T00:00:00Z',
  'edge: long, from last week to the first morning': '2026-10-03T08:00:00Z',
  'edge: exactly a day, ending a second in': '2026-10-09T00:00:01Z',
  'edge: all day on the first day': '2026-10-10T00:00:00Z',
  'edge: inside': '2026-10-11T10:00:00Z',
  'edge: a second before the end': '2026-10-11T23:59:59Z',
};
const OUTSIDE = [
  'edge: a day ending at the start',
  'edge: all day before',
  'edge: long, ended at the start',
  'edge: starting at the end',
  'edge: all day after',
];
const byStart = Object.keys(INSIDE).sort((a, b) => Date.parse(INSIDE[a]) - Date.parse(INSIDE[b]));

beforeAll(async () => {
  o = await calOrg({ clock: new TestClock('2026-10-01') });
  const timed = (title: string, start: string, end: string) => createEvent(o, { title: `edge: ${title}`, start: at(start, z), end: at(end, z) });
  const allDay = (title: string, start: string, end: string) => createEvent(o, { title: `edge: ${title}`, start: day(start), end: day(end) });
  await timed('a day less a second, ending a second in', '2026-10-09T00:00:02', '2026-10-10T00:00:01');
  await allDay('all day before, one more day in', '2026-10-09', '2026-10-11');
  await timed('long, from last week to the first morning', '2026-10-03T08:00:00', '2026-10-10T09:00:00');
  await timed('exactly a day, ending a second in', '2026-10-09T00:00:01', '2026-10-10T00:00:01');
  await allDay('all day on the first day', '2026-10-10', '2026-10-11');
  await timed('inside', '2026-10-11T10:00:00', '2026-10-11T11:00:00');
  await timed('a second before the end', '2026-10-11T23:59:59', '2026-10-12T00:30:00');
  await timed('a day ending at the start', '2026-10-09T00:00:00', '2026-10-10T00:00:00');
  await allDay('all day before', '2026-10-09', '2026-10-10');
  await timed('long, ended at the start', '2026-10-05T00:00:00', '2026-10-10T00:00:00');
  await timed('starting at the end', '2026-10-12T00:00:00', '2026-10-12T01:00:00');
  await allDay('all day after', '2026-10-12', '2026-10-13');
}, 60_000);
afterAll(() => o?.s.close());

async function pages(singleEvents: boolean, limit: number): Promise<string[]> {
  const titles: string[] = [];
  let cursor: number | null = 0;
  for (let n = 0; cursor !== null; n++) {
    expect(n).toBeLessThan(50);
    const page: { items: { title: string }[]; nextCursor: number | null } = await ok(o.s, 'calendar.list', { ...WINDOW, singleEvents, limit, cursor });
    titles.push(...page.items.map((i) => i.title));
    cursor = page.nextCursor;
  }
  return titles;
}

describe('a window by its arms', () => {
  it('the indexes of migration 083 exist', async () => {
    const names = (await sql(o.s, "SELECT indexname FROM pg_indexes WHERE tablename = 'calendar_events'")).map((r) => (r as { indexname: string }).indexname);
    expect(names).toEqual(expect.arrayContaining(['calendar_events_short', 'calendar_events_long', 'calendar_events_series']));
  });

  it('calendar.list gives exactly the events overlapping the window, in start order, at every limit and on the q path', async () => {
    for (const limit of [1, 2, 3, 500]) {
      expect(await pages(true, limit), `limit ${limit}`).toEqual(byStart);
      expect(await pages(false, limit), `series, limit ${limit}`).toEqual(byStart);
    }
    const all = (await ok(o.s, 'calendar.list', { ...WINDOW, singleEvents: true, q: 'edge', limit: 500 })).items.map((i: { title: string }) => i.title);
    expect(all).toEqual(byStart);
    for (const t of OUTSIDE) expect(all).not.toContain(t);
  });

  it("findATime's busy time is the overlapping events'", async () => {
    const r = await ok(o.s, 'calendar.findATime', {
      attendees: [{ id: o.owner.id }],
      durationMinutes: 60,
      granularity: 60,
      from: '2026-10-11T08:00:00Z',
      to: '2026-10-11T13:00:00Z',
      respectWorkingHours: false,
    });
    expect(r.slots.map((s: { start: string }) => s.start)).toEqual([
      '2026-10-11T08:00:00.000Z',
      '2026-10-11T09:00:00.000Z',
      '2026-10-11T11:00:00.000Z',
      '2026-10-11T12:00:00.000Z',
    ]);
  });

  it("a named calendar reads its owner's invitations on other calendars too, and an unknown one is NOT_FOUND on both paths", async () => {
    const own = await createEvent(o, { title: 'edge: berlin own', start: at('2026-10-11T12:00:00', z), end: at('2026-10-11T12:30:00', z) }, o.berlin);
    await createEvent(o, {
      title: 'edge: berlin invited',
      start: at('2026-10-11T13:00:00', z),
      end: at('2026-10-11T13:30:00', z),
      attendees: [{ principalId: o.berlin.id }],
    });
    const calendarIds = [own.event.calendarId];
    const titles = (r: { items: { title: string }[] }) => r.items.map((i) => i.title);
    expect(titles(await ok(o.s, 'calendar.list', { ...WINDOW, calendarIds, singleEvents: true }))).toEqual(['edge: berlin own', 'edge: berlin invited']);
    expect(titles(await ok(o.s, 'calendar.list', { ...WINDOW, calendarIds, singleEvents: true, q: 'berlin' }))).toEqual([
      'edge: berlin own',
      'edge: berlin invited',
    ]);
    for (const q of [{}, { q: 'edge' }]) {
      await refused(o.s, 'calendar.list', { ...WINDOW, calendarIds: [...calendarIds, 'cal_nosuchcalendar'], ...q }, 'NOT_FOUND', {
        message: /cal_nosuchcalendar/,
      });
    }
  });
});
