import { calendarEvents as c } from '../../protocol/methods/calendar/events.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { actingAs, insertAttendees, resolveAttendees, seriesView, writableCalendar } from './access.js';
import { attendeesOf, requireEvent } from './model.js';
import { conflictsWith, invite } from './notify.js';
import { firstInstances, normaliseRule, wallFromInput } from './recurrence.js';
import { icalUidOf, insertEvent, seriesOf, timesOf } from './write.js';

/*
 * calendar.create: an event on the caller's calendar (or an agent's sponsor's), the organizer accepted and every
 * other attendee asked; conflicts are the attendees' busy time over the first occurrences; invitations go out
 * through iTIP mail (an agent's to outsiders held by email review). One event, ids and counts only.
 */

/** Occurrences checked for conflicts at creation. */
const CONFLICT_INSTANCES = 50;

export const create = handler(c.create, async (ctx, p) => {
  const times = timesOf(p.start, p.end);
  const as = await actingAs(ctx.q, ctx);
  const cal = await writableCalendar(ctx, as, p.calendarId);
  const rrule = p.recurrence ? normaliseRule(p.recurrence.rrule, times.start) : null;
  const exdates = rrule ? [...new Set(p.recurrence!.exdates.map((x, i) => wallFromInput(x, times.start.zone, `recurrence.exdates.${i}`)))] : [];
  const attendees = await resolveAttendees(ctx.q, ctx.orgId, p.attendees, cal.owner_id);
  const eventId = newId('cev');
  const now = ctx.deps.clock.now();
  await insertEvent(ctx.q, ctx.orgId, {
    eventId,
    calendarId: cal.calendar_id,
    organizerId: cal.owner_id,
    title: p.title,
    description: p.description ?? null,
    location: p.location ?? null,
    times,
    rrule,
    exdates,
    eventType: p.eventType,
    visibility: p.visibility,
    transparency: p.transparency,
    sequence: 0,
    icalUid: icalUidOf(eventId),
    splitFrom: null,
    createdBy: ctx.principal.id,
    at: now,
  });
  await insertAttendees(ctx.q, ctx.orgId, eventId, attendees, now);
  const members = attendees.flatMap((a) => (a.principalId ? [a.principalId] : []));
  const conflicts = await conflictsWith(ctx.q, ctx.orgId, eventId, members, firstInstances(seriesOf(times, rrule, exdates), CONFLICT_INSTANCES));
  const invitations = await invite(ctx, { eventId, method: 'REQUEST', notify: p.notify });
  const row = await requireEvent(ctx.q, ctx.orgId, eventId);
  const event = seriesView(row, await attendeesOf(ctx.q, ctx.orgId, [eventId]), as);
  await ctx.emit('calendar.event.create', eventId, {
    eventId,
    calendarId: cal.calendar_id,
    organizerId: cal.owner_id,
    sequence: 0,
    attendees: attendees.length - 1,
    members: members.length - 1,
    outsiders: attendees.filter((a) => !a.principalId).length,
    recurring: rrule !== null,
    allDay: times.start.allDay,
    visibility: p.visibility,
    eventType: p.eventType,
    conflicts: conflicts.length,
    notify: p.notify,
    ...invitations,
  });
  return { event, conflicts, invitations, changed: true };
});
