import type { Queryable } from '../../db/types.js';
import type { ResponseStatus } from '../../protocol/methods/calendar/shared.js';
import {
  ATTENDEE_COLUMNS,
  attendeesOf,
  EVENT_COLUMNS,
  iso,
  overrideResponsesOf,
  overridesOf,
  placeDb,
  seriesTime,
  type AttendeeRow,
  type EventRow,
  type OverrideRow,
} from './model.js';
import { expand, occurrenceAt, wallFromDb, type Instance } from './recurrence.js';

/*
 * Occurrences in a window, overrides applied: the one reader of calendar time that list, get, findATime, ask, the
 * feed and meetings share. Four queries (the events of the window, their attendees, their overrides, per-occurrence
 * answers), then expansion in memory. What a month of 50 calendars costs is mostly rows and objects: single events
 * keep their stored instants, series are placed through zone tables (recurrence.ts), occurrences of an event share
 * one attendee list unless someone answered per occurrence, busy time reads only the members asked about, and a
 * paged list loads attendees for its page only (attendeesFor, withAttendees).
 */

export interface OccurrenceAttendee {
  key: string;
  principalId: string | null;
  personId: string | null;
  email: string | null;
  displayName: string | null;
  optional: boolean;
  organizer: boolean;
  /** The answer for this occurrence (a per-occurrence answer wins over the series'). */
  responseStatus: ResponseStatus;
}

export interface Occurrence {
  eventId: string;
  /** ISO instant of the occurrence's original start; null for a single event. */
  originalStart: string | null;
  start: Date;
  end: Date;
  allDay: boolean;
  /** The zone of the start (an override's, when moved); null for all-day. */
  timeZone: string | null;
  endTimeZone: string | null;
  title: string;
  description: string | null;
  location: string | null;
  status: EventRow['status'];
  visibility: EventRow['visibility'];
  eventType: EventRow['event_type'];
  transparency: EventRow['transparency'];
  organizerId: string | null;
  organizerEmail: string | null;
  calendarId: string;
  /** The event's sequence, or the override's when it is higher. */
  sequence: number;
  /** Moved or retitled by an override (scope `this`). */
  overridden: boolean;
  attendees: OccurrenceAttendee[];
  /** The series (or single event) row. */
  row: EventRow;
}

export interface OccurrenceQuery {
  /** Events on these calendars… */
  calendarIds?: readonly string[];
  /** …or attended (organized included) by these members. Neither: every event of the org. */
  attendeePrincipalIds?: readonly string[];
  /** Only these events. */
  eventIds?: readonly string[];
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

/*
 * The event columns with their timestamps written by PostgreSQL as the drivers' ISO text (db/normalise.ts gives
 * 2026-03-02T08:00:00.000Z, milliseconds cut, not rounded, as to_char's MS). A window is thousands of rows of seven
 * timestamps: parsing each in JS was the largest part of a month's list.
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
const WINDOW_COLUMNS = EVENT_COLUMNS.split(',')
  .map((c) => c.trim())
  .map((c) => (STAMPS[c.slice(2)] ? isoText(c.slice(2), STAMPS[c.slice(2)]) : c))
  .join(', ');

async function windowEvents(q: Queryable, orgId: string, w: OccurrenceQuery): Promise<EventRow[]> {
  const args: unknown[] = [orgId, w.from.toISOString(), w.to.toISOString()];
  const who: string[] = [];
  if (w.calendarIds?.length) {
    args.push(w.calendarIds);
    who.push(`e.calendar_id = ANY($${args.length}::text[])`);
  }
  if (w.attendeePrincipalIds?.length) {
    args.push(w.attendeePrincipalIds);
    who.push(`e.event_id IN (SELECT a.event_id FROM calendar_attendees a WHERE a.org_id = $1 AND a.principal_id = ANY($${args.length}::text[]))`);
  }
  const asked = w.calendarIds !== undefined || w.attendeePrincipalIds !== undefined;
  if (asked && who.length === 0) return [];
  let only = '';
  if (w.eventIds) {
    args.push(w.eventIds);
    only = `AND e.event_id = ANY($${args.length}::text[])`;
  }
  return q.query<EventRow>(
    `SELECT ${WINDOW_COLUMNS} FROM calendar_events e
      WHERE e.org_id = $1 AND e.status = 'confirmed' ${who.length ? `AND (${who.join(' OR ')})` : ''} ${only}
        AND ((e.start_at < $3 AND (e.series_end_at IS NULL OR e.series_end_at > $2))
          OR e.event_id IN (SELECT o.event_id FROM calendar_overrides o WHERE o.org_id = $1 AND o.start_at < $3 AND o.end_at > $2))`,
    args,
  );
}

const group = <T extends { event_id: string }>(rows: readonly T[]): Map<string, T[]> => {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const list = m.get(r.event_id);
    if (list) list.push(r);
    else m.set(r.event_id, [r]);
  }
  return m;
};

function applyOverride(e: EventRow, i: Instance, o: OverrideRow | undefined) {
  if (o === undefined) {
    // Most occurrences: the series' own fields (no spread, no lookups; a month reads thousands).
    const { time_zone: timeZone, end_time_zone: endTimeZone, title, description, location } = e;
    return {
      start: i.start,
      end: i.end,
      timeZone,
      endTimeZone,
      title,
      description,
      location,
      status: 'confirmed' as const,
      sequence: Math.max(Number(e.sequence), 0),
      overridden: false,
    };
  }
  const moved = o?.start_at ? { start: new Date(o.start_at), end: new Date(o.end_at!) } : { start: i.start, end: i.end };
  return {
    ...moved,
    timeZone: o?.start_at ? (o.time_zone ?? e.time_zone) : e.time_zone,
    endTimeZone: o?.start_at ? (o.end_time_zone ?? o.time_zone ?? e.end_time_zone) : e.end_time_zone,
    title: o?.title ?? e.title,
    description: o?.description ?? e.description,
    location: o?.location ?? e.location,
    status: o?.status ?? 'confirmed',
    sequence: Math.max(Number(e.sequence), Number(o?.sequence ?? 0)),
    overridden: o !== undefined,
  };
}

interface Related {
  attendees: Map<string, AttendeeRow[]>;
  overrides: Map<string, OverrideRow[]>;
  /** Per-occurrence answers by `eventId|originalStart|attendeeKey`. */
  answers: Map<string, ResponseStatus>;
  /** Events with any per-occurrence answer (the others share one attendee list for all their occurrences). */
  answered: Set<string>;
}

/** The attendee rows of events, in attendeesOf's order; `among`: only those members' rows. */
async function attendeeRows(q: Queryable, orgId: string, ids: readonly string[], among: readonly string[] | undefined): Promise<AttendeeRow[]> {
  if (among === undefined) return attendeesOf(q, orgId, ids);
  if (ids.length === 0 || among.length === 0) return [];
  return q.query<AttendeeRow>(
    `SELECT ${ATTENDEE_COLUMNS} FROM calendar_attendees a WHERE a.org_id = $1 AND a.event_id = ANY($2::text[]) AND a.principal_id = ANY($3::text[])
      ORDER BY a.event_id, a.organizer DESC, a.attendee_key`,
    [orgId, ids, among],
  );
}

async function related(
  q: Queryable,
  orgId: string,
  events: readonly EventRow[],
  w: Pick<OccurrenceQuery, 'attendeesAmong' | 'attendeesFor'> = {},
): Promise<Related> {
  const ids = (w.attendeesFor ? events.filter(w.attendeesFor) : events).map((e) => e.event_id);
  const series = events.filter((e) => e.rrule).map((e) => e.event_id);
  const [attendees, overrides, answers] = await Promise.all([
    attendeeRows(q, orgId, ids, w.attendeesAmong),
    overridesOf(q, orgId, series),
    overrideResponsesOf(q, orgId, series),
  ]);
  return {
    attendees: group(attendees),
    overrides: group(overrides),
    answers: new Map(answers.map((a) => [`${a.event_id}|${iso(a.original_start)}|${a.attendee_key}`, a.response_status])),
    answered: new Set(answers.map((a) => a.event_id)),
  };
}

/** An occurrence's attendees with its answers; built once per event when it has no per-occurrence answer. */
function attendeeList(e: EventRow, original: string, r: Related, shared: Map<string, OccurrenceAttendee[]>): OccurrenceAttendee[] {
  const rows = r.attendees.get(e.event_id) ?? [];
  if (!r.answered.has(e.event_id)) {
    let list = shared.get(e.event_id);
    if (!list) shared.set(e.event_id, (list = rows.map((a) => attendeeOf(a, undefined))));
    return list;
  }
  return rows.map((a) => attendeeOf(a, r.answers.get(`${e.event_id}|${original}|${a.attendee_key}`)));
}

function occurrence(e: EventRow, i: Instance, r: Related, o: OverrideRow | undefined, shared = new Map<string, OccurrenceAttendee[]>()): Occurrence {
  const original = i.originalStart.toISOString();
  const v = applyOverride(e, i, o);
  return {
    eventId: e.event_id,
    originalStart: e.rrule ? original : null,
    start: v.start,
    end: v.end,
    allDay: e.all_day,
    timeZone: e.all_day ? null : v.timeZone,
    endTimeZone: e.all_day ? null : v.endTimeZone,
    title: v.title,
    description: v.description,
    location: v.location,
    status: v.status,
    visibility: e.visibility,
    eventType: e.event_type,
    transparency: e.transparency,
    organizerId: e.organizer_id,
    organizerEmail: e.organizer_email,
    calendarId: e.calendar_id,
    sequence: v.sequence,
    overridden: v.overridden,
    attendees: attendeeList(e, original, r, shared),
    row: e,
  };
}

/** A single event's one occurrence from its stored instants (written by placing its wall clock: no need to again). */
function singleInstance(e: EventRow, from: Date, to: Date): Instance[] {
  const start = new Date(e.start_at);
  const end = new Date(e.end_at);
  if (!(start < to && end > from)) return [];
  return [{ originalStart: start, start, end, wall: e.all_day ? `${e.start_date}T00:00:00` : wallFromDb(e.start_local!) }];
}

/** The instances of a series in the window, with those an override moved into it from outside. */
function seriesInstances(e: EventRow, byStart: Map<string, OverrideRow>, from: Date, to: Date): Instance[] {
  const s = seriesTime(e);
  const instances = expand(s, from, to);
  const seen = new Set(instances.map((i) => i.originalStart.toISOString()));
  for (const [key, o] of byStart) {
    if (seen.has(key) || !o.start_at || new Date(o.start_at) >= to || new Date(o.end_at!) <= from) continue;
    const i = occurrenceAt(s, new Date(key));
    if (i) instances.push(i);
  }
  return instances;
}

/** Ties on start in event id order, as localeCompare orders them (one collator, not one per comparison). */
const byId = new Intl.Collator().compare;

/** The occurrences overlapping [from, to), ordered by start; cancelled ones left out unless asked for. */
export async function occurrencesIn(q: Queryable, orgId: string, w: OccurrenceQuery): Promise<Occurrence[]> {
  const events = await windowEvents(q, orgId, w);
  const r = await related(q, orgId, events, w);
  const shared = new Map<string, OccurrenceAttendee[]>();
  const out: Occurrence[] = [];
  for (const e of events) {
    if (!e.rrule) {
      // A single event: confirmed (the query asks so), no overrides, its window checked by singleInstance.
      for (const i of singleInstance(e, w.from, w.to)) out.push(occurrence(e, i, r, undefined, shared));
      continue;
    }
    const byStart = new Map((r.overrides.get(e.event_id) ?? []).map((o) => [iso(o.original_start), o]));
    for (const i of seriesInstances(e, byStart, w.from, w.to)) {
      const one = occurrence(e, i, r, byStart.get(i.originalStart.toISOString()), shared);
      if (one.status === 'cancelled' && !w.includeCancelled) continue;
      if (one.start >= w.to || one.end <= w.from) continue;
      out.push(one);
    }
  }
  return out.sort((a, b) => a.start.getTime() - b.start.getTime() || byId(a.eventId, b.eventId));
}

/** Occurrences read with `attendeesFor`, now with every attendee and their answers (one page of a list). */
export async function withAttendees(q: Queryable, orgId: string, list: readonly Occurrence[]): Promise<Occurrence[]> {
  const rows = [...new Map(list.map((o) => [o.eventId, o.row])).values()];
  const r = await related(q, orgId, rows);
  const shared = new Map<string, OccurrenceAttendee[]>();
  return list.map((o) => ({ ...o, attendees: attendeeList(o.row, o.originalStart ?? o.start.toISOString(), r, shared) }));
}

/** One occurrence of a series by its original start (cancelled included), or null when the rule has none there. */
export async function occurrenceOf(q: Queryable, orgId: string, e: EventRow, originalStart: Date): Promise<Occurrence | null> {
  const i = e.rrule ? occurrenceAt(seriesTime(e), originalStart) : null;
  if (!i) return null;
  const r = await related(q, orgId, [e]);
  const o = (r.overrides.get(e.event_id) ?? []).find((x) => iso(x.original_start) === i.originalStart.toISOString());
  return occurrence(e, i, r, o);
}

export function attendeeOf(a: AttendeeRow, answer: ResponseStatus | undefined): OccurrenceAttendee {
  return {
    key: a.attendee_key,
    principalId: a.principal_id,
    personId: a.person_id,
    email: a.email,
    displayName: a.display_name,
    optional: a.optional,
    organizer: a.organizer,
    responseStatus: answer ?? a.response_status,
  };
}

export interface BusyInterval {
  start: Date;
  end: Date;
  eventId: string;
  originalStart: string | null;
  /** The member answered tentative (it still blocks). */
  tentative: boolean;
  outOfOffice: boolean;
}

/**
 * Busy time of members in [from, to): occurrences they organize or attend and have not declined, opaque and
 * confirmed. Every asked member has an entry (maybe empty).
 */
export async function busyIntervals(q: Queryable, orgId: string, principalIds: readonly string[], from: Date, to: Date): Promise<Map<string, BusyInterval[]>> {
  const out = new Map<string, BusyInterval[]>(principalIds.map((id) => [id, []]));
  if (principalIds.length === 0) return out;
  for (const o of await occurrencesIn(q, orgId, { attendeePrincipalIds: principalIds, attendeesAmong: principalIds, from, to })) {
    if (o.transparency !== 'opaque' || o.status !== 'confirmed') continue;
    for (const a of o.attendees) {
      const list = a.principalId ? out.get(a.principalId) : undefined;
      if (!list || a.responseStatus === 'declined') continue;
      list.push({
        start: o.start,
        end: o.end,
        eventId: o.eventId,
        originalStart: o.originalStart,
        tentative: a.responseStatus === 'tentative',
        outOfOffice: o.eventType === 'outOfOffice',
      });
    }
  }
  return out;
}

/** The instant a stored override's wall clock stands for (used by writers that rebuild an override). */
export const overrideStart = (o: OverrideRow): Date | null => (o.start_local ? placeDb(o.start_local, o.time_zone) : null);
