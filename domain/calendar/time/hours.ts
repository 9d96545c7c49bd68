import { Temporal } from 'temporal-polyfill';
import type { Interval } from './slots.js';

/*
 * Working hours as instants. A member's hours are wall-clock ranges per weekday in their own zone (profile
 * workingHours, member timezone); each day's range is placed with Temporal in that zone, so a 09:00-17:00 day stays
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

/** The instant of a wall-clock time on a date in a zone ('HH:MM'; '24:00' is the next midnight). */
function instantAt(date: Temporal.PlainDate, clock: string, zone: string): number {
  const [h, m] = clock.split(':').map(Number);
  const day = h === 24 ? date.add({ days: 1 }) : date;
  const time = new Temporal.PlainTime(h === 24 ? 0 : h, m);
  return day.toZonedDateTime({ timeZone: zone, plainTime: time }).epochMilliseconds;
}

/** The working intervals of `hours` that meet [from, to), clipped to it, in order. */
export function workingIntervals(hours: Hours, from: number, to: number): Interval[] {
  const zone = hours.timeZone;
  // Local dates from the day before `from` to the day after `to`: a range of one local day may cross UTC midnight.
  let date = Temporal.Instant.fromEpochMilliseconds(from - DAY_MS)
    .toZonedDateTimeISO(zone)
    .toPlainDate();
  const last = Temporal.Instant.fromEpochMilliseconds(to + DAY_MS)
    .toZonedDateTimeISO(zone)
    .toPlainDate();
  const out: Interval[] = [];
  while (Temporal.PlainDate.compare(date, last) <= 0) {
    const ranges = hours.days[WEEKDAYS[date.dayOfWeek - 1]] ?? [];
    for (const r of ranges) {
      const start = Math.max(from, instantAt(date, r.start, zone));
      const end = Math.min(to, instantAt(date, r.end, zone));
      if (end > start) out.push([start, end]);
    }
    date = date.add({ days: 1 });
  }
  return out;
}

/** An instant as wall-clock time in a zone, YYYY-MM-DDTHH:MM. */
export function localClock(ms: number, zone: string): string {
  const z = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(z.year, 4)}-${pad(z.month)}-${pad(z.day)}T${pad(z.hour)}:${pad(z.minute)}`;
}

/** The local date (YYYY-MM-DD) of an instant in a zone. */
export const localDate = (ms: number, zone: string): string => localClock(ms, zone).slice(0, 10);

/** The instant a local date starts in a zone (its first instant, a gap at midnight moving it later). */
export function startOfLocalDay(date: string, zone: string): number {
  return Temporal.PlainDate.from(date).toZonedDateTime({ timeZone: zone }).epochMilliseconds;
}
