import type { Deps } from '../core/deps.js';

/** Business dates are `YYYY-MM-DD` strings in UTC; arithmetic goes through whole days. */

const DAY_MS = 86_400_000;

export const today = (deps: Pick<Deps, 'clock'>): string => deps.clock.now().toISOString().slice(0, 10);

const toDays = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const fromDays = (days: number): string => new Date(days * DAY_MS).toISOString().slice(0, 10);

export const addDays = (date: string, days: number): string => fromDays(toDays(date) + days);

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => toDays(to) - toDays(from);

/** Inclusive count of days in [start, end]. */
export const daysInclusive = (start: string, end: string): number => daysBetween(start, end) + 1;

export const maxDate = (a: string, b: string): string => (a >= b ? a : b);
export const minDate = (a: string, b: string): string => (a <= b ? a : b);

/** First day of the month `n` months after the month of `date`. */
export function monthStart(date: string, n = 0): string {
  const [y, m] = date.split('-').map(Number);
  const total = y * 12 + (m - 1) + n;
  return `${Math.floor(total / 12)}-${String((total % 12) + 1).padStart(2, '0')}-01`;
}

/** Last day of the month of `date`. */
export const monthEnd = (date: string): string => addDays(monthStart(date, 1), -1);
