import { z } from 'zod';
import { id, text } from '../../schema.js';

/**
 * The calendar family's shared vocabulary (docs/families/calendar.md): times as a wall clock in a named zone or a
 * date, attendee references, answers, scopes of a change to a series, and the event as callers read it (UTC and
 * local, the zone named). Helpers FIND, ITIP and MTG build on these names: keep them stable.
 */

const ZONES = new Set(Intl.supportedValuesOf('timeZone').concat('UTC'));
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/** An IANA zone name this server can place times in (canonical names and their aliases; no bare offsets). */
export function isKnownZone(tz: string): boolean {
  if (ZONES.has(tz)) return true;
  if (!ZONE_NAME.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const RESPONSE_STATUSES = ['needsAction', 'accepted', 'declined', 'tentative'] as const;
export const ANSWERS = ['accepted', 'declined', 'tentative'] as const;
export const SCOPES = ['this', 'following', 'all'] as const;
export const EVENT_TYPES = ['default', 'outOfOffice', 'focusTime'] as const;
export const VISIBILITIES = ['default', 'public', 'private'] as const;
export const TRANSPARENCIES = ['opaque', 'transparent'] as const;
export const EVENT_STATUSES = ['confirmed', 'cancelled'] as const;
export const NOTIFY = ['all', 'external', 'none'] as const;

export type ResponseStatus = (typeof RESPONSE_STATUSES)[number];
export type Scope = (typeof SCOPES)[number];

export const MAX_ATTENDEES = 200;
/** The longest window a list or an expansion covers. */
export const MAX_WINDOW_DAYS = 366;

export const eventId = (description: string) => id('cev', description);
export const calendarId = (description: string) => id('cal', description);

export const zoneName = z.string().max(64, 'must be at most 64 characters').refine(isKnownZone, 'unknown zone').describe('IANA time zone, e.g. Europe/Berlin.');

/** An ISO instant with a zone or offset (`2026-04-06T23:00:00Z`). */
export const instant = (description: string) =>
  z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-04-06T23:00:00Z' }).describe(description);

const EXDATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** A timed start or end: the wall clock in a zone (an offset, when given, is converted into the zone). */
export const TimedTime = z.strictObject({
  dateTime: z
    .string()
    .max(40, 'must be at most 40 characters')
    .regex(LOCAL, 'must be a date-time like 2026-04-07T09:00:00 (wall clock in timeZone)')
    .refine((s) => !Number.isNaN(Date.parse(s.slice(0, 19) + 'Z')), 'must be a real date and time')
    .refine((s) => s >= '1900' && s < '9001', 'must be a date-time from 1900 to 9000')
    .describe('Wall-clock time in timeZone, e.g. 2026-04-07T09:00:00; with an offset or Z it is that instant.'),
  timeZone: zoneName,
});
/** An all-day start or end (the end date is exclusive). */
export const DateTime = z.strictObject({
  date: z.iso
    .date({ message: 'must be a date YYYY-MM-DD' })
    .refine((d) => d >= '1900-01-01' && d <= '9000-12-31', 'must be a date between 1900 and 9000')
    .describe('A calendar date; an all-day end is exclusive (a one-day event ends the next day).'),
});
export const EventTime = z.union([TimedTime, DateTime]).describe('{dateTime, timeZone} for a timed event, {date} for an all-day one.');
export type EventTimeIn = z.output<typeof EventTime>;

/** Who is invited: exactly one of a member, a directory person or an address. */
export const AttendeeRef = z
  .strictObject({
    principalId: z
      .string()
      .max(64, 'must be at most 64 characters')
      .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id (usr_… or agt_…)')
      .describe('A member of the org.')
      .optional(),
    personId: id('per', 'A person in the directory (their primary email receives the invitation).').optional(),
    email: z.email({ message: 'must be an email address' }).max(254, 'must be at most 254 characters').describe('An address.').optional(),
    optional: z.boolean().default(false).describe('Optional attendance.'),
  })
  .refine((a) => [a.principalId, a.personId, a.email].filter((x) => x !== undefined).length === 1, 'give exactly one of principalId, personId, email')
  .describe('An attendee: exactly one of principalId, personId, email.');
export type AttendeeRefIn = z.output<typeof AttendeeRef>;

export const Recurrence = z.strictObject({
  rrule: z
    .string()
    .min(6, 'must be at least 6 characters')
    .max(500, 'must be at most 500 characters')
    .describe('An RFC 5545 RRULE without DTSTART, e.g. FREQ=WEEKLY;BYDAY=TU. FREQ DAILY, WEEKLY, MONTHLY or YEARLY.'),
  exdates: z
    .array(z.string().max(40).regex(EXDATE, 'must be a date-time like 2026-04-07T09:00:00 (wall clock in the start zone), or a date for an all-day series'))
    .max(500, 'must be at most 500 dates')
    .default([])
    .describe('Starts left out, as wall clock in the start zone (or instants with an offset).'),
});

export const Title = text({ min: 1, max: 500, description: 'The title (never in the ledger).' });
export const Description = text({ max: 8000, description: 'Notes (never in the ledger).' });
export const Location = text({ max: 500, description: 'Where (never in the ledger).' });

/** A start or an end as read: the instant, and the wall clock in the zone named (timed) or the date (all-day). */
export const TimeView = z.strictObject({
  utc: z.string().describe('The instant, UTC (all-day: midnight UTC of the date).'),
  local: z.string().nullable().describe('Wall clock with offset in timeZone, e.g. 2026-04-07T09:00:00+10:00; null for all-day.'),
  timeZone: z.string().nullable().describe('The zone of local; null for all-day.'),
  date: z.string().nullable().describe('The date of an all-day event; null for timed.'),
});

export const AttendeeView = z.strictObject({
  key: z.string().describe('Identifies the attendee within the event: the member id, person id or lower-cased address.'),
  principalId: z.string().nullable(),
  personId: z.string().nullable(),
  email: z.string().nullable(),
  displayName: z.string().nullable(),
  optional: z.boolean(),
  organizer: z.boolean(),
  responseStatus: z.enum(RESPONSE_STATUSES).describe('For this occurrence when the event is one.'),
});

export const RsvpCounts = z.strictObject({
  accepted: z.number().int(),
  declined: z.number().int(),
  tentative: z.number().int(),
  needsAction: z.number().int(),
});

export const EventView = z.strictObject({
  id: z.string().describe('cev_…'),
  calendarId: z.string(),
  originalStart: z.string().nullable().describe('An occurrence of a series: its original start (UTC); null for the series or a single event.'),
  organizerId: z.string().nullable().describe('The organizing member; null when an outsider organizes.'),
  organizerEmail: z.string().nullable().describe("An outside organizer's address (events that arrived by invitation)."),
  title: z.string().describe('"Busy" for a private event of someone else.'),
  description: z.string().nullable(),
  location: z.string().nullable(),
  start: TimeView,
  end: TimeView,
  allDay: z.boolean(),
  recurrence: z
    .strictObject({ rrule: z.string(), exdates: z.array(z.string()) })
    .nullable()
    .describe('The series rule; exdates wall clock in the start zone.'),
  attendees: z.array(AttendeeView),
  rsvp: RsvpCounts,
  eventType: z.enum(EVENT_TYPES),
  visibility: z.enum(VISIBILITIES),
  transparency: z.enum(TRANSPARENCIES),
  status: z.enum(EVENT_STATUSES),
  sequence: z.number().int().describe('RFC 5545 SEQUENCE: raised by each change of time.'),
  iCalUID: z.string(),
  splitFrom: z.string().nullable().describe('The series this one was split from by a `following` change.'),
  busyOnly: z.boolean().describe('A private event of someone else: only its time is shown.'),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type EventOut = z.output<typeof EventView>;

export const changed = z.boolean().describe('false when it was already so (its event says noop).');
