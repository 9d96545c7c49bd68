import type { Queryable } from '../../db/types.js';
import { EVENT_COLUMNS, type EventRow } from './model.js';

/*
 * Which events a window of occurrences reads (occurrences.ts expands them): confirmed ones of the calendars or
 * members asked, whose span (or an override's) overlaps it. Series are placed in memory; single events are cut by
 * the database as JS reads their instants.
 */

export interface OccurrenceQuery {
  /** Events on these calendars… */
  calendarIds?: readonly string[];
  /** …or attended (organized included) by these members. Neither: every event of the org. */
  attendeePrincipalIds?: readonly string[];
  /** …or attended by the owners of these calendars (read with the window, not in a round trip before it). */
  ownersOf?: readonly string[];
  /** Only these events. */
  eventIds?: readonly string[];
  /** Only events changed at or after this (calendar.list's updatedSince). */
  updatedSince?: Date;
  from: Date;
  to: Date;
  /** Keep cancelled occurrences of confirmed series (the feed and sync readers). */
  includeCancelled?: boolean;
  /** Only these members in each occurrence's attendees (busy time reads no one else). */
  attendeesAmong?: readonly string[];
  /**
   * Which events' attendees to load (default: every event's). A reader that shows one page of many occurrences
   * loads the others' with withAttendees once the page is cut; until then their attendees are empty.
   */
  attendeesFor?: (e: EventRow) => boolean;
}

/** What placing and ordering an event's occurrences reads of its row (step one of a paged read). */
export type EventTimes = Pick<EventRow, 'event_id' | 'all_day' | 'start_local' | 'start_date' | 'time_zone' | 'start_at' | 'end_at' | 'rrule' | 'exdates'>;
export const TIME_COLUMNS = 'e.event_id, e.all_day, e.start_local, e.start_date, e.time_zone, e.start_at, e.end_at, e.rrule, e.exdates::text[] AS exdates';

/*
 * The full rows of a window with their timestamps written by PostgreSQL as the drivers' ISO text (db/normalise.ts
 * gives 2026-03-02T08:00:00.000Z, milliseconds cut, not rounded, as to_char's MS). Busy time reads thousands of rows
 * of seven timestamps: even read as text without Date (about 0.1 µs a value), 7,000 rows took 47 ms of Node CPU
 * against 28 ms formatted here (measured back to back, 2026-11-30), so the database, on the other core, writes them.
 */
const STAMPS: Readonly<Record<string, 'timestamp' | 'timestamptz'>> = {
  start_local: 'timestamp',
  end_local: 'timestamp',
  start_at: 'timestamptz',
  end_at: 'timestamptz',
  series_end_at: 'timestamptz',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
};
const isoText = (name: string, kind: 'timestamp' | 'timestamptz') =>
  `to_char(e.${name}${kind === 'timestamptz' ? " AT TIME ZONE 'UTC'" : ''}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${name}`;
export const WINDOW_COLUMNS = EVENT_COLUMNS.split(',')
  .map((c) => c.trim())
  .map((c) => (STAMPS[c.slice(2)] ? isoText(c.slice(2), STAMPS[c.slice(2)]) : c))
  .join(', ');

/** A single event's start cut to milliseconds as a UTC wall clock: the order a page is cut in (migration 083's index). */
export const SINGLE_AT = "date_trunc('milliseconds', e.start_at AT TIME ZONE 'UTC')";

/** The window's events as three disjoint conditions over calendar_events e (each includes `who`), and their arguments. */
export interface WindowArms {
  /** Recurring events whose span, or an occurrence moved by an override, overlaps the window. */
  series: string;
  /** Single events of at most a day overlapping it (as JS reads their instants), by start. */
  short: string;
  /** Longer single events overlapping it, by end. */
  long: string;
  /** The window's events of the three arms as one row source aliased `e`, filtered by whose they are once. */
  all: string;
  args: unknown[];
}

/*
 * Each arm reads an index of migration 083 over the window, not the org's every event: a month of 50 calendars is
 * 3,550 of the bench's 13,150 events, and its first page of single events is the first 500 entries of one index
 * in start order. A single event of at most a day that ends after `from` starts after `from` less a day, which
 * bounds its index range below; longer ones are few and come by their end. Whose events they are is one condition
 * on the three together (`all`): busy time's 21,000 attendances of 20 members are then hashed once, not per arm.
 */
/** The window's events as arms; null when the query can match none. */
export function windowArms(orgId: string, w: OccurrenceQuery): WindowArms | null {
  const args: unknown[] = [orgId, w.from.toISOString(), w.to.toISOString()];
  const whose: string[] = [];
  if (w.calendarIds?.length) {
    args.push(w.calendarIds);
    whose.push(`e.calendar_id = ANY($${args.length}::text[])`);
  }
  let members = '';
  if (w.attendeePrincipalIds?.length) {
    args.push(w.attendeePrincipalIds);
    members = `ANY($${args.length}::text[])`;
  } else if (w.ownersOf?.length) {
    args.push(w.ownersOf);
    members = `ANY(ARRAY(SELECT c.owner_id FROM calendars c WHERE c.org_id = $1 AND c.calendar_id = ANY($${args.length}::text[])))`;
  }
  if (members) whose.push(`e.event_id IN (SELECT a.event_id FROM calendar_attendees a WHERE a.org_id = $1 AND a.principal_id = ${members})`);
  const asked = w.calendarIds !== undefined || w.attendeePrincipalIds !== undefined || w.ownersOf !== undefined;
  if (asked && whose.length === 0) return null;
  let only = '';
  if (w.eventIds) {
    args.push(w.eventIds);
    only += ` AND e.event_id = ANY($${args.length}::text[])`;
  }
  if (w.updatedSince) {
    // Milliseconds, as a row's updated_at reads (cut): a stored value at or after them reads so too.
    args.push(w.updatedSince.toISOString());
    only += ` AND e.updated_at >= $${args.length}`;
  }
  const common = `e.org_id = $1 AND e.status = 'confirmed' ${only}`;
  const who = whose.length ? `(${whose.join(' OR ')})` : 'true';
  // As JS reads a single event's instants (cut to ms), so that a page is cut where the one-read path would cut it:
  // for bounds on the ms grid, a start cut to ms is before `to` when the start is, and an end cut to ms is after
  // `from` when the end is a ms or more after it. Bounds are written as immutable expressions of the parameters
  // (wall clocks in UTC), which the planner folds into constants and weighs against its statistics.
  const fromWall = "($2::timestamptz AT TIME ZONE 'UTC')";
  const endsAfter = `e.end_at >= (${fromWall} + interval '1 millisecond') AT TIME ZONE 'UTC'`;
  const overlaps = `e.start_at < $3 AND ${endsAfter}`;
  const series = `${common} AND e.rrule IS NOT NULL
        AND ((e.start_at < $3 AND (e.series_end_at IS NULL OR e.series_end_at > $2))
          OR e.event_id IN (SELECT o.event_id FROM calendar_overrides o WHERE o.org_id = $1 AND o.start_at < $3 AND o.end_at > $2))`;
  // Its start cut to ms before `to` is the first half of `overlaps`.
  const short = `${common} AND e.rrule IS NULL AND e.end_at - e.start_at <= interval '1 day'
        AND ${SINGLE_AT} >= ${fromWall} - interval '1 day' AND ${SINGLE_AT} < $3::timestamptz AT TIME ZONE 'UTC' AND ${endsAfter}`;
  const long = `${common} AND e.rrule IS NULL AND e.end_at - e.start_at > interval '1 day' AND e.end_at > $2 AND ${overlaps}`;
  const arm = (where: string) => `SELECT e.* FROM calendar_events e WHERE ${where}`;
  return {
    series: `${series} AND ${who}`,
    short: `${short} AND ${who}`,
    long: `${long} AND ${who}`,
    all: `(${arm(series)}\n UNION ALL ${arm(short)}\n UNION ALL ${arm(long)}) AS e WHERE ${who}`,
    args,
  };
}

export async function windowEvents<E extends EventTimes>(q: Queryable, orgId: string, w: OccurrenceQuery, columns: string): Promise<E[]> {
  const f = windowArms(orgId, w);
  return f ? q.query<E>(`SELECT ${columns} FROM ${f.all}`, f.args) : [];
}
