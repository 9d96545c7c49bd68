import type Holidays from 'date-holidays';
import { lazyModule } from '../../config/lazy.js';
import { addDays } from './dates.js';

/*
 * Business days for the books. The org's own calendar: Monday to Friday except the public holidays of Australia
 * and the org's state (national and state days, with their substitute days). Payday Super's calendar (below) is
 * the law's: the same for every employer. The holidays come from date-holidays (ISC, data CC-BY-3.0), computed
 * from its rules with no network; bank holidays and observances are not public holidays.
 */

export const AU_STATES = ['ACT', 'NSW', 'NT', 'QLD', 'SA', 'TAS', 'VIC', 'WA'] as const;
export type AuState = (typeof AU_STATES)[number];

export const isAuState = (s: string): s is AuState => (AU_STATES as readonly string[]).includes(s);

/** date-holidays (a third of a second to load) is loaded by the first date asked about. */
const dateHolidays = lazyModule<typeof import('date-holidays')>('date-holidays');

/** A state's public holidays. */
function stateHolidays(state: AuState): Holidays {
  return new (dateHolidays().default)('AU', state, { types: ['public'] });
}

/** Public holidays of a state in a year, as `YYYY-MM-DD`, with their names; cached (the rules are fixed). */
const cache = new Map<string, Map<string, string>>();
export function publicHolidays(state: AuState, year: number): Map<string, string> {
  const key = `${state}:${year}`;
  let days = cache.get(key);
  if (!days) {
    const hd = stateHolidays(state);
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

/** The `n`th day after `date` that `isBusiness` accepts (the date itself never counts): both calendars count so. */
function nthBusinessDayAfter(date: string, n: number, isBusiness: (d: string) => boolean): string {
  let d = date;
  for (let left = n; left > 0;) {
    d = addDays(d, 1);
    if (isBusiness(d)) left -= 1;
  }
  return d;
}

/** The weekdays strictly after `from` up to and including `to`: where a due date may have skipped a holiday. */
function* weekdaysAfter(from: string, to: string): Generator<string> {
  for (let d = addDays(from, 1); d <= to; d = addDays(d, 1)) if (!isWeekend(d)) yield d;
}

/** The `n`th business day of the org's state after `date` (the date itself never counts). */
export const addBusinessDays = (state: AuState, date: string, n: number): string => nthBusinessDayAfter(date, n, (d) => isBusinessDay(state, d));

/** Weekday public holidays strictly after `from` up to and including `to`: what a due date skipped. */
export function holidaysBetween(state: AuState, from: string, to: string): { date: string; name: string }[] {
  const out: { date: string; name: string }[] = [];
  for (const d of weekdaysAfter(from, to)) {
    const name = holidayOn(state, d);
    if (name) out.push({ date: d, name });
  }
  return out;
}

// ---- Payday Super business days: the same days for every employer -------------------------------------

/*
 * The Superannuation Guarantee (Administration) Act 1992 s 6(1) "business day", inserted by the Treasury Laws
 * Amendment (Payday Superannuation) Act 2025 (No. 57 of 2025) Sch 1 item 3: a day other than a Saturday, a Sunday
 * or a day that is a public holiday for the whole of any State or Territory. The ATO reads it the same way
 * ("Payment deadlines for Payday Super", 18 Nov 2025, https://www.ato.gov.au/businesses-and-organisations/
 * super-for-employers/payday-super/paying-super-on-payday/payment-deadlines-for-payday-super): a state-wide
 * holiday anywhere is not a business day wherever the employer is; a part-state one (Royal Hobart Show Day)
 * still is. date-holidays 3.37 lists no regional days for Australia; what it does list that is not a whole-day,
 * whole-state holiday is left out below.
 */

/**
 * Listed by date-holidays as a state's public holiday but not one for the whole of it: Melbourne Cup Day, which
 * non-metropolitan Victorian councils replace with a local day (Public Holidays Act 1993 (Vic)).
 */
const PART_STATE: Partial<Record<AuState, readonly string[]>> = { VIC: ['Melbourne Cup'] };

export interface StateHoliday {
  date: string;
  name: string;
  /** The states and territories where it is a whole-day public holiday throughout. */
  states: AuState[];
}

const sgCache = new Map<number, Map<string, StateHoliday[]>>();

/**
 * Whole-day public holidays throughout a state or territory, of every state, by date. Left out: part-state days
 * (above) and evening holidays (24 and 31 December from 6 or 7 pm in Queensland, South Australia and the Northern
 * Territory), which make no day a public holiday.
 */
function stateWideHolidays(year: number): Map<string, StateHoliday[]> {
  let days = sgCache.get(year);
  if (days) return days;
  days = new Map();
  for (const state of AU_STATES) {
    for (const h of stateHolidays(state).getHolidays(year)) {
      if (h.type !== 'public' || h.date.slice(11, 16) !== '00:00' || PART_STATE[state]?.includes(h.name)) continue;
      const date = h.date.slice(0, 10);
      const list = days.get(date) ?? [];
      const same = list.find((x) => x.name === h.name);
      if (same) same.states.push(state);
      else list.push({ date, name: h.name, states: [state] });
      days.set(date, list);
    }
  }
  sgCache.set(year, days);
  return days;
}

/** The state-wide public holidays on a date, in any state or territory (empty when none). */
export const stateWideHolidaysOn = (date: string): StateHoliday[] => stateWideHolidays(Number(date.slice(0, 4))).get(date) ?? [];

/** A business day under Payday Super: not a weekend, not a state-wide public holiday anywhere in Australia. */
export const isSgBusinessDay = (date: string): boolean => !isWeekend(date) && stateWideHolidaysOn(date).length === 0;

/** The `n`th Payday Super business day after `date` (the date itself never counts). */
export const addSgBusinessDays = (date: string, n: number): string => nthBusinessDayAfter(date, n, isSgBusinessDay);

/** Weekday state-wide holidays strictly after `from` up to and including `to`: what a Payday Super due date skipped. */
export const sgHolidaysBetween = (from: string, to: string): StateHoliday[] => [...weekdaysAfter(from, to)].flatMap(stateWideHolidaysOn);

/** `King's Birthday 2026-09-28 (WA), Christmas Day 2026-12-25 (all states)`. */
export const holidayList = (days: StateHoliday[]): string =>
  days.map((h) => `${h.name} ${h.date} (${h.states.length === AU_STATES.length ? 'all states' : h.states.join(', ')})`).join(', ');
