import { badRequest, conflict } from '../../protocol/errors.js';
import { calendarEvents as c } from '../../protocol/methods/calendar/events.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import {
  actingAs,
  insertAttendees,
  occurrenceView,
  requireConfirmed,
  requireOrganizer,
  resolveAttendees,
  resolveScope,
  seriesView,
  writableCalendar,
} from './access.js';
import { attendeesOf, requireEvent, type EventRow } from './model.js';
import { addInvitations, feed, invite, occurrenceChanged, type Invitations } from './notify.js';
import { occurrenceOf } from './occurrences.js';
import { splitSeries } from './split.js';

/*
 * calendar.update: words, kind and attendees of an event (the organizer, or its sponsor's agent); times change
 * with calendar.reschedule. scope this writes an override of one occurrence (words only), following splits the
 * series, all changes the row. With calendarId and feed it rotates or stops the calendar's ICS feed instead.
 */

const NONE: Invitations = { emailed: 0, heldForReview: 0 };

type Fields = Partial<Pick<EventRow, 'title' | 'description' | 'location' | 'visibility' | 'event_type' | 'transparency'>>;

async function feedChange(ctx: HandlerCtx, p: { calendarId: string; feed?: 'rotate' | 'off'; eventId?: string }) {
  if (p.eventId) throw badRequest('calendarId', 'give eventId (an event) or calendarId with feed (the feed), not both');
  if (!p.feed) throw badRequest('feed', 'required with calendarId: rotate or off');
  const as = await actingAs(ctx.q, ctx);
  await writableCalendar(ctx, as, p.calendarId);
  const out = await feed(ctx, p.calendarId, p.feed);
  const { url, ...state } = out.feed;
  return { event: null, feed: state, feedUrl: url, invitations: NONE, changed: out.changed };
}

export const update = handler(c.update, async (ctx, p) => {
  if (p.start !== undefined) throw badRequest('start', 'use calendar.reschedule to change times');
  if (p.end !== undefined) throw badRequest('end', 'use calendar.reschedule to change times');
  if (p.calendarId) return feedChange(ctx, { calendarId: p.calendarId, feed: p.feed, eventId: p.eventId });
  if (p.feed) throw badRequest('feed', 'needs calendarId (the calendar whose feed to change)');
  if (!p.eventId) throw badRequest('eventId', 'required (or calendarId with feed)');
  const row = await requireEvent(ctx.q, ctx.orgId, p.eventId, 'FOR UPDATE');
  const as = await actingAs(ctx.q, ctx);
  requireOrganizer(row, as, 'change');
  requireConfirmed(row);
  const { scope, at } = resolveScope(row, p.scope, p.originalStart);
  const wanted: Fields = {};
  if (p.title !== undefined) wanted.title = p.title;
  if (p.description !== undefined) wanted.description = p.description;
  if (p.location !== undefined) wanted.location = p.location;
  if (p.visibility !== undefined) wanted.visibility = p.visibility;
  if (p.eventType !== undefined) wanted.event_type = p.eventType;
  if (p.transparency !== undefined) wanted.transparency = p.transparency;
  const now = ctx.deps.clock.now().toISOString();

  if (scope === 'this' && at) {
    for (const k of ['visibility', 'eventType', 'transparency', 'attendees'] as const) {
      if (p[k] !== undefined) throw badRequest(k, 'applies to the whole series: use scope all or following');
    }
    const o = (await occurrenceOf(ctx.q, ctx.orgId, row, at))!;
    if (o.status === 'cancelled') throw conflict(`occurrence ${at.toISOString()} of calendar event ${row.event_id} is cancelled: nothing to change`);
    const fields = (['title', 'description', 'location'] as const).filter((k) => wanted[k] !== undefined && wanted[k] !== o[k]);
    if (fields.length === 0) {
      await ctx.emit('calendar.event.update', row.event_id, { eventId: row.event_id, scope, originalStart: at.toISOString(), noop: true });
      return { event: occurrenceView(o, as), feed: null, feedUrl: null, invitations: NONE, changed: false };
    }
    await ctx.q.query(
      `INSERT INTO calendar_overrides (org_id, event_id, original_start, title, description, location, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (org_id, event_id, original_start) DO UPDATE SET title = coalesce($4, calendar_overrides.title),
         description = CASE WHEN $8 THEN $5 ELSE calendar_overrides.description END, location = CASE WHEN $9 THEN $6 ELSE calendar_overrides.location END, updated_at = $7`,
      [
        ctx.orgId,
        row.event_id,
        at.toISOString(),
        wanted.title ?? null,
        wanted.description ?? null,
        wanted.location ?? null,
        now,
        wanted.description !== undefined,
        wanted.location !== undefined,
      ],
    );
    await ctx.q.query('UPDATE calendar_events SET version = version + 1, updated_at = $3 WHERE org_id = $1 AND event_id = $2', [ctx.orgId, row.event_id, now]);
    const done = await occurrenceChanged(ctx, { row, at, as, notify: p.notify }, 'calendar.event.update', { fields, sequence: o.sequence });
    return { event: done.event, feed: null, feedUrl: null, invitations: done.invitations, changed: true };
  }

  const current = await attendeesOf(ctx.q, ctx.orgId, [row.event_id]);
  const nextList = p.attendees ? await resolveAttendees(ctx.q, ctx.orgId, p.attendees, row.organizer_id) : null;
  const keys = new Set(current.map((a) => a.attendee_key));
  const added = nextList ? nextList.filter((a) => !keys.has(a.key)) : [];
  const removed = nextList ? current.filter((a) => !a.organizer && !nextList.some((n) => n.key === a.attendee_key)) : [];
  const optionalChanged = nextList ? nextList.filter((n) => current.some((a) => a.attendee_key === n.key && !a.organizer && a.optional !== n.optional)) : [];
  const fields = (Object.keys(wanted) as (keyof Fields)[]).filter((k) => wanted[k] !== row[k]);
  if (nextList && (added.length || removed.length || optionalChanged.length)) fields.push('attendees' as keyof Fields);
  if (fields.length === 0) {
    await ctx.emit('calendar.event.update', row.event_id, { eventId: row.event_id, scope, noop: true });
    return { event: seriesView(row, current, as), feed: null, feedUrl: null, invitations: NONE, changed: false };
  }

  let target = row.event_id;
  let split: string | null = null;
  if (scope === 'following' && at) {
    const done = await splitSeries(ctx, row, at, { fields: wanted });
    if (done) target = split = done.newEventId;
  }
  // Removed attendees hear of it before their rows go.
  let invitations = NONE;
  if (removed.length) invitations = await invite(ctx, { eventId: target, method: 'CANCEL', notify: p.notify, recipients: removed.map((a) => a.attendee_key) });
  if (!split) {
    await ctx.q.query(
      `UPDATE calendar_events SET title = $3, description = $4, location = $5, visibility = $6, event_type = $7, transparency = $8,
              version = version + 1, updated_at = $9 WHERE org_id = $1 AND event_id = $2`,
      [
        ctx.orgId,
        row.event_id,
        wanted.title ?? row.title,
        wanted.description !== undefined ? wanted.description : row.description,
        wanted.location !== undefined ? wanted.location : row.location,
        wanted.visibility ?? row.visibility,
        wanted.event_type ?? row.event_type,
        wanted.transparency ?? row.transparency,
        now,
      ],
    );
  }
  if (removed.length) {
    const gone = removed.map((a) => a.attendee_key);
    await ctx.q.query('DELETE FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2 AND attendee_key = ANY($3::text[])', [
      ctx.orgId,
      target,
      gone,
    ]);
    await ctx.q.query('DELETE FROM calendar_attendees WHERE org_id = $1 AND event_id = $2 AND attendee_key = ANY($3::text[])', [ctx.orgId, target, gone]);
  }
  await insertAttendees(ctx.q, ctx.orgId, target, added, ctx.deps.clock.now());
  for (const a of optionalChanged) {
    await ctx.q.query('UPDATE calendar_attendees SET optional = $4 WHERE org_id = $1 AND event_id = $2 AND attendee_key = $3', [
      ctx.orgId,
      target,
      a.key,
      a.optional,
    ]);
  }
  invitations = addInvitations(invitations, await invite(ctx, { eventId: target, method: 'REQUEST', notify: p.notify }));
  if (split) invitations = addInvitations(invitations, await invite(ctx, { eventId: row.event_id, method: 'REQUEST', notify: p.notify }));
  const after = await requireEvent(ctx.q, ctx.orgId, target);
  const event = seriesView(after, await attendeesOf(ctx.q, ctx.orgId, [target]), as);
  await ctx.emit('calendar.event.update', row.event_id, {
    eventId: row.event_id,
    scope,
    ...(at ? { originalStart: at.toISOString() } : {}),
    fields,
    attendeesAdded: added.length,
    attendeesRemoved: removed.length,
    newEventId: split,
    sequence: Number(after.sequence),
    ...invitations,
  });
  return { event, feed: null, feedUrl: null, invitations, changed: true };
});
