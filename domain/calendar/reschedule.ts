import { badRequest, conflict } from '../../protocol/errors.js';
import { calendarEvents as c } from '../../protocol/methods/calendar/events.js';
import { handler } from '../core/handler.js';
import { actingAs, occurrenceView, requireConfirmed, requireOrganizer, resolveScope, seriesView } from './access.js';
import { attendeesOf, iso, overridesOf, requireEvent, seriesTime } from './model.js';
import { addInvitations, conflictsWith, invite, occurrenceChanged } from './notify.js';
import { occurrenceOf } from './occurrences.js';
import { firstInstances, occurrenceAt, shiftWall, wallAt, type Instance } from './recurrence.js';
import { splitSeries } from './split.js';
import { refreshSeriesEnd, resetAnswers, seriesOf, timesOf } from './write.js';

/*
 * calendar.reschedule: a new time. SEQUENCE+1 and every answer back to needsAction (the organizer stays accepted),
 * so attendees' clients take the new invitation. this: an override of one occurrence; following: the series splits
 * there; all: the series moves by the same wall-clock shift (its exdates with it; moved occurrences reset).
 */

export const reschedule = handler(c.reschedule, async (ctx, p) => {
  const times = timesOf(p.start, p.end);
  const row = await requireEvent(ctx.q, ctx.orgId, p.eventId, 'FOR UPDATE');
  const as = await actingAs(ctx.q, ctx);
  requireOrganizer(row, as, 'reschedule');
  requireConfirmed(row);
  const { scope, at } = resolveScope(row, p.scope, p.originalStart);
  if (row.rrule && times.start.allDay !== row.all_day) {
    throw badRequest('start', row.all_day ? 'must be a date: the series is all-day' : 'must be a dateTime with timeZone: the series is timed');
  }
  const now = ctx.deps.clock.now().toISOString();
  const members = (await attendeesOf(ctx.q, ctx.orgId, [row.event_id])).flatMap((a) => (a.principal_id ? [a.principal_id] : []));
  const noop = async (event: unknown) => {
    await ctx.emit('calendar.event.reschedule', row.event_id, { eventId: row.event_id, scope, ...(at ? { originalStart: at.toISOString() } : {}), noop: true });
    return { event, conflicts: [], invitations: { emailed: 0, heldForReview: 0 }, changed: false };
  };
  const moved: Instance = { originalStart: times.start.at, start: times.start.at, end: times.end.at, wall: times.start.wall };

  if (scope === 'this' && at) {
    const o = (await occurrenceOf(ctx.q, ctx.orgId, row, at))!;
    if (o.status === 'cancelled') throw conflict(`occurrence ${at.toISOString()} of calendar event ${row.event_id} is cancelled: create a new event instead`);
    if (o.start.getTime() === times.start.at.getTime() && o.end.getTime() === times.end.at.getTime() && o.timeZone === times.start.zone)
      return noop(occurrenceView(o, as));
    const sequence = Number(row.sequence) + 1;
    await ctx.q.query(
      `INSERT INTO calendar_overrides (org_id, event_id, original_start, start_local, end_local, time_zone, end_time_zone, start_date, end_date, start_at, end_at, sequence, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (org_id, event_id, original_start) DO UPDATE SET start_local = $4, end_local = $5, time_zone = $6, end_time_zone = $7, start_date = $8,
         end_date = $9, start_at = $10, end_at = $11, sequence = $12, updated_at = $13`,
      [
        ctx.orgId,
        row.event_id,
        at.toISOString(),
        times.start.allDay ? null : times.start.wall,
        times.start.allDay ? null : times.end.wall,
        times.start.zone,
        times.end.zone,
        times.start.date,
        times.end.date,
        times.start.at.toISOString(),
        times.end.at.toISOString(),
        sequence,
        now,
      ],
    );
    // This occurrence's answers reset; the series' stand for the others.
    await ctx.q.query(
      `INSERT INTO calendar_override_responses (org_id, event_id, original_start, attendee_key, response_status, responded_at)
       SELECT org_id, event_id, $3, attendee_key, CASE WHEN organizer THEN 'accepted' ELSE 'needsAction' END, $4
         FROM calendar_attendees WHERE org_id = $1 AND event_id = $2
       ON CONFLICT (org_id, event_id, original_start, attendee_key) DO UPDATE SET response_status = excluded.response_status, responded_at = excluded.responded_at`,
      [ctx.orgId, row.event_id, at.toISOString(), now],
    );
    await ctx.q.query('UPDATE calendar_events SET sequence = $3, version = version + 1, updated_at = $4 WHERE org_id = $1 AND event_id = $2', [
      ctx.orgId,
      row.event_id,
      sequence,
      now,
    ]);
    const conflicts = await conflictsWith(ctx.q, ctx.orgId, row.event_id, members, [moved]);
    const done = await occurrenceChanged(ctx, { row, at, as, notify: p.notify }, 'calendar.event.reschedule', { sequence, conflicts: conflicts.length });
    return { event: done.event, conflicts, invitations: done.invitations, changed: true };
  }

  if (scope === 'following' && at) {
    const split = await splitSeries(ctx, row, at, { times });
    if (split) {
      const fresh = await requireEvent(ctx.q, ctx.orgId, split.newEventId);
      const conflicts = await conflictsWith(ctx.q, ctx.orgId, split.newEventId, members, firstInstances(seriesTime(fresh), 50));
      let invitations = await invite(ctx, { eventId: split.newEventId, method: 'REQUEST', notify: p.notify });
      invitations = addInvitations(invitations, await invite(ctx, { eventId: row.event_id, method: 'REQUEST', notify: p.notify }));
      const event = seriesView(fresh, await attendeesOf(ctx.q, ctx.orgId, [fresh.event_id]), as);
      await ctx.emit('calendar.event.reschedule', row.event_id, {
        eventId: row.event_id,
        scope,
        originalStart: at.toISOString(),
        newEventId: split.newEventId,
        sequence: Number(row.sequence) + 1,
        conflicts: conflicts.length,
        ...invitations,
      });
      return { event, conflicts, invitations, changed: true };
    }
  }

  // all (or following from the first occurrence): the series moves by the shift of the named (or first) occurrence.
  const s = seriesTime(row);
  const anchor = at ? occurrenceAt(s, at)! : { wall: s.startWall, start: new Date(row.start_at) };
  const startWall = row.rrule ? shiftWall(s.startWall, anchor.wall, times.start.wall) : times.start.wall;
  const durationMs = times.end.at.getTime() - times.start.at.getTime();
  const first = seriesOf({ start: { ...times.start, wall: startWall }, end: times.end }, null, []);
  const startAt = firstInstances(first, 1)[0].start;
  const endAt = new Date(startAt.getTime() + durationMs);
  if (startAt.getTime() === new Date(row.start_at).getTime() && endAt.getTime() === new Date(row.end_at).getTime() && times.start.zone === row.time_zone) {
    return noop(seriesView(row, await attendeesOf(ctx.q, ctx.orgId, [row.event_id]), as));
  }
  // Cancelled occurrences stay cancelled at their shifted places; moved ones follow the series again.
  const cancelled = (await overridesOf(ctx.q, ctx.orgId, [row.event_id])).filter((o) => o.status === 'cancelled');
  const exdates = [...s.exdates, ...cancelled.map((o) => wallAt(new Date(iso(o.original_start)), s.timeZone))].map((w) =>
    row.rrule ? shiftWall(w, anchor.wall, times.start.wall) : w,
  );
  await ctx.q.query('DELETE FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2', [ctx.orgId, row.event_id]);
  await ctx.q.query('DELETE FROM calendar_overrides WHERE org_id = $1 AND event_id = $2', [ctx.orgId, row.event_id]);
  const sequence = Number(row.sequence) + 1;
  const endWall = wallAt(endAt, times.end.zone);
  await ctx.q.query(
    `UPDATE calendar_events SET all_day = $3, start_local = $4, end_local = $5, time_zone = $6, end_time_zone = $7, start_date = $8, end_date = $9,
            start_at = $10, end_at = $11, exdates = $12::timestamp[], sequence = $13, version = version + 1, updated_at = $14
      WHERE org_id = $1 AND event_id = $2`,
    [
      ctx.orgId,
      row.event_id,
      times.start.allDay,
      times.start.allDay ? null : startWall,
      times.start.allDay ? null : endWall,
      times.start.zone,
      times.end.zone,
      times.start.allDay ? startWall.slice(0, 10) : null,
      times.start.allDay ? iso(endAt).slice(0, 10) : null,
      startAt.toISOString(),
      endAt.toISOString(),
      row.rrule ? exdates : [],
      sequence,
      now,
    ],
  );
  const after = await requireEvent(ctx.q, ctx.orgId, row.event_id);
  await refreshSeriesEnd(ctx.q, ctx.orgId, row.event_id, seriesTime(after));
  await resetAnswers(ctx.q, ctx.orgId, row.event_id);
  const conflicts = await conflictsWith(ctx.q, ctx.orgId, row.event_id, members, firstInstances(seriesTime(after), 50));
  const invitations = await invite(ctx, { eventId: row.event_id, method: 'REQUEST', notify: p.notify });
  const final = await requireEvent(ctx.q, ctx.orgId, row.event_id);
  const event = seriesView(final, await attendeesOf(ctx.q, ctx.orgId, [row.event_id]), as);
  await ctx.emit('calendar.event.reschedule', row.event_id, { eventId: row.event_id, scope, sequence, conflicts: conflicts.length, ...invitations });
  return { event, conflicts, invitations, changed: true };
});
