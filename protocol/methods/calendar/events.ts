import { z } from 'zod';
import { method } from '../../contract.js';
import { cursor, limit, text } from '../../schema.js';
import {
  ANSWERS,
  AttendeeRef,
  calendarId,
  changed,
  Description,
  EVENT_TYPES,
  EventTime,
  EventView,
  eventId,
  instant,
  Location,
  MAX_ATTENDEES,
  NOTIFY,
  Recurrence,
  RESPONSE_STATUSES,
  SCOPES,
  Title,
  TRANSPARENCIES,
  VISIBILITIES,
} from './shared.js';

/**
 * Calendar events (docs/families/calendar.md): list, get, create, update, reschedule, rsvp, delete. A member reads
 * every member's calendar (someone else's private events as busy blocks); writes go to one's own calendar, and an
 * agent's also to its sponsor's. Times return in UTC and local with the zone named.
 */

const originalStart = instant('An occurrence of a series: its original start (an occurrence’s originalStart as list returns it).').optional();
const scope = z
  .enum(SCOPES)
  .describe(
    'this (one occurrence, needs originalStart), following (this and later ones: splits the series) or all. Default: this with originalStart, else all.',
  )
  .optional();
const notify = z.enum(NOTIFY).default('all').describe('Who gets iTIP mail: all (default), external (outsiders only) or none.');

const Conflict = z.strictObject({
  principalId: z.string().describe('The attendee who is busy.'),
  eventId: z.string(),
  originalStart: z.string().nullable(),
  start: z.string(),
  end: z.string(),
  tentative: z.boolean().describe('They answered tentative to the other event.'),
});
const Invitations = z.strictObject({
  emailed: z.number().int().describe('iTIP mails sent (or queued to send).'),
  heldForReview: z.number().int().describe('Mails an agent sent to outsiders, held by email review until a human approves.'),
});

const Feed = z.strictObject({
  calendarId: z.string(),
  enabled: z.boolean(),
});

export const calendarEvents = {
  list: method({
    summary:
      'Events in a window (to at most 366 days after from) on calendars (default: your own and those you attend). singleEvents (default true) expands series into occurrences; false returns each series once. Someone else’s private event shows as a busy block. q filters by words of the title, description or location.',
    params: z.strictObject({
      calendarIds: z.array(calendarId('A calendar.')).max(50, 'must be at most 50 calendars').describe('Calendars to read (any member’s).').optional(),
      from: instant('Window start.'),
      to: instant('Window end (exclusive), at most 366 days after from.'),
      singleEvents: z.boolean().default(true).describe('true: occurrences; false: series and single events.'),
      q: text({ min: 1, max: 200, description: 'Words in the title, description or location.' }).optional(),
      updatedSince: instant('Only events changed since.').optional(),
      cursor,
      limit: limit(500, 250),
    }),
    result: z.strictObject({
      items: z.array(EventView),
      nextCursor: z.number().int().nullable().describe('Pass as cursor for the next page; null at the end.'),
    }),
    example: { from: '2026-04-01T00:00:00Z', to: '2026-05-01T00:00:00Z', singleEvents: true },
  }),
  get: method({
    summary:
      'One event, or one occurrence of a series with originalStart: times in UTC and local, attendees and their answers, RSVP counts, and its meeting (meetingId, null when none is recorded).',
    params: z.strictObject({ eventId: eventId('The event.'), originalStart }),
    result: z.strictObject({ event: EventView, meetingId: z.string().nullable().describe('The meeting recorded for it (mtg_…), if any.') }),
    example: { eventId: 'cev_0123456789abcdef' },
  }),
  create: method({
    summary:
      'Create an event on your calendar (or, for an agent, its sponsor’s). Attendees: members (principalId), directory persons (personId) or addresses; you organize and accept. Returns the attendees’ overlapping busy time (conflicts) and invitations sent or held for review. end after start; FREQ DAILY to YEARLY.',
    params: z.strictObject({
      calendarId: calendarId('Whose calendar (default yours; an agent may name its sponsor’s).').optional(),
      title: Title,
      start: EventTime,
      end: EventTime,
      recurrence: Recurrence.describe('Repeat the event: an RRULE and the starts left out.').optional(),
      attendees: z
        .array(AttendeeRef)
        .max(MAX_ATTENDEES, `must be at most ${MAX_ATTENDEES} attendees`)
        .default([])
        .describe('Who is invited, besides the organizer.'),
      visibility: z.enum(VISIBILITIES).default('default').describe('private: others see only a busy block.'),
      eventType: z.enum(EVENT_TYPES).default('default').describe('default, outOfOffice (blocks finding a time) or focusTime.'),
      transparency: z.enum(TRANSPARENCIES).default('opaque').describe('transparent: does not make anyone busy.'),
      location: Location.optional(),
      description: Description.optional(),
      notify,
    }),
    result: z.strictObject({ event: EventView, conflicts: z.array(Conflict), invitations: Invitations, changed }),
    events: ['calendar.event.create'],
    example: {
      title: 'Quarterly planning',
      start: { dateTime: '2026-04-07T09:00:00', timeZone: 'Europe/Berlin' },
      end: { dateTime: '2026-04-07T10:00:00', timeZone: 'Europe/Berlin' },
      attendees: [{ principalId: 'usr_0123456789abcdef' }, { email: 'ann@example.com', optional: true }],
      notify: 'all',
    },
  }),
  update: method({
    summary:
      'Change an event’s words, kind or attendees (the organizer, or an agent for its sponsor): scope this/following/all for a series. Times change with calendar.reschedule. With calendarId instead: the calendar’s read-only ICS feed (feed rotate: a new secret URL, shown once; off: no feed).',
    params: z.strictObject({
      eventId: eventId('The event (or give calendarId and feed).').optional(),
      originalStart,
      scope,
      title: Title.optional(),
      description: Description.nullable().optional(),
      location: Location.nullable().optional(),
      visibility: z.enum(VISIBILITIES).describe('private: others see only a busy block (scope all or following).').optional(),
      eventType: z.enum(EVENT_TYPES).describe('default, outOfOffice or focusTime (scope all or following).').optional(),
      transparency: z.enum(TRANSPARENCIES).describe('transparent: does not make anyone busy (scope all or following).').optional(),
      attendees: z
        .array(AttendeeRef)
        .max(MAX_ATTENDEES, `must be at most ${MAX_ATTENDEES} attendees`)
        .describe('The full new list (scope all or following).')
        .optional(),
      start: z.unknown().describe('Not here: use calendar.reschedule.').optional(),
      end: z.unknown().describe('Not here: use calendar.reschedule.').optional(),
      notify,
      calendarId: calendarId('A calendar whose feed to change (with feed).').optional(),
      feed: z.enum(['rotate', 'off']).describe('rotate: a new feed URL (the old stops); off: no feed.').optional(),
    }),
    result: z.strictObject({
      event: EventView.nullable(),
      feed: Feed.nullable(),
      feedUrl: z.string().nullable().describe('The feed URL with its new token: shown once, only after rotate (a retry with the same key shows it again).'),
      secretWithheld: z.string().describe('Why feedUrl is null on a replay to another key.').optional(),
      invitations: Invitations,
      changed,
    }),
    // The feed URL is a bearer secret: stored with the call only sealed under the caller's key.
    secrets: { fields: ['feedUrl'], ifLost: 'call calendar.update with this calendarId and feed: rotate for a new URL (the old one stops working)' },
    events: ['calendar.event.update', 'calendar.feed.rotate'],
    example: { eventId: 'cev_0123456789abcdef', title: 'Quarterly planning (room 2)', location: 'Room 2' },
  }),
  reschedule: method({
    summary:
      'Move an event (the organizer): SEQUENCE+1, everyone’s answer back to needsAction (the organizer stays accepted), a new invitation. scope this moves one occurrence; following splits the series there (the old one ends before it); all moves the series by the same shift.',
    params: z.strictObject({ eventId: eventId('The event.'), originalStart, scope, start: EventTime, end: EventTime, notify }),
    result: z.strictObject({ event: EventView, conflicts: z.array(Conflict), invitations: Invitations, changed }),
    events: ['calendar.event.reschedule'],
    example: {
      eventId: 'cev_0123456789abcdef',
      start: { dateTime: '2026-04-08T14:00:00', timeZone: 'Europe/Berlin' },
      end: { dateTime: '2026-04-08T15:00:00', timeZone: 'Europe/Berlin' },
    },
  }),
  rsvp: method({
    summary:
      'Answer an invitation: accepted, declined or tentative, for one occurrence (this) or the series (all). An agent may answer for its sponsor (attendeeId). Not invited: CONFLICT. An outside organizer gets an iTIP REPLY.',
    params: z.strictObject({
      eventId: eventId('The event.'),
      originalStart,
      scope,
      response: z.enum(ANSWERS).describe('accepted, declined or tentative.'),
      attendeeId: z
        .string()
        .max(64)
        .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id')
        .describe('Answer for this member: yourself (default) or, for an agent, its sponsor.')
        .optional(),
    }),
    result: z.strictObject({
      event: EventView,
      attendeeId: z.string(),
      responseStatus: z.enum(RESPONSE_STATUSES),
      replied: z.boolean().describe('A REPLY was mailed to an outside organizer.'),
      changed,
    }),
    events: ['calendar.attendee.rsvp'],
    example: { eventId: 'cev_0123456789abcdef', response: 'accepted' },
  }),
  delete: method({
    summary:
      'Take an event off your calendar: the organizer cancels it (attendees get a CANCEL) for this occurrence, the following ones or all; an attendee declines it instead. Already so: changed:false.',
    params: z.strictObject({ eventId: eventId('The event.'), originalStart, scope, notify }),
    result: z.strictObject({
      eventId: z.string(),
      action: z.enum(['cancelled', 'declined']).describe('What it did: the organizer cancelled, an attendee declined.'),
      scope: z.enum(SCOPES),
      invitations: Invitations,
      changed,
    }),
    events: ['calendar.event.delete'],
    example: { eventId: 'cev_0123456789abcdef', scope: 'all' },
  }),
};
