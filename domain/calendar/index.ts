import { family, type Family } from '../core/family.js';
import { remove, rsvp } from './answer.js';
import { create } from './create.js';
import { get, list } from './read.js';
import { reschedule } from './reschedule.js';
import { applyItipMail } from './itip/inbound.js';
import { ask, CALENDAR_ANSWERERS, findATime } from './time/index.js';
import { update } from './update.js';
import { calendarEvents } from './visibility.js';

/*
 * The calendar family (docs/families/calendar.md): a calendar per member, events with attendees and RRULEs expanded
 * in wall-clock time, answers per occurrence, finding a time across zones, iTIP mail and a read-only feed. Its
 * events carry ids, sequences, counts, scopes and statuses, never titles, descriptions, locations or addresses.
 */

export const calendarHandlers = family('calendar', { list, get, create, update, reschedule, rsvp, delete: remove, findATime, ask });

/** The calendar family, as domain/deployed.ts lists it. */
export const calendarFamily: Family = {
  name: 'calendar',
  methods: calendarHandlers,
  answerers: CALENDAR_ANSWERERS,
  eventVisibility: { calendar: calendarEvents },
  // iTIP replies, invitations and cancellations in arriving mail (email's receive transaction).
  contributes: { mailArrivals: applyItipMail },
};

/** For FIND, ITIP and MTG (and any family reading calendar time): occurrences with overrides applied, busy time. */
export { occurrencesIn, occurrenceOf, type Occurrence, type OccurrenceAttendee, type OccurrenceQuery } from './occurrences.js';
export { busyIntervals, type BusyInterval } from './busy.js';
export { loadEvent, ensureCalendar, calendarOf, type LoadedEvent, type EventRow, type AttendeeRow, type CalendarRow } from './model.js';
