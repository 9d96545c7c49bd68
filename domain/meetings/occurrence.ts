import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { loadEvent, occurrencesIn } from '../calendar/index.js';
import { callForMeeting, type CallForMeeting } from '../messaging/index.js';
import { getMembers } from '../people/index.js';

/*
 * What a meeting is of: a calendar occurrence (eventId, with originalStart for one of a series) or a call. Either is
 * read as the caller, through its family's public face (NOT_FOUND when they may not read it), and gives the
 * meeting's attendees, its default times and whether it is private; a call also gives its transcript lines.
 */

export interface AttendeeIn {
  key: string;
  principalId: string | null;
  personId: string | null;
  email: string | null;
  name: string | null;
}

export interface Occurrence {
  /** One meeting per occurrence: its unique key. */
  key: string;
  eventId: string | null;
  originalStart: string | null;
  callId: string | null;
  title: string | null;
  private: boolean;
  startedAt: string;
  endedAt: string | null;
  attendees: AttendeeIn[];
  /** A call's transcript, as the call holds it. */
  callLines: CallForMeeting['lines'] | null;
}

export const callKey = (callId: string) => `call:${callId}`;
export const eventKey = (eventId: string, originalStart: string | null) => `evt:${eventId}@${originalStart ?? ''}`;

/** Members by id, with names, in the order given (unknown ids left out). */
export async function membersNamed(q: Queryable, orgId: string, ids: readonly string[]): Promise<AttendeeIn[]> {
  const members = await getMembers(q, orgId, [...new Set(ids)]);
  return members.map((m) => ({ key: m.id, principalId: m.id, personId: null, email: null, name: m.name }));
}

export async function callOccurrence(q: Queryable, orgId: string, callId: string, principalId: string): Promise<Occurrence> {
  const call = await callForMeeting(q, orgId, callId, principalId);
  return {
    key: callKey(call.callId),
    eventId: null,
    originalStart: null,
    callId: call.callId,
    title: call.title,
    private: !call.openToOrg,
    startedAt: call.startedAt,
    endedAt: call.endedAt,
    attendees: await membersNamed(q, orgId, call.attendeeIds),
    callLines: call.lines,
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far from its original start an occurrence may have been moved and still be found (a month either way). */
const MOVED_MS = 31 * DAY_MS;

/**
 * The calendar occurrence, through the calendar family's public face: a single event, or one of a series by its
 * original start. A private event is its organizer's and attendees' only (others: NOT_FOUND, as calendar.get).
 */
export async function eventOccurrence(q: Queryable, orgId: string, eventId: string, originalStart: string | null, principalId: string): Promise<Occurrence> {
  const event = await loadEvent(q, orgId, eventId);
  const inIt = (ids: readonly (string | null)[]) => ids.includes(principalId);
  if (!event || (event.visibility === 'private' && !inIt([event.organizer_id, ...event.attendees.map((a) => a.principal_id)])))
    throw notFound(`event ${eventId}`);
  if (event.status === 'cancelled') throw conflict(`calendar event ${eventId} is cancelled: no meeting took place to record`);
  let start = new Date(event.start_at);
  let end = new Date(event.end_at);
  let title = event.title;
  let attendees = event.attendees.map((a) => ({
    key: a.attendee_key,
    principalId: a.principal_id,
    personId: a.person_id,
    email: a.email,
    name: a.display_name,
  }));
  let original: string | null = null;
  if (event.rrule) {
    if (originalStart === null) throw badRequest('originalStart', `calendar event ${eventId} repeats: name the occurrence by its original start`);
    const at = new Date(originalStart);
    const found = (await occurrencesIn(q, orgId, { eventIds: [eventId], from: new Date(at.getTime() - MOVED_MS), to: new Date(at.getTime() + MOVED_MS) })).find(
      (o) => o.originalStart !== null && Date.parse(o.originalStart) === at.getTime(),
    );
    if (!found) throw badRequest('originalStart', `calendar event ${eventId} has no occurrence that starts at ${at.toISOString()} (or it was cancelled)`);
    original = new Date(found.originalStart!).toISOString();
    start = found.start;
    end = found.end;
    title = found.title;
    attendees = found.attendees.map((a) => ({ key: a.key, principalId: a.principalId, personId: a.personId, email: a.email, name: a.displayName }));
  } else if (originalStart !== null) {
    throw badRequest('originalStart', `calendar event ${eventId} does not repeat: leave originalStart out`);
  }
  // Members are named as the people directory names them; the organizer attends.
  const memberIds = [...new Set([...(event.organizer_id ? [event.organizer_id] : []), ...attendees.flatMap((a) => (a.principalId ? [a.principalId] : []))])];
  const named = new Map((await membersNamed(q, orgId, memberIds)).map((m) => [m.principalId, m]));
  const all = attendees.map((a) => (a.principalId && named.has(a.principalId) ? { ...a, name: named.get(a.principalId)!.name } : a));
  if (event.organizer_id && !all.some((a) => a.principalId === event.organizer_id) && named.has(event.organizer_id))
    all.unshift(named.get(event.organizer_id)!);
  return {
    key: eventKey(eventId, original),
    eventId,
    originalStart: original,
    callId: null,
    title,
    private: event.visibility === 'private',
    startedAt: start.toISOString(),
    endedAt: end.toISOString(),
    attendees: all,
    callLines: null,
  };
}
