import type { Queryable } from '../../../db/types.js';
import { callAccess, iso } from './model.js';

/*
 * A call as the meetings family records it (meetings.record {callId}): who was in it and its transcript lines, read
 * as the caller (NOT_FOUND unless they may read the call, as calling.getTranscript), in the caller's transaction.
 * Nothing is written and no event appended.
 */

export interface CallForMeeting {
  callId: string;
  title: string | null;
  /** The call's channel is public: anyone in the org may know of it. */
  openToOrg: boolean;
  startedAt: string;
  endedAt: string | null;
  /** Members who joined it at some point, in the order they first joined. */
  attendeeIds: string[];
  lines: { lineId: string; speakerId: string | null; speakerLabel: string | null; startMs: number; endMs: number; text: string }[];
}

export async function callForMeeting(q: Queryable, orgId: string, callId: string, principalId: string): Promise<CallForMeeting> {
  const { call } = await callAccess(q, orgId, callId, principalId);
  const [channel] = await q.query<{ kind: string }>('SELECT kind FROM channels WHERE org_id = $1 AND channel_id = $2', [orgId, call.channel_id]);
  const people = await q.query<{ principal_id: string }>(
    `SELECT principal_id FROM call_participants WHERE org_id = $1 AND call_id = $2 AND joined_at IS NOT NULL ORDER BY joined_at, principal_id`,
    [orgId, call.call_id],
  );
  const lines = await q.query<{
    line_id: string;
    speaker_id: string | null;
    speaker_label: string | null;
    start_ms: string | number;
    end_ms: string | number;
    text: string;
  }>(
    `SELECT line_id, speaker_id, speaker_label, start_ms, end_ms, text FROM call_transcript_lines WHERE org_id = $1 AND call_id = $2 ORDER BY start_ms, line_seq`,
    [orgId, call.call_id],
  );
  return {
    callId: call.call_id,
    title: call.title,
    openToOrg: channel?.kind === 'public',
    startedAt: iso(call.started_at),
    endedAt: call.ended_at === null ? null : iso(call.ended_at),
    attendeeIds: people.map((p) => p.principal_id),
    lines: lines.map((l) => ({
      lineId: l.line_id,
      speakerId: l.speaker_id,
      speakerLabel: l.speaker_label,
      startMs: Number(l.start_ms),
      endMs: Number(l.end_ms),
      text: l.text,
    })),
  };
}
