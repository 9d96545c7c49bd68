import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head } from '../../helpers/calls.js';
import { at, calOrg, createEvent, type CalOrg } from './kit.js';

/*
 * Per-event visibility (domain/calendar/visibility.ts): the ledger events of a private calendar event are seen by its
 * organizer and attendee members (and an admin's key: the whole chain), not by other members, who see the event
 * only as a busy block; a default event's are seen by every member with calendar.read.
 */

let o: CalOrg;
beforeAll(async () => {
  o = await calOrg();
});
afterAll(() => o.s.close());

const kindsFor = async (after: number, key: string) => (await eventsAfter(o.s, after, key)).filter((e: any) => e.family === 'calendar').map((e: any) => e.kind);

describe('calendar events on GET /events', () => {
  it('a private event: its organizer and attendees see its events, another member does not; a default one: everyone', async () => {
    const before = await head(o.s);
    const hidden = await createEvent(
      o,
      {
        title: 'Private',
        start: at('2026-06-01T09:00:00', 'Europe/Berlin'),
        end: at('2026-06-01T10:00:00', 'Europe/Berlin'),
        visibility: 'private',
        attendees: [{ principalId: o.sydney.id }],
      },
      o.berlin,
    );
    await createEvent(o, { title: 'Open', start: at('2026-06-02T09:00:00', 'Europe/Berlin'), end: at('2026-06-02T10:00:00', 'Europe/Berlin') }, o.berlin);
    await o.s.client.rpc('calendar.rsvp', { eventId: hidden.event.id, response: 'accepted' }, { key: o.sydney.key });
    expect(await kindsFor(before, o.berlin.key)).toEqual(['calendar.event.create', 'calendar.event.create', 'calendar.attendee.rsvp']);
    expect(await kindsFor(before, o.sydney.key)).toEqual(['calendar.event.create', 'calendar.event.create', 'calendar.attendee.rsvp']);
    expect(await kindsFor(before, o.newYork.key)).toEqual(['calendar.event.create']);
    expect(await kindsFor(before, o.owner.key)).toHaveLength(3); // the admin's key: the whole chain
  });
});
