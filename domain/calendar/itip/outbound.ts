import { notFound } from '../../../protocol/errors.js';
import type { HandlerCtx } from '../../core/handler.js';
import { sendCalendarMail, type CalendarSent } from '../../email/index.js';
import { loadEvent, type LoadedEvent } from '../model.js';
import { localIso, place } from '../recurrence.js';
import { writeCalendar, type IcsEvent, type IcsPerson, type ItipMethod } from './ics.js';
import { addressOf, peopleOf, veventsOf } from './vevent.js';

/*
 * Invitations, cancellations and replies as iTIP mail (RFC 5546 over RFC 6047): one message per recipient, each a
 * multipart/alternative of a plain text and `text/calendar; method=...`, sent as the caller through the email
 * family (sendCalendarMail: the caller's mailbox, its gate and review, its delivery), inside the calendar call's
 * transaction, before that call emits its one event. So an agent's invitation to an outsider waits for a human of
 * the mailbox (heldForReview) and exactly one REQUEST leaves when it is approved. A caller with no mailbox: a
 * human's mail goes from the server's no-reply address after commit (humans' mail is never held); an agent's is not
 * sent, and the log says so.
 */

export interface Invitations {
  emailed: number;
  heldForReview: number;
}

export interface SendInvitations {
  eventId: string;
  method: 'REQUEST' | 'CANCEL';
  originalStart?: string | null;
  notify: 'all' | 'external' | 'none';
  /** Attendee keys; default every attendee but the organizer. */
  recipients?: string[];
}

const none: Invitations = { emailed: 0, heldForReview: 0 };

/** When, as the organizer set it: the wall clock, its zone and offset (clients show it in the reader's own zone). */
function when(v: IcsEvent): string {
  const s = v.start;
  if ('date' in s) return `${s.date} (all day)`;
  const offset = localIso(place(s.dateTime, s.timeZone), s.timeZone).slice(19);
  return `${s.dateTime.slice(0, 16).replace('T', ' ')} ${s.timeZone} (UTC${offset})`;
}

function words(method: ItipMethod, e: LoadedEvent, v: IcsEvent, organizer: IcsPerson | null, extra?: string) {
  const title = v.summary;
  const subject =
    method === 'CANCEL'
      ? `Cancelled: ${title}`
      : method === 'REPLY'
        ? `${extra ?? 'Reply'}: ${title}`
        : `${v.sequence > 0 ? 'Updated invitation' : 'Invitation'}: ${title}`;
  const lines = [
    method === 'CANCEL'
      ? 'This event was cancelled.'
      : method === 'REPLY'
        ? `${extra ?? 'Reply'} to the invitation.`
        : 'You are invited. Your calendar app offers to accept or decline.',
    '',
    `What: ${title}`,
    `When: ${when(v)}${e.rrule && !v.recurrenceId ? ` (repeats: ${e.rrule})` : ''}`,
    ...(v.location ? [`Where: ${v.location}`] : []),
    ...(organizer ? [`Organizer: ${organizer.name ? `${organizer.name} <${organizer.email}>` : organizer.email}`] : []),
    ...(v.description ? ['', v.description] : []),
  ];
  return { subject: subject.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 900), text: lines.join('\n') + '\n' };
}

/** The no-reply sender, for a human caller with no mailbox. */
function noReply(ctx: HandlerCtx): string {
  const host = new URL(ctx.deps.config.publicUrl).hostname;
  return `no-reply@${/\./.test(host) ? host : `${host}.localdomain`}`;
}

/** Send one calendar message to one address; counts what happened. */
async function sendOne(
  ctx: HandlerCtx,
  to: IcsPerson,
  m: { method: 'REQUEST' | 'CANCEL' | 'REPLY'; subject: string; text: string; ics: string; replyTo: IcsPerson | null },
  counts: Invitations,
  ids: { eventId: string },
): Promise<void> {
  const sent: CalendarSent = await sendCalendarMail(ctx, { to: [{ address: to.email, name: to.name ?? '' }], subject: m.subject, text: m.text, calendar: m });
  if (sent.status === 'held_for_review') counts.heldForReview++;
  else if (sent.status === 'scheduled') counts.emailed++;
  else if (ctx.principal.kind === 'human') {
    const mail = {
      from: { name: ctx.principal.name, address: noReply(ctx) },
      to: [{ address: to.email }],
      ...(m.replyTo ? { replyTo: { address: m.replyTo.email } } : {}),
      subject: m.subject,
      text: m.text,
      calendar: { method: m.method, content: m.ics },
    };
    ctx.afterCommit(() => {
      ctx.deps.mail.send(mail).then(
        (d) => {
          if (d.status !== 'sent' && d.status !== 'internal') ctx.deps.log.warn({ ...ids, delivery: d.status }, 'calendar mail not delivered');
        },
        (err: Error) => ctx.deps.log.error({ ...ids, err: { name: err.name } }, 'calendar mail failed'),
      );
    });
    counts.emailed++;
  } else {
    ctx.deps.log.warn({ ...ids, method: m.method }, 'calendar mail not sent: the agent has no mailbox to send from (give it a seat in one)');
  }
}

/**
 * REQUEST or CANCEL to the event's attendees (members at their address when notify is `all`; outsiders unless
 * `none`). Call before the calling handler emits its event. The organizer is never mailed.
 */
export async function sendInvitations(ctx: HandlerCtx, input: SendInvitations): Promise<Invitations> {
  if (input.notify === 'none') return { ...none };
  const e = await loadEvent(ctx.q, ctx.orgId, input.eventId);
  if (!e) throw notFound(`calendar event ${input.eventId}`);
  // An event an outsider organizes is theirs to send: members answer it with sendReply.
  if (e.organizer_email) return { ...none };
  const people = await peopleOf(ctx.q, ctx.orgId, e);
  const organizer = e.organizer_id ? (people.get(e.organizer_id) ?? null) : null;
  const keys = input.recipients ? new Set(input.recipients) : null;
  const targets = e.attendees.filter(
    (a) =>
      !a.organizer && a.principal_id !== e.organizer_id && (keys === null || keys.has(a.attendee_key)) && (a.principal_id === null || input.notify === 'all'),
  );
  const counts = { ...none };
  if (targets.length === 0) return counts;
  const stamp = ctx.deps.clock.now();
  const events = await veventsOf(ctx.q, ctx.orgId, e, { originalStart: input.originalStart ?? null, stamp, rsvp: input.method === 'REQUEST' });
  if (input.method === 'CANCEL') for (const v of events) v.status = 'CANCELLED';
  const ics = writeCalendar({ method: input.method, events });
  const text = words(input.method, e, events[0], organizer);
  const sentTo = new Set<string>();
  for (const a of targets) {
    const to = addressOf(a, people);
    if (!to || sentTo.has(to.email) || (organizer && to.email === organizer.email)) continue;
    sentTo.add(to.email);
    await sendOne(ctx, to, { method: input.method, ...text, ics, replyTo: organizer }, counts, { eventId: e.event_id });
  }
  return counts;
}

const REPLY_WORD: Record<string, string> = { accepted: 'Accepted', declined: 'Declined', tentative: 'Tentative', needsAction: 'Reply' };

/**
 * A member's answer to an outsider's invitation (the event has organizer_email): METHOD:REPLY with that attendee
 * alone and its PARTSTAT (of the occurrence when originalStart is given), to the organizer. Call before emitting.
 */
export async function sendReply(ctx: HandlerCtx, input: { eventId: string; originalStart?: string | null; attendeeKey: string }): Promise<Invitations> {
  const e = await loadEvent(ctx.q, ctx.orgId, input.eventId);
  if (!e) throw notFound(`calendar event ${input.eventId}`);
  const counts = { ...none };
  if (!e.organizer_email) return counts;
  const me = e.attendees.find((a) => a.attendee_key === input.attendeeKey);
  if (!me) return counts;
  const people = await peopleOf(ctx.q, ctx.orgId, e);
  const who = addressOf(me, people);
  if (!who) return counts;
  const events = await veventsOf(ctx.q, ctx.orgId, e, { originalStart: input.originalStart ?? null, stamp: ctx.deps.clock.now(), rsvp: false });
  const answer = events[0].attendees?.find((a) => a.email === who.email);
  const replies = events.map((v) => ({ ...v, attendees: (v.attendees ?? []).filter((a) => a.email === who.email) }));
  const ics = writeCalendar({ method: 'REPLY', events: replies.slice(0, 1) });
  const status = input.originalStart ? (answer?.partstat ?? 'NEEDS-ACTION') : me.response_status;
  const word = REPLY_WORD[status] ?? ({ ACCEPTED: 'Accepted', DECLINED: 'Declined', TENTATIVE: 'Tentative' } as Record<string, string>)[status] ?? 'Reply';
  const organizer = { email: e.organizer_email, name: null };
  const text = words('REPLY', e, replies[0], organizer, word);
  await sendOne(ctx, organizer, { method: 'REPLY', ...text, ics, replyTo: null }, counts, { eventId: e.event_id });
  return counts;
}
