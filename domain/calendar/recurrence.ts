import { RRuleTemporal } from 'rrule-temporal';
import { Temporal } from 'temporal-polyfill';
import { badRequest } from '../../protocol/errors.js';
import type { EventTimeIn } from '../../protocol/methods/calendar/shared.js';
import { inFastRange, localIso, place, wallAt, wallOf, type Wall } from './zones.js';

/*
 * Times and series in wall-clock terms (docs/families/calendar.md, "Recurrence"). A series repeats its wall clock
 * in its zone: rrule-temporal expands in a [UTC] zone that carries the local fields (so it never sees a DST change),
 * then each result is placed in the event's zone with `compatible` disambiguation: a time in a gap moves later
 * (New York 02:30 on 2026-03-08 is 03:30), a time in a fold takes the earlier instant (01:30 on 2026-11-01 is 05:30Z).
 * A weekly 09:00 in Sydney stays 09:00 local on both sides of 2026-04-05.
 */

/** What expansion needs of a series (or a single event: rrule null). */
export interface SeriesTime {
  allDay: boolean;
  /** The first occurrence's wall clock (all-day: the date at T00:00:00). */
  startWall: Wall;
  /** The start zone; null for all-day (placed at midnight UTC). */
  timeZone: string | null;
  /** Exact length of each occurrence. */
  durationMs: number;
  rrule: string | null;
  exdates: readonly Wall[];
}

export interface Instance {
  /** The occurrence's start as the rule gives it: the override key. */
  originalStart: Date;
  start: Date;
  end: Date;
  wall: Wall;
}

/** Most instances one expansion returns (a daily series over the longest window is 366). */
export const MAX_INSTANCES = 2000;
const MAX_COUNT = 5000;
const DAY_MS = 86_400_000;
/** Wider than any zone's offset from UTC: the wall-clock window that surely covers an instant window. */
const SLACK_MS = 27 * 3_600_000;

/** A wall clock read back from a `timestamp` column (the drivers give it as an ISO string ending in Z). */
export const wallFromDb = (v: string | Date): Wall => (typeof v === 'string' ? v.replace(' ', 'T').slice(0, 19) : v.toISOString().slice(0, 19));

export { localIso, place, wallAt, wallOf, type Wall };

/** A caller's start or end: its wall clock and zone, and its instant. */
export interface ResolvedTime {
  allDay: boolean;
  wall: Wall;
  zone: string | null;
  date: string | null;
  at: Date;
}

const HAS_OFFSET = /(Z|[+-]\d{2}:\d{2})$/;

/** A wall clock given by a caller (an offset or Z makes it an instant, converted into the zone). */
export function wallFromInput(value: string, zone: string | null, field: string): Wall {
  try {
    if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00`;
    if (HAS_OFFSET.test(value)) return wallAt(new Date(Temporal.Instant.from(value).epochMilliseconds), zone);
    return wallOf(Temporal.PlainDateTime.from(value));
  } catch {
    throw badRequest(field, 'must be a real date and time');
  }
}

export function resolveTime(t: EventTimeIn, field: string): ResolvedTime {
  if ('date' in t) return { allDay: true, wall: `${t.date}T00:00:00`, zone: null, date: t.date, at: new Date(`${t.date}T00:00:00Z`) };
  const wall = wallFromInput(t.dateTime, t.timeZone, `${field}.dateTime`);
  return { allDay: false, wall, zone: t.timeZone, date: null, at: place(wall, t.timeZone) };
}

const UNSUPPORTED = new Set(['HOURLY', 'MINUTELY', 'SECONDLY']);

function parts(rrule: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of rrule.split(';')) {
    const [k, v] = part.split('=');
    if (!k || v === undefined || v === '') throw badRequest('recurrence.rrule', `"${part.slice(0, 40)}" is not NAME=VALUE`);
    if (out.has(k)) throw badRequest('recurrence.rrule', `${k} is given twice`);
    out.set(k, v);
  }
  return out;
}

const join = (p: Map<string, string>) => [...p].map(([k, v]) => `${k}=${v}`).join(';');

/** `20260401T000000Z` <-> Date. */
const untilToDate = (u: string) => new Date(`${u.slice(0, 4)}-${u.slice(4, 6)}-${u.slice(6, 8)}T${u.slice(9, 11)}:${u.slice(11, 13)}:${u.slice(13, 15)}Z`);
const dateToUntil = (d: Date) => d.toISOString().replace(/[-:]/g, '').slice(0, 15) + 'Z';
const wallToUntil = (w: Wall) => w.replace(/[-:]/g, '').slice(0, 15);

/**
 * A caller's RRULE, checked and stored in RFC 5545 form: upper-cased, no `RRULE:` prefix, UNTIL in UTC for a timed
 * series (a floating or date-only UNTIL is read as the wall clock in the zone, a date as the end of that day) and a
 * date for an all-day one. BAD_REQUEST names `recurrence.rrule`.
 */
export function normaliseRule(raw: string, first: { allDay: boolean; wall: Wall; zone: string | null }): string {
  const p = parts(
    raw
      .trim()
      .replace(/^RRULE:/i, '')
      .toUpperCase(),
  );
  const freq = p.get('FREQ');
  if (!freq) throw badRequest('recurrence.rrule', 'FREQ is required (DAILY, WEEKLY, MONTHLY or YEARLY)');
  if (UNSUPPORTED.has(freq)) throw badRequest('recurrence.rrule', `FREQ=${freq} is not supported`);
  if (!['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'].includes(freq))
    throw badRequest('recurrence.rrule', `FREQ=${freq.slice(0, 20)} is not DAILY, WEEKLY, MONTHLY or YEARLY`);
  if (p.has('DTSTART')) throw badRequest('recurrence.rrule', 'DTSTART is not part of the rule: give start instead');
  if (p.has('BYSECOND')) throw badRequest('recurrence.rrule', 'BYSECOND is not supported');
  if ((p.get('BYMINUTE') ?? '').split(',').length > 4) throw badRequest('recurrence.rrule', 'BYMINUTE lists at most 4 minutes');
  if (p.has('COUNT') && p.has('UNTIL')) throw badRequest('recurrence.rrule', 'give COUNT or UNTIL, not both');
  if (p.has('COUNT')) {
    const n = Number(p.get('COUNT'));
    if (!Number.isInteger(n) || n < 1 || n > MAX_COUNT) throw badRequest('recurrence.rrule', `COUNT must be 1 to ${MAX_COUNT}`);
  }
  const until = p.get('UNTIL');
  if (until !== undefined) {
    const m = /^(\d{8})(T(\d{6})(Z?))?$/.exec(until);
    if (!m) throw badRequest('recurrence.rrule', 'UNTIL must be YYYYMMDD or YYYYMMDDTHHMMSSZ');
    const wall = m[2] ? `${m[1].slice(0, 4)}-${m[1].slice(4, 6)}-${m[1].slice(6)}T${m[3].slice(0, 2)}:${m[3].slice(2, 4)}:${m[3].slice(4)}` : null;
    const dateWall = `${m[1].slice(0, 4)}-${m[1].slice(4, 6)}-${m[1].slice(6)}T23:59:59`;
    let at: Date;
    try {
      at = m[4] ? new Date(`${wall}Z`) : place(wall ?? dateWall, first.zone);
    } catch {
      at = new Date(NaN);
    }
    if (Number.isNaN(at.getTime())) throw badRequest('recurrence.rrule', 'UNTIL is not a real date');
    if (first.allDay) p.set('UNTIL', m[1]);
    else p.set('UNTIL', dateToUntil(at));
  }
  const rule = join(p);
  try {
    const r = build({ allDay: first.allDay, startWall: first.wall, timeZone: first.zone, durationMs: 0, rrule: rule, exdates: [] });
    r.next();
  } catch (e) {
    throw badRequest('recurrence.rrule', e instanceof Error ? e.message.slice(0, 200) : 'not a valid rule');
  }
  return rule;
}

const fakeUtc = (w: Wall) => Temporal.PlainDateTime.from(w).toZonedDateTime('UTC');

/*
 * Built rules, kept by what they are built from: a list builds the same series' rule on every call, and a build
 * parses the rule and every exdate through Temporal. A rule answers between() and all() without changing.
 */
const builtRules = new Map<string, RRuleTemporal>();
const MAX_BUILT_RULES = 5_000;

/** What a series' expansion is built from: the rule, its first wall clock, its zone and its exdates. */
const ruleKey = (s: SeriesTime) => `${s.rrule}|${s.startWall}|${s.timeZone}|${s.exdates.join(',')}`;

/** The rule of a series for expand() (between() only: all() would memoize a whole series in the cache). */
function cachedRule(s: SeriesTime, key = ruleKey(s)): RRuleTemporal {
  let r = builtRules.get(key);
  if (!r) {
    if (builtRules.size >= MAX_BUILT_RULES) builtRules.clear();
    r = build(s);
    builtRules.set(key, r);
  }
  return r;
}

/*
 * A series' wall clocks a period (28 days) at a time, kept by the rule key and the period (decision 0082): a month
 * view of 50 calendars asks the same 250 series for the same weeks on every call, and rrule-temporal makes a
 * Temporal object per result. The key is everything the expansion is built from, so a series changed in any of
 * these is another key and nothing is invalidated; the least recently used periods go past MAX_KEPT. Each wall
 * clock is kept as its milliseconds read as UTC (the rule runs in a [UTC] zone carrying the local fields).
 */
const PERIOD_MS = 28 * DAY_MS;
/** At most this many wall clocks kept in all (a few MB; a weekly series' period holds 4, a dense daily rule's 2,688). */
const MAX_KEPT = 500_000;
const periods = new Map<string, readonly number[]>();
let kept = 0;

/** The wall clocks (as UTC milliseconds) of a period, in order; null when the period is outside the fast years. */
function wallsOfPeriod(s: SeriesTime, key: string, period: number): readonly number[] | null {
  const at = `${key}#${period}`;
  const found = periods.get(at);
  if (found) {
    // Most recently used last: the first key is the one to drop.
    periods.delete(at);
    periods.set(at, found);
    return found;
  }
  const lo = period * PERIOD_MS;
  const hi = lo + PERIOD_MS - 1;
  if (!inFastRange(lo) || !inFastRange(hi)) return null;
  let walls: number[];
  try {
    walls = cachedRule(s, key)
      .between(new Date(lo), new Date(hi), true)
      .map((z) => z.epochMilliseconds);
  } catch {
    // The rule's iteration bound reached past the window asked: expand the window itself, as before.
    return null;
  }
  for (const [oldest, list] of periods) {
    if (kept + walls.length + 1 <= MAX_KEPT) break;
    periods.delete(oldest);
    kept -= list.length + 1;
  }
  periods.set(at, walls);
  kept += walls.length + 1;
  return walls;
}

/** The wall clock a [UTC] result of the rule carries (its UTC fields are the local ones). */
const wallOfResult = (z: Temporal.ZonedDateTime): Wall => {
  const ms = z.epochMilliseconds;
  return inFastRange(ms) ? new Date(ms).toISOString().slice(0, 19) : wallOf(z.toPlainDateTime());
};

/** The rule over wall clocks: dtstart and exdates as [UTC] times with the local fields, UNTIL in local wall clock. */
function build(s: SeriesTime): RRuleTemporal {
  const p = parts(s.rrule ?? '');
  const until = p.get('UNTIL');
  if (until !== undefined) {
    // Stored in UTC (timed) or as a date (all-day): the rule compares it with wall clocks, so give it one.
    p.set('UNTIL', until.length === 8 ? `${until}T235959Z` : `${wallToUntil(wallAt(untilToDate(until), s.timeZone))}Z`);
  }
  return new RRuleTemporal({
    rruleString: join(p),
    dtstart: fakeUtc(s.startWall),
    exDate: s.exdates.map(fakeUtc),
    maxIterations: 100_000,
  });
}

function instance(s: SeriesTime, wall: Wall): Instance {
  const start = place(wall, s.timeZone);
  return { originalStart: start, start, end: new Date(start.getTime() + s.durationMs), wall };
}

/**
 * The occurrences overlapping [from, to), in order, at most MAX_INSTANCES. A single event is its one occurrence
 * (originalStart = start). Callers bound the window (MAX_WINDOW_DAYS).
 */
export function expand(s: SeriesTime, from: Date, to: Date): Instance[] {
  if (!s.rrule) {
    const one = instance(s, s.startWall);
    return one.start < to && one.end > from ? [one] : [];
  }
  const key = ruleKey(s);
  const lo = from.getTime() - SLACK_MS - s.durationMs;
  const hi = to.getTime() + SLACK_MS;
  const out: Instance[] = [];
  for (let p = Math.floor(lo / PERIOD_MS); p <= Math.floor(hi / PERIOD_MS); p++) {
    const walls = wallsOfPeriod(s, key, p);
    if (walls === null) return expandRule(s, key, from, to);
    for (const ms of walls) {
      if (ms < lo || ms > hi) continue;
      const i = instance(s, new Date(ms).toISOString().slice(0, 19));
      if (i.start < to && i.end > from) out.push(i);
      if (out.length >= MAX_INSTANCES) return out;
    }
  }
  return out;
}

/** expand() through the rule alone (a window past the years the periods answer). */
function expandRule(s: SeriesTime, key: string, from: Date, to: Date): Instance[] {
  const lo = new Date(from.getTime() - SLACK_MS - s.durationMs);
  const hi = new Date(to.getTime() + SLACK_MS);
  const out: Instance[] = [];
  for (const z of cachedRule(s, key).between(lo, hi, true)) {
    const i = instance(s, wallOfResult(z));
    if (i.start < to && i.end > from) out.push(i);
    if (out.length >= MAX_INSTANCES) break;
  }
  return out;
}

/** The first `n` occurrences from the series' start (for conflict checks and counting). */
export function firstInstances(s: SeriesTime, n: number): Instance[] {
  if (!s.rrule) return [instance(s, s.startWall)];
  const out: Instance[] = [];
  build(s).all((z, i) => {
    if (i >= n) return false;
    out.push(instance(s, wallOf(z.toPlainDateTime())));
    return true;
  });
  return out;
}

/** The occurrence of the series that starts at `at` (its original start), or null. */
export function occurrenceAt(s: SeriesTime, at: Date): Instance | null {
  return expand(s, at, new Date(at.getTime() + 1)).find((i) => i.originalStart.getTime() === at.getTime()) ?? null;
}

/** The end of the series' last occurrence; null when it never ends. Exdates are ignored (an upper bound). */
export function seriesEnd(s: SeriesTime): Date | null {
  if (!s.rrule) return instance(s, s.startWall).end;
  const p = parts(s.rrule);
  if (!p.has('COUNT') && !p.has('UNTIL')) return null;
  let last: Wall | null = null;
  build({ ...s, exdates: [] }).all((z) => {
    last = wallOf(z.toPlainDateTime());
    return true;
  });
  return instance(s, last ?? s.startWall).end;
}

/** How many occurrences come before `at` (for COUNT when a series is split). */
export function countBefore(s: SeriesTime, at: Date): number {
  if (!s.rrule) return 0;
  let n = 0;
  build({ ...s, exdates: [] }).all((z) => {
    if (place(wallOf(z.toPlainDateTime()), s.timeZone) >= at) return false;
    n++;
    return true;
  });
  return n;
}

/**
 * The rule of a series cut before `at` (the `following` split's old half): COUNT becomes the occurrences before it,
 * else UNTIL one second before its start. Null when nothing is left (the cut is at the first occurrence).
 */
export function ruleEndingBefore(s: SeriesTime, at: Date): string | null {
  const p = parts(s.rrule ?? '');
  const before = countBefore(s, at);
  if (before === 0) return null;
  if (p.has('COUNT')) p.set('COUNT', String(before));
  else p.set('UNTIL', s.allDay ? wallToUntil(wallAt(new Date(at.getTime() - DAY_MS), null)).slice(0, 8) : dateToUntil(new Date(at.getTime() - 1000)));
  return join(p);
}

/** The rule of the `following` split's new half: COUNT less the occurrences before the cut; UNTIL unchanged. */
export function ruleFrom(s: SeriesTime, at: Date): string {
  const p = parts(s.rrule ?? '');
  if (p.has('COUNT')) p.set('COUNT', String(Math.max(1, Number(p.get('COUNT')) - countBefore(s, at))));
  return join(p);
}

/** Difference of two wall clocks, as a shift to apply to other wall clocks (a series moved as a whole). */
export function shiftWall(w: Wall, from: Wall, to: Wall): Wall {
  const d = Temporal.PlainDateTime.from(from).until(Temporal.PlainDateTime.from(to), { largestUnit: 'day' });
  return wallOf(Temporal.PlainDateTime.from(w).add(d));
}
