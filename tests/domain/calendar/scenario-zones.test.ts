import { read } from '../../helpers/calls.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOrg, setHours, weekdays, type FindOrg } from './find-kit.js';

/*
 * The design's scenario 1, its finding-a-time part: Berlin and New York both work 09:00-17:00. Their days overlap
 * 2 hours, except from 9 to 27 March 2026, when they overlap 3: the US moves its clocks on 8 March, Europe on 29 March.
 * (The invitation part of the scenario is in the iTIP tests.)
 */

let o: FindOrg;
beforeAll(async () => {
  o = await findOrg();
  await setHours(o, o.berlin, weekdays());
  await setHours(o, o.newYork, weekdays());
});
afterAll(() => o.s.close());

const search = (durationMinutes: number) =>
  read(o.s, 'calendar.findATime', {
    attendees: [{ id: o.berlin.id }, { id: o.newYork.id }],
    durationMinutes,
    granularity: 60,
    from: '2026-03-02T00:00:00Z',
    to: '2026-04-04T00:00:00Z',
    limit: 500,
  });

/** The weekdays from..to inclusive (YYYY-MM-DD). */
function weekdaysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const d = new Date(t);
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.push(d.toISOString().slice(0, 10));
  }
  return out;
}

describe('scenario 1: Berlin and New York, 9-17, across both clock changes', () => {
  it('a 3-hour meeting fits only from 9 to 27 March, at 14:00 Berlin / 09:00 New York', async () => {
    const r = await search(180);
    expect(r.slots.map((s: { start: string }) => s.start.slice(0, 10))).toEqual(weekdaysBetween('2026-03-09', '2026-03-27'));
    for (const s of r.slots) {
      expect(s.start.slice(11, 16)).toBe('13:00');
      expect(s.local.map((l: { start: string }) => l.start.slice(11))).toEqual(['14:00', '09:00']);
      expect(s.local.map((l: { end: string }) => l.end.slice(11))).toEqual(['17:00', '12:00']);
    }
  });

  it('a 2-hour meeting fits every weekday: the overlap moves with each clock change', async () => {
    const r = await search(120);
    const byDay = new Map<string, string[]>();
    for (const s of r.slots as { start: string; local: { start: string }[] }[]) {
      const day = s.start.slice(0, 10);
      byDay.set(day, [...(byDay.get(day) ?? []), `${s.start.slice(11, 16)}Z ${s.local[0].start.slice(11)} Berlin ${s.local[1].start.slice(11)} NY`]);
    }
    expect([...byDay.keys()]).toEqual(weekdaysBetween('2026-03-02', '2026-04-03'));
    // Before 8 March: Berlin UTC+1, New York UTC-5: 14:00-16:00 UTC.
    expect(byDay.get('2026-03-06')).toEqual(['14:00Z 15:00 Berlin 09:00 NY']);
    // 9 to 27 March: New York UTC-4: 13:00-16:00 UTC, two starts on the hour.
    expect(byDay.get('2026-03-09')).toEqual(['13:00Z 14:00 Berlin 09:00 NY', '14:00Z 15:00 Berlin 10:00 NY']);
    expect(byDay.get('2026-03-27')).toEqual(['13:00Z 14:00 Berlin 09:00 NY', '14:00Z 15:00 Berlin 10:00 NY']);
    // From 30 March: Berlin UTC+2: 13:00-15:00 UTC again 2 hours.
    expect(byDay.get('2026-03-30')).toEqual(['13:00Z 15:00 Berlin 09:00 NY']);
  });
});
