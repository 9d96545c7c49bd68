import { Temporal } from 'temporal-polyfill';
import { place, wallAt } from '../recurrence.js';
import type { Interval } from './slots.js';

/*
 * Working hours as instants. A member's hours are wall-clock ranges per weekday in their own zone (profile
 * workingHours, member timezone); each day's range is placed in that zone (as recurrence.ts places), so a 09:00-17:00 day stays
 * 8 hours on a 23- or 25-hour day (the clocks change at night), and a range starting in a DST gap starts at the
 * first instant after it (disambiguation 'compatible', as recurrence does). 24:00 is the next day's midnight.
 */

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
export type DayRanges = Partial<Record<string, readonly { start: string; end: string }[]>>;

export interface Hours {
  timeZone: string;
  days: DayRanges;
}

const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const DAY_MS = 86_400_000;

/** Whether Temporal knows the zone (an IANA name or UTC). */
export function knownZone(zone: string): boolean {
  try {
    Temporal.Now.zonedDateTimeISO(zone);
    return true;
  } catch {
    return false;
  }
}

/*
 * Dates are walked as UTC midnights and placed with recurrence.ts (zone tables built from Temporal, the same
 * `compatible` placement): findATime places two times a day for each of 20 people over 60 days, and writes every
 * slot's local times for each of them.
 */
const pad = (n: number) => String(n).padStart(2, '0');

/** The instant of a wall-clock time on a date (a UTC midnight) in a zone ('HH:MM'; '24:00' is the next midnight). */
function instantAt(date: number, clock: string, zone: string): number {
  const [h, m] = clock.split(':').map(Number);
  const day = new Date(h === 24 ? date + DAY_MS : date).toISOString().slice(0, 10);
  return place(`${day}T${pad(h === 24 ? 0 : h)}:${pad(m)}:00`, zone).getTime();
}

/** The local date of an instant in a zone, as its UTC midnight. */
const localMidnight = (ms: number, zone: string) => Date.parse(`${wallAt(new Date(ms), zone).slice(0, 10)}T00:00:00Z`);

/** The working intervals of `hours` that meet [from, to), clipped to it, in order. */
export function workingIntervals(hours: Hours, from: number, to: number): Interval[] {
  const zone = hours.timeZone;
  // Local dates from the day before `from` to the day after `to`: a range of one local day may cross UTC midnight.
  const last = localMidnight(to + DAY_MS, zone);
  const out: Interval[] = [];
  for (let date = localMidnight(from - DAY_MS, zone); date <= last; date += DAY_MS) {
    const ranges = hours.days[WEEKDAYS[(new Date(date).getUTCDay() + 6) % 7]] ?? [];
    for (const r of ranges) {
      const start = Math.max(from, instantAt(date, r.start, zone));
      const end = Math.min(to, instantAt(date, r.end, zone));
      if (end > start) out.push([start, end]);
    }
  }
  return out;
}

/** An instant as wall-clock time in a zone, YYYY-MM-DDTHH:MM. */
export const localClock = (ms: number, zone: string): string => wallAt(new Date(ms), zone).slice(0, 16);

/** The local date (YYYY-MM-DD) of an instant in a zone. */
export const localDate = (ms: number, zone: string): string => localClock(ms, zone).slice(0, 10);

/** The instant a local date starts in a zone (its first instant, a gap at midnight moving it later). */
export function startOfLocalDay(date: string, zone: string): number {
  return Temporal.PlainDate.from(date).toZonedDateTime({ timeZone: zone }).epochMilliseconds;
}
