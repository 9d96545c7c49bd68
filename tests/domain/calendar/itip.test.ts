import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareMessage } from '../../../mail/message.js';
import { Composer } from '../../../mail/compose.js';
import { writeCalendar, type IcsEvent } from '../../../domain/calendar/itip/ics.js';
import { eventsAfter, head, ok } from '../../helpers/calls.js';
import { until } from '../../jobs/kit.js';
import { at } from './kit.js';
import { arriveIcs, itipWorld, pyHas, pyParse, sinkCalendars, type ItipWorld } from './itip-kit.js';

/*
 * Invitations as iTIP mail (docs/families/calendar.md, "Invitations and the feed"). Inbound: mail with a text/calendar
 * part goes through the email family's real receive path (mailparser, filing, the mailArrivals hook) and the calendar
 * applies REPLY, REQUEST and CANCEL as the system actor (`calendar.itip.apply`). Outbound: calendar calls mail through
 * email's gate and delivery to a real smtp-server on loopback; what leaves is multipart/alternative with text/plain and
 * text/calendar, and python3-icalendar reads it.
 */

const OUTSIDER = 'olga@partner.example';
const stamp = new Date('2026-03-01T08:00:00Z');
const SECRET_TITLE = 'Board dinner canary-7f3a';

let w: ItipWorld;
beforeAll(async () => {
  w = await itipWorld({ workers: false });
});
afterAll(async () => {
  await w?.close();
});

const outsideEvent = (over: Partial<IcsEvent> = {}): IcsEvent => ({
  uid: `out-${Math.random().toString(36).slice(2)}@partner.example`,
  sequence: 0,
  summary: SECRET_TITLE,
  location: 'Partner HQ',
  start: { dateTime: '2026-03-10T18:00:00', timeZone: 'Europe/Berlin' },
  end: { dateTime: '2026-03-10T20:00:00', timeZone: 'Europe/Berlin' },
  organizer: { email: OUTSIDER, name: 'Olga Outside' },
  attendees: [
    { email: OUTSIDER, partstat: 'ACCEPTED' },
    { email: w.annAddress, partstat: 'NEEDS-ACTION', rsvp: true },
  ],
  stamp,
  ...over,
});

async function itipEvents(since: number) {
  return (await eventsAfter(w.s, since)).filter((e: { kind: string }) => e.kind === 'calendar.itip.apply');
}

const getEvent = async (eventId: string, key = w.ann.key) => (await ok(w.s, 'calendar.get', { eventId }, key)).event;

describe('the MIME of calendar mail', () => {
  it('is multipart/alternative with text/plain and text/calendar; method=REQUEST', async () => {
    const ics = writeCalendar({ method: 'REQUEST', events: [outsideEvent()] });
    const { options } = prepareMessage({
      from: 'ann@acme.example',
      to: ['olga@partner.example'],
      subject: 'Invitation',
      text: 'Hi',
      calendar: { method: 'REQUEST', content: ics },
    });
    const raw = (await new Composer().compose(options)).toString('utf8');
    expect(raw).toMatch(/Content-Type: multipart\/alternative;/);
    expect(raw).toMatch(/Content-Type: text\/plain; charset=utf-8/);
    expect(raw).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=REQUEST/);
    expect(raw).not.toMatch(/multipart\/mixed/);
  });
});

describe('inbound REQUEST and CANCEL from an outsider', () => {
  it('puts the event on the invited member’s calendar; a newer SEQUENCE moves it and resets answers; a stale one is ignored', async () => {
    const ev = outsideEvent();
    let since = await head(w.s);
    await arriveIcs(w, { from: OUTSIDER, to: w.annAddress, method: 'REQUEST', ics: writeCalendar({ method: 'REQUEST', events: [ev] }) });
    const [made] = await itipEvents(since);
    expect(made.actor).toBe('');
    expect(made.payload).toMatchObject({ method: 'REQUEST', outcome: 'create', sequence: 0, attendees: 2 });
    // Ids, counts and statuses only: no title, place or address.
    expect(JSON.stringify(made)).not.toMatch(/canary-7f3a|Partner HQ|partner\.example|acme-/);
    const stored = await getEvent(made.payload.eventId);
    expect(stored).toMatchObject({ organizerId: null, organizerEmail: OUTSIDER, title: SECRET_TITLE, sequence: 0, iCalUID: ev.uid });
    expect(stored.start.utc).toBe('2026-03-10T17:00:00.000Z');
    const annRow = stored.attendees.find((a: { principalId: string | null }) => a.principalId === w.ann.id);
    expect(annRow.responseStatus).toBe('needsAction');

    await ok(w.s, 'calendar.rsvp', { eventId: stored.id, scope: 'all', response: 'accepted' }, w.ann.key);
    since = await head(w.s);
    const moved = {
      ...ev,
      sequence: 1,
      start: { dateTime: '2026-03-11T18:00:00', timeZone: 'Europe/Berlin' },
      end: { dateTime: '2026-03-11T19:00:00', timeZone: 'Europe/Berlin' },
    };
    await arriveIcs(w, { from: OUTSIDER, to: w.annAddress, method: 'REQUEST', ics: writeCalendar({ method: 'REQUEST', events: [moved] }) });
    const [update] = await itipEvents(since);
    expect(update.payload).toMatchObject({ outcome: 'update', sequence: 1, responsesReset: true });
    const after = await getEvent(stored.id);
    expect(after.sequence).toBe(1);
    expect(after.start.utc).toBe('2026-03-11T17:00:00.000Z');
    expect(after.attendees.find((a: { principalId: string | null }) => a.principalId === w.ann.id).responseStatus).toBe('needsAction');

    since = await head(w.s);
    await arriveIcs(w, { from: OUTSIDER, to: w.annAddress, method: 'REQUEST', ics: writeCalendar({ method: 'REQUEST', events: [ev] }) });
    expect(await itipEvents(since)).toEqual([]);
    expect((await getEvent(stored.id)).start.utc).toBe('2026-03-11T17:00:00.000Z');
  });

  it('a CANCEL from someone else changes nothing; the organizer’s cancels it', async () => {
    const ev = outsideEvent();
    let since = await head(w.s);
    await arriveIcs(w, { from: OUTSIDER, to: w.annAddress, method: 'REQUEST', ics: writeCalendar({ method: 'REQUEST', events: [ev] }) });
    const [made] = await itipEvents(since);
    const cancel = writeCalendar({ method: 'CANCEL', events: [{ ...ev, status: 'CANCELLED' }] });
    since = await head(w.s);
    await arriveIcs(w, { from: 'mallory@elsewhere.example', to: w.annAddress, method: 'CANCEL', ics: cancel });
    expect(await itipEvents(since)).toEqual([]);
    expect((await getEvent(made.payload.eventId)).status).toBe('confirmed');
    await arriveIcs(w, { from: OUTSIDER, to: w.annAddress, method: 'CANCEL', ics: cancel });
    const [done] = await itipEvents(since);
    expect(done.payload).toMatchObject({ method: 'CANCEL', outcome: 'cancel', originalStart: null });
    expect((await getEvent(made.payload.eventId)).status).toBe('cancelled');
  });

  it('mail that fails DMARC is filed (in Spam) but never applied', async () => {
    const since = await head(w.s);
    await arriveIcs(w, {
      from: OUTSIDER,
      to: w.annAddress,
      method: 'REQUEST',
      ics: writeCalendar({ method: 'REQUEST', events: [outsideEvent()] }),
      dmarc: 'fail',
    });
    const kinds = (await eventsAfter(w.s, since)).map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['email.message.receive']);
  });
});

describe('inbound REPLY to a member’s invitation', () => {
  it('flips the attendee’s answer when the attendee sends it; another sender or a stale SEQUENCE changes nothing', async () => {
    const made = await ok(
      w.s,
      'calendar.create',
      {
        notify: 'none',
        title: SECRET_TITLE,
        start: at('2026-03-12T10:00:00', 'Europe/Berlin'),
        end: at('2026-03-12T11:00:00', 'Europe/Berlin'),
        attendees: [{ email: 'bo@client.example' }],
      },
      w.ann.key,
    );
    const e = made.event;
    const reply = (from: string, partstat: 'ACCEPTED' | 'DECLINED', sequence = 0) =>
      writeCalendar({
        method: 'REPLY',
        events: [
          {
            uid: e.iCalUID,
            sequence,
            summary: 'x',
            start: at('2026-03-12T10:00:00', 'Europe/Berlin'),
            end: at('2026-03-12T11:00:00', 'Europe/Berlin'),
            organizer: { email: w.annAddress },
            attendees: [{ email: from, partstat }],
            stamp,
          },
        ],
      });
    let since = await head(w.s);
    await arriveIcs(w, { from: 'eve@client.example', to: w.annAddress, method: 'REPLY', ics: reply('bo@client.example', 'DECLINED') });
    expect(await itipEvents(since)).toEqual([]);
    await arriveIcs(w, { from: 'bo@client.example', to: w.annAddress, method: 'REPLY', ics: reply('bo@client.example', 'ACCEPTED') });
    const [applied] = await itipEvents(since);
    expect(applied.payload).toMatchObject({ method: 'REPLY', outcome: 'reply', responseStatus: 'accepted', previous: 'needsAction' });
    expect(JSON.stringify(applied)).not.toMatch(/client\.example|canary-7f3a/);
    const got = await getEvent(e.id);
    expect(got.attendees.find((a: { key: string }) => a.key === 'bo@client.example').responseStatus).toBe('accepted');
    expect(got.rsvp.accepted).toBe(2);

    await ok(
      w.s,
      'calendar.reschedule',
      { eventId: e.id, scope: 'all', start: at('2026-03-12T14:00:00', 'Europe/Berlin'), end: at('2026-03-12T15:00:00', 'Europe/Berlin'), notify: 'none' },
      w.ann.key,
    );
    since = await head(w.s);
    await arriveIcs(w, { from: 'bo@client.example', to: w.annAddress, method: 'REPLY', ics: reply('bo@client.example', 'DECLINED', 0) });
    expect(await itipEvents(since)).toEqual([]);
    expect((await getEvent(e.id)).attendees.find((a: { key: string }) => a.key === 'bo@client.example').responseStatus).toBe('needsAction');
  });
});

describe.skipIf(!pyHas('icalendar'))('outbound invitations (through the email gate, to the relay)', () => {
  let o: ItipWorld;
  beforeAll(async () => {
    o = await itipWorld();
  });
  afterAll(async () => {
    await o?.close();
  });

  it('a human’s invite leaves as one REQUEST per outsider; members only with notify all; python3-icalendar reads it', async () => {
    const made = await ok(
      o.s,
      'calendar.create',
      {
        title: 'Pricing review',
        start: at('2026-03-16T09:00:00', 'Europe/Berlin'),
        end: at('2026-03-16T10:00:00', 'Europe/Berlin'),
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=4' },
        attendees: [{ email: 'bo@client.example' }, { principalId: o.bea.id }],
        notify: 'external',
      },
      o.ann.key,
    );
    expect(made.invitations).toEqual({ emailed: 1, heldForReview: 0 });
    const [mail] = await until('the REQUEST at the relay', async () => {
      const got = await sinkCalendars(o.sink, 'bo@client.example');
      return got.length ? got : undefined;
    });
    expect(mail.method).toBe('REQUEST');
    expect(mail.contentType).toMatch(/^multipart\/alternative/);
    const py = pyParse(mail.ics);
    expect(py.method).toBe('REQUEST');
    expect(py.events[0]).toMatchObject({
      uid: made.event.iCalUID,
      sequence: 0,
      dtstartTz: 'Europe/Berlin',
      rrule: 'FREQ=WEEKLY;COUNT=4',
      organizer: `mailto:${o.annAddress}`,
    });
    expect(py.events[0].attendees.map((a) => [a.email, a.partstat])).toEqual(
      expect.arrayContaining([
        ['mailto:bo@client.example', 'NEEDS-ACTION'],
        [`mailto:${o.annAddress}`, 'ACCEPTED'],
      ]),
    );
    expect(await sinkCalendars(o.sink, o.beaAddress)).toEqual([]);
  });
});
