import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCalendar } from '../../../domain/calendar/itip/ics.js';
import { eventsAfter, head, rpc, ok } from '../../helpers/calls.js';
import { until } from '../../jobs/kit.js';
import { at } from './kit.js';
import { arriveIcs, itipWorld, pyHas, pyParse, sinkCalendars, type ItipWorld } from './itip-kit.js';

/*
 * Design scenario 1, the invitations: an agent's invite to a client is agent mail
 * to an outsider, so email's review gate holds it (heldForReview); after a human approves, exactly one REQUEST
 * reaches the relay; the client's REPLY flips the status; a reschedule sends SEQUENCE 1 and resets the answers; the
 * same idempotency key replays the same frame and appends nothing.
 */

const CLIENT = 'bo@client.example';
let w: ItipWorld;
beforeAll(async () => {
  w = await itipWorld();
});
afterAll(async () => {
  await w?.close();
});

const requests = () => sinkCalendars(w.sink, CLIENT);

describe('scenario 1: an agent invites a client', () => {
  it('held for review, one REQUEST after approval, REPLY flips, reschedule is SEQUENCE 1, same key same frame', async () => {
    const params = {
      title: 'Kick-off with the client',
      start: at('2026-12-09T15:00:00', 'Europe/Berlin'),
      end: at('2026-12-09T16:00:00', 'Europe/Berlin'),
      attendees: [{ email: CLIENT }],
      notify: 'external',
    };
    const before = await head(w.s);
    const first = await rpc(w.s, 'calendar.create', params, w.agent.key, 'kickoff-1');
    expect(first.status).toBe(200);
    const made = first.body.result;
    expect(made.invitations).toEqual({ emailed: 0, heldForReview: 1 });
    const kinds = (await eventsAfter(w.s, before)).map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['calendar.event.create']);

    // The same key: the same frame, nothing appended.
    const mark = await head(w.s);
    const again = await rpc(w.s, 'calendar.create', params, w.agent.key, 'kickoff-1');
    expect(again.body.result).toEqual(made);
    expect(await eventsAfter(w.s, mark)).toEqual([]);

    // Nothing left before a human decided; the review is ann's (owner of the mailbox the agent sends from).
    const reviews = await ok(w.s, 'email.approvals', { mailboxId: w.annMailbox, status: 'pending' }, w.ann.key);
    expect(reviews.reviews).toHaveLength(1);
    expect(await requests()).toEqual([]);
    await ok(w.s, 'email.approve', { approvalId: reviews.reviews[0].approvalId }, w.ann.key);
    const sent = await until('one REQUEST at the relay', async () => {
      const got = await requests();
      return got.length ? got : undefined;
    });
    expect(sent).toHaveLength(1);
    expect(sent[0].method).toBe('REQUEST');
    if (pyHas('icalendar')) expect(pyParse(sent[0].ics).events[0]).toMatchObject({ uid: made.event.iCalUID, sequence: 0 });

    // The client accepts by mail.
    const reply = writeCalendar({
      method: 'REPLY',
      events: [
        {
          uid: made.event.iCalUID,
          sequence: 0,
          summary: 'Kick-off',
          start: params.start,
          end: params.end,
          organizer: { email: w.annAddress },
          attendees: [{ email: CLIENT, partstat: 'ACCEPTED' }],
          stamp: new Date(),
        },
      ],
    });
    await arriveIcs(w, { from: CLIENT, to: w.annAddress, method: 'REPLY', ics: reply });
    const answered = (await ok(w.s, 'calendar.get', { eventId: made.event.id }, w.agent.key)).event;
    expect(answered.attendees.find((a: { key: string }) => a.key === CLIENT).responseStatus).toBe('accepted');

    // Rescheduled: SEQUENCE 1, answers reset, a new REQUEST (held again: agent mail to an outsider).
    const moved = await ok(
      w.s,
      'calendar.reschedule',
      {
        eventId: made.event.id,
        scope: 'all',
        start: at('2026-12-10T15:00:00', 'Europe/Berlin'),
        end: at('2026-12-10T16:00:00', 'Europe/Berlin'),
        notify: 'external',
      },
      w.agent.key,
    );
    expect(moved.event.sequence).toBe(1);
    expect(moved.event.attendees.find((a: { key: string }) => a.key === CLIENT).responseStatus).toBe('needsAction');
    expect(moved.invitations).toEqual({ emailed: 0, heldForReview: 1 });
    const next = await ok(w.s, 'email.approvals', { mailboxId: w.annMailbox, status: 'pending' }, w.ann.key);
    await ok(w.s, 'email.approve', { approvalId: next.reviews[0].approvalId }, w.ann.key);
    const both = await until('the SEQUENCE 1 REQUEST', async () => {
      const got = await requests();
      return got.length === 2 ? got : undefined;
    });
    if (pyHas('icalendar')) expect(pyParse(both[1].ics).events[0].sequence).toBe(1);
  });
});
