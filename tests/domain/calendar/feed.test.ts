import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../../gateway/app.js';
import { eventsAfter, head, rpc, ok } from '../../helpers/calls.js';
import { TestClock } from '../../helpers/clock.js';
import { at } from './kit.js';
import { itipWorld, pyHas, pyParse, type ItipWorld } from './itip-kit.js';

/*
 * The read-only ICS feed, GET /cal/<token>.ics (docs/families/calendar.md, "Invitations and the feed"): METHOD:PUBLISH
 * of the member's calendar and what they are invited to (not declined), private events as busy blocks, an ETag that
 * holds while nothing changed, one 404 for every bad token, and the token redacted from request logs.
 */

let w: ItipWorld;
let token: string;
const CANARY = 'secret-offsite-canary-91c';

beforeAll(async () => {
  // Business time in March 2026: the feed holds 90 days back to 366 ahead of it.
  w = await itipWorld({ workers: false, clock: new TestClock('2026-03-01') });
  const mk = (params: Record<string, unknown>, key = w.ann.key) => ok(w.s, 'calendar.create', { notify: 'none', ...params }, key);
  await mk({
    title: 'Weekly sync',
    start: at('2026-03-01T09:00:00', 'Australia/Sydney'),
    end: at('2026-03-01T09:30:00', 'Australia/Sydney'),
    recurrence: { rrule: 'FREQ=WEEKLY;COUNT=6', exdates: ['2026-04-12T09:00:00'] },
  });
  await mk({
    title: CANARY,
    description: CANARY,
    location: CANARY,
    visibility: 'private',
    start: at('2026-03-05T12:00:00', 'Europe/Berlin'),
    end: at('2026-03-05T13:00:00', 'Europe/Berlin'),
  });
  await mk(
    {
      title: 'Bea invites',
      start: at('2026-03-06T10:00:00', 'America/New_York'),
      end: at('2026-03-06T11:00:00', 'America/New_York'),
      attendees: [{ principalId: w.ann.id }],
    },
    w.bea.key,
  );
  const declined = await mk(
    {
      title: 'Declined one',
      start: at('2026-03-07T10:00:00', 'America/New_York'),
      end: at('2026-03-07T11:00:00', 'America/New_York'),
      attendees: [{ principalId: w.ann.id }],
    },
    w.bea.key,
  );
  await ok(w.s, 'calendar.rsvp', { eventId: declined.event.id, scope: 'all', response: 'declined' }, w.ann.key);
  // The feed turned on as rotateFeed does it: only the secret's SHA-256 is kept.
  const secret = `cfd_${randomBytes(20).toString('hex')}`;
  token = `${w.s.org.orgId}.${secret}`;
  await w.s.runtime.db.query('UPDATE calendars SET feed_token_hash = $3 WHERE org_id = $1 AND owner_id = $2', [
    w.s.org.orgId,
    w.ann.id,
    createHash('sha256').update(secret).digest('hex'),
  ]);
}, 120_000);
afterAll(async () => {
  await w?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => w.s.app.inject({ method: 'GET', url: path, headers });

describe('GET /cal/<token>.ics', () => {
  it('serves METHOD:PUBLISH with ETag; private events as busy blocks; declined invitations left out; nothing appended', async () => {
    const before = await head(w.s);
    const res = await get(`/cal/${token}.ics`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.body).toContain('METHOD:PUBLISH');
    expect(res.body).not.toContain(CANARY);
    expect(res.body).not.toContain('Declined one');
    expect(res.body).toContain('Bea invites');
    const again = await get(`/cal/${token}.ics`, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(await eventsAfter(w.s, before)).toEqual([]);
  });

  it.skipIf(!pyHas('icalendar'))('python3-icalendar reads it: the series with its EXDATE in Sydney, the busy block', () => {
    return get(`/cal/${token}.ics`).then((res) => {
      const py = pyParse(res.body);
      expect(py.method).toBe('PUBLISH');
      const series = py.events.find((e) => e.rrule !== null)!;
      expect(series).toMatchObject({ dtstartTz: 'Australia/Sydney', dtstart: '2026-02-28T22:00:00Z', exdates: ['2026-04-11T23:00:00Z'] });
      const busy = py.events.find((e) => e.klass === 'PRIVATE')!;
      expect(busy).toMatchObject({ summary: 'Busy', organizer: null, attendees: [] });
    });
  });

  it('a changed calendar changes the ETag', async () => {
    const first = (await get(`/cal/${token}.ics`)).headers.etag;
    await ok(
      w.s,
      'calendar.create',
      { notify: 'none', title: 'New one', start: at('2026-03-20T10:00:00', 'Europe/Berlin'), end: at('2026-03-20T11:00:00', 'Europe/Berlin') },
      w.ann.key,
    );
    const second = await get(`/cal/${token}.ics`);
    expect(second.headers.etag).not.toBe(first);
    expect(second.body).toContain('New one');
  });

  it('every bad token is one 404', async () => {
    for (const bad of [`${w.s.org.orgId}.cfd_${'0'.repeat(40)}`, 'nonsense', `${token}x`, `org_zzz.${token.split('.')[1]}`]) {
      const res = await get(`/cal/${encodeURIComponent(bad)}.ics`);
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('No such calendar feed');
    }
    expect((await get(`/cal/${token}`)).statusCode).toBe(404);
  });

  it('request logs redact the token', () => {
    expect(redactUrl(`/cal/${token}.ics`)).toBe('/cal/[Redacted]');
  });
});

describe('calendar.update {calendarId, feed}: rotate and off (rotateFeed)', () => {
  it('rotate shows a new URL once and ends the old; off ends the feed; off again is changed:false; another member’s calendar is refused', async () => {
    const rows = await w.s.runtime.db.query<{ calendar_id: string }>('SELECT calendar_id FROM calendars WHERE org_id = $1 AND owner_id = $2', [
      w.s.org.orgId,
      w.ann.id,
    ]);
    const calendarId = rows[0]!.calendar_id;
    const rotated = await ok(w.s, 'calendar.update', { calendarId, feed: 'rotate' }, w.ann.key);
    expect(rotated.feed).toMatchObject({ calendarId, enabled: true });
    const url = new URL(rotated.feedUrl as string);
    expect(url.pathname).toMatch(/^\/cal\/org_[0-9a-z]+\.cfd_[0-9a-z]{40}\.ics$/);
    expect((await get(url.pathname)).statusCode).toBe(200);
    expect((await get(`/cal/${token}.ics`)).statusCode).toBe(404);
    const off = await ok(w.s, 'calendar.update', { calendarId, feed: 'off' }, w.ann.key);
    expect(off.feed).toMatchObject({ enabled: false });
    expect(off.feedUrl).toBeNull();
    expect((await get(url.pathname)).statusCode).toBe(404);
    expect((await ok(w.s, 'calendar.update', { calendarId, feed: 'off' }, w.ann.key)).changed).toBe(false);
    const theirs = await rpc(w.s, 'calendar.update', { calendarId, feed: 'rotate' }, w.bea.key);
    expect(theirs.body.error?.code).toMatch(/^(CONFLICT|FORBIDDEN_SCOPE)$/);
  });
});
