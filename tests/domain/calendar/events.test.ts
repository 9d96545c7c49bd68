import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, noop, ok, read, refused } from '../../helpers/calls.js';
import { at, calOrg, createEvent, day, hourAt, listItems, type CalOrg } from './kit.js';

/* The seven event methods: main paths, one event per M, none per R, and misuse (NOT_FOUND, CONFLICT, BAD_REQUEST, FORBIDDEN_SCOPE). */

let o: CalOrg;
beforeAll(async () => {
  o = await calOrg();
}, 60_000);
afterAll(() => o?.s.close());

const APR = { from: '2026-04-01T00:00:00Z', to: '2026-05-01T00:00:00Z' };
const hour = (wall: string, zone = 'Europe/Berlin') => ({
  start: at(wall, zone),
  end: at(`${wall.slice(0, 11)}${String(Number(wall.slice(11, 13)) + 1).padStart(2, '0')}${wall.slice(13)}`, zone),
});

describe('calendar.create', () => {
  it('creates an event with a member and an address; the organizer accepts; times in UTC and local', async () => {
    const r = await createEvent(o, {
      title: 'Launch review',
      ...hour('2026-04-07T09:00:00'),
      attendees: [{ principalId: o.newYork.id }, { email: 'Ann@Example.com', optional: true }],
      location: 'Room 1',
    });
    const e = r.event;
    expect(e.start).toEqual({ utc: '2026-04-07T07:00:00.000Z', local: '2026-04-07T09:00:00+02:00', timeZone: 'Europe/Berlin', date: null });
    expect(e.organizerId).toBe(o.owner.id);
    expect(e.attendees.map((a: any) => [a.key, a.organizer, a.responseStatus, a.optional])).toEqual([
      [o.owner.id, true, 'accepted', false],
      ['ann@example.com', false, 'needsAction', true],
      [o.newYork.id, false, 'needsAction', false],
    ]);
    expect(e.rsvp).toEqual({ accepted: 1, declined: 0, tentative: 0, needsAction: 2 });
    expect(r.invitations).toEqual({ emailed: 0, heldForReview: 0 });
  });

  it('reports attendees’ overlapping busy time as conflicts; an event payload has counts, not words', async () => {
    await hourAt(o, '2026-04-08T10:00:00', { title: 'Ned busy' }, o.newYork);
    const { result, event } = await mutate(
      o.s,
      'calendar.create',
      { title: 'Clash', ...hour('2026-04-08T10:00:00'), attendees: [{ principalId: o.newYork.id }], notify: 'none' },
      'calendar.event.create',
    );
    expect(result.conflicts).toHaveLength(1);
    expect(result.conflicts[0].principalId).toBe(o.newYork.id);
    expect(event.payload).toMatchObject({ eventId: result.event.id, attendees: 1, conflicts: 1, sequence: 0 });
    expect(JSON.stringify(event.payload)).not.toContain('Clash');
  });

  it('all-day events and an agent writing its sponsor’s calendar', async () => {
    const allDay = await createEvent(o, { title: 'Offsite', start: day('2026-04-20'), end: day('2026-04-22'), eventType: 'outOfOffice' });
    expect(allDay.event.start).toEqual({ utc: '2026-04-20T00:00:00.000Z', local: null, timeZone: null, date: '2026-04-20' });
    const own = await read(o.s, 'calendar.list', { ...APR }, o.berlin.key);
    expect(own.items).toEqual([]);
    const mine = await createEvent(o, { title: 'Sponsor slot', ...hour('2026-04-09T15:00:00') }, o.berlin);
    const agentMade = await createEvent(o, { title: 'Booked by agent', ...hour('2026-04-09T11:00:00'), calendarId: mine.event.calendarId }, o.agent);
    expect(agentMade.event.organizerId).toBe(o.berlin.id);
    await refused(o.s, 'calendar.create', { title: 'x', ...hour('2026-04-09T11:00:00'), calendarId: mine.event.calendarId }, 'CONFLICT', {
      key: o.loneAgent.key,
    });
  });

  it('refuses bad input naming the field, another org’s ids and a reader key', async () => {
    const base = { title: 'Bad', ...hour('2026-04-10T09:00:00') };
    await refused(o.s, 'calendar.create', { ...base, end: at('2026-04-10T08:00:00', 'Europe/Berlin') }, 'BAD_REQUEST', {
      message: /^end: must be after start/,
    });
    await refused(o.s, 'calendar.create', { ...base, start: at('2026-04-10T09:00:00', 'Mars/Olympus') }, 'BAD_REQUEST', {
      message: 'start.timeZone: unknown zone',
    });
    await refused(o.s, 'calendar.create', { ...base, recurrence: { rrule: 'FREQ=HOURLY' } }, 'BAD_REQUEST', {
      message: 'recurrence.rrule: FREQ=HOURLY is not supported',
    });
    await refused(o.s, 'calendar.create', { ...base, colour: 'red' }, 'BAD_REQUEST', { message: 'colour: unknown field' });
    await refused(o.s, 'calendar.create', { ...base, end: day('2026-04-11') }, 'BAD_REQUEST', { message: /^end: must be a dateTime/ });
    await refused(o.s, 'calendar.create', { ...base, attendees: [{ principalId: 'usr_nosuchmember1' }] }, 'NOT_FOUND');
    const theirs = await ok(o.other, 'calendar.create', { ...base, notify: 'none' });
    await refused(o.s, 'calendar.get', { eventId: theirs.event.id }, 'NOT_FOUND');
    await refused(o.s, 'calendar.create', { ...base, calendarId: theirs.event.calendarId }, 'NOT_FOUND');
    await refused(o.s, 'calendar.create', base, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('calendar.list and calendar.get', () => {
  it('lists occurrences in a window; someone else’s private event is a busy block; q matches words', async () => {
    await hourAt(o, '2026-06-02T09:00:00', { title: 'Secret interview', visibility: 'private', description: 'hush' }, o.newYork);
    await hourAt(o, '2026-06-03T09:00:00', { title: 'Open standup' }, o.newYork);
    const cal = (await listItems(o, '2026-06-01T00:00:00Z', '2026-06-30T00:00:00Z', {}, o.newYork.key))[0].calendarId;
    const seen = await read(o.s, 'calendar.list', { from: '2026-06-01T00:00:00Z', to: '2026-06-30T00:00:00Z', calendarIds: [cal] }, o.berlin.key);
    expect(seen.items.map((e: any) => [e.title, e.busyOnly, e.description])).toEqual([
      ['Busy', true, null],
      ['Open standup', false, null],
    ]);
    const mine = await listItems(o, '2026-06-01T00:00:00Z', '2026-06-30T00:00:00Z', {}, o.newYork.key);
    expect(mine.map((e) => e.title)).toEqual(['Secret interview', 'Open standup']);
    const q = await read(o.s, 'calendar.list', { from: '2026-06-01T00:00:00Z', to: '2026-06-30T00:00:00Z', calendarIds: [cal], q: 'secret' }, o.berlin.key);
    expect(q.items).toEqual([]);
    const paged = await read(o.s, 'calendar.list', { from: '2026-06-01T00:00:00Z', to: '2026-06-30T00:00:00Z', limit: 1 }, o.newYork.key);
    expect(paged.nextCursor).toBe(1);
  });

  it('refuses a window over 366 days, to before from, another org’s calendar', async () => {
    await refused(o.s, 'calendar.list', { from: '2026-01-01T00:00:00Z', to: '2027-01-03T00:00:00Z' }, 'BAD_REQUEST', { message: /^to: at most 366 days/ });
    await refused(o.s, 'calendar.list', { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'BAD_REQUEST', { message: /^to: must be after from/ });
    await refused(o.s, 'calendar.list', { ...APR, limit: 501 }, 'BAD_REQUEST', { message: 'limit: must be at most 500' });
    await refused(o.s, 'calendar.list', { ...APR, calendarIds: ['cal_nosuchcalendar'] }, 'NOT_FOUND');
  });

  it('gets an event and one occurrence of a series (meetingId null until a meeting is recorded)', async () => {
    const s = await createEvent(o, { title: 'Weekly', ...hour('2026-07-06T09:00:00'), recurrence: { rrule: 'FREQ=WEEKLY;COUNT=4' } });
    const g = await read(o.s, 'calendar.get', { eventId: s.event.id });
    expect(g.meetingId).toBeNull();
    expect(g.event.recurrence).toEqual({ rrule: 'FREQ=WEEKLY;COUNT=4', exdates: [] });
    const one = await read(o.s, 'calendar.get', { eventId: s.event.id, originalStart: '2026-07-13T07:00:00Z' });
    expect(one.event.originalStart).toBe('2026-07-13T07:00:00.000Z');
    await refused(o.s, 'calendar.get', { eventId: s.event.id, originalStart: '2026-07-14T07:00:00Z' }, 'NOT_FOUND');
    await refused(o.s, 'calendar.get', { eventId: 'cev_nosuchevent1' }, 'NOT_FOUND');
  });
});

describe('calendar.update', () => {
  it('changes words and attendees (organizer only); the same again is a noop; times are refused', async () => {
    const e = await hourAt(o, '2026-04-14T09:00:00', { title: 'Draft' });
    const { result, event } = await mutate(
      o.s,
      'calendar.update',
      { eventId: e.id, title: 'Final', attendees: [{ principalId: o.berlin.id }] },
      'calendar.event.update',
    );
    expect(result.event.title).toBe('Final');
    expect(result.event.attendees).toHaveLength(2);
    expect(event.payload).toMatchObject({ fields: ['title', 'attendees'], attendeesAdded: 1, attendeesRemoved: 0 });
    await noop(o.s, 'calendar.update', { eventId: e.id, title: 'Final' }, 'calendar.event.update');
    await refused(o.s, 'calendar.update', { eventId: e.id, start: at('2026-04-14T10:00:00', 'Europe/Berlin') }, 'BAD_REQUEST', {
      message: /^start: use calendar.reschedule/,
    });
    await refused(o.s, 'calendar.update', { eventId: e.id, title: 'Mine now' }, 'CONFLICT', { key: o.berlin.key, message: /only the organizer/ });
    await refused(o.s, 'calendar.update', { eventId: 'cev_nosuchevent1', title: 'x' }, 'NOT_FOUND');
    await refused(o.s, 'calendar.update', { title: 'x' }, 'BAD_REQUEST', { message: /^eventId: required/ });
  });

  it('with calendarId and feed: rotates the feed (URL shown once) and turns it off; off again is a noop', async () => {
    const e = await hourAt(o, '2026-04-16T09:00:00', {}, o.sydney);
    const { result, event } = await mutate(o.s, 'calendar.update', { calendarId: e.calendarId, feed: 'rotate' }, 'calendar.feed.rotate', { key: o.sydney.key });
    expect(result.feed).toMatchObject({ calendarId: e.calendarId, enabled: true });
    expect(result.feedUrl).toMatch(/\/cal\/.+\.ics$/);
    expect(JSON.stringify(event.payload)).not.toContain(result.feedUrl.split('/cal/')[1]);
    await mutate(o.s, 'calendar.update', { calendarId: e.calendarId, feed: 'off' }, 'calendar.feed.rotate', { key: o.sydney.key });
    await noop(o.s, 'calendar.update', { calendarId: e.calendarId, feed: 'off' }, 'calendar.feed.rotate', o.sydney.key);
    await refused(o.s, 'calendar.update', { calendarId: e.calendarId }, 'BAD_REQUEST', { key: o.sydney.key, message: /^feed: required/ });
    await refused(o.s, 'calendar.update', { calendarId: e.calendarId, feed: 'rotate' }, 'CONFLICT', { key: o.berlin.key });
  });

  it('scope this retitles one occurrence; following splits the series', async () => {
    const s = (await createEvent(o, { title: 'Sync', ...hour('2026-08-03T09:00:00'), recurrence: { rrule: 'FREQ=WEEKLY;COUNT=6' } })).event;
    await mutate(
      o.s,
      'calendar.update',
      { eventId: s.id, originalStart: '2026-08-10T07:00:00Z', scope: 'this', title: 'Sync (special)' },
      'calendar.event.update',
    );
    let items = await listItems(o, '2026-08-01T00:00:00Z', '2026-09-30T00:00:00Z', { q: 'sync' });
    expect(items.map((i) => i.title)).toEqual(['Sync', 'Sync (special)', 'Sync', 'Sync', 'Sync', 'Sync']);
    const { event } = await mutate(
      o.s,
      'calendar.update',
      { eventId: s.id, originalStart: '2026-08-24T07:00:00Z', scope: 'following', title: 'Sync v2' },
      'calendar.event.update',
    );
    items = await listItems(o, '2026-08-01T00:00:00Z', '2026-09-30T00:00:00Z', { q: 'sync' });
    expect(items.map((i) => i.title)).toEqual(['Sync', 'Sync (special)', 'Sync', 'Sync v2', 'Sync v2', 'Sync v2']);
    const fresh = (await ok(o.s, 'calendar.get', { eventId: event.payload.newEventId })).event;
    expect(fresh.splitFrom).toBe(s.id);
    expect(fresh.recurrence.rrule).toBe('FREQ=WEEKLY;COUNT=3');
    await refused(o.s, 'calendar.update', { eventId: s.id, originalStart: '2026-08-11T07:00:00Z', title: 'x' }, 'BAD_REQUEST', {
      message: /^originalStart: .* is not an occurrence/,
    });
  });
});

describe('calendar.reschedule', () => {
  it('moves an event: sequence+1, answers reset (organizer stays accepted); the same time again is a noop', async () => {
    const e = await hourAt(o, '2026-04-15T09:00:00', { attendees: [{ principalId: o.berlin.id }] });
    await mutate(o.s, 'calendar.rsvp', { eventId: e.id, response: 'accepted' }, 'calendar.attendee.rsvp', { key: o.berlin.key });
    const { result, event } = await mutate(o.s, 'calendar.reschedule', { eventId: e.id, ...hour('2026-04-15T14:00:00') }, 'calendar.event.reschedule');
    expect(result.event.sequence).toBe(1);
    expect(result.event.start.local).toBe('2026-04-15T14:00:00+02:00');
    expect(result.event.attendees.map((a: any) => a.responseStatus)).toEqual(['accepted', 'needsAction']);
    expect(event.payload).toMatchObject({ sequence: 1, scope: 'all' });
    await noop(o.s, 'calendar.reschedule', { eventId: e.id, ...hour('2026-04-15T14:00:00') }, 'calendar.event.reschedule');
    await refused(o.s, 'calendar.reschedule', { eventId: e.id, ...hour('2026-04-15T16:00:00') }, 'CONFLICT', { key: o.berlin.key });
  });

  it('moves one occurrence (this) and splits the series (following)', async () => {
    const s = (await createEvent(o, { title: 'Review', ...hour('2026-09-07T09:00:00'), recurrence: { rrule: 'FREQ=WEEKLY;COUNT=4' } })).event;
    await mutate(
      o.s,
      'calendar.reschedule',
      { eventId: s.id, scope: 'this', originalStart: '2026-09-14T07:00:00Z', ...hour('2026-09-15T11:00:00') },
      'calendar.event.reschedule',
    );
    const { event } = await mutate(
      o.s,
      'calendar.reschedule',
      { eventId: s.id, scope: 'following', originalStart: '2026-09-21T07:00:00Z', ...hour('2026-09-22T16:00:00') },
      'calendar.event.reschedule',
    );
    const items = await listItems(o, '2026-09-01T00:00:00Z', '2026-10-31T00:00:00Z', { q: 'review' });
    expect(items.map((i) => i.start.local)).toEqual([
      '2026-09-07T09:00:00+02:00',
      '2026-09-15T11:00:00+02:00',
      '2026-09-22T16:00:00+02:00',
      '2026-09-29T16:00:00+02:00',
    ]);
    expect(items[3].id).toBe(event.payload.newEventId);
    const old = (await ok(o.s, 'calendar.get', { eventId: s.id })).event;
    expect(old.recurrence.rrule).toBe('FREQ=WEEKLY;COUNT=2');
  });
});

describe('calendar.rsvp', () => {
  it('answers for the series or one occurrence; an agent for its sponsor; not invited is a CONFLICT', async () => {
    const s = (
      await createEvent(o, {
        title: 'Retro',
        ...hour('2026-10-05T09:00:00'),
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=3' },
        attendees: [{ principalId: o.berlin.id }],
      })
    ).event;
    const { event } = await mutate(o.s, 'calendar.rsvp', { eventId: s.id, response: 'tentative' }, 'calendar.attendee.rsvp', { key: o.berlin.key });
    expect(event.payload).toMatchObject({ attendeeId: o.berlin.id, response: 'tentative', previous: 'needsAction', scope: 'all', onBehalf: false });
    const one = await mutate(
      o.s,
      'calendar.rsvp',
      { eventId: s.id, originalStart: '2026-10-12T07:00:00Z', response: 'declined', attendeeId: o.berlin.id },
      'calendar.attendee.rsvp',
      {
        key: o.agent.key,
      },
    );
    expect(one.event.payload.onBehalf).toBe(true);
    const items = await listItems(o, '2026-10-01T00:00:00Z', '2026-10-31T00:00:00Z', { q: 'retro' }, o.berlin.key);
    expect(items.map((i) => i.attendees.find((a: any) => a.principalId === o.berlin.id).responseStatus)).toEqual(['tentative', 'declined', 'tentative']);
    await noop(o.s, 'calendar.rsvp', { eventId: s.id, originalStart: '2026-10-12T07:00:00Z', response: 'declined' }, 'calendar.attendee.rsvp', o.berlin.key);
    await refused(o.s, 'calendar.rsvp', { eventId: s.id, response: 'accepted' }, 'CONFLICT', { key: o.newYork.key, message: /is not invited/ });
    await refused(o.s, 'calendar.rsvp', { eventId: s.id, response: 'accepted', attendeeId: o.newYork.id }, 'CONFLICT', { key: o.agent.key });
    await refused(o.s, 'calendar.rsvp', { eventId: s.id, response: 'maybe' }, 'BAD_REQUEST', { key: o.berlin.key, message: /^response: must be one of/ });
    await refused(o.s, 'calendar.rsvp', { eventId: s.id, response: 'accepted', scope: 'following', originalStart: '2026-10-12T07:00:00Z' }, 'BAD_REQUEST', {
      key: o.berlin.key,
      message: /^scope:/,
    });
  });
});

describe('calendar.delete', () => {
  it('the organizer cancels one occurrence, the following ones, all; an attendee declines', async () => {
    const s = (
      await createEvent(o, {
        title: 'Daily',
        ...hour('2026-11-02T09:00:00'),
        recurrence: { rrule: 'FREQ=DAILY;COUNT=5' },
        attendees: [{ principalId: o.berlin.id }],
      })
    ).event;
    const w = ['2026-11-01T00:00:00Z', '2026-11-30T00:00:00Z'] as const;
    await mutate(o.s, 'calendar.delete', { eventId: s.id, originalStart: '2026-11-03T08:00:00Z' }, 'calendar.event.delete');
    expect((await listItems(o, ...w, { q: 'daily' })).length).toBe(4);
    await noop(o.s, 'calendar.delete', { eventId: s.id, originalStart: '2026-11-03T08:00:00Z' }, 'calendar.event.delete');
    const declined = await mutate(o.s, 'calendar.delete', { eventId: s.id }, 'calendar.event.delete', { key: o.berlin.key });
    expect(declined.result.action).toBe('declined');
    await mutate(o.s, 'calendar.delete', { eventId: s.id, scope: 'following', originalStart: '2026-11-05T08:00:00Z' }, 'calendar.event.delete');
    expect((await listItems(o, ...w, { q: 'daily' })).map((i) => i.originalStart)).toEqual(['2026-11-02T08:00:00.000Z', '2026-11-04T08:00:00.000Z']);
    const all = await mutate(o.s, 'calendar.delete', { eventId: s.id, scope: 'all' }, 'calendar.event.delete');
    expect(all.result).toMatchObject({ action: 'cancelled', changed: true });
    expect(await listItems(o, ...w, { q: 'daily' })).toEqual([]);
    await noop(o.s, 'calendar.delete', { eventId: s.id }, 'calendar.event.delete');
    await refused(o.s, 'calendar.update', { eventId: s.id, title: 'x' }, 'CONFLICT', { message: /is cancelled/ });
    await refused(o.s, 'calendar.delete', { eventId: s.id }, 'CONFLICT', { key: o.newYork.key });
    await refused(o.s, 'calendar.delete', { eventId: s.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});
