import type { z } from 'zod';
import { ApiError, badRequest } from '../../protocol/errors.js';
import { meetings as c } from '../../protocol/methods/meetings.js';
import type { HandlerCtx } from '../core/handler.js';
import { iso, visibleMeeting, type MeetingRow } from './model.js';

/* meetings.record's params checked: first what they say alone, then against the meeting an amend names. */

export type Params = z.output<typeof c.record.params>;

const BOARD_WRITE = 'board.write';

/** What the params say before anything is read: BAD_REQUEST naming the field, FORBIDDEN_SCOPE for tasks. */
export function checkParams(ctx: HandlerCtx, p: Params): void {
  if (p.meetingId === undefined && (p.eventId === undefined) === (p.callId === undefined)) {
    throw badRequest(
      p.eventId === undefined ? 'eventId' : 'callId',
      'give eventId (a calendar event) or callId (a call), exactly one; or meetingId to amend a meeting already recorded',
    );
  }
  if (p.originalStart !== undefined && p.eventId === undefined && p.meetingId === undefined)
    throw badRequest('originalStart', 'goes with eventId (one occurrence of a series)');
  if (p.callId !== undefined && p.transcript !== undefined) {
    throw badRequest('transcript', "a call's meeting takes its transcript from the call (calling.addTranscriptLine); give notes, or leave transcript out");
  }
  if (p.startedAt !== undefined && p.endedAt !== undefined && Date.parse(p.endedAt) <= Date.parse(p.startedAt))
    throw badRequest('endedAt', 'must be after startedAt');
  for (const [i, l] of (p.transcript ?? []).entries()) {
    if (l.endMs !== undefined && l.startMs === undefined) throw badRequest(`transcript.${i}.startMs`, 'is needed with endMs');
    if (l.endMs !== undefined && l.endMs < l.startMs!) throw badRequest(`transcript.${i}.endMs`, `must be >= startMs (${l.startMs})`);
  }
  for (const [i, a] of (p.actionItems ?? []).entries()) {
    if (a.assigneeId !== undefined && a.assignee !== undefined)
      throw badRequest(`actionItems.${i}.assignee`, 'give assigneeId (a member id) or assignee (a name), not both');
  }
  if ((p.actionItems ?? []).some((a) => a.createTask) && !ctx.principal.scopes.has(BOARD_WRITE)) {
    throw new ApiError('FORBIDDEN_SCOPE', `missing scope ${BOARD_WRITE}, needed to make board tasks (createTask: true); call again with createTask: false`);
  }
}

/** The meeting being amended, checked against what the params name. */
export async function amended(ctx: HandlerCtx, p: Params): Promise<MeetingRow> {
  const row = await visibleMeeting(ctx.q, ctx.orgId, p.meetingId!, ctx.principal.id, true);
  const differs = (field: 'eventId' | 'callId', given: string | undefined, has: string | null) => {
    if (given !== undefined && given !== has)
      throw badRequest(field, `meeting ${row.meeting_id} is of ${row.event_id ?? row.call_id}: leave ${field} out when amending`);
  };
  differs('eventId', p.eventId, row.event_id);
  differs('callId', p.callId, row.call_id);
  if (p.originalStart !== undefined && (row.original_start === null || iso(row.original_start) !== iso(p.originalStart))) {
    throw badRequest('originalStart', `meeting ${row.meeting_id} is of another occurrence: leave originalStart out when amending`);
  }
  if (row.call_id !== null && p.transcript !== undefined) {
    throw badRequest('transcript', "a call's meeting takes its transcript from the call (calling.addTranscriptLine); give notes, or leave transcript out");
  }
  return row;
}
