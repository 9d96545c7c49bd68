import type { Answerer } from '../../../ai-gateway/answerer.js';
import { calendar } from '../../../protocol/methods/calendar/index.js';
import { CALENDAR_ASK_ANSWERER } from './answerer.js';

/*
 * Finding a time (docs/families/calendar.md, "Finding a time"): calendar.findATime and calendar.ask, and the answerer
 * the calendar family's descriptor registers with the AI gateway.
 */

export { findATime } from './find-a-time.js';
export { ask } from './ask.js';

/** The calendar's answerers (the descriptor's `answerers`): calendar.ask over calendar.list, calendar.get and calendar.findATime. */
export const CALENDAR_ANSWERERS: readonly Answerer[] = [CALENDAR_ASK_ANSWERER(calendar)];
