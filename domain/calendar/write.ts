import { badRequest } from '../../protocol/errors.js';
import type { EventTimeIn } from '../../protocol/methods/calendar/shared.js';
import type { Queryable } from '../../db/types.js';
import type { EventRow } from './model.js';
import { resolveTime, seriesEnd, type ResolvedTime, type SeriesTime, type Wall } from './recurrence.js';

/* Writing event rows: a caller's start and end checked, a new event's row, the series' end kept current. */

export interface Times {
  start: ResolvedTime;
  end: ResolvedTime;
}

/** start and end as given, checked: the same kind (timed or all-day), end after start. */
export function timesOf(start: EventTimeIn, end: EventTimeIn): Times {
  const s = resolveTime(start, 'start');
  const e = resolveTime(end, 'end');
  if (s.allDay !== e.allDay) throw badRequest('end', s.allDay ? 'must be a date, as start is ({date})' : 'must be a dateTime with timeZone, as start is');
  if (e.at <= s.at) throw badRequest('end', `must be after start (${s.allDay ? s.date : s.at.toISOString()})`);
  return { start: s, end: e };
}

/** What expansion sees of a new row. */
export const seriesOf = (t: Times, rrule: string | null, exdates: readonly Wall[]): SeriesTime => ({
  allDay: t.start.allDay,
  startWall: t.start.wall,
  timeZone: t.start.zone,
  durationMs: t.end.at.getTime() - t.start.at.getTime(),
  rrule,
  exdates,
});

export interface NewEvent {
  eventId: string;
  calendarId: string;
  organizerId: string | null;
  organizerEmail?: string | null;
  title: string;
  description: string | null;
  location: string | null;
  times: Times;
  rrule: string | null;
  exdates: readonly Wall[];
  eventType: EventRow['event_type'];
  visibility: EventRow['visibility'];
  transparency: EventRow['transparency'];
  sequence: number;
  icalUid: string;
  splitFrom: string | null;
  createdBy: string;
  at: Date;
}

export async function insertEvent(q: Queryable, orgId: string, n: NewEvent): Promise<void> {
  const t = n.times;
  const end = seriesEnd(seriesOf(t, n.rrule, n.exdates));
  await q.query(
    `INSERT INTO calendar_events (org_id, event_id, calendar_id, organizer_id, organizer_email, title, description, location, all_day,
       start_local, end_local, time_zone, end_time_zone, start_date, end_date, start_at, end_at, rrule, exdates, series_end_at,
       event_type, visibility, transparency, status, sequence, ical_uid, split_from, version, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19::timestamp[], $20,
       $21, $22, $23, 'confirmed', $24, $25, $26, 1, $27, $28, $28)`,
    [
      orgId,
      n.eventId,
      n.calendarId,
      n.organizerId,
      n.organizerEmail ?? null,
      n.title,
      n.description,
      n.location,
      t.start.allDay,
      t.start.allDay ? null : t.start.wall,
      t.start.allDay ? null : t.end.wall,
      t.start.zone,
      t.end.zone,
      t.start.date,
      t.end.date,
      t.start.at.toISOString(),
      t.end.at.toISOString(),
      n.rrule,
      n.exdates,
      end ? end.toISOString() : null,
      n.eventType,
      n.visibility,
      n.transparency,
      n.sequence,
      n.icalUid,
      n.splitFrom,
      n.createdBy,
      n.at.toISOString(),
    ],
  );
}

/** The series' times as a Times (to rebuild a row: the split's new half, a moved series). */
export function timesOfRow(e: EventRow): Times {
  const start = new Date(e.start_at);
  const end = new Date(e.end_at);
  if (e.all_day) {
    return {
      start: { allDay: true, wall: `${e.start_date}T00:00:00`, zone: null, date: e.start_date, at: start },
      end: { allDay: true, wall: `${e.end_date}T00:00:00`, zone: null, date: e.end_date, at: end },
    };
  }
  const wall = (v: string) => v.replace(' ', 'T').slice(0, 19);
  return {
    start: { allDay: false, wall: wall(e.start_local!), zone: e.time_zone, date: null, at: start },
    end: { allDay: false, wall: wall(e.end_local!), zone: e.end_time_zone ?? e.time_zone, date: null, at: end },
  };
}

/** A new iCalendar UID for an event id. */
export const icalUidOf = (eventId: string): string => `${eventId}@workspace-ops`;

/** Every answer back to needsAction but the organizer's (a new time), for the series and every occurrence. */
export async function resetAnswers(q: Queryable, orgId: string, eventId: string): Promise<void> {
  await q.query(
    `UPDATE calendar_attendees SET response_status = CASE WHEN organizer THEN 'accepted' ELSE 'needsAction' END,
            responded_at = CASE WHEN organizer THEN responded_at END
      WHERE org_id = $1 AND event_id = $2`,
    [orgId, eventId],
  );
  await q.query('DELETE FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2', [orgId, eventId]);
}

/** A row's series end recomputed after its rule or times changed. */
export async function refreshSeriesEnd(q: Queryable, orgId: string, eventId: string, s: SeriesTime): Promise<void> {
  const end = seriesEnd(s);
  await q.query('UPDATE calendar_events SET series_end_at = $3 WHERE org_id = $1 AND event_id = $2', [orgId, eventId, end ? end.toISOString() : null]);
}
