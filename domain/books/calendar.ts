import Holidays from 'date-holidays';
import { addDays } from './dates.js';

/*
 * Business days for the books: Monday to Friday except the public holidays of Australia and the org's state
 * (national and state days, with their substitute days). The holidays come from date-holidays (ISC, data
 * CC-BY-3.0), computed from its rules with no network; bank holidays and observances are not public holidays.
 */

export const AU_STATES = ['ACT', 'NSW', 'NT', 'QLD', 'SA', 'TAS', 'VIC', 'WA'] as const;
export type AuState = (typeof AU_STATES)[number];

export const isAuState = (s: string): s is AuState => (AU_STATES as readonly string[]).includes(s);

/** Public holidays of a state in a year, as `YYYY-MM-DD`, with their names; cached (the rules are fixed). */
const cache = new Map<string, Map<string, string>>();
export function publicHolidays(state: AuState, year: number): Map<string, string> {
  const key = `${state}:${year}`;
  let days = cache.get(key);
  if (!days) {
    const hd = new Holidays('AU', state, { types: ['public'] });
    days = new Map();
    for (const h of hd.getHolidays(year)) {
      if (h.type !== 'public') continue;
      const date = h.date.slice(0, 10);
      days.set(date, days.has(date) ? `${days.get(date)}, ${h.name}` : h.name);
    }
    cache.set(key, days);
  }
  return days;
}

/** The public holiday on a date in a state, by name, or null. */
export const holidayOn = (state: AuState, date: string): string | null => publicHolidays(state, Number(date.slice(0, 4))).get(date) ?? null;

const isWeekend = (date: string): boolean => [0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay());

export const isBusinessDay = (state: AuState, date: string): boolean => !isWeekend(date) && holidayOn(state, date) === null;

/** The `n`th business day after `date` (the date itself never counts). */
export function addBusinessDays(state: AuState, date: string, n: number): string {
  let d = date;
  for (let left = n; left > 0; ) {
    d = addDays(d, 1);
    if (isBusinessDay(state, d)) left -= 1;
  }
  return d;
}

/** Weekday public holidays strictly after `from` up to and including `to`: what a due date skipped. */
export function holidaysBetween(state: AuState, from: string, to: string): { date: string; name: string }[] {
  const out: { date: string; name: string }[] = [];
  for (let d = addDays(from, 1); d <= to; d = addDays(d, 1)) {
    const name = isWeekend(d) ? null : holidayOn(state, d);
    if (name) out.push({ date: d, name });
  }
  return out;
}
