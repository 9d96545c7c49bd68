import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localClock, workingIntervals } from '../../../domain/calendar/time/hours.js';
import { covers, findSlots, intersect, normalize, onGrid, subtract, widen, type Interval, type SlotPerson } from '../../../domain/calendar/time/slots.js';

/*
 * findATime's pure parts: interval math (checked against a minute-by-minute model), the slot walk (grid, buffers,
 * notice, optional attendees, the limit) and working hours placed in zones across daylight-saving changes.
 */

const H = 3_600_000;
const M = 60_000;
const t = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

/** A list as a set of minutes, for the model checks. */
const minutes = (list: readonly Interval[]) => {
  const set = new Set<number>();
  for (const [s, e] of list) for (let m = s; m < e; m++) set.add(m);
  return set;
};
const arbList = fc.array(
  fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 40 })).map(([s, l]): Interval => [s, s + l]),
  { maxLength: 8 },
);

describe('interval math', () => {
  it('normalize merges overlapping and touching intervals and drops empty ones', () => {
    expect(
      normalize([
        [5, 7],
        [1, 3],
        [3, 4],
        [6, 9],
        [10, 10],
      ]),
    ).toEqual([
      [1, 4],
      [5, 9],
    ]);
  });

  it('intersect, subtract and widen agree with a minute-by-minute model', () => {
    fc.assert(
      fc.property(arbList, arbList, fc.integer({ min: 0, max: 5 }), (a0, b0, w) => {
        const a = normalize(a0);
        const b = normalize(b0);
        const ma = minutes(a);
        const mb = minutes(b);
        expect(minutes(intersect(a, b))).toEqual(new Set([...ma].filter((m) => mb.has(m))));
        expect(minutes(subtract(a, b))).toEqual(new Set([...ma].filter((m) => !mb.has(m))));
        const wide = minutes(widen(b, w));
        for (const m of mb) for (let d = -w; d <= w; d++) expect(wide.has(m + d)).toBe(true);
        // Results stay normalized.
        expect(normalize(subtract(a, b))).toEqual(subtract(a, b));
      }),
    );
  });

  it('covers: inside one interval only', () => {
    const list: Interval[] = [
      [0, 10],
      [20, 30],
    ];
    expect(covers(list, 0, 10)).toBe(true);
    expect(covers(list, 21, 29)).toBe(true);
    expect(covers(list, 5, 25)).toBe(false);
    expect(covers(list, 10, 12)).toBe(false);
    expect(covers([], 0, 1)).toBe(false);
  });

  it('onGrid rounds up to multiples of the step from UTC midnight', () => {
    expect(iso(onGrid(t('2026-03-09T09:07:00Z'), 15 * M))).toBe('2026-03-09T09:15:00.000Z');
    expect(iso(onGrid(t('2026-03-09T09:15:00Z'), 15 * M))).toBe('2026-03-09T09:15:00.000Z');
    expect(iso(onGrid(t('2026-03-09T23:50:00Z'), 60 * M))).toBe('2026-03-10T00:00:00.000Z');
  });
});

const person = (id: string, busy: Interval[], hours: Interval[] | null = null, optional = false): SlotPerson => ({ id, busy, hours, optional });
const query = (people: SlotPerson[], extra: Partial<Parameters<typeof findSlots>[0]> = {}) =>
  findSlots({
    people,
    from: t('2026-03-09T09:00:00Z'),
    to: t('2026-03-09T12:00:00Z'),
    durationMs: H,
    stepMs: 30 * M,
    bufferMs: 0,
    earliest: 0,
    limit: 50,
    ...extra,
  });
const starts = (r: ReturnType<typeof findSlots>) => r.slots.map((s) => iso(s.start).slice(11, 16));

describe('findSlots', () => {
  it('steps through the free time of every required attendee', () => {
    const a = person('a', [[t('2026-03-09T10:00:00Z'), t('2026-03-09T10:30:00Z')]]);
    const b = person('b', []);
    expect(starts(query([a, b]))).toEqual(['09:00', '10:30', '11:00']);
  });

  it('a buffer keeps time free around busy blocks', () => {
    const a = person('a', [[t('2026-03-09T10:00:00Z'), t('2026-03-09T10:30:00Z')]]);
    expect(starts(query([a], { bufferMs: 15 * M, stepMs: 15 * M }))).toEqual(['10:45', '11:00']);
  });

  it('minNotice drops early starts; a start off the grid moves to the next grid point', () => {
    const a = person('a', []);
    expect(starts(query([a], { earliest: t('2026-03-09T09:40:00Z') }))).toEqual(['10:00', '10:30', '11:00']);
  });

  it('optional attendees never narrow the slots; each slot names those free for all of it', () => {
    const a = person('a', []);
    const o = person('o', [[t('2026-03-09T10:00:00Z'), t('2026-03-09T11:00:00Z')]], null, true);
    const r = query([a, o], { stepMs: H });
    expect(r.slots.map((s) => [iso(s.start).slice(11, 16), s.optionalFree])).toEqual([
      ['09:00', ['o']],
      ['10:00', []],
      ['11:00', ['o']],
    ]);
  });

  it('working hours bound the slots; no required attendee: no slots', () => {
    const a = person('a', [], [[t('2026-03-09T10:00:00Z'), t('2026-03-09T11:30:00Z')]]);
    expect(starts(query([a]))).toEqual(['10:00', '10:30']);
    expect(query([person('o', [], null, true)]).slots).toEqual([]);
  });

  it('the limit stops the walk and names the next start', () => {
    const r = query([person('a', [])], { limit: 2 });
    expect(starts(r)).toEqual(['09:00', '09:30']);
    expect(r.more).toBe(true);
    expect(iso(r.nextFrom!)).toBe('2026-03-09T10:00:00.000Z');
  });

  it('no slot overlaps anyone required’s busy time (widened by the buffer) or leaves the window', () => {
    fc.assert(
      fc.property(
        fc.array(arbList, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 15 }),
        (busy, buffer, duration, step) => {
          const people = busy.map((b, i) => person(`p${i}`, b));
          const r = findSlots({ people, from: 0, to: 250, durationMs: duration, stepMs: step, bufferMs: buffer, earliest: 0, limit: 1000 });
          for (const s of r.slots) {
            expect(s.start).toBeGreaterThanOrEqual(0);
            expect(s.end).toBeLessThanOrEqual(250);
            for (const p of people) for (const [bs, be] of p.busy) if (be > bs) expect(s.end <= bs - buffer || s.start >= be + buffer).toBe(true);
          }
        },
      ),
    );
  });
});

describe('working hours in zones', () => {
  const nine2five = { mon: [{ start: '09:00', end: '17:00' }], tue: [{ start: '09:00', end: '17:00' }], sun: [{ start: '09:00', end: '17:00' }] };

  it('a 09:00-17:00 day stays 8 hours on a 23-hour day (Berlin, 2026-03-29)', () => {
    const days = workingIntervals({ timeZone: 'Europe/Berlin', days: nine2five }, t('2026-03-28T00:00:00Z'), t('2026-03-31T00:00:00Z'));
    expect(days.map(([s, e]) => [iso(s), (e - s) / H])).toEqual([
      ['2026-03-29T07:00:00.000Z', 8],
      ['2026-03-30T07:00:00.000Z', 8],
    ]);
  });

  it('New York before and after 2026-03-08 (the US changes clocks three weeks before Europe)', () => {
    const days = workingIntervals({ timeZone: 'America/New_York', days: nine2five }, t('2026-03-01T00:00:00Z'), t('2026-03-10T00:00:00Z'));
    expect(days.map(([s]) => iso(s))).toEqual([
      '2026-03-01T14:00:00.000Z',
      '2026-03-02T14:00:00.000Z',
      '2026-03-03T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
    ]);
    expect(localClock(t('2026-03-08T13:00:00Z'), 'America/New_York')).toBe('2026-03-08T09:00');
  });

  it('clips to the window, and 24:00 ends at the next midnight', () => {
    const late = { mon: [{ start: '22:00', end: '24:00' }] };
    expect(workingIntervals({ timeZone: 'UTC', days: late }, t('2026-03-09T23:00:00Z'), t('2026-03-11T00:00:00Z'))).toEqual([
      [t('2026-03-09T23:00:00Z'), t('2026-03-10T00:00:00Z')],
    ]);
  });

  it('a range starting in a DST gap starts when the clocks resume (New York 02:30 on 2026-03-08 -> 03:30)', () => {
    const gap = { sun: [{ start: '02:30', end: '04:00' }] };
    const [[s, e]] = workingIntervals({ timeZone: 'America/New_York', days: gap }, t('2026-03-08T00:00:00Z'), t('2026-03-09T00:00:00Z'));
    expect(localClock(s, 'America/New_York')).toBe('2026-03-08T03:30');
    expect(localClock(e, 'America/New_York')).toBe('2026-03-08T04:00');
  });
});
