import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, read, refused } from '../../helpers/calls.js';
import { ownerOf, person } from '../../helpers/people.js';
import { at, createEvent } from './kit.js';
import { findOrg, hhmm, setHours, weekdays, type FindOrg } from './find-kit.js';

/*
 * calendar.findATime: Berlin (UTC+1 in March) and New York (UTC-4 from 2026-03-08) working 09:00-17:00 overlap
 * 13:00-16:00 UTC from 9 to 27 March. Each test takes its own day so the events of one do not touch another.
 */

let o: FindOrg;
beforeAll(async () => {
  o = await findOrg();
  await setHours(o, o.berlin, weekdays());
  await setHours(o, o.newYork, weekdays());
  await setHours(o, o.sydney, weekdays());
});
afterAll(() => o.s.close());

const BERLIN = 'Europe/Berlin';
const both = () => [{ id: o.berlin.id }, { id: o.newYork.id }];
const find = (params: Record<string, unknown>, key?: string) =>
  read(o.s, 'calendar.findATime', { attendees: both(), durationMinutes: 60, granularity: 60, limit: 500, ...params }, key);
const dayOf = (date: string) => ({ from: `${date}T00:00:00Z`, to: `${date}T23:59:00Z` });
const starts = (r: { slots: { start: string }[] }) => r.slots.map((s) => hhmm(s.start));

describe('calendar.findATime', () => {
  it('finds where both working days overlap, in UTC and in each attendee’s zone, appending nothing', async () => {
    const r = await find(dayOf('2026-03-09'));
    expect(starts(r)).toEqual(['13:00', '14:00', '15:00']);
    expect(r.slots[0]).toEqual({
      start: '2026-03-09T13:00:00.000Z',
      end: '2026-03-09T14:00:00.000Z',
      local: [
        { id: o.berlin.id, timeZone: BERLIN, start: '2026-03-09T14:00', end: '2026-03-09T15:00' },
        { id: o.newYork.id, timeZone: 'America/New_York', start: '2026-03-09T09:00', end: '2026-03-09T10:00' },
      ],
      optionalFree: [],
    });
    expect(r.unknown).toEqual([]);
    expect(r.counted).toEqual([o.berlin.id, o.newYork.id]);
    expect(r.more).toBe(false);
    expect(r.message).toMatch(/^3 slots of 60 minutes when all 2 required members are free/);
  });

  it('an accepted event blocks its attendees; a tentative answer blocks; a declined one does not', async () => {
    // Tuesday: Berlin organizes 14:00-15:00 Berlin (13:00 UTC) with New York.
    await createEvent(
      o,
      { start: at('2026-03-10T14:00:00', BERLIN), end: at('2026-03-10T15:00:00', BERLIN), attendees: [{ principalId: o.newYork.id }] },
      o.berlin,
    );
    expect(starts(await find(dayOf('2026-03-10')))).toEqual(['14:00', '15:00']);
    // Wednesday 15:00 UTC: Berlin answers tentative.
    const wed = (
      await createEvent(o, { start: at('2026-03-11T15:00:00', 'UTC'), end: at('2026-03-11T16:00:00', 'UTC'), attendees: [{ principalId: o.berlin.id }] })
    ).event;
    await mutate(o.s, 'calendar.rsvp', { eventId: wed.id, response: 'tentative' }, 'calendar.attendee.rsvp', { key: o.berlin.key });
    expect(starts(await find(dayOf('2026-03-11')))).toEqual(['13:00', '14:00']);
    // Thursday 13:00 UTC: New York declines, so it stays free for them.
    const thu = (
      await createEvent(o, { start: at('2026-03-12T13:00:00', 'UTC'), end: at('2026-03-12T14:00:00', 'UTC'), attendees: [{ principalId: o.newYork.id }] })
    ).event;
    expect(starts(await find(dayOf('2026-03-12')))).toEqual(['14:00', '15:00']);
    await mutate(o.s, 'calendar.rsvp', { eventId: thu.id, response: 'declined' }, 'calendar.attendee.rsvp', { key: o.newYork.key });
    expect(starts(await find(dayOf('2026-03-12')))).toEqual(['13:00', '14:00', '15:00']);
  });

  it('out of office blocks its whole span; a transparent event does not block', async () => {
    await createEvent(
      o,
      { start: at('2026-03-13T00:00:00', 'America/New_York'), end: at('2026-03-14T00:00:00', 'America/New_York'), eventType: 'outOfOffice' },
      o.newYork,
    );
    expect((await find(dayOf('2026-03-13'))).slots).toEqual([]);
    await createEvent(o, { start: at('2026-03-23T14:00:00', BERLIN), end: at('2026-03-23T15:00:00', BERLIN), transparency: 'transparent' }, o.berlin);
    expect(starts(await find(dayOf('2026-03-23')))).toEqual(['13:00', '14:00', '15:00']);
  });

  it('buffers keep time free around busy blocks; granularity steps the starts', async () => {
    await createEvent(o, { start: at('2026-03-16T13:00:00', BERLIN), end: at('2026-03-16T14:00:00', BERLIN) }, o.berlin);
    expect(starts(await find({ ...dayOf('2026-03-16'), granularity: 30 }))).toEqual(['13:00', '13:30', '14:00', '14:30', '15:00']);
    expect(starts(await find({ ...dayOf('2026-03-16'), granularity: 30, buffer: 30 }))).toEqual(['13:30', '14:00', '14:30', '15:00']);
  });

  it('minNotice keeps slots away from now; the past has none', async () => {
    o.clock.set('2026-03-17'); // 09:00 UTC
    try {
      expect(starts(await find({ ...dayOf('2026-03-17'), minNotice: 300 }))).toEqual(['14:00', '15:00']);
      o.clock.set('2026-03-18');
      const past = await find(dayOf('2026-03-17'));
      expect(past.slots).toEqual([]);
      expect(past.message).toMatch(/^No slot/);
    } finally {
      o.clock.set('2026-03-01');
    }
  });

  it('optional attendees never narrow the slots; each slot names those free', async () => {
    // The agent set no hours: 09:00-17:00 Berlin assumed, said in unknown. Sydney's day is night in Europe.
    const r = await find({ ...dayOf('2026-03-09'), attendees: [...both(), { id: o.agent.id, optional: true }, { id: o.sydney.id, optional: true }] });
    expect(starts(r)).toEqual(['13:00', '14:00', '15:00']);
    expect(r.slots.map((s: { optionalFree: string[] }) => s.optionalFree)).toEqual([[o.agent.id], [o.agent.id], [o.agent.id]]);
    expect(r.unknown).toEqual([
      expect.objectContaining({ id: o.agent.id, reason: 'no_working_hours', assumed: '09:00-17:00 Monday to Friday in Europe/Berlin' }),
    ]);
  });

  it('who cannot be seen comes back in unknown, never as free', async () => {
    const stranger = await ownerOf(o.other);
    const r = await find({
      ...dayOf('2026-03-09'),
      attendees: [{ id: o.berlin.id }, { id: 'per_0123456789abcdef' }, { id: 'ann@example.com' }, { id: stranger.id }, { id: o.owner.id }],
    });
    expect(r.unknown.map((u: { id: string; reason: string; assumed: string | null }) => [u.id, u.reason, u.assumed])).toEqual([
      ['per_0123456789abcdef', 'not_a_member', null],
      ['ann@example.com', 'not_a_member', null],
      [stranger.id, 'not_a_member', null],
      [o.owner.id, 'no_working_hours', '09:00-17:00 Monday to Friday in Europe/London'],
    ]);
    expect(r.counted).toEqual([o.berlin.id, o.owner.id]);
    // Berlin 08:00-16:00 UTC and London 09:00-17:00 UTC.
    expect(starts(r)).toEqual(['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00']);
    expect(r.message).toMatch(/3 attendees could not be checked \(unknown\): not counted as free/);
    // Only non-members required: nothing searched.
    const none = await find({ ...dayOf('2026-03-09'), attendees: [{ id: 'per_0123456789abcdef' }] });
    expect(none.slots).toEqual([]);
    expect(none.message).toMatch(/None of the required attendees/);
  });

  it('respectWorkingHours false: any time outside busy blocks; a member with no zone is read in UTC', async () => {
    const r = await find({ from: '2026-03-15T00:00:00Z', to: '2026-03-15T03:00:00Z', respectWorkingHours: false });
    expect(starts(r)).toEqual(['00:00', '01:00', '02:00']);
    const zoneless = await person(o.s, 'No Zone', { tier: 'member' });
    const z = await find({ from: '2026-03-15T00:00:00Z', to: '2026-03-15T01:00:00Z', respectWorkingHours: false, attendees: [{ id: zoneless.id }] });
    expect(z.unknown).toEqual([expect.objectContaining({ id: zoneless.id, reason: 'no_time_zone', assumed: 'UTC' })]);
    expect(z.slots[0].local).toEqual([{ id: zoneless.id, timeZone: 'UTC', start: '2026-03-15T00:00', end: '2026-03-15T01:00' }]);
  });

  it('someone’s private event weighs as busy and shows nothing of itself', async () => {
    await createEvent(
      o,
      { title: 'Secret canary surgery', visibility: 'private', start: at('2026-03-19T14:00:00', BERLIN), end: at('2026-03-19T15:00:00', BERLIN) },
      o.berlin,
    );
    const r = await find(dayOf('2026-03-19'), o.newYork.key);
    expect(starts(r)).toEqual(['14:00', '15:00']);
    expect(JSON.stringify(r)).not.toContain('canary');
  });

  it('the limit pages with nextFrom; repeated ids count once, required when any mention is', async () => {
    const first = await find({ ...dayOf('2026-03-09'), limit: 2 });
    expect(starts(first)).toEqual(['13:00', '14:00']);
    expect(first.more).toBe(true);
    expect(first.nextFrom).toBe('2026-03-09T15:00:00.000Z');
    expect(starts(await find({ ...dayOf('2026-03-09'), from: first.nextFrom }))).toEqual(['15:00']);
    const dup = await find({ ...dayOf('2026-03-09'), attendees: [{ id: o.berlin.id, optional: true }, { id: o.berlin.id }] });
    expect(dup.counted).toEqual([o.berlin.id]);
    expect(dup.slots[0].optionalFree).toEqual([]);
  });

  it('refuses bad input naming the field, and a key without calendar.read', async () => {
    const base = { attendees: both(), durationMinutes: 60, from: '2026-03-09T00:00:00Z', to: '2026-03-10T00:00:00Z' };
    await refused(o.s, 'calendar.findATime', { ...base, to: base.from }, 'BAD_REQUEST', { message: 'to: must be after from' });
    await refused(o.s, 'calendar.findATime', { ...base, to: '2026-05-09T00:00:00Z' }, 'BAD_REQUEST', { message: /^to: at most 60 days after from/ });
    const many = Array.from({ length: 21 }, (_, i) => ({ id: `usr_${i}x` }));
    await refused(o.s, 'calendar.findATime', { ...base, attendees: many }, 'BAD_REQUEST', { message: 'attendees: at most 20 attendees' });
    await refused(o.s, 'calendar.findATime', { ...base, attendees: [{ id: o.berlin.id, optional: true }] }, 'BAD_REQUEST', {
      message: 'attendees: at least one attendee must be required (optional: false)',
    });
    await refused(o.s, 'calendar.findATime', { ...base, durationMinutes: 0 }, 'BAD_REQUEST', { message: /^durationMinutes: / });
    await refused(o.s, 'calendar.findATime', { ...base, from: 'monday' }, 'BAD_REQUEST', { message: /^from: / });
    await refused(o.s, 'calendar.findATime', { ...base, colour: 'red' }, 'BAD_REQUEST', { message: 'colour: unknown field' });
    const narrow = await person(o.s, 'Narrow', { scopes: ['org.read'], principalKind: 'human' });
    await refused(o.s, 'calendar.findATime', base, 'FORBIDDEN_SCOPE', { key: narrow.key });
    expect((await read(o.s, 'calendar.findATime', base, o.viewer.key)).slots.length).toBe(5); // 13:00 to 15:00 UTC every 30 minutes
  });
});
