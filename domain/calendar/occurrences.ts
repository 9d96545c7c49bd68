import type { Queryable } from '../../db/types.js';
import type { ResponseStatus } from '../../protocol/methods/calendar/shared.js';
import {
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
import { expand, occurrenceAt, type Instance } from './recurrence.js';

/*
 * Occurrences in a window, overrides applied: the one reader of calendar time that list, get, findATime, ask, the
 * feed and meetings share. Three queries (the events of the window, their attendees, their overrides and
 * per-occurrence answers), then expansion in memory, so a month of 50 calendars stays well under 50 ms.
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
}

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
    `SELECT ${EVENT_COLUMNS} FROM calendar_events e
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
  answers: Map<string, ResponseStatus>;
}

async function related(q: Queryable, orgId: string, events: readonly EventRow[]): Promise<Related> {
  const ids = events.map((e) => e.event_id);
  const series = events.filter((e) => e.rrule).map((e) => e.event_id);
  const [attendees, overrides, answers] = await Promise.all([attendeesOf(q, orgId, ids), overridesOf(q, orgId, series), overrideResponsesOf(q, orgId, series)]);
  return {
    attendees: group(attendees),
    overrides: group(overrides),
    answers: new Map(answers.map((a) => [`${a.event_id}|${iso(a.original_start)}|${a.attendee_key}`, a.response_status])),
  };
}

function occurrence(e: EventRow, i: Instance, r: Related, o: OverrideRow | undefined): Occurrence {
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
    attendees: (r.attendees.get(e.event_id) ?? []).map((a) => attendeeOf(a, r.answers.get(`${e.event_id}|${original}|${a.attendee_key}`))),
    row: e,
  };
}

/** The occurrences overlapping [from, to), ordered by start; cancelled ones left out unless asked for. */
export async function occurrencesIn(q: Queryable, orgId: string, w: OccurrenceQuery): Promise<Occurrence[]> {
  const events = await windowEvents(q, orgId, w);
  const r = await related(q, orgId, events);
  const out: Occurrence[] = [];
  for (const e of events) {
    const s = seriesTime(e);
    const instances = expand(s, w.from, w.to);
    const byStart = new Map((r.overrides.get(e.event_id) ?? []).map((o) => [iso(o.original_start), o]));
    if (e.rrule) {
      // An occurrence moved into the window from outside it.
      const seen = new Set(instances.map((i) => i.originalStart.toISOString()));
      for (const [key, o] of byStart) {
        if (seen.has(key) || !o.start_at || new Date(o.start_at) >= w.to || new Date(o.end_at!) <= w.from) continue;
        const i = occurrenceAt(s, new Date(key));
        if (i) instances.push(i);
      }
    }
    for (const i of instances) {
      const one = occurrence(e, i, r, e.rrule ? byStart.get(i.originalStart.toISOString()) : undefined);
      if (one.status === 'cancelled' && !w.includeCancelled) continue;
      if (one.start >= w.to || one.end <= w.from) continue;
      out.push(one);
    }
  }
  return out.sort((a, b) => a.start.getTime() - b.start.getTime() || a.eventId.localeCompare(b.eventId));
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
  for (const o of await occurrencesIn(q, orgId, { attendeePrincipalIds: principalIds, from, to })) {
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
