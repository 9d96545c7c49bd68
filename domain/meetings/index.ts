import { family, type Family } from '../core/family.js';
import { MEETINGS_ANSWERER } from './answerer.js';
import { meetingsReads } from './list.js';
import { recapFile } from './recap.js';
import { record } from './record.js';
import { meetingOfOccurrence } from './lookup.js';
import { meetingsEvents } from './visibility.js';

/*
 * The meetings family (docs/families/meetings.md): a meeting of a calendar occurrence or a call, its lines, decisions
 * (unverified knowledge entries) and action items (board tasks in triage), and its recap filed as a doc. Its events
 * carry ids, revisions and counts, never a title, a line, a note, a decision's or an action's words, or a name.
 */

export const meetingsHandlers = family('meetings', { record, recapFile });

/** The meetings family, as domain/deployed.ts lists it. */
export const meetingsFamily: Family = {
  name: 'meetings',
  methods: meetingsHandlers,
  reads: meetingsReads,
  answerers: [MEETINGS_ANSWERER],
  eventVisibility: { meetings: meetingsEvents },
  // calendar.get's meetingId.
  contributes: { meetingOfOccurrence },
};

/** The meeting of an occurrence (calendar.get's meetingId), if one was recorded and the caller may see it. */
export { meetingOfOccurrence } from './lookup.js';
