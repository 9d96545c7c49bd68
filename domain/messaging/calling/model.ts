import type { z } from 'zod';
import { ApiError, conflict, notFound } from '../../../protocol/errors.js';
import type { Call, Participant, Recording } from '../../../protocol/methods/calling.js';
import type { Queryable } from '../../../db/types.js';
import { channelAccess, type ChannelKind, type ChannelRole } from '../channel/access.js';

/*
 * Call rows and the Call shape every calling method answers with. Who may see a call: a live member of its
 * channel, or anyone it invited (or who was ever in it); everyone else, and another org, gets NOT_FOUND.
 */

type Time = string | Date;

export interface CallRow {
  call_id: string;
  channel_id: string;
  root_message_id: string;
  title: string | null;
  status: 'live' | 'ended';
  host_id: string;
  started_by: string;
  locked: boolean;
  last_line_seq: number;
  started_at: Time;
  ended_at: Time | null;
  ended_by: string | null;
}

export interface ParticipantRow {
  principal_id: string;
  role: 'host' | 'attendee';
  state: 'invited' | 'joined' | 'left' | 'removed';
  can_publish: boolean;
  muted: boolean;
  hand_raised_at: Time | null;
  hand_seq: number | null;
  last_reaction: string | null;
  last_reaction_at: Time | null;
  invited_by: string | null;
  invited_at: Time | null;
  joined_at: Time | null;
  left_at: Time | null;
  removed_by: string | null;
}

export interface RecordingRow {
  recording_id: string;
  call_id: string;
  status: 'starting' | 'active' | 'stopped' | 'ready' | 'failed';
  started_by: string;
  approval_id: string | null;
  egress_id: string | null;
  started_at: Time;
  stopped_at: Time | null;
  ready_at: Time | null;
  file_id: string | null;
  file_size: string | number | null;
  duration_ms: string | number | null;
  failure: string | null;
}

export const CALL_COLUMNS = `call_id, channel_id, root_message_id, title, status, host_id, started_by, locked, last_line_seq, started_at, ended_at, ended_by`;
export const PARTICIPANT_COLUMNS = `principal_id, role, state, can_publish, muted, hand_raised_at, hand_seq, last_reaction, last_reaction_at, invited_by, invited_at,
  joined_at, left_at, removed_by`;
export const RECORDING_COLUMNS = `recording_id, call_id, status, started_by, approval_id, egress_id, started_at, stopped_at, ready_at, file_id, file_size,
  duration_ms, failure`;

export const iso = (v: Time): string => new Date(v).toISOString();
const isoOrNull = (v: Time | null): string | null => (v === null ? null : iso(v));
const numOrNull = (v: string | number | null): number | null => (v === null ? null : Number(v));

/** The call row, or NOT_FOUND; `lock` serialises every write to one call. */
export async function getCallRow(q: Queryable, orgId: string, callId: string, lock = false): Promise<CallRow> {
  const [row] = await q.query<CallRow>(`SELECT ${CALL_COLUMNS} FROM calls WHERE org_id = $1 AND call_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [orgId, callId]);
  if (!row) throw notFound(`call ${callId}`);
  return row;
}

export async function participantRow(q: Queryable, orgId: string, callId: string, principalId: string): Promise<ParticipantRow | null> {
  const [row] = await q.query<ParticipantRow>(`SELECT ${PARTICIPANT_COLUMNS} FROM call_participants WHERE org_id = $1 AND call_id = $2 AND principal_id = $3`, [
    orgId,
    callId,
    principalId,
  ]);
  return row ?? null;
}

/** The caller's standing in a channel: its live role (null: a public channel it is not in), or null when it cannot see it. */
export interface ChannelStanding {
  role: ChannelRole | null;
  kind: ChannelKind;
  archived: boolean;
}

export async function channelStanding(q: Queryable, orgId: string, channelId: string, principalId: string): Promise<ChannelStanding | null> {
  try {
    const a = await channelAccess(q, orgId, channelId, principalId, 'read');
    return { role: a.role, kind: a.channel.kind, archived: a.channel.archived_at !== null };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

export interface CallAccess {
  call: CallRow;
  /** The caller's participant row (invited, joined, left or removed), if any. */
  me: ParticipantRow | null;
  channel: ChannelStanding | null;
}

/** The call as its caller stands to it; NOT_FOUND unless a live member of its channel or a participant (ever invited). */
export async function callAccess(q: Queryable, orgId: string, callId: string, principalId: string, opts: { lock?: boolean } = {}): Promise<CallAccess> {
  const call = await getCallRow(q, orgId, callId, opts.lock);
  const [me, channel] = [await participantRow(q, orgId, callId, principalId), await channelStanding(q, orgId, call.channel_id, principalId)];
  if (!me && !channel?.role) throw notFound(`call ${callId}`);
  return { call, me, channel };
}

/**
 * SQL: the ids among `ids` (a text[] expression) of calls `principal` may read, as `id`: the batch form of
 * callAccess (a participant, ever invited, or a live member of the call's channel).
 */
export const READABLE_CALL_IDS_SQL = (org: string, principal: string, ids: string) =>
  `SELECT k.call_id AS id FROM calls k
    WHERE k.org_id = ${org} AND k.call_id = ANY(${ids}) AND (
      EXISTS (SELECT 1 FROM call_participants cp WHERE cp.org_id = k.org_id AND cp.call_id = k.call_id AND cp.principal_id = ${principal})
      OR EXISTS (SELECT 1 FROM channel_members m WHERE m.org_id = k.org_id AND m.channel_id = k.channel_id AND m.principal_id = ${principal} AND m.removed_at IS NULL))`;

/** The call a transcript line belongs to, or undefined when the org has no such line (annotations' Line selectors). */
export async function transcriptLineCall(q: Queryable, orgId: string, lineId: string): Promise<string | undefined> {
  const [row] = await q.query<{ call_id: string }>('SELECT call_id FROM call_transcript_lines WHERE org_id = $1 AND line_id = $2', [orgId, lineId]);
  return row?.call_id;
}

/** CONFLICT unless the call is live. */
export function requireLive(call: CallRow, doing: string): void {
  if (call.status !== 'live') throw conflict(`call ${call.call_id} has ended: ${doing} only in a live call; start a new one (calling.start)`);
}

/** CONFLICT unless the caller is in the call now. */
export function requireJoined(a: CallAccess, doing: string): ParticipantRow {
  requireLive(a.call, doing);
  if (a.me?.state !== 'joined') throw conflict(`you are not in call ${a.call.call_id}: join it first (calling.join) to ${doing}`);
  return a.me;
}

/** CONFLICT unless the caller hosts the call. */
export function requireHost(a: CallAccess, doing: string): void {
  requireLive(a.call, doing);
  if (a.call.host_id !== a.me?.principal_id || a.me.state !== 'joined') {
    throw conflict(`only the host (${a.call.host_id}) may ${doing} in call ${a.call.call_id}; ask them`);
  }
}

export async function latestRecording(q: Queryable, orgId: string, callId: string, lock = false): Promise<RecordingRow | null> {
  const [row] = await q.query<RecordingRow>(
    `SELECT ${RECORDING_COLUMNS} FROM call_recordings WHERE org_id = $1 AND call_id = $2 ORDER BY started_at DESC, recording_id DESC LIMIT 1 ${lock ? 'FOR UPDATE' : ''}`,
    [orgId, callId],
  );
  return row ?? null;
}

export function toRecording(r: RecordingRow): z.infer<typeof Recording> {
  return {
    id: r.recording_id,
    status: r.status,
    startedBy: r.started_by,
    approvalId: r.approval_id,
    startedAt: iso(r.started_at),
    stoppedAt: isoOrNull(r.stopped_at),
    readyAt: isoOrNull(r.ready_at),
    fileId: r.file_id,
    sizeBytes: numOrNull(r.file_size),
    durationMs: numOrNull(r.duration_ms),
    failure: r.failure,
  };
}

function toParticipant(r: ParticipantRow, handPosition: number | null): z.infer<typeof Participant> {
  return {
    principalId: r.principal_id,
    role: r.role,
    state: r.state,
    canPublish: r.can_publish,
    muted: r.muted,
    handRaisedAt: isoOrNull(r.hand_raised_at),
    handPosition,
    lastReaction: r.last_reaction !== null && r.last_reaction_at !== null ? { emoji: r.last_reaction, at: iso(r.last_reaction_at) } : null,
    invitedBy: r.invited_by,
    invitedAt: isoOrNull(r.invited_at),
    joinedAt: isoOrNull(r.joined_at),
    leftAt: isoOrNull(r.left_at),
  };
}

/** The call as every method answers it: participants (host first, then by arrival), hands in order, latest recording. */
export async function callShape(q: Queryable, orgId: string, call: CallRow, now: Date): Promise<z.infer<typeof Call>> {
  const participants = await q.query<ParticipantRow>(
    `SELECT ${PARTICIPANT_COLUMNS} FROM call_participants WHERE org_id = $1 AND call_id = $2
      ORDER BY role = 'host' DESC, coalesce(joined_at, invited_at), principal_id`,
    [orgId, call.call_id],
  );
  const recording = await latestRecording(q, orgId, call.call_id);
  const raised = participants
    .filter((p) => p.hand_seq !== null)
    .sort((a, b) => Number(a.hand_seq) - Number(b.hand_seq))
    .map((p) => p.principal_id);
  const end = call.ended_at === null ? now : new Date(call.ended_at);
  return {
    id: call.call_id,
    channelId: call.channel_id,
    rootMessageId: call.root_message_id,
    title: call.title,
    status: call.status,
    locked: call.locked,
    hostId: call.host_id,
    startedBy: call.started_by,
    startedAt: iso(call.started_at),
    endedAt: isoOrNull(call.ended_at),
    durationMs: Math.max(0, end.getTime() - new Date(call.started_at).getTime()),
    joinedCount: participants.filter((p) => p.state === 'joined').length,
    participants: participants.map((p) => toParticipant(p, p.hand_seq === null ? null : raised.indexOf(p.principal_id) + 1)),
    raisedHands: raised,
    recording: recording ? toRecording(recording) : null,
    transcriptLineCount: Number(call.last_line_seq),
  };
}

/** Principals in the call now. */
export async function joinedIds(q: Queryable, orgId: string, callId: string): Promise<string[]> {
  const rows = await q.query<{ principal_id: string }>(
    `SELECT principal_id FROM call_participants WHERE org_id = $1 AND call_id = $2 AND state = 'joined' ORDER BY joined_at, principal_id`,
    [orgId, callId],
  );
  return rows.map((r) => r.principal_id);
}
