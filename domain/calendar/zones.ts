import { Temporal } from 'temporal-polyfill';

/*
 * Wall clocks and instants in IANA zones: the placement every calendar time goes through (docs/families/calendar.md,
 * Recurrence). tests/domain/calendar/zones.test.ts holds it to Temporal's answers around every clock change.
 */

/** A wall-clock time, `YYYY-MM-DDTHH:MM:SS` (no zone). */
export type Wall = string;

const DAY_MS = 86_400_000;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
export const wallOf = (p: Temporal.PlainDateTime): Wall => `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;

/*
 * Zone offsets from a table of each zone's transitions, a UTC year at a time. A month of 50 calendars places and
 * shows thousands of times, and each one through the Temporal polyfill costs microseconds of parsing and objects;
 * a table lookup costs a few comparisons. The tables are built with Temporal (its offsets and its transitions), so
 * the answers are Temporal's; whatever a table cannot answer plainly (an offset that is not whole minutes, a year
 * outside 1000-9999, a wall clock that is not a real time) goes to Temporal as before.
 */
interface ZoneYear {
  /** starts[i] is the instant offsets[i] holds from (starts[0]: the year's first instant). */
  starts: number[];
  offsets: number[];
}

const zoneYears = new Map<string, ZoneYear | null>();
const MAX_ZONE_YEARS = 10_000;
const FIRST_FAST = Date.parse('1000-01-01T00:00:00Z');
const LAST_FAST = Date.parse('9999-01-01T00:00:00Z');

/** Whether an instant is in the years the tables (and plain Date arithmetic) answer: 1000 to 9998. */
export const inFastRange = (ms: number): boolean => ms >= FIRST_FAST && ms < LAST_FAST;

function buildZoneYear(zone: string, year: number): ZoneYear | null {
  const from = Date.parse(`${pad(year, 4)}-01-01T00:00:00Z`);
  const to = Date.parse(`${pad(year + 1, 4)}-01-01T00:00:00Z`);
  let z = Temporal.Instant.fromEpochMilliseconds(from).toZonedDateTimeISO(zone);
  const t: ZoneYear = { starts: [from], offsets: [z.offsetNanoseconds / 1e6] };
  for (let next = z.getTimeZoneTransition('next'); next && next.epochMilliseconds < to; next = z.getTimeZoneTransition('next')) {
    z = next;
    t.starts.push(z.epochMilliseconds);
    t.offsets.push(z.offsetNanoseconds / 1e6);
  }
  return t.offsets.every((o) => o % 60_000 === 0) ? t : null;
}

/** The zone's offset (ms) at an instant, or null when Temporal must answer. */
function offsetAt(zone: string, ms: number): number | null {
  if (!inFastRange(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  const key = `${zone}|${year}`;
  let t = zoneYears.get(key);
  if (t === undefined) {
    if (zoneYears.size >= MAX_ZONE_YEARS) zoneYears.clear();
    t = buildZoneYear(zone, year);
    zoneYears.set(key, t);
  }
  if (t === null) return null;
  let i = t.starts.length - 1;
  while (i > 0 && t.starts[i] > ms) i--;
  return t.offsets[i];
}

/** The instants whose wall clock in the zone is `local` (read as UTC), earliest first, with the offsets a day around it. */
function instantsOf(zone: string, local: number): { found: number[]; before: number; after: number } | null {
  const before = offsetAt(zone, local - DAY_MS);
  const after = offsetAt(zone, local + DAY_MS);
  if (before === null || after === null) return null;
  const found: number[] = [];
  for (const o of before === after ? [before] : [Math.max(before, after), Math.min(before, after)]) {
    if (offsetAt(zone, local - o) === o) found.push(local - o);
  }
  return { found, before, after };
}

/** Temporal's `compatible` placement from the tables: one instant, a fold's earlier, a gap's later (moved by its length). */
function placeFast(wall: Wall, zone: string): Date | null {
  const local = Date.parse(`${wall}Z`);
  if (Number.isNaN(local) || new Date(local).toISOString().slice(0, 19) !== wall) return null;
  const at = instantsOf(zone, local);
  if (at === null) return null;
  if (at.found.length > 0) return new Date(at.found[0]);
  const later = instantsOf(zone, local + at.after - at.before);
  return later && later.found.length > 0 ? new Date(later.found[later.found.length - 1]) : null;
}

/** The instant of a wall clock in a zone (null: all-day, midnight UTC). Gap -> later, fold -> earlier. */
export function place(wall: Wall, zone: string | null): Date {
  if (zone === null) return new Date(`${wall}Z`);
  const fast = placeFast(wall, zone);
  if (fast) return fast;
  const zdt = Temporal.PlainDateTime.from(wall).toZonedDateTime(zone, { disambiguation: 'compatible' });
  return new Date(zdt.epochMilliseconds);
}

/** The wall clock of an instant in a zone (null: UTC). */
export function wallAt(at: Date, zone: string | null): Wall {
  const offset = offsetAt(zone ?? 'UTC', at.getTime());
  if (offset !== null) return new Date(at.getTime() + offset).toISOString().slice(0, 19);
  return wallOf(
    Temporal.Instant.fromEpochMilliseconds(at.getTime())
      .toZonedDateTimeISO(zone ?? 'UTC')
      .toPlainDateTime(),
  );
}

/** `+10:00`, as Temporal writes a whole-minute offset. */
const offsetText = (ms: number) => `${ms < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(ms) / 3_600_000))}:${pad((Math.abs(ms) / 60_000) % 60)}`;

/** ISO with the zone's offset, e.g. 2026-04-07T09:00:00+10:00. */
export function localIso(at: Date, zone: string): string {
  const offset = offsetAt(zone, at.getTime());
  if (offset !== null) return `${new Date(at.getTime() + offset).toISOString().slice(0, 19)}${offsetText(offset)}`;
  const zdt = Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(zone);
  return `${wallOf(zdt.toPlainDateTime())}${zdt.offset}`;
}
