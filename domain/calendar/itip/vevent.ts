import type { Queryable } from '../../../db/types.js';
import { getMembers } from '../../people/index.js';
import { overrideResponsesOf, overridesOf, type AttendeeRow, type LoadedEvent, type OverrideRow } from '../model.js';
import { wallAt, wallFromDb } from '../recurrence.js';
import { partstatOf, type IcsAttendee, type IcsEvent, type IcsPerson, type IcsTime } from './ics.js';

/*
 * A stored event as iCalendar VEVENTs: the series (or single event) with its RRULE and EXDATEs (cancelled
 * occurrences among them), and each occurrence changed on its own as a VEVENT with RECURRENCE-ID. Members'
 * addresses come from people; an attendee that is a directory person or an address carries its own.
 */

/** A date column as `YYYY-MM-DD` (the driver may hand back a Date at midnight UTC or a string). */
export const dateText = (v: string | Date): string => (typeof v === 'string' ? v.slice(0, 10) : v.toISOString().slice(0, 10));

/** The event's UID as it goes out: its iCalUID, with a domain so clients keep it apart from others'. */
export const uidOf = (e: Pick<LoadedEvent, 'ical_uid'>): string => e.ical_uid;

export function startOf(e: LoadedEvent): IcsTime {
  return e.all_day ? { date: dateText(e.start_date!) } : { dateTime: wallFromDb(e.start_local!), timeZone: e.time_zone! };
}

export function endOf(e: LoadedEvent): IcsTime {
  return e.all_day ? { date: dateText(e.end_date!) } : { dateTime: wallFromDb(e.end_local!), timeZone: e.end_time_zone ?? e.time_zone! };
}

/** An occurrence's original start as RECURRENCE-ID: the wall clock in the series' zone, or the date. */
export function recurrenceIdOf(e: LoadedEvent, originalStart: Date): IcsTime {
  return e.all_day ? { date: originalStart.toISOString().slice(0, 10) } : { dateTime: wallAt(originalStart, e.time_zone), timeZone: e.time_zone! };
}

/** Members' names and addresses, by principal id. */
export async function peopleOf(q: Queryable, orgId: string, e: LoadedEvent): Promise<Map<string, IcsPerson | null>> {
  const ids = [...new Set([e.organizer_id, ...e.attendees.map((a) => a.principal_id)].filter((x): x is string => Boolean(x)))];
  const members = await getMembers(q, orgId, ids);
  return new Map(ids.map((id) => [id, ((m) => (m?.email ? { email: m.email.toLowerCase(), name: m.name } : null))(members.find((m) => m.id === id))]));
}

/** Where an attendee is reached: a member's address, or the address the row carries. */
export function addressOf(a: AttendeeRow, people: Map<string, IcsPerson | null>): IcsPerson | null {
  if (a.principal_id) return people.get(a.principal_id) ?? (a.email ? { email: a.email, name: a.display_name } : null);
  return a.email ? { email: a.email.toLowerCase(), name: a.display_name } : null;
}

export function organizerOf(e: LoadedEvent, people: Map<string, IcsPerson | null>): IcsPerson | null {
  if (e.organizer_email) return { email: e.organizer_email.toLowerCase(), name: e.attendees.find((a) => a.organizer)?.display_name ?? null };
  return e.organizer_id ? (people.get(e.organizer_id) ?? null) : null;
}

function attendeesOf(e: LoadedEvent, people: Map<string, IcsPerson | null>, statuses: Map<string, string>, rsvp: boolean): IcsAttendee[] {
  return e.attendees.flatMap((a) => {
    const who = addressOf(a, people);
    if (!who) return [];
    const status = statuses.get(a.attendee_key) ?? a.response_status;
    return [{ ...who, partstat: partstatOf(status), optional: a.optional, ...(rsvp && !a.organizer ? { rsvp: true } : {}) }];
  });
}

function overrideTimes(e: LoadedEvent, o: OverrideRow, originalStart: Date): { start: IcsTime; end: IcsTime } {
  if (o.start_date && o.end_date) return { start: { date: dateText(o.start_date) }, end: { date: dateText(o.end_date) } };
  if (o.start_local && o.end_local) {
    const zone = o.time_zone ?? e.time_zone!;
    return { start: { dateTime: wallFromDb(o.start_local), timeZone: zone }, end: { dateTime: wallFromDb(o.end_local), timeZone: o.end_time_zone ?? zone } };
  }
  // Times inherited: the occurrence where the rule puts it, as long as the series' first one.
  const length = new Date(e.end_at).getTime() - new Date(e.start_at).getTime();
  const end = new Date(originalStart.getTime() + length);
  if (e.all_day) return { start: { date: dateText(originalStart) }, end: { date: dateText(end) } };
  return { start: recurrenceIdOf(e, originalStart), end: { dateTime: wallAt(end, e.end_time_zone ?? e.time_zone), timeZone: e.end_time_zone ?? e.time_zone! } };
}

export interface VeventOptions {
  /** One occurrence only (its original start, an ISO instant). */
  originalStart?: string | null;
  stamp: Date;
  /** Ask attendees to answer (REQUEST). */
  rsvp: boolean;
  /** The feed: a private event as a busy block (no title, description, location, people). */
  busyOnly?: boolean;
}

/** The VEVENTs of a stored event: the series with its changed occurrences, or the one occurrence asked for. */
export async function veventsOf(q: Queryable, orgId: string, e: LoadedEvent, o: VeventOptions): Promise<IcsEvent[]> {
  const people = o.busyOnly ? new Map<string, IcsPerson | null>() : await peopleOf(q, orgId, e);
  const overrides = e.rrule ? await overridesOf(q, orgId, [e.event_id]) : [];
  const responses = e.rrule ? await overrideResponsesOf(q, orgId, [e.event_id]) : [];
  const base: IcsEvent = {
    uid: uidOf(e),
    sequence: Number(e.sequence),
    status: e.status === 'cancelled' ? 'CANCELLED' : 'CONFIRMED',
    summary: o.busyOnly ? 'Busy' : e.title,
    description: o.busyOnly ? null : e.description,
    location: o.busyOnly ? null : e.location,
    start: startOf(e),
    end: endOf(e),
    organizer: o.busyOnly ? null : organizerOf(e, people),
    attendees: o.busyOnly ? [] : attendeesOf(e, people, new Map(), o.rsvp),
    transparent: e.transparency === 'transparent',
    private: e.visibility === 'private',
    stamp: o.stamp,
    lastModified: new Date(e.updated_at),
  };
  const occurrence = (ov: OverrideRow | undefined, at: Date): IcsEvent => {
    const mine = new Map(responses.filter((r) => new Date(r.original_start).getTime() === at.getTime()).map((r) => [r.attendee_key, r.response_status]));
    const times = ov ? overrideTimes(e, ov, at) : overrideTimes(e, { start_date: null, end_date: null, start_local: null, end_local: null } as OverrideRow, at);
    return {
      ...base,
      ...times,
      recurrenceId: recurrenceIdOf(e, at),
      rrule: null,
      exdates: [],
      sequence: Math.max(Number(e.sequence), Number(ov?.sequence ?? 0)),
      status: ov?.status === 'cancelled' || e.status === 'cancelled' ? 'CANCELLED' : 'CONFIRMED',
      summary: o.busyOnly ? 'Busy' : (ov?.title ?? e.title),
      description: o.busyOnly ? null : (ov?.description ?? e.description),
      location: o.busyOnly ? null : (ov?.location ?? e.location),
      attendees: o.busyOnly ? [] : attendeesOf(e, people, mine, o.rsvp),
    };
  };
  if (o.originalStart && e.rrule) {
    const at = new Date(o.originalStart);
    return [
      occurrence(
        overrides.find((ov) => new Date(ov.original_start).getTime() === at.getTime()),
        at,
      ),
    ];
  }
  // The series: cancelled occurrences become EXDATEs, changed ones their own VEVENTs.
  const cancelled = overrides.filter((ov) => ov.status === 'cancelled').map((ov) => recurrenceIdOf(e, new Date(ov.original_start)));
  const exdates = [...(e.exdates ?? []).map(wallFromDb), ...cancelled.map((t) => ('date' in t ? `${t.date}T00:00:00` : t.dateTime))];
  const series: IcsEvent = { ...base, rrule: e.rrule, exdates: [...new Set(exdates)].sort() };
  const changed = overrides.filter((ov) => ov.status !== 'cancelled').map((ov) => occurrence(ov, new Date(ov.original_start)));
  return [series, ...changed];
}
