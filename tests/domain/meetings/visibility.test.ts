import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head } from '../../helpers/calls.js';
import { call, mtgOrg, seedEvent, type MtgOrg } from './kit.js';

/*
 * Per-event visibility (domain/meetings/visibility.ts): the events of a meeting of a private calendar event are seen
 * by its attendees and whoever recorded it, as GET /meetings.list shows it; a member outside it sees none of them.
 */

let o: MtgOrg;
beforeAll(async () => {
  o = await mtgOrg();
});
afterAll(() => o.s.close());

const kindsFor = async (after: number, key: string) => (await eventsAfter(o.s, after, key)).filter((e: any) => e.family === 'meetings').map((e: any) => e.kind);

describe('meetings events on GET /events', () => {
  it('a private event’s meeting: its attendees see its events, another member does not', async () => {
    const privateEvent = await seedEvent(o, { attendees: [o.ben], private: true });
    const openEvent = await seedEvent(o, { attendees: [o.ben] });
    const before = await head(o.s);
    await call(o, 'meetings.record', { eventId: privateEvent, startedAt: '2026-11-02T08:00:00Z', endedAt: '2026-11-02T09:00:00Z', notes: 'Private notes' });
    await call(o, 'meetings.record', { eventId: openEvent, startedAt: '2026-11-02T08:00:00Z', endedAt: '2026-11-02T09:00:00Z', notes: 'Open notes' });
    expect(await kindsFor(before, o.ben.key)).toEqual(['meetings.meeting.record', 'meetings.meeting.record']);
    expect(await kindsFor(before, o.mia.key)).toEqual(['meetings.meeting.record']);
  });
});
