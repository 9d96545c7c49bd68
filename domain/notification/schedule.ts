import type { Digest, QuietHours } from './preferences.js';

/** When a notification may go: after quiet hours, or at the next digest time, in the recipient's time zone. */

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;

/** Minutes since local midnight and the weekday (0 = Monday) of an instant in a time zone. */
export function localClock(at: Date, timezone: string): { minutes: number; weekday: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: timezone, hour: '2-digit', minute: '2-digit', weekday: 'short', hourCycle: 'h23' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
    weekday: WEEKDAYS.indexOf(String(parts.weekday).toLowerCase().slice(0, 3) as (typeof WEEKDAYS)[number]),
  };
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const startOfMinute = (at: Date) => Math.floor(at.getTime() / MINUTE) * MINUTE;

/**
 * `now`, or the end of the quiet hours `now` falls in (a window whose end is before its start runs overnight).
 * Counted in minutes from now, so a DST change inside the window shifts the end by that hour at most.
 */
export function afterQuietHours(now: Date, quiet: QuietHours | null): Date {
  if (!quiet) return now;
  const start = toMinutes(quiet.start);
  const end = toMinutes(quiet.end);
  if (start === end) return now;
  const { minutes } = localClock(now, quiet.timezone);
  const inside = start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
  if (!inside) return now;
  return new Date(startOfMinute(now) + ((end - minutes + DAY_MINUTES) % DAY_MINUTES) * MINUTE);
}

/** The next digest time at or after `now`: daily at hour, or weekly on weekday (default Monday) at hour. */
export function nextDigest(now: Date, digest: Digest, timezone: string): Date {
  const { minutes, weekday } = localClock(now, timezone);
  const target = digest.hour * 60;
  let ahead: number;
  if (digest.frequency === 'daily') ahead = (target - minutes + DAY_MINUTES) % DAY_MINUTES;
  else {
    let days = (WEEKDAYS.indexOf(digest.weekday ?? 'mon') - weekday + 7) % 7;
    if (days === 0 && target < minutes) days = 7;
    ahead = days * DAY_MINUTES + target - minutes;
  }
  return new Date(startOfMinute(now) + ahead * MINUTE);
}
