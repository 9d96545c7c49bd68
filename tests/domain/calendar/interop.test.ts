import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expand } from '../../../domain/calendar/recurrence.js';
import { parseCalendar, writeCalendar, type IcsEvent } from '../../../domain/calendar/itip/ics.js';
import { createHash, randomBytes } from 'node:crypto';
import { TestClock } from '../../helpers/clock.js';
import { ok } from '../../helpers/calls.js';
import { at } from './kit.js';
import { dav, davTimeRange, itipWorld, pyExpand, pyHas, pyParse, radicaleExpand, startRadicale, type ItipWorld, type Radicale } from './itip-kit.js';

/*
 * Interop with the real components (design section 5): Debian's python3-icalendar parses what ics.ts writes (every
 * method), and Debian's radicale, a CalDAV server on a loopback port, stores the feed's VEVENT and expands it as
 * the calendar does: weekly 09:00 Australia/Sydney across the end of daylight saving on 2026-04-05, with an EXDATE.
 * radicale 3.1 answers time-range queries from its own expansion but has no CalDAV `expand`: the instants come from
 * its recurrence module on the text it stored, and its time-range REPORT confirms the boundary weeks.
 */

const hasIcal = pyHas('icalendar') && pyHas('dateutil');
const hasRadicale = pyHas('radicale') && pyHas('vobject');
if (!hasIcal) console.warn('interop: Debian python3-icalendar or python3-dateutil missing (apt-get install python3-icalendar): parse checks skipped');
if (!hasRadicale) console.warn('interop: Debian radicale missing (apt-get install radicale): CalDAV checks skipped');

const stamp = new Date('2026-02-20T08:00:00Z');

/** Weekly Sunday 09:00 in Sydney from 1 March 2026, the 12 April occurrence taken out (after DST ends on 5 April). */
export const sydneyWeekly: IcsEvent = {
  uid: 'cev_interop_sydney@wops.test',
  sequence: 0,
  summary: 'Standup, Sydney; weekly',
  start: { dateTime: '2026-03-01T09:00:00', timeZone: 'Australia/Sydney' },
  end: { dateTime: '2026-03-01T09:30:00', timeZone: 'Australia/Sydney' },
  rrule: 'FREQ=WEEKLY;BYDAY=SU;COUNT=10',
  exdates: ['2026-04-12T09:00:00'],
  organizer: { email: 'ann@acme.test', name: 'Ann Organizer' },
  attendees: [
    { email: 'ann@acme.test', name: 'Ann Organizer', partstat: 'ACCEPTED' },
    { email: 'bo@client.test', name: 'Bo "the client", Ltd', partstat: 'NEEDS-ACTION', rsvp: true, optional: true },
  ],
  stamp,
};

/** The instants the calendar's own recurrence code gives the same series. */
function ours(from: string, to: string): string[] {
  const got = expand(
    {
      allDay: false,
      startWall: '2026-03-01T09:00:00',
      timeZone: 'Australia/Sydney',
      durationMs: 30 * 60_000,
      rrule: sydneyWeekly.rrule!,
      exdates: ['2026-04-12T09:00:00'],
    },
    new Date(from),
    new Date(to),
  );
  return got.map((i) => i.start.toISOString().replace('.000', ''));
}

describe.skipIf(!hasIcal)('python3-icalendar reads what ics.ts writes', () => {
  it.each(['REQUEST', 'CANCEL', 'REPLY', 'PUBLISH'] as const)('METHOD:%s with VTIMEZONE, RRULE, EXDATE, SEQUENCE, ORGANIZER and ATTENDEE', (method) => {
    const ics = writeCalendar({ method, events: [{ ...sydneyWeekly, sequence: 3, status: method === 'CANCEL' ? 'CANCELLED' : 'CONFIRMED' }] });
    const py = pyParse(ics);
    expect(py.method).toBe(method);
    expect(py.zones).toEqual(['Australia/Sydney']);
    const [e] = py.events;
    expect(e.uid).toBe(sydneyWeekly.uid);
    expect(e.sequence).toBe(3);
    expect(e.status).toBe(method === 'CANCEL' ? 'CANCELLED' : 'CONFIRMED');
    expect(e.summary).toBe('Standup, Sydney; weekly');
    expect(e.dtstart).toBe('2026-02-28T22:00:00Z');
    expect(e.dtstartTz).toBe('Australia/Sydney');
    expect(e.rrule).toBe('FREQ=WEEKLY;COUNT=10;BYDAY=SU');
    expect(e.exdates).toEqual(['2026-04-11T23:00:00Z']);
    expect(e.organizer).toBe('mailto:ann@acme.test');
    expect(e.attendees).toEqual([
      { email: 'mailto:ann@acme.test', partstat: 'ACCEPTED', role: 'REQ-PARTICIPANT', rsvp: null },
      { email: 'mailto:bo@client.test', partstat: 'NEEDS-ACTION', role: 'OPT-PARTICIPANT', rsvp: 'TRUE' },
    ]);
  });

  it('one occurrence (RECURRENCE-ID), an all-day event, a UTC time and a private event', () => {
    const ics = writeCalendar({
      method: 'REQUEST',
      events: [
        { ...sydneyWeekly, rrule: null, exdates: [], recurrenceId: { dateTime: '2026-04-19T09:00:00', timeZone: 'Australia/Sydney' } },
        { uid: 'cev_day@wops.test', sequence: 0, summary: 'Offsite', start: { date: '2026-05-04' }, end: { date: '2026-05-06' }, stamp, private: true },
        {
          uid: 'cev_utc@wops.test',
          sequence: 0,
          summary: 'UTC',
          start: { dateTime: '2026-05-04T10:00:00', timeZone: 'UTC' },
          end: { dateTime: '2026-05-04T11:00:00', timeZone: 'UTC' },
          stamp,
        },
      ],
    });
    const py = pyParse(ics);
    expect(py.events.map((e) => [e.dtstart, e.dtend, e.recurrenceId, e.klass])).toEqual([
      ['2026-02-28T22:00:00Z', '2026-02-28T22:30:00Z', '2026-04-18T23:00:00Z', null],
      ['2026-05-04', '2026-05-06', null, 'PRIVATE'],
      ['2026-05-04T10:00:00Z', '2026-05-04T11:00:00Z', null, null],
    ]);
  });

  it('ics.ts reads back what it wrote, and dateutil expands it to the calendar instants', () => {
    const ics = writeCalendar({ method: 'PUBLISH', events: [sydneyWeekly] });
    const back = parseCalendar(ics).events[0];
    expect(back.start).toEqual({ instant: new Date('2026-02-28T22:00:00Z'), dateTime: '2026-03-01T09:00:00', timeZone: 'Australia/Sydney' });
    expect(back.attendees[1]).toEqual({ email: 'bo@client.test', name: 'Bo "the client", Ltd', partstat: 'NEEDS-ACTION', optional: true });
    const window = ['2026-03-01T00:00:00Z', '2026-06-01T00:00:00Z'] as const;
    const expected = ours(...window);
    expect(expected).toContain('2026-03-28T22:00:00Z'); // 29 March, 09:00 AEDT (+11)
    expect(expected).toContain('2026-04-04T23:00:00Z'); // 5 April, 09:00 AEST (+10)
    expect(expected).not.toContain('2026-04-11T23:00:00Z'); // the EXDATE
    expect(pyExpand(ics, ...window)).toEqual(expected);
  });
});

describe.skipIf(!hasIcal || !hasRadicale)('radicale stores the feed VEVENT and expands it as the calendar does', () => {
  let r: Radicale;
  beforeAll(async () => {
    r = await startRadicale();
  });
  afterAll(async () => {
    await r?.stop();
  });

  it('PUT, GET, time-range REPORT and its recurrence code agree with calendar.recurrence', async () => {
    const collection = `${r.url}/u/work/`;
    expect((await dav(collection, 'MKCALENDAR')).status).toBe(201);
    const ics = writeCalendar({ method: 'PUBLISH', events: [sydneyWeekly] }).replace('METHOD:PUBLISH\r\n', '');
    const put = await dav(`${collection}standup.ics`, 'PUT', ics, { 'content-type': 'text/calendar; charset=utf-8' });
    expect(put.status).toBe(201);
    const stored = await dav(`${collection}standup.ics`, 'GET');
    expect(stored.status).toBe(200);
    const window = ['2026-03-01T00:00:00Z', '2026-06-01T00:00:00Z'] as const;
    expect(radicaleExpand(stored.body, ...window)).toEqual(ours(...window));
    // The server's own filter: 09:00 local on both sides of the change, nothing at the EXDATE.
    expect(await davTimeRange(collection, '2026-03-28T21:59:00Z', '2026-03-28T22:01:00Z')).toHaveLength(1);
    expect(await davTimeRange(collection, '2026-04-04T22:59:00Z', '2026-04-04T23:01:00Z')).toHaveLength(1);
    expect(await davTimeRange(collection, '2026-04-04T21:59:00Z', '2026-04-04T22:01:00Z')).toHaveLength(0);
    expect(await davTimeRange(collection, '2026-04-11T22:00:00Z', '2026-04-12T00:00:00Z')).toHaveLength(0);
  });
});

describe.skipIf(!hasIcal || !hasRadicale)('the feed in radicale equals calendar.list singleEvents', () => {
  let r: Radicale;
  let w: ItipWorld;
  beforeAll(async () => {
    r = await startRadicale();
    w = await itipWorld({ workers: false, clock: new TestClock('2026-02-20') });
  });
  afterAll(async () => {
    await r?.stop();
    await w?.close();
  });

  it('weekly 09:00 Australia/Sydney with an EXDATE across 2026-04-05: the same instants', async () => {
    const made = await ok(
      w.s,
      'calendar.create',
      {
        notify: 'none',
        title: 'Standup',
        start: at('2026-03-01T09:00:00', 'Australia/Sydney'),
        end: at('2026-03-01T09:30:00', 'Australia/Sydney'),
        recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=SU;COUNT=10', exdates: ['2026-04-12T09:00:00'] },
      },
      w.ann.key,
    );
    const secret = `cfd_${randomBytes(20).toString('hex')}`;
    await w.s.runtime.db.query('UPDATE calendars SET feed_token_hash = $3 WHERE org_id = $1 AND calendar_id = $2', [
      w.s.org.orgId,
      made.event.calendarId,
      createHash('sha256').update(secret).digest('hex'),
    ]);
    const feed = await w.s.app.inject({ method: 'GET', url: `/cal/${w.s.org.orgId}.${secret}.ics` });
    expect(feed.statusCode).toBe(200);
    const collection = `${r.url}/u/feed/`;
    expect((await dav(collection, 'MKCALENDAR')).status).toBe(201);
    const put = await dav(`${collection}standup.ics`, 'PUT', feed.body.replace('METHOD:PUBLISH\r\n', ''), { 'content-type': 'text/calendar; charset=utf-8' });
    expect(put.status).toBe(201);
    const stored = await dav(`${collection}standup.ics`, 'GET');
    const window = ['2026-02-01T00:00:00Z', '2026-06-01T00:00:00Z'] as const;
    const listed = await ok(w.s, 'calendar.list', { from: window[0], to: window[1], singleEvents: true }, w.ann.key);
    const ours = (listed.items as { start: { utc: string } }[]).map((i) => i.start.utc.replace('.000', '')).sort();
    expect(ours).toHaveLength(9);
    expect(ours).toContain('2026-04-04T23:00:00Z');
    expect(radicaleExpand(stored.body, ...window)).toEqual(ours);
    expect(await davTimeRange(collection, '2026-04-11T22:00:00Z', '2026-04-12T00:00:00Z')).toHaveLength(0);
  });
});
