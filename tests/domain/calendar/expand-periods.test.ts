import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expand, firstInstances, normaliseRule, type SeriesTime } from '../../../domain/calendar/recurrence.js';

/*
 * expand() reads a series' wall clocks a 28-day period at a time and keeps them by what the expansion is built
 * from (decision 0082). Whatever window is asked, first or again from the kept periods, it must give exactly the
 * occurrences the rule's own walk from the start gives (firstInstances, through rrule-temporal's all()), in zones
 * with daylight saving on and off, across their changes, with exdates, COUNT and UNTIL.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata', 'UTC', null] as const;
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const pad = (n: number) => String(n).padStart(2, '0');

const ruleArb = fc.oneof(
  fc.record({ freq: fc.constant('DAILY'), interval: fc.integer({ min: 1, max: 3 }) }).map((r) => `FREQ=${r.freq};INTERVAL=${r.interval}`),
  fc
    .record({ interval: fc.integer({ min: 1, max: 2 }), days: fc.subarray(DAYS, { minLength: 1, maxLength: 3 }) })
    .map((r) => `FREQ=WEEKLY;INTERVAL=${r.interval};BYDAY=${r.days.join(',')}`),
  fc.integer({ min: 1, max: 28 }).map((d) => `FREQ=MONTHLY;BYMONTHDAY=${d}`),
  fc.constant('FREQ=YEARLY'),
);
const endArb = fc.oneof(
  fc.constant(''),
  fc.integer({ min: 1, max: 60 }).map((n) => `;COUNT=${n}`),
  fc.integer({ min: 10, max: 500 }).map((d) => `;UNTIL=${new Date(Date.UTC(2026, 0, 1) + d * DAY).toISOString().slice(0, 10).replace(/-/g, '')}`),
);

const seriesArb = fc
  .record({
    zone: fc.constantFrom(...ZONES),
    day: fc.integer({ min: 0, max: 400 }),
    // 02:30 falls in a spring gap in Berlin and New York, 01:30 in an autumn fold.
    time: fc.constantFrom('09:00', '02:30', '01:30', '23:45', '00:00'),
    minutes: fc.constantFrom(15, 60, 150, 24 * 60),
    rule: ruleArb,
    end: endArb,
    exdates: fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 3 }),
  })
  .map((r): SeriesTime => {
    const d = new Date(Date.UTC(2026, 0, 1) + r.day * DAY);
    const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    const allDay = r.zone === null;
    const startWall = `${date}T${allDay ? '00:00' : r.time}:00`;
    const base: SeriesTime = {
      allDay,
      startWall,
      timeZone: r.zone,
      durationMs: (allDay ? 24 * 60 : r.minutes) * 60_000,
      rrule: normaliseRule(`${r.rule}${r.end}`, { allDay, wall: startWall, zone: r.zone }),
      exdates: [],
    };
    // Exdates among the series' own first occurrences (an exdate off the rule changes nothing).
    const first = firstInstances(base, 31);
    return { ...base, exdates: [...new Set(r.exdates.filter((i) => i < first.length).map((i) => first[i].wall))] };
  });

const windowArb = fc.record({ offsetHours: fc.integer({ min: -48, max: 500 * 24 }), hours: fc.integer({ min: 1, max: 100 * 24 }) });

const times = (list: { originalStart: Date; start: Date; end: Date; wall: string }[]) =>
  list.map((i) => `${i.originalStart.toISOString()} ${i.start.toISOString()} ${i.end.toISOString()} ${i.wall}`);

describe('expand() by kept periods', () => {
  it('gives the rule walk exactly, asked once, again, and over overlapping windows', () => {
    fc.assert(
      fc.property(seriesArb, fc.array(windowArb, { minLength: 1, maxLength: 3 }), (s, windows) => {
        // The rule walked from its start (1,500 daily occurrences reach past every window asked).
        const walk = firstInstances(s, 1_500);
        for (const w of windows) {
          const from = new Date(Date.UTC(2026, 0, 1) + w.offsetHours * HOUR);
          const to = new Date(from.getTime() + w.hours * HOUR);
          const want = times(walk.filter((i) => i.start < to && i.end > from));
          expect(times(expand(s, from, to))).toEqual(want);
          expect(times(expand(s, from, to))).toEqual(want);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a series changed is another key: an exdate added takes its occurrence out at once', () => {
    const s: SeriesTime = {
      allDay: false,
      startWall: '2026-03-23T09:00:00',
      timeZone: 'Australia/Sydney',
      durationMs: HOUR,
      rrule: 'FREQ=WEEKLY',
      exdates: [],
    };
    const from = new Date('2026-03-20T00:00:00Z');
    const to = new Date('2026-04-20T00:00:00Z');
    const before = expand(s, from, to).map((i) => i.start.toISOString());
    expect(before).toEqual([
      '2026-03-22T22:00:00.000Z',
      '2026-03-29T22:00:00.000Z',
      '2026-04-05T23:00:00.000Z',
      '2026-04-12T23:00:00.000Z',
      '2026-04-19T23:00:00.000Z',
    ]);
    const after = expand({ ...s, exdates: ['2026-04-06T09:00:00'] }, from, to).map((i) => i.start.toISOString());
    expect(after).toEqual(before.filter((t) => t !== '2026-04-05T23:00:00.000Z'));
  });
});
