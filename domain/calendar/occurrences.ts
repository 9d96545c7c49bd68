import type { Queryable } from '../../db/types.js';
import type { ResponseStatus } from '../../protocol/methods/calendar/shared.js';
import {
  attendeesOf,
  eventRows,
  iso,
  overrideResponsesOf,
  OVERRIDE_COLUMNS,
  overridesOf,
  seriesTime,
  type AttendeeRow,
  type EventRow,
  type OverrideRow,
} from './model.js';
import { expand, occurrenceAt, wallFromDb, type Instance } from './recurrence.js';
import { SINGLE_AT, TIME_COLUMNS, WINDOW_COLUMNS, windowArms, windowEvents, type EventTimes, type OccurrenceQuery } from './window.js';

export type { EventTimes, OccurrenceQuery } from './window.js';

/*
 * Occurrences in a window, overrides applied: the one reader of calendar time that list, get, findATime, ask, the
 * feed and meetings share. Four queries (the events of the window, their attendees, their overrides, per-occurrence
 * answers), then expansion in memory. What a month of 50 calendars costs is mostly rows and objects: single events
 * keep their stored instants, series are placed through zone tables (recurrence.ts), occurrences of an event share
 * one attendee list unless someone answered per occurrence, busy time reads only the members asked about, and a
 * paged list reads times to order the window and full rows for its page only (occurrenceSlots, occurrencesAt).
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

function related(q: Queryable, orgId: string, events: readonly EventRow[], w: Pick<OccurrenceQuery, 'attendeesAmong' | 'attendeesFor'> = {}): Promise<Related> {
  const ids = (w.attendeesFor ? events.filter(w.attendeesFor) : events).map((e) => e.event_id);
  const series = events.filter((e) => e.rrule).map((e) => e.event_id);
  return relatedOf(q, orgId, ids, series, w.attendeesAmong, true);
}

/** Attendees of `ids` (`among`: only those members'), and the overrides (when asked) and answers of `series`. */
async function relatedOf(
  q: Queryable,
  orgId: string,
  ids: readonly string[],
  series: readonly string[],
  among: readonly string[] | undefined,
  withOverrides: boolean,
): Promise<Related> {
  const [attendees, overrides, answers] = await Promise.all([
    attendeesOf(q, orgId, ids, among),
    withOverrides ? overridesOf(q, orgId, series) : [],
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
function singleInstance(e: EventTimes, from: Date, to: Date): Instance[] {
  const start = new Date(e.start_at);
  const end = new Date(e.end_at);
  if (!(start < to && end > from)) return [];
  return [{ originalStart: start, start, end, wall: e.all_day ? `${e.start_date}T00:00:00` : wallFromDb(e.start_local!) }];
}

/** The instances of a series in the window, with those an override moved into it from outside. */
function seriesInstances(e: EventTimes, byStart: Map<string, OverrideRow>, from: Date, to: Date): Instance[] {
  const s = seriesTime(e);
  const instances = expand(s, from, to);
  if (byStart.size === 0) return instances;
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

/** An occurrence placed (its override's times applied) and not yet built: what ordering and paging need. */
export interface Slot<E extends EventTimes = EventTimes> {
  event: E;
  instance: Instance;
  override: OverrideRow | undefined;
  start: Date;
  end: Date;
}

/** The occurrences of events overlapping [from, to), ordered by start; cancelled ones left out unless asked for. */
function placed<E extends EventTimes>(events: readonly E[], overrides: Map<string, OverrideRow[]>, w: OccurrenceQuery): Slot<E>[] {
  const out: Slot<E>[] = [];
  for (const e of events) {
    if (!e.rrule) {
      // A single event: confirmed (the query asks so), no overrides, its window checked by singleInstance.
      for (const i of singleInstance(e, w.from, w.to)) out.push({ event: e, instance: i, override: undefined, start: i.start, end: i.end });
      continue;
    }
    const byStart = new Map((overrides.get(e.event_id) ?? []).map((o) => [iso(o.original_start), o]));
    for (const i of seriesInstances(e, byStart, w.from, w.to)) {
      const o = byStart.size === 0 ? undefined : byStart.get(i.originalStart.toISOString());
      if (o?.status === 'cancelled' && !w.includeCancelled) continue;
      const start = o?.start_at ? new Date(o.start_at) : i.start;
      const end = o?.start_at ? new Date(o.end_at!) : i.end;
      if (start >= w.to || end <= w.from) continue;
      out.push({ event: e, instance: i, override: o, start, end });
    }
  }
  return out.sort((a, b) => a.start.getTime() - b.start.getTime() || byId(a.event.event_id, b.event.event_id));
}

/** The occurrences overlapping [from, to), ordered by start; cancelled ones left out unless asked for. */
export async function occurrencesIn(q: Queryable, orgId: string, w: OccurrenceQuery): Promise<Occurrence[]> {
  const events = await windowEvents<EventRow>(q, orgId, w, WINDOW_COLUMNS);
  const r = await related(q, orgId, events, w);
  const shared = new Map<string, OccurrenceAttendee[]>();
  return placed(events, r.overrides, w).map((s) => occurrence(s.event, s.instance, r, s.override, shared));
}

/*
 * A paged read in two steps. One: the window's occurrences as times only, ordered, so the page can be cut: every
 * series' (a few columns and its overrides, expanded here) and only the leading single events, which PostgreSQL
 * orders and cuts from an index in start order (a month of 50 calendars is some 3,300 single events and 900 series
 * occurrences; a page at most 500). Two: the full rows, attendees and answers of the page's events only.
 */

/**
 * Step one: slots in occurrencesIn's order, exact up to the first `first` (and `more`, 1 when single events past
 * them were left out, with the series' occurrences after the last kept single), so any page within `first` is as
 * occurrencesIn would give it, and `more` > 0 says there is more past it.
 */
export async function occurrenceSlots(q: Queryable, orgId: string, w: OccurrenceQuery, first: number): Promise<{ slots: Slot[]; more: number }> {
  const f = windowArms(orgId, w);
  if (!f) return { slots: [], more: 0 };
  const k = f.args.length + 1;
  const [series, short, long, overrides] = await Promise.all([
    q.query<EventTimes>(`SELECT ${TIME_COLUMNS} FROM calendar_events e WHERE ${f.series}`, f.args),
    // The first `first` single events of at most a day by start, with any tied with the last, and whether any
    // starts later: read in index order and stopped there, never the whole window.
    q.query<EventTimes & { more: boolean }>(
      `WITH kept AS MATERIALIZED (SELECT ${TIME_COLUMNS}, ${SINGLE_AT} AS at FROM calendar_events e WHERE ${f.short} ORDER BY ${SINGLE_AT} FETCH FIRST $${k} ROWS WITH TIES)
       SELECT kept.*, EXISTS (SELECT 1 FROM calendar_events e WHERE ${f.short} AND ${SINGLE_AT} > (SELECT max(at) FROM kept)) AS more FROM kept`,
      [...f.args, first],
    ),
    // Longer single events are few: all of the window's.
    q.query<EventTimes>(`SELECT ${TIME_COLUMNS} FROM calendar_events e WHERE ${f.long}`, f.args),
    // The series' overrides by the same filter (a join, not a list of their ids back).
    q.query<OverrideRow>(
      `SELECT ${OVERRIDE_COLUMNS} FROM calendar_overrides o JOIN calendar_events e ON e.org_id = o.org_id AND e.event_id = o.event_id
        WHERE ${f.series} AND o.org_id = $1`,
      f.args,
    ),
  ]);
  const { singles, more } = firstSingles(short, long, first);
  // Single events left out past the first `first`: every slot the page needs starts at or before the last kept
  // one, so series are expanded up to there only (a page's cost follows its depth, not the window's length).
  let until = w.to;
  if (more > 0) {
    const last = Math.max(...singles.map((e) => new Date(e.start_at).getTime()));
    until = new Date(Math.min(w.to.getTime(), last + 1));
  }
  return { slots: placed([...series, ...singles], group(overrides), { ...w, to: until }), more };
}

/**
 * The first `first` single events by start (cut to ms, as JS reads them) with any tied with the last, of the
 * short ones' first `first` (with ties, and whether more of them follow) and every long one, and 1 when any single
 * event was left out past them.
 */
function firstSingles(short: readonly (EventTimes & { more: boolean })[], long: readonly EventTimes[], first: number) {
  const moreShort = short.some((e) => e.more) ? 1 : 0;
  if (long.length === 0) return { singles: short, more: moreShort };
  const all = [...short, ...long].map((e) => ({ e, at: new Date(e.start_at).getTime() })).sort((a, b) => a.at - b.at);
  if (all.length <= first) return { singles: all.map((x) => x.e), more: moreShort };
  const cut = all[first - 1].at;
  const singles = all.filter((x) => x.at <= cut).map((x) => x.e);
  // Short ones left out start after the last short one kept, so after the cut too.
  return { singles, more: moreShort || singles.length < all.length ? 1 : 0 };
}

/** Step two: slots built as occurrencesIn builds them, with every attendee and answer (an event gone since: left out). */
export async function occurrencesAt(q: Queryable, orgId: string, slots: readonly Slot[]): Promise<Occurrence[]> {
  const ids = [...new Set(slots.map((s) => s.event.event_id))];
  const series = [...new Set(slots.flatMap((s) => (s.event.rrule ? [s.event.event_id] : [])))];
  // The rows and what hangs on them at once (the overrides came with step one).
  const [found, r] = await Promise.all([eventRows(q, orgId, ids), relatedOf(q, orgId, ids, series, undefined, false)]);
  const rows = new Map(found.map((e) => [e.event_id, e]));
  const shared = new Map<string, OccurrenceAttendee[]>();
  return slots.flatMap((s) => {
    const e = rows.get(s.event.event_id);
    return e ? [occurrence(e, s.instance, r, s.override, shared)] : [];
  });
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
