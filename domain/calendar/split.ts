import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { iso, seriesTime, type EventRow } from './model.js';
import { occurrenceAt, ruleEndingBefore, ruleFrom, shiftWall, wallAt, type Wall } from './recurrence.js';
import { icalUidOf, insertEvent, refreshSeriesEnd, timesOfRow, type Times } from './write.js';

/*
 * A `following` change splits a series at an occurrence: the old series ends before it (COUNT cut, or UNTIL one
 * second before), the new one starts there (or at its new time) and names the old in split_from. Attendees are
 * copied; overrides and per-occurrence answers from the cut on move to the new series, or are dropped when the
 * times change. Returns null when the cut is the first occurrence (then `following` is `all`).
 */

export interface Split {
  newEventId: string;
}

export async function splitSeries(
  ctx: HandlerCtx,
  row: EventRow,
  at: Date,
  change: { times?: Times; fields?: Partial<Pick<EventRow, 'title' | 'description' | 'location' | 'visibility' | 'event_type' | 'transparency'>> },
): Promise<Split | null> {
  const s = seriesTime(row);
  const oldRule = ruleEndingBefore(s, at);
  if (oldRule === null) return null;
  const occurrence = occurrenceAt(s, at)!;
  const keep = (w: Wall) => w < occurrence.wall;
  // The new series' first occurrence: the cut's wall clock, or the new time; later exdates follow the same shift.
  let times: Times;
  if (change.times) {
    times = change.times;
  } else {
    const t = timesOfRow(row);
    const endAt = new Date(at.getTime() + s.durationMs);
    times = {
      start: { ...t.start, wall: occurrence.wall, at, date: row.all_day ? iso(at).slice(0, 10) : null },
      end: { ...t.end, wall: wallAt(endAt, t.end.zone), at: endAt, date: row.all_day ? iso(endAt).slice(0, 10) : null },
    };
  }
  const newExdates = s.exdates.filter((w) => !keep(w)).map((w) => (change.times ? shiftWall(w, occurrence.wall, times.start.wall) : w));
  const newEventId = newId('cev');
  const now = ctx.deps.clock.now();
  const f = change.fields ?? {};
  await insertEvent(ctx.q, ctx.orgId, {
    eventId: newEventId,
    calendarId: row.calendar_id,
    organizerId: row.organizer_id,
    organizerEmail: row.organizer_email,
    title: f.title ?? row.title,
    description: f.description !== undefined ? f.description : row.description,
    location: f.location !== undefined ? f.location : row.location,
    times,
    rrule: ruleFrom(s, at),
    exdates: newExdates,
    eventType: f.event_type ?? row.event_type,
    visibility: f.visibility ?? row.visibility,
    transparency: f.transparency ?? row.transparency,
    sequence: 0,
    icalUid: icalUidOf(newEventId),
    splitFrom: row.event_id,
    createdBy: ctx.principal.id,
    at: now,
  });
  await ctx.q.query(
    `INSERT INTO calendar_attendees (org_id, event_id, attendee_key, principal_id, person_id, email, display_name, optional, organizer, response_status, responded_at)
     SELECT org_id, $3, attendee_key, principal_id, person_id, email, display_name, optional, organizer,
            CASE WHEN $4 AND NOT organizer THEN 'needsAction' ELSE response_status END, CASE WHEN $4 AND NOT organizer THEN NULL ELSE responded_at END
       FROM calendar_attendees WHERE org_id = $1 AND event_id = $2`,
    [ctx.orgId, row.event_id, newEventId, change.times !== undefined],
  );
  if (change.times) {
    await ctx.q.query('DELETE FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2 AND original_start >= $3', [
      ctx.orgId,
      row.event_id,
      at.toISOString(),
    ]);
    await ctx.q.query('DELETE FROM calendar_overrides WHERE org_id = $1 AND event_id = $2 AND original_start >= $3', [
      ctx.orgId,
      row.event_id,
      at.toISOString(),
    ]);
  } else {
    await ctx.q.query(
      `INSERT INTO calendar_overrides (org_id, event_id, original_start, status, start_local, end_local, time_zone, end_time_zone, start_date, end_date,
         start_at, end_at, title, description, location, sequence, updated_at)
       SELECT org_id, $3, original_start, status, start_local, end_local, time_zone, end_time_zone, start_date, end_date,
         start_at, end_at, title, description, location, sequence, updated_at
         FROM calendar_overrides WHERE org_id = $1 AND event_id = $2 AND original_start >= $4`,
      [ctx.orgId, row.event_id, newEventId, at.toISOString()],
    );
    await ctx.q.query(
      `INSERT INTO calendar_override_responses (org_id, event_id, original_start, attendee_key, response_status, responded_at)
       SELECT org_id, $3, original_start, attendee_key, response_status, responded_at
         FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2 AND original_start >= $4`,
      [ctx.orgId, row.event_id, newEventId, at.toISOString()],
    );
    await ctx.q.query('DELETE FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2 AND original_start >= $3', [
      ctx.orgId,
      row.event_id,
      at.toISOString(),
    ]);
    await ctx.q.query('DELETE FROM calendar_overrides WHERE org_id = $1 AND event_id = $2 AND original_start >= $3', [
      ctx.orgId,
      row.event_id,
      at.toISOString(),
    ]);
  }
  await truncateSeries(ctx, row, oldRule, s.exdates.filter(keep));
  return { newEventId };
}

/** The old half: its rule cut, its exdates kept before the cut, sequence+1 (attendees get the shorter series). */
export async function truncateSeries(ctx: HandlerCtx, row: EventRow, rule: string, exdates: readonly Wall[]): Promise<void> {
  await ctx.q.query(
    `UPDATE calendar_events SET rrule = $3, exdates = $4::timestamp[], sequence = sequence + 1, version = version + 1, updated_at = $5
      WHERE org_id = $1 AND event_id = $2`,
    [ctx.orgId, row.event_id, rule, exdates, ctx.deps.clock.now().toISOString()],
  );
  await refreshSeriesEnd(ctx.q, ctx.orgId, row.event_id, { ...seriesTime(row), rrule: rule, exdates });
}
