import { addDays, minDate, monthEnd, monthStart } from '../../dates.js';

/*
 * Periods named in a question, resolved against the business date: "this month", "last quarter", "this
 * financial year" (1 July to 30 June), "year to date", "in October", "last 30 days", "since 2026-07-01",
 * "2026-07-01 to 2026-09-30". Answers state periods as ISO dates, which are not figures.
 */

export interface Period {
  from: string;
  to: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The calendar quarter (Jul–Sep, Oct–Dec, Jan–Mar, Apr–Jun) holding `date`, shifted by `n` quarters. */
export function quarter(date: string, n = 0): Period {
  const m = Number(date.slice(5, 7));
  const start = monthStart(date, -((m - 1) % 3) + 3 * n);
  return { from: start, to: addDays(monthStart(start, 3), -1) };
}

/** The Australian financial year (1 July to 30 June) holding `date`, shifted by `n` years. */
export function financialYear(date: string, n = 0): Period {
  const y = Number(date.slice(0, 4));
  const startYear = (Number(date.slice(5, 7)) >= 7 ? y : y - 1) + n;
  return { from: `${startYear}-07-01`, to: `${startYear + 1}-06-30` };
}

/** `period` cut off at `today` (a period to date). */
const toDate = (p: Period, today: string): Period => (p.from > today ? p : { from: p.from, to: minDate(p.to, today) });

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const SHORT = MONTHS.map((m) => m.slice(0, 3));

/** The period a (normalised, lower-case) question names, or null when it names none. */
export function periodFrom(q: string, today: string): Period | null {
  const iso = /(\d{4}-\d\d-\d\d)\s*(?:to|until|till|through|thru|and|\.\.|-)\s*(\d{4}-\d\d-\d\d)/.exec(q);
  if (iso && iso[1] <= iso[2]) return { from: iso[1], to: iso[2] };
  const since = /\b(?:since|from|after)\s+(\d{4}-\d\d-\d\d)\b/.exec(q);
  if (since && since[1] <= today) return { from: since[1], to: today };
  if (/\btoday\b/.test(q)) return { from: today, to: today };
  if (/\byesterday\b/.test(q)) return { from: addDays(today, -1), to: addDays(today, -1) };
  const lastDays = /\b(?:last|past|previous)\s+(\d{1,3})\s+days\b/.exec(q);
  if (lastDays && Number(lastDays[1]) >= 1) return { from: addDays(today, 1 - Number(lastDays[1])), to: today };
  const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
  if (/\b(this|current) week\b|\bweek to date\b/.test(q)) return { from: addDays(today, -weekday), to: today };
  if (/\b(last|previous|past) week\b/.test(q)) return { from: addDays(today, -weekday - 7), to: addDays(today, -weekday - 1) };
  if (/\b(this|current) month\b|\bmonth to date\b|\bmtd\b/.test(q)) return { from: monthStart(today), to: today };
  if (/\b(last|previous|past) month\b/.test(q)) return { from: monthStart(today, -1), to: monthEnd(monthStart(today, -1)) };
  if (/\b(this|current) quarter\b|\bquarter to date\b|\bqtd\b/.test(q)) return toDate(quarter(today), today);
  if (/\b(last|previous|past) quarter\b/.test(q)) return quarter(today, -1);
  if (/\b(last|previous|past) (financial |fiscal )?year\b|\blast fy\b/.test(q)) return financialYear(today, -1);
  if (/\b(this|current) (financial |fiscal )?year\b|\bthis fy\b|\byear to date\b|\bytd\b|\bfinancial year to date\b/.test(q)) {
    return toDate(financialYear(today), today);
  }
  const month = new RegExp(`\\b(${[...MONTHS, ...SHORT].join('|')})\\b(?:\\s+(\\d{4}))?`).exec(q);
  // "may" is a month only with a year or after "in"/"for"/"during" ("we may owe" is not).
  if (month && (month[1] !== 'may' || month[2] || /\b(in|for|during|of) may\b/.test(q))) {
    const index = Math.max(MONTHS.indexOf(month[1]), SHORT.indexOf(month[1]));
    let year = month[2] ? Number(month[2]) : Number(today.slice(0, 4));
    if (!month[2] && `${year}-${pad(index + 1)}-01` > today) year -= 1;
    const start = `${year}-${pad(index + 1)}-01`;
    return toDate({ from: start, to: monthEnd(start) }, today);
  }
  return null;
}
