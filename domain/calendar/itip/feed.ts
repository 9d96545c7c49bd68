import { createHash } from 'node:crypto';
import { ApiError, conflict } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import type { Deps } from '../../core/deps.js';
import type { HandlerCtx } from '../../core/handler.js';
import { newSecret } from '../../core/ids.js';
import { attendeesOf, calendarsByIds, EVENT_COLUMNS, type EventRow, type LoadedEvent } from '../model.js';
import { writeCalendar, type IcsEvent } from './ics.js';
import { veventsOf } from './vevent.js';

/*
 * The read-only ICS feed of a member's calendar: `GET /cal/<token>.ics` (gateway/calendar-feed.ts), METHOD:PUBLISH,
 * for a calendar app to subscribe to. It holds the events on the calendar and those its owner is invited to (not
 * declined), from 90 days back to 366 ahead; private events are busy blocks (no title, place or people). The token
 * `<orgId>.<secret>` is shown once, when the owner turns the feed on or rotates it; only the secret's SHA-256 is
 * kept (calendars.feed_token_hash), so rotating ends the old URL at once and `off` ends the feed. The body is the
 * same bytes while nothing changed (DTSTAMP is each event's last change), so its ETag lets clients poll cheaply.
 */

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const TOKEN = /^(org_[0-9a-z]{1,64})\.(cfd_[0-9a-z]{40})$/;
const BACK_MS = 90 * 86_400_000;
const AHEAD_MS = 366 * 86_400_000;
/** At most this many events in one feed (series count once). */
export const FEED_MAX_EVENTS = 2000;

export interface FeedChange {
  feed: {
    calendarId: string;
    enabled: boolean;
    /** The feed's URL with its token: shown now only; null when the feed is off (and on a no-op). */
    url: string | null;
  };
  changed: boolean;
}

export const feedUrl = (deps: Pick<Deps, 'config'>, token: string) => `${deps.config.publicUrl}/cal/${token}.ics`;

/**
 * Turn the calendar's feed on with a new token (`rotate`: the old URL stops at once) or off. Only the calendar's
 * owner. The calling handler (calendar.update with calendarId) emits its one event: ids and `enabled` only.
 */
export async function rotateFeed(ctx: HandlerCtx, calendarId: string, action: 'rotate' | 'off'): Promise<FeedChange> {
  const [cal] = await calendarsByIds(ctx.q, ctx.orgId, [calendarId]);
  if (cal.owner_id !== ctx.principal.id) {
    throw new ApiError(
      'FORBIDDEN_SCOPE',
      `missing role owner of calendar ${calendarId}: only its owner turns its feed on, rotates or turns it off (the feed URL is their secret)`,
    );
  }
  await ctx.q.query('SELECT 1 FROM calendars WHERE org_id = $1 AND calendar_id = $2 FOR UPDATE', [ctx.orgId, calendarId]);
  const at = ctx.deps.clock.now().toISOString();
  if (action === 'off') {
    if (cal.feed_token_hash === null) return { feed: { calendarId, enabled: false, url: null }, changed: false };
    await ctx.q.query('UPDATE calendars SET feed_token_hash = NULL, feed_rotated_at = $3 WHERE org_id = $1 AND calendar_id = $2', [ctx.orgId, calendarId, at]);
    return { feed: { calendarId, enabled: false, url: null }, changed: true };
  }
  if (action !== 'rotate') throw conflict(`feed action ${String(action)} is not rotate or off`);
  const secret = newSecret('cfd', 40);
  await ctx.q.query('UPDATE calendars SET feed_token_hash = $3, feed_rotated_at = $4 WHERE org_id = $1 AND calendar_id = $2', [
    ctx.orgId,
    calendarId,
    sha256(secret),
    at,
  ]);
  return { feed: { calendarId, enabled: true, url: feedUrl(ctx.deps, `${ctx.orgId}.${secret}`) }, changed: true };
}

export interface Feed {
  body: string;
  etag: string;
}

/** The events the feed shows: on the calendar, or the owner invited and not declined; not cancelled; in the window. */
async function feedEvents(q: Queryable, orgId: string, calendarId: string, ownerId: string, now: Date): Promise<LoadedEvent[]> {
  const from = new Date(now.getTime() - BACK_MS).toISOString();
  const to = new Date(now.getTime() + AHEAD_MS).toISOString();
  const rows = await q.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM calendar_events e
      WHERE e.org_id = $1 AND e.status = 'confirmed' AND e.start_at <= $4 AND (e.series_end_at IS NULL OR e.series_end_at >= $3)
        AND (e.calendar_id = $2 OR EXISTS (SELECT 1 FROM calendar_attendees a WHERE a.org_id = e.org_id AND a.event_id = e.event_id
                                           AND a.principal_id = $5 AND a.response_status <> 'declined'))
      ORDER BY e.start_at, e.event_id LIMIT ${FEED_MAX_EVENTS}`,
    [orgId, calendarId, from, to, ownerId],
  );
  const attendees = await attendeesOf(
    q,
    orgId,
    rows.map((r) => r.event_id),
  );
  return rows.map((r) => ({ ...r, attendees: attendees.filter((a) => a.event_id === r.event_id) }));
}

/** The feed behind a token, or null (unknown, rotated or off: one answer). */
export async function readFeed(deps: Pick<Deps, 'db' | 'clock'>, token: string): Promise<Feed | null> {
  const m = TOKEN.exec(token);
  if (!m) return null;
  const [orgId, secret] = [m[1], m[2]];
  const q = deps.db;
  const [cal] = await q.query<{ calendar_id: string; owner_id: string }>(
    'SELECT calendar_id, owner_id FROM calendars WHERE org_id = $1 AND feed_token_hash = $2',
    [orgId, sha256(secret)],
  );
  if (!cal) return null;
  const events = await feedEvents(q, orgId, cal.calendar_id, cal.owner_id, deps.clock.now());
  const out: IcsEvent[] = [];
  for (const e of events) {
    const busyOnly = e.visibility === 'private';
    out.push(...(await veventsOf(q, orgId, e, { stamp: new Date(e.updated_at), rsvp: false, busyOnly })));
  }
  const body = writeCalendar({ method: 'PUBLISH', events: out, name: 'Calendar' });
  return { body, etag: `"${sha256(body).slice(0, 32)}"` };
}
