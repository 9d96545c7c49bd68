import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { localIso, place, wallAt } from '../../../domain/calendar/zones.js';

/*
 * domain/calendar/zones.ts answers from tables of each zone's transitions instead of asking Temporal per call (a
 * month of 50 calendars places thousands of times). The tables must give Temporal's answers exactly: placement with
 * `compatible` (a gap moves later, a fold takes the earlier instant), the wall clock of an instant, and the local
 * ISO with its offset; checked around every clock change of zones with the awkward ones (half-hour DST in
 * Lord Howe, +05:45 in Kathmandu, +12:45/+13:45 in Chatham, a skipped day in Apia, southern-hemisphere DST) from
 * 2010 to 2035, at 15-minute steps from two hours before each change to two hours after.
 */

const ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Europe/London',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Pacific/Apia',
  'America/Santiago',
  'Asia/Tehran',
  'UTC',
];

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const wallOf = (p: Temporal.PlainDateTime) => `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;

/** Every transition of the zone in [2010, 2035), or one instant a year for a zone without any. */
function changes(zone: string): number[] {
  const out: number[] = [];
  let z = Temporal.Instant.from('2010-01-01T00:00:00Z').toZonedDateTimeISO(zone);
  const end = Date.parse('2035-01-01T00:00:00Z');
  for (let next = z.getTimeZoneTransition('next'); next && next.epochMilliseconds < end; next = z.getTimeZoneTransition('next')) {
    out.push(next.epochMilliseconds);
    z = next;
  }
  if (out.length === 0) for (let y = 2010; y < 2035; y++) out.push(Date.parse(`${y}-03-15T00:00:00Z`));
  return out;
}

describe('zone tables give Temporal’s answers', () => {
  it.each(ZONES)('%s: place, wallAt and localIso around every clock change, 2010-2035', (zone) => {
    let checked = 0;
    for (const at of changes(zone)) {
      for (let step = -8; step <= 8; step++) {
        const instant = new Date(at + step * 15 * 60_000);
        const zdt = Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(zone);
        const wall = wallOf(zdt.toPlainDateTime());
        expect(wallAt(instant, zone), `${zone} wallAt ${instant.toISOString()}`).toBe(wall);
        expect(localIso(instant, zone), `${zone} localIso ${instant.toISOString()}`).toBe(`${wall}${zdt.offset}`);
        // The same wall clocks read back, gaps and folds included: the instant Temporal's `compatible` picks.
        const local = new Date(Date.parse(`${wall}Z`) + step * 7 * 60_000).toISOString().slice(0, 19);
        const expected = Temporal.PlainDateTime.from(local).toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
        expect(place(local, zone).getTime(), `${zone} place ${local}`).toBe(expected);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(16);
  });

  it('outside the tables’ years it asks Temporal: the answers are the same', () => {
    for (const wall of ['0900-06-01T12:00:00', '9999-06-01T12:00:00']) {
      const expected = Temporal.PlainDateTime.from(wall).toZonedDateTime('Europe/Berlin', { disambiguation: 'compatible' }).epochMilliseconds;
      expect(place(wall, 'Europe/Berlin').getTime()).toBe(expected);
    }
  });
});
