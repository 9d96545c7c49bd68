import { calendarEvents } from './events.js';
import { calendarTime } from './time.js';

/** The calendar family's contracts (docs/families/calendar.md): events (events.ts) and finding a time (time.ts). */
export const calendar = { ...calendarEvents, ...calendarTime };
