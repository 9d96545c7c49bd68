import type { Queryable } from '../../../db/types.js';
import { appendEvent } from '../../../ledger/append.js';
import { newId } from '../../core/ids.js';
import type { MailArrival } from '../../email/index.js';
import { ensureCalendar, getEventRow, attendeesOf, type EventRow } from '../model.js';
import { normaliseRule, seriesEnd, wallAt, type SeriesTime } from '../recurrence.js';
import { IcsError, parseCalendar, responseOf, type ParsedEvent, type ParsedTime } from './ics.js';

/*
 * iTIP mail arriving for the org (the email family hands over each text/calendar part of mail filed outside Spam, in
 * its receive transaction), applied as the system actor with one `calendar.itip.apply` event per change:
 * - REPLY to a member's event: the attendee whose address sent it gets the PARTSTAT as response (of one occurrence
 *   with RECURRENCE-ID). Someone else's address, or an unknown UID, changes nothing.
 * - REQUEST from an outsider: the event on the invited members' calendars (the first recipient's holds it, the
 *   others attend), organizer_email set; a newer SEQUENCE updates it and, when the time moved, resets answers.
 * - CANCEL from that organizer: the event (or one occurrence) cancelled.
 * A SEQUENCE older than the stored one is ignored: the log says so (ids only). Payloads carry ids, counts and
 * statuses, never addresses or titles.
 */

const KIND = 'calendar.itip.apply';

type Outcome = { eventId: string; payload: Record<string, unknown> } | null;

async function emit(q: Queryable, a: MailArrival, o: Outcome, method: string, messageId: string): Promise<void> {
  if (!o) return;
  await appendEvent(q, a.orgId, {
    family: 'calendar',
    kind: KIND,
    entityId: o.eventId,
    actor: '',
    payload: { eventId: o.eventId, method, messageId, ...o.payload },
  });
}

/** The email family's `mailArrivals` hook: each part's iTIP method applied. */
export async function applyItipMail(q: Queryable, a: MailArrival): Promise<void> {
  const messageId = a.messages[0]?.messageId ?? '';
  for (const part of a.parts) {
    let cal;
    try {
      cal = parseCalendar(part.text);
    } catch (err) {
      if (!(err instanceof IcsError)) throw err;
      a.log.warn({ orgId: a.orgId, messageId }, 'calendar part ignored: not iCalendar text');
      continue;
    }
    const method = (cal.method ?? part.method ?? '').toUpperCase();
    for (const e of cal.events) {
      const log = { orgId: a.orgId, messageId, method, sequence: e.sequence };
      if (method === 'REPLY') await emit(q, a, await applyReply(q, a, e, log), method, messageId);
      else if (method === 'REQUEST') await emit(q, a, await applyRequest(q, a, e, log), method, messageId);
      else if (method === 'CANCEL') await emit(q, a, await applyCancel(q, a, e, log), method, messageId);
      else a.log.info(log, 'calendar part ignored: only REPLY, REQUEST and CANCEL are applied');
    }
  }
}

async function byUid(q: Queryable, orgId: string, uid: string): Promise<EventRow | null> {
  const [row] = await q.query<{ event_id: string }>('SELECT event_id FROM calendar_events WHERE org_id = $1 AND ical_uid = $2', [orgId, uid]);
  return row ? getEventRow(q, orgId, row.event_id, 'FOR UPDATE') : null;
}

async function applyReply(q: Queryable, a: MailArrival, e: ParsedEvent, log: Record<string, unknown>): Promise<Outcome> {
  const ev = await byUid(q, a.orgId, e.uid);
  if (!ev || ev.organizer_email) {
    a.log.info(log, 'calendar REPLY ignored: no event of the org organized here has its UID');
    return null;
  }
  if (e.sequence < Number(ev.sequence)) {
    a.log.info({ ...log, eventId: ev.event_id, stored: Number(ev.sequence) }, 'calendar REPLY ignored: stale SEQUENCE (an answer to an older version)');
    return null;
  }
  // Only the sender answers for themself: the ATTENDEE line with the From address.
  const line = e.attendees.find((x) => x.email === a.from);
  const response = line ? responseOf(String(line.partstat)) : null;
  const attendees = await attendeesOf(q, a.orgId, [ev.event_id]);
  const mine = attendees.find((x) => x.email?.toLowerCase() === a.from && !x.organizer);
  if (!line || !response || !mine) {
    a.log.info({ ...log, eventId: ev.event_id }, 'calendar REPLY ignored: the sender is not an attendee answering for themself');
    return null;
  }
  const at = a.at.toISOString();
  if (e.recurrenceId) {
    const original = e.recurrenceId.instant.toISOString();
    await q.query(
      `INSERT INTO calendar_override_responses (org_id, event_id, original_start, attendee_key, response_status, responded_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (org_id, event_id, original_start, attendee_key) DO UPDATE SET response_status = EXCLUDED.response_status, responded_at = EXCLUDED.responded_at`,
      [a.orgId, ev.event_id, original, mine.attendee_key, response, at],
    );
    return { eventId: ev.event_id, payload: { outcome: 'reply', sequence: e.sequence, originalStart: original, responseStatus: response } };
  }
  if (mine.response_status === response) {
    return { eventId: ev.event_id, payload: { outcome: 'reply', sequence: e.sequence, originalStart: null, responseStatus: response, noop: true } };
  }
  await q.query('UPDATE calendar_attendees SET response_status = $4, responded_at = $5 WHERE org_id = $1 AND event_id = $2 AND attendee_key = $3', [
    a.orgId,
    ev.event_id,
    mine.attendee_key,
    response,
    at,
  ]);
  await q.query('UPDATE calendar_events SET updated_at = $3 WHERE org_id = $1 AND event_id = $2', [a.orgId, ev.event_id, at]);
  return {
    eventId: ev.event_id,
    payload: { outcome: 'reply', sequence: e.sequence, originalStart: null, responseStatus: response, previous: mine.response_status },
  };
}

/** The members the mail reached, by their address (principals.email), in the order of `to`. */
async function membersAt(q: Queryable, orgId: string, addresses: readonly string[]): Promise<{ principal_id: string; email: string }[]> {
  if (addresses.length === 0) return [];
  const rows = await q.query<{ principal_id: string; email: string }>(
    `SELECT principal_id, lower(email) AS email FROM principals WHERE org_id = $1 AND lower(email) = ANY($2::text[]) AND status = 'active' ORDER BY principal_id`,
    [orgId, addresses.map((x) => x.toLowerCase())],
  );
  return rows;
}

/** The stored columns of an outsider's times; null when they cannot be kept (no start, an unsupported rule). */
function columnsOf(e: ParsedEvent): Record<string, unknown> | null {
  const s = e.start;
  if (!s) return null;
  const end: ParsedTime =
    e.end && e.end.instant > s.instant
      ? e.end
      : 'date' in s
        ? { date: next(s.date), instant: new Date(s.instant.getTime() + 86_400_000) }
        : { ...s, instant: new Date(s.instant.getTime() + 1) };
  const allDay = 'date' in s;
  const zone = 'timeZone' in s ? s.timeZone : null;
  const wall = 'date' in s ? `${s.date}T00:00:00` : s.dateTime;
  let rrule: string | null = null;
  if (e.rrule) {
    try {
      rrule = normaliseRule(e.rrule, { allDay, wall, zone });
    } catch {
      return null;
    }
  }
  const exdates = e.exdates.map((x) =>
    'date' in x ? `${x.date}T00:00:00` : 'timeZone' in s && x.timeZone === s.timeZone ? x.dateTime : wallIn(x.instant, zone),
  );
  const series: SeriesTime = { allDay, startWall: wall, timeZone: zone, durationMs: end.instant.getTime() - s.instant.getTime(), rrule, exdates };
  return {
    all_day: allDay,
    start_local: allDay ? null : wall,
    end_local: 'dateTime' in end ? end.dateTime : null,
    time_zone: zone,
    end_time_zone: 'timeZone' in end ? end.timeZone : null,
    start_date: 'date' in s ? s.date : null,
    end_date: 'date' in end ? end.date : null,
    start_at: s.instant.toISOString(),
    end_at: end.instant.toISOString(),
    rrule,
    exdates,
    series_end_at: rrule ? (seriesEnd(series)?.toISOString() ?? null) : end.instant.toISOString(),
  };
}

const next = (date: string) => new Date(new Date(`${date}T00:00:00Z`).getTime() + 86_400_000).toISOString().slice(0, 10);
/** An exdate given in another zone than the start: its wall clock in the start's zone. */
const wallIn = (at: Date, zone: string | null) => wallAt(at, zone);

const TIME_COLUMNS = [
  'all_day',
  'start_local',
  'end_local',
  'time_zone',
  'end_time_zone',
  'start_date',
  'end_date',
  'start_at',
  'end_at',
  'rrule',
  'exdates',
  'series_end_at',
];

async function applyRequest(q: Queryable, a: MailArrival, e: ParsedEvent, log: Record<string, unknown>): Promise<Outcome> {
  if (!e.organizer || e.organizer !== a.from) {
    a.log.info(log, 'calendar REQUEST ignored: the sender is not its organizer');
    return null;
  }
  const invited = await membersAt(q, a.orgId, a.to);
  if (invited.length === 0) {
    a.log.info(log, 'calendar REQUEST ignored: it reached no member by their address');
    return null;
  }
  if (e.recurrenceId) {
    a.log.info(log, 'calendar REQUEST for one occurrence ignored: only whole events from outside are kept');
    return null;
  }
  const cols = columnsOf(e);
  if (!cols) {
    a.log.info(log, 'calendar REQUEST ignored: no start, or a rule the calendar does not support');
    return null;
  }
  const at = a.at.toISOString();
  const existing = await byUid(q, a.orgId, e.uid);
  if (existing && !existing.organizer_email) {
    a.log.info({ ...log, eventId: existing.event_id }, 'calendar REQUEST ignored: the UID is an event organized here');
    return null;
  }
  if (existing && existing.organizer_email !== e.organizer) {
    a.log.info({ ...log, eventId: existing.event_id }, 'calendar REQUEST ignored: another organizer than the stored one');
    return null;
  }
  if (existing && e.sequence < Number(existing.sequence)) {
    a.log.info({ ...log, eventId: existing.event_id, stored: Number(existing.sequence) }, 'calendar REQUEST ignored: stale SEQUENCE');
    return null;
  }
  let eventId: string;
  let outcome: 'create' | 'update';
  let reset = false;
  if (!existing) {
    const cal = await ensureCalendar(q, a.orgId, invited[0].principal_id);
    eventId = newId('cev');
    outcome = 'create';
    await q.query(
      `INSERT INTO calendar_events (org_id, event_id, calendar_id, organizer_id, organizer_email, title, description, location, all_day, start_local, end_local,
         time_zone, end_time_zone, start_date, end_date, start_at, end_at, rrule, exdates, series_end_at, status, sequence, ical_uid, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, NULL, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18::timestamp[], $19, $20, $21, $22, '', $23, $23)`,
      [
        a.orgId,
        eventId,
        cal.calendar_id,
        e.organizer,
        e.summary.slice(0, 1000),
        e.description,
        e.location,
        ...TIME_COLUMNS.map((c) => cols[c]),
        statusOf(e),
        e.sequence,
        e.uid,
        at,
      ],
    );
  } else {
    eventId = existing.event_id;
    outcome = 'update';
    reset = e.sequence > Number(existing.sequence) && (String(cols.start_at) !== new Date(existing.start_at).toISOString() || cols.rrule !== existing.rrule);
    await q.query(
      `UPDATE calendar_events SET title = $3, description = $4, location = $5, all_day = $6, start_local = $7, end_local = $8, time_zone = $9, end_time_zone = $10,
         start_date = $11, end_date = $12, start_at = $13, end_at = $14, rrule = $15, exdates = $16::timestamp[], series_end_at = $17, status = $18, sequence = $19,
         version = version + 1, updated_at = $20
       WHERE org_id = $1 AND event_id = $2`,
      [a.orgId, eventId, e.summary.slice(0, 1000), e.description, e.location, ...TIME_COLUMNS.map((c) => cols[c]), statusOf(e), e.sequence, at],
    );
  }
  const added = await syncAttendees(q, a, eventId, e, invited, reset);
  return { eventId, payload: { outcome, sequence: e.sequence, attendees: e.attendees.length, added, responsesReset: reset } };
}

const statusOf = (e: ParsedEvent) => (e.status === 'CANCELLED' ? 'cancelled' : 'confirmed');

/** The REQUEST's attendees as rows: members matched by address, others by address; the organizer marked. */
async function syncAttendees(
  q: Queryable,
  a: MailArrival,
  eventId: string,
  e: ParsedEvent,
  invited: { principal_id: string; email: string }[],
  reset: boolean,
): Promise<number> {
  const listed = new Map(e.attendees.map((x) => [x.email, x]));
  const everyone = [...new Set([e.organizer!, ...e.attendees.map((x) => x.email), ...invited.map((m) => m.email)])];
  const members = await membersAt(q, a.orgId, everyone);
  const before = new Set((await attendeesOf(q, a.orgId, [eventId])).map((x) => x.attendee_key));
  let added = 0;
  for (const email of everyone.slice(0, 200)) {
    const member = members.find((m) => m.email === email);
    const key = member?.principal_id ?? email;
    const line = listed.get(email);
    const organizer = email === e.organizer;
    // The organizer's own answer is theirs to give; members start undecided.
    const status = organizer ? 'accepted' : member ? 'needsAction' : (responseOf(String(line?.partstat ?? '')) ?? 'needsAction');
    if (!before.has(key)) added++;
    await q.query(
      `INSERT INTO calendar_attendees (org_id, event_id, attendee_key, principal_id, email, display_name, optional, organizer, response_status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (org_id, event_id, attendee_key) DO UPDATE SET optional = EXCLUDED.optional, display_name = EXCLUDED.display_name,
         response_status = CASE WHEN $10 AND NOT EXCLUDED.organizer THEN 'needsAction' ELSE calendar_attendees.response_status END,
         responded_at = CASE WHEN $10 AND NOT EXCLUDED.organizer THEN NULL ELSE calendar_attendees.responded_at END`,
      [a.orgId, eventId, key, member?.principal_id ?? null, email, line?.name?.slice(0, 200) ?? null, line?.optional ?? false, organizer, status, reset],
    );
  }
  if (reset) await q.query('DELETE FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2', [a.orgId, eventId]);
  return added;
}

async function applyCancel(q: Queryable, a: MailArrival, e: ParsedEvent, log: Record<string, unknown>): Promise<Outcome> {
  const ev = await byUid(q, a.orgId, e.uid);
  if (!ev || !ev.organizer_email || ev.organizer_email !== a.from || (e.organizer && e.organizer !== a.from)) {
    a.log.info(log, 'calendar CANCEL ignored: no event from this organizer has its UID');
    return null;
  }
  if (e.sequence < Number(ev.sequence)) {
    a.log.info({ ...log, eventId: ev.event_id, stored: Number(ev.sequence) }, 'calendar CANCEL ignored: stale SEQUENCE');
    return null;
  }
  const at = a.at.toISOString();
  if (e.recurrenceId) {
    const original = e.recurrenceId.instant.toISOString();
    await q.query(
      `INSERT INTO calendar_overrides (org_id, event_id, original_start, status, sequence, updated_at) VALUES ($1, $2, $3, 'cancelled', $4, $5)
       ON CONFLICT (org_id, event_id, original_start) DO UPDATE SET status = 'cancelled', sequence = EXCLUDED.sequence, updated_at = EXCLUDED.updated_at`,
      [a.orgId, ev.event_id, original, e.sequence, at],
    );
    return { eventId: ev.event_id, payload: { outcome: 'cancel', sequence: e.sequence, originalStart: original } };
  }
  if (ev.status === 'cancelled') return { eventId: ev.event_id, payload: { outcome: 'cancel', sequence: e.sequence, originalStart: null, noop: true } };
  await q.query(`UPDATE calendar_events SET status = 'cancelled', sequence = $3, version = version + 1, updated_at = $4 WHERE org_id = $1 AND event_id = $2`, [
    a.orgId,
    ev.event_id,
    e.sequence,
    at,
  ]);
  return { eventId: ev.event_id, payload: { outcome: 'cancel', sequence: e.sequence, originalStart: null } };
}
