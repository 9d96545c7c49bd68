import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import type { AttendeeRefIn, EventOut, Scope } from '../../protocol/methods/calendar/shared.js';
import type { Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { getMembers, sponsorOf } from '../people/index.js';
import { primaryEmailOf, resolveChannel, resolveParty } from '../directory/index.js';
import { calendarsByIds, ensureCalendar, iso, rowIso, timeView, dateOf, type AttendeeRow, type CalendarRow, type EventRow } from './model.js';
import type { Occurrence, OccurrenceAttendee } from './occurrences.js';
import { attendeeOf } from './occurrences.js';
import { occurrenceAt, place, wallFromDb } from './recurrence.js';
import { seriesTime } from './model.js';

/*
 * Who may see and change what. Members read each other's calendars; someone else's private event reads as a busy
 * block. A member writes their own calendar; an agent writes its own and its sponsor's, and acts as its sponsor
 * where the sponsor organizes or attends.
 */

/** The members the caller acts as: itself, and an agent's sponsor. */
export async function actingAs(q: Queryable, ctx: { orgId: string; principal: { id: string; kind: string } }): Promise<Set<string>> {
  const ids = new Set([ctx.principal.id]);
  if (ctx.principal.kind === 'agent') {
    const sponsor = await sponsorOf(q, ctx.orgId, ctx.principal.id);
    if (sponsor) ids.add(sponsor);
  }
  return ids;
}

/** The calendar the caller writes to: its own (made on first use), or a named one it may write. */
export async function writableCalendar(ctx: HandlerCtx, as: Set<string>, calendarId: string | undefined): Promise<CalendarRow> {
  if (!calendarId) return ensureCalendar(ctx.q, ctx.orgId, ctx.principal.id);
  const [cal] = await calendarsByIds(ctx.q, ctx.orgId, [calendarId]);
  if (!as.has(cal.owner_id)) {
    throw conflict(
      `calendar ${calendarId} belongs to ${cal.owner_id}: you write your own calendar${ctx.principal.kind === 'agent' ? " and your sponsor's" : ''}; invite ${cal.owner_id} as an attendee instead`,
    );
  }
  return cal;
}

/** CONFLICT unless the caller organizes the event (or its agent acts for the organizer). */
export function requireOrganizer(e: EventRow, as: Set<string>, act: string): void {
  if (e.organizer_id && as.has(e.organizer_id)) return;
  if (!e.organizer_id) throw conflict(`calendar event ${e.event_id} is organized by an outsider: only they ${act} it; answer with calendar.rsvp`);
  throw conflict(`only the organizer (${e.organizer_id}) may ${act} calendar event ${e.event_id}; ask them, or answer with calendar.rsvp`);
}

export function requireConfirmed(e: EventRow): void {
  if (e.status === 'cancelled') throw conflict(`calendar event ${e.event_id} is cancelled: create a new event instead`);
}

/** Whether the caller sees an event's details (a private event: its organizer and attendees only). */
export function seesDetails(
  visibility: EventRow['visibility'],
  organizerId: string | null,
  attendees: readonly { principalId?: string | null; principal_id?: string | null }[],
  as: Set<string>,
): boolean {
  if (visibility !== 'private') return true;
  if (organizerId && as.has(organizerId)) return true;
  return attendees.some((a) => {
    const id = a.principalId ?? a.principal_id;
    return id !== null && id !== undefined && as.has(id);
  });
}

function counts(list: readonly OccurrenceAttendee[]) {
  const c = { accepted: 0, declined: 0, tentative: 0, needsAction: 0 };
  for (const a of list) c[a.responseStatus]++;
  return c;
}

const NONE = { accepted: 0, declined: 0, tentative: 0, needsAction: 0 };

function endView(allDay: boolean, at: Date, zone: string | null) {
  return allDay ? timeView(at, null, dateOf(at)) : timeView(at, zone, null);
}

function base(e: EventRow, busy: boolean) {
  return {
    id: e.event_id,
    calendarId: e.calendar_id,
    organizerId: e.organizer_id,
    organizerEmail: busy ? null : e.organizer_email,
    allDay: e.all_day,
    recurrence: e.rrule ? { rrule: e.rrule, exdates: (e.exdates ?? []).map(wallFromDb) } : null,
    eventType: e.event_type,
    visibility: e.visibility,
    transparency: e.transparency,
    iCalUID: e.ical_uid,
    splitFrom: e.split_from,
    busyOnly: busy,
    version: Number(e.version),
    createdAt: rowIso(e.created_at),
    updatedAt: rowIso(e.updated_at),
  };
}

/** One occurrence as the caller reads it. */
export function occurrenceView(o: Occurrence, as: Set<string>): EventOut {
  const busy = !seesDetails(o.visibility, o.organizerId, o.attendees, as);
  return {
    ...base(o.row, busy),
    originalStart: o.originalStart,
    title: busy ? 'Busy' : o.title,
    description: busy ? null : o.description,
    location: busy ? null : o.location,
    start: endView(o.allDay, o.start, o.timeZone),
    end: endView(o.allDay, o.end, o.endTimeZone ?? o.timeZone),
    attendees: busy ? [] : o.attendees,
    rsvp: busy ? NONE : counts(o.attendees),
    status: o.status,
    sequence: o.sequence,
  };
}

/** A series (or single event) as the caller reads it: its first occurrence's times. */
export function seriesView(e: EventRow, attendees: readonly AttendeeRow[], as: Set<string>): EventOut {
  const list = attendees.filter((a) => a.event_id === e.event_id).map((a) => attendeeOf(a, undefined));
  const busy = !seesDetails(e.visibility, e.organizer_id, list, as);
  return {
    ...base(e, busy),
    originalStart: null,
    title: busy ? 'Busy' : e.title,
    description: busy ? null : e.description,
    location: busy ? null : e.location,
    start: endView(e.all_day, new Date(e.start_at), e.time_zone),
    end: endView(e.all_day, new Date(e.end_at), e.end_time_zone ?? e.time_zone),
    attendees: busy ? [] : list,
    rsvp: busy ? NONE : counts(list),
    status: e.status,
    sequence: Number(e.sequence),
  };
}

/** The scope a change applies with (a single event: all), checking originalStart names a real occurrence. */
export function resolveScope(e: EventRow, scope: Scope | undefined, originalStart: string | undefined): { scope: Scope; at: Date | null } {
  if (!e.rrule) {
    if (originalStart !== undefined && new Date(originalStart).getTime() !== new Date(e.start_at).getTime()) {
      throw badRequest('originalStart', `calendar event ${e.event_id} is not recurring: leave originalStart out or give its start ${iso(e.start_at)}`);
    }
    return { scope: 'all', at: null };
  }
  const s = scope ?? (originalStart !== undefined ? 'this' : 'all');
  if (s === 'all') return { scope: s, at: originalStart ? checkOccurrence(e, originalStart) : null };
  if (originalStart === undefined)
    throw badRequest('originalStart', `required with scope ${s} on a recurring event (an occurrence's originalStart from calendar.list)`);
  return { scope: s, at: checkOccurrence(e, originalStart) };
}

function checkOccurrence(e: EventRow, originalStart: string): Date {
  const at = new Date(originalStart);
  if (!occurrenceAt(seriesTime(e), at)) {
    throw badRequest('originalStart', `${at.toISOString()} is not an occurrence of calendar event ${e.event_id} (take originalStart from calendar.list)`);
  }
  return at;
}

/** A new attendee row. */
export interface AttendeeIn {
  key: string;
  principalId: string | null;
  personId: string | null;
  email: string | null;
  displayName: string | null;
  optional: boolean;
  organizer: boolean;
}

/**
 * Attendee references as rows: a member by id (NOT_FOUND if not of this org), a directory person (their email
 * from the directory; merges followed) or an address (a directory person holding it is linked). The organizer
 * comes first and is not repeated; duplicates fold into one.
 */
export async function resolveAttendees(q: Queryable, orgId: string, refs: readonly AttendeeRefIn[], organizerId: string | null): Promise<AttendeeIn[]> {
  const memberIds = [...new Set([...(organizerId ? [organizerId] : []), ...refs.flatMap((r) => (r.principalId ? [r.principalId] : []))])];
  const members = new Map((await getMembers(q, orgId, memberIds)).map((m) => [m.id, m]));
  const out = new Map<string, AttendeeIn>();
  if (organizerId) {
    const m = members.get(organizerId);
    out.set(organizerId, {
      key: organizerId,
      principalId: organizerId,
      personId: null,
      email: m?.email ?? null,
      displayName: m?.name ?? null,
      optional: false,
      organizer: true,
    });
  }
  for (const [n, r] of refs.entries()) {
    let a: AttendeeIn;
    if (r.principalId) {
      const m = members.get(r.principalId);
      if (!m) throw notFound(`member ${r.principalId} (attendees.${n}.principalId)`);
      a = { key: m.id, principalId: m.id, personId: null, email: m.email, displayName: m.name, optional: r.optional, organizer: false };
    } else if (r.personId) {
      const party = await resolveParty(q, orgId, r.personId);
      if (party.kind !== 'person') throw badRequest(`attendees.${n}.personId`, `${r.personId} is an organisation, not a person: invite a person or an address`);
      const email = await primaryEmailOf(q, orgId, party.partyId);
      a = { key: party.partyId, principalId: null, personId: party.partyId, email, displayName: party.displayName, optional: r.optional, organizer: false };
    } else {
      const email = r.email!.trim().toLowerCase();
      const held = await resolveChannel(q, orgId, { kind: 'email', value: email });
      const personId = held && held.partyKind === 'person' ? held.partyId : null;
      a = { key: email, principalId: null, personId, email, displayName: null, optional: r.optional, organizer: false };
    }
    if (!out.has(a.key)) out.set(a.key, a);
  }
  return [...out.values()];
}

/** Insert attendee rows (the organizer accepted, everyone else needsAction). */
export async function insertAttendees(q: Queryable, orgId: string, eventId: string, list: readonly AttendeeIn[], at: Date): Promise<void> {
  if (list.length === 0) return;
  await q.query(
    `INSERT INTO calendar_attendees (org_id, event_id, attendee_key, principal_id, person_id, email, display_name, optional, organizer, response_status, responded_at)
     SELECT $1, $2, x.key, x.principal_id, x.person_id, x.email, x.display_name, x.optional, x.organizer,
            CASE WHEN x.organizer THEN 'accepted' ELSE 'needsAction' END, CASE WHEN x.organizer THEN $4::timestamptz END
       FROM json_to_recordset($3::json) AS x(key text, principal_id text, person_id text, email text, display_name text, optional boolean, organizer boolean)`,
    [
      orgId,
      eventId,
      JSON.stringify(
        list.map((a) => ({
          key: a.key,
          principal_id: a.principalId,
          person_id: a.personId,
          email: a.email,
          display_name: a.displayName,
          optional: a.optional,
          organizer: a.organizer,
        })),
      ),
      at.toISOString(),
    ],
  );
}

/** The instant of an occurrence's start as the caller gives it, when a view needs only the series' zone. */
export const startOf = (e: EventRow): Date => (e.all_day ? new Date(e.start_at) : place(wallFromDb(e.start_local!), e.time_zone));
