import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';

/*
 * Redaction (docs/security.md): a canary in every free-text field of the calendar (titles, descriptions, locations,
 * attendee addresses, search words) shows in no event or log line; the caller gets its words back (and a replay its
 * stored frame). The one secret, a feed URL's token, is in no event, log line or idempotency row in clear, even after
 * the feed is fetched.
 */

const CANARY = 'Quokka-Canary-4417';
const low = CANARY.toLowerCase();
const mail = `${low}@example.com`;
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('calendar redaction canary', () => {
  it('no title, description, location or address in any event or log line', async () => {
    const call = async (method: string, params: object, idem?: string) => {
      const res = await s.client.rpc(method, params, { idem });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const when = (h: string) => ({ dateTime: `2026-05-04T${h}:00:00`, timeZone: 'Europe/Berlin' });
    const created = await call(
      'calendar.create',
      {
        title: `Title ${CANARY}`,
        description: `Notes ${CANARY}`,
        location: `Room ${CANARY}`,
        start: when('09'),
        end: when('10'),
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=3' },
        attendees: [{ email: mail }],
        notify: 'none',
      },
      'canary-create',
    );
    const id = created.event.id;
    expect(created.event.title).toContain(CANARY);
    await call('calendar.update', { eventId: id, title: `New ${CANARY}`, location: `Hall ${CANARY}`, notify: 'none' }, 'canary-update');
    await call('calendar.update', { eventId: id, scope: 'this', originalStart: '2026-05-11T07:00:00Z', description: `One ${CANARY}`, notify: 'none' });
    await call('calendar.reschedule', { eventId: id, start: when('11'), end: when('12'), notify: 'none' }, 'canary-reschedule');
    const listed = await call('calendar.list', { from: '2026-05-01T00:00:00Z', to: '2026-06-01T00:00:00Z', q: CANARY });
    expect(JSON.stringify(listed)).toContain(CANARY);
    await call('calendar.get', { eventId: id });
    await call('calendar.rsvp', { eventId: id, response: 'tentative' });
    await call('calendar.delete', { eventId: id, notify: 'none' }, 'canary-delete');

    const ledger = await s.ledgerText();
    for (const kind of ['calendar.event.create', 'calendar.event.update', 'calendar.event.reschedule', 'calendar.attendee.rsvp', 'calendar.event.delete']) {
      expect(ledger).toContain(kind);
    }
    expectNoCanary([CANARY, mail], { ledger, logs: s.logs() });
  });

  it('the feed token: shown once to its caller, replayed sealed, never in clear at rest or in a log', async () => {
    const made = await s.client.rpc('calendar.create', { title: 'Feed', start: { date: '2026-05-04' }, end: { date: '2026-05-05' }, notify: 'none' });
    const calendar = made.body.result.event.calendarId as string;
    const rotated = await s.client.rpc('calendar.update', { calendarId: calendar, feed: 'rotate' }, { idem: 'canary-feed' });
    expect(rotated.body.ok, rotated.raw.slice(0, 300)).toBe(true);
    const url = new URL(rotated.body.result.feedUrl as string);
    const token = decodeURIComponent(url.pathname.slice('/cal/'.length, -'.ics'.length));
    const secret = token.slice(token.indexOf('.') + 1);
    const again = await s.client.rpc('calendar.update', { calendarId: calendar, feed: 'rotate' }, { idem: 'canary-feed' });
    expect(again.body.result.feedUrl).toBe(rotated.body.result.feedUrl);
    const fetched = await s.app.inject({ method: 'GET', url: url.pathname });
    expect(fetched.statusCode).toBe(200);
    expectNoCanary(secret, {
      ledger: await s.ledgerText(),
      logs: s.logs(),
      idempotency: await s.idempotencyText(),
    });
  });
});
