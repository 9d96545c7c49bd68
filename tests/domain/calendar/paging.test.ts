import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../helpers/calls.js';
import { at, calOrg, createEvent, type CalOrg } from './kit.js';

/*
 * calendar.list without q reads in two steps and expands series only up to the page's last single event
 * (domain/calendar/occurrences.ts occurrenceSlots). Paging through a window of series that tie with single events,
 * an occurrence moved later, one cancelled and an event that began before the window, page by page at several
 * limits, must give exactly the one-read answer of the q path (every title matches q), in both shapes.
 */

let o: CalOrg;
beforeAll(async () => {
  o = await calOrg();
  const z = 'Europe/Berlin';
  const daily = await createEvent(o, {
    title: 'Daily sync',
    start: at('2026-09-01T09:00:00', z),
    end: at('2026-09-01T09:15:00', z),
    recurrence: { rrule: 'FREQ=DAILY;COUNT=20' },
  });
  await createEvent(o, {
    title: 'Weekly sync',
    start: at('2026-09-02T09:00:00', z),
    end: at('2026-09-02T10:00:00', z),
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=MO,WE;COUNT=6' },
  });
  // Single events: some at 09:00 (ties with the series), some later, one begun before the window.
  for (const d of ['03', '05', '08', '09', '12', '15']) {
    await createEvent(o, { title: `Sync at nine ${d}`, start: at(`2026-09-${d}T09:00:00`, z), end: at(`2026-09-${d}T09:30:00`, z) });
    await createEvent(o, { title: `Sync review ${d}`, start: at(`2026-09-${d}T14:00:00`, z), end: at(`2026-09-${d}T15:00:00`, z) });
  }
  await createEvent(o, { title: 'Sync offsite', start: at('2026-08-31T08:00:00', z), end: at('2026-09-02T17:00:00', z) });
  const id = daily.event.id;
  // The 4 September occurrence moved to the 18th (later than most singles); the 6th cancelled.
  await ok(o.s, 'calendar.reschedule', {
    eventId: id,
    originalStart: '2026-09-04T07:00:00.000Z',
    scope: 'this',
    start: at('2026-09-18T16:00:00', z),
    end: at('2026-09-18T16:15:00', z),
  });
  await ok(o.s, 'calendar.delete', { eventId: id, originalStart: '2026-09-06T07:00:00.000Z', scope: 'this' });
}, 60_000);
afterAll(() => o?.s.close());

const WINDOW = { from: '2026-09-01T00:00:00Z', to: '2026-10-01T00:00:00Z' };
const key = (i: any) => `${i.id ?? i.eventId}|${i.originalStart ?? ''}|${JSON.stringify(i.start)}`;

async function pages(singleEvents: boolean, limit: number): Promise<any[]> {
  const all: any[] = [];
  let cursor: number | null = 0;
  for (let n = 0; cursor !== null; n++) {
    expect(n).toBeLessThan(200);
    const page: { items: any[]; nextCursor: number | null } = await ok(o.s, 'calendar.list', { ...WINDOW, singleEvents, limit, cursor });
    all.push(...page.items);
    cursor = page.nextCursor;
  }
  return all;
}

describe('calendar.list paged without q', () => {
  for (const singleEvents of [true, false]) {
    it(`${singleEvents ? 'occurrences' : 'series'}: every limit pages to the one-read answer of the q path`, async () => {
      const whole = (await ok(o.s, 'calendar.list', { ...WINDOW, singleEvents, q: 'sync', limit: 500 })).items;
      expect(whole.length).toBeGreaterThan(singleEvents ? 35 : 14);
      expect(JSON.stringify(whole)).not.toContain('2026-09-06T07:00:00.000Z');
      for (const limit of [1, 2, 3, 5, 8, 500]) {
        const paged = await pages(singleEvents, limit);
        expect(paged.map(key), `limit ${limit}`).toEqual(whole.map(key));
        expect(paged, `limit ${limit}`).toEqual(whole);
      }
    });
  }
});
