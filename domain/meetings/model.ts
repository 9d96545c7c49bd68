import type { z } from 'zod';
import { notFound } from '../../protocol/errors.js';
import type { Line, Meeting, Recap } from '../../protocol/methods/meetings.js';
import type { Queryable } from '../../db/types.js';

/*
 * Meetings as rows: the meeting (its current revision, notes and recap), its attendees, and its lines, decisions and
 * actions, each carrying the revisions it belongs to (to_revision null: current). Who may see a meeting: anyone in
 * the org, except a private one (a private event's, or a call outside a public channel): its attendees and whoever
 * recorded it. Another org's or an unseen meeting is NOT_FOUND alike.
 */

export type MeetingOut = z.output<typeof Meeting>;
export type LineOut = z.output<typeof Line>;
export type RecapOut = z.output<typeof Recap>;
type Time = string | Date;

export interface MeetingRow {
  meeting_id: string;
  occurrence_key: string;
  event_id: string | null;
  original_start: Time | null;
  call_id: string | null;
  title: string | null;
  private: boolean;
  started_at: Time;
  ended_at: Time;
  notes: string | null;
  revision: number;
  status: 'recorded' | 'recapped';
  recorded_by: string;
  recorded_at: Time;
  updated_at: Time;
  recap_file_id: string | null;
  recap_of_revision: number | null;
  recap_file_revision: number | null;
  recap: RecapOut | string | null;
}

export const MEETING_COLUMNS = `m.meeting_id, m.occurrence_key, m.event_id, m.original_start, m.call_id, m.title, m.private, m.started_at, m.ended_at, m.notes,
  m.revision, m.status, m.recorded_by, m.recorded_at, m.updated_at, m.recap_file_id, m.recap_of_revision, m.recap_file_revision, m.recap`;

export const iso = (v: Time): string => new Date(v).toISOString();

/** SQL: meeting `m` is visible to principal `p` (a parameter). */
export const VISIBLE_SQL = (p: string) =>
  `(NOT m.private OR m.recorded_by = ${p} OR EXISTS (SELECT 1 FROM meeting_attendees va WHERE va.org_id = m.org_id AND va.meeting_id = m.meeting_id AND va.principal_id = ${p}))`;

/** A meeting the caller may see (FOR UPDATE with lock); else NOT_FOUND. */
export async function visibleMeeting(q: Queryable, orgId: string, meetingId: string, principalId: string, lock = false): Promise<MeetingRow> {
  const [row] = await q.query<MeetingRow>(
    `SELECT ${MEETING_COLUMNS} FROM meetings m WHERE m.org_id = $1 AND m.meeting_id = $2 AND ${VISIBLE_SQL('$3')} ${lock ? 'FOR UPDATE OF m' : ''}`,
    [orgId, meetingId, principalId],
  );
  if (!row) throw notFound(`meeting ${meetingId}`);
  return row;
}

export interface AttendeeRow {
  meeting_id: string;
  attendee_key: string;
  principal_id: string | null;
  person_id: string | null;
  email: string | null;
  name: string | null;
}

export interface LineRow {
  line_id: string;
  meeting_id: string;
  seq: number;
  speaker_id: string | null;
  speaker: string;
  start_ms: string | number | null;
  end_ms: string | number | null;
  text: string;
  source_line_id: string | null;
}

export interface DecisionRow {
  meeting_id: string;
  text_sha256: string;
  seq: number;
  text: string;
  entry_id: string | null;
}

export interface ActionRow {
  action_id: string;
  meeting_id: string;
  text_sha256: string;
  seq: number;
  text: string;
  assignee_id: string | null;
  task_id: string | null;
}

const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

export const toLine = (r: LineRow): LineOut => ({
  id: r.line_id,
  seq: Number(r.seq),
  speaker: r.speaker,
  speakerId: r.speaker_id,
  startMs: num(r.start_ms),
  endMs: num(r.end_ms),
  text: r.text,
});

export async function currentLines(q: Queryable, orgId: string, meetingId: string): Promise<LineRow[]> {
  return q.query<LineRow>(
    `SELECT line_id, meeting_id, seq, speaker_id, speaker, start_ms, end_ms, text, source_line_id FROM meeting_lines
      WHERE org_id = $1 AND meeting_id = $2 AND to_revision IS NULL ORDER BY seq`,
    [orgId, meetingId],
  );
}

export async function currentDecisions(q: Queryable, orgId: string, ids: readonly string[]): Promise<DecisionRow[]> {
  return q.query<DecisionRow>(
    `SELECT meeting_id, text_sha256, seq, text, entry_id FROM meeting_decisions WHERE org_id = $1 AND meeting_id = ANY($2::text[]) AND to_revision IS NULL ORDER BY meeting_id, seq`,
    [orgId, ids],
  );
}

export async function currentActions(q: Queryable, orgId: string, ids: readonly string[]): Promise<ActionRow[]> {
  return q.query<ActionRow>(
    `SELECT action_id, meeting_id, text_sha256, seq, text, assignee_id, task_id FROM meeting_actions
      WHERE org_id = $1 AND meeting_id = ANY($2::text[]) AND to_revision IS NULL ORDER BY meeting_id, seq`,
    [orgId, ids],
  );
}

export async function attendeesOf(q: Queryable, orgId: string, ids: readonly string[]): Promise<AttendeeRow[]> {
  return q.query<AttendeeRow>(
    `SELECT meeting_id, attendee_key, principal_id, person_id, email, name FROM meeting_attendees WHERE org_id = $1 AND meeting_id = ANY($2::text[])
      ORDER BY meeting_id, attendee_key`,
    [orgId, ids],
  );
}

const group = <T extends { meeting_id: string }>(rows: readonly T[]) => {
  const by = new Map<string, T[]>();
  for (const r of rows) by.set(r.meeting_id, [...(by.get(r.meeting_id) ?? []), r]);
  return by;
};

/** Meetings as the contract shows them, in the order given: four queries whatever the count. */
export async function meetingViews(q: Queryable, orgId: string, rows: readonly MeetingRow[]): Promise<MeetingOut[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.meeting_id);
  const attendees = group(await attendeesOf(q, orgId, ids));
  const decisions = group(await currentDecisions(q, orgId, ids));
  const actions = group(await currentActions(q, orgId, ids));
  const counts = new Map(
    (
      await q.query<{ meeting_id: string; n: number }>(
        `SELECT meeting_id, count(*)::int AS n FROM meeting_lines WHERE org_id = $1 AND meeting_id = ANY($2::text[]) AND to_revision IS NULL GROUP BY meeting_id`,
        [orgId, ids],
      )
    ).map((r) => [r.meeting_id, Number(r.n)]),
  );
  return rows.map((r) => ({
    id: r.meeting_id,
    eventId: r.event_id,
    originalStart: r.original_start === null ? null : iso(r.original_start),
    callId: r.call_id,
    title: r.title,
    private: r.private,
    startedAt: iso(r.started_at),
    endedAt: iso(r.ended_at),
    status: r.status,
    revision: Number(r.revision),
    attendees: (attendees.get(r.meeting_id) ?? []).map((a) => ({ principalId: a.principal_id, personId: a.person_id, email: a.email, name: a.name })),
    notes: r.notes,
    lineCount: counts.get(r.meeting_id) ?? 0,
    decisions: (decisions.get(r.meeting_id) ?? []).map((d) => ({ text: d.text, entryId: d.entry_id })),
    actions: (actions.get(r.meeting_id) ?? []).map((a) => ({ id: a.action_id, text: a.text, assigneeId: a.assignee_id, taskId: a.task_id })),
    recap:
      r.recap_file_id === null || r.recap_file_revision === null || r.recap_of_revision === null
        ? null
        : { fileId: r.recap_file_id, revision: Number(r.recap_file_revision), meetingRevision: Number(r.recap_of_revision) },
    recordedBy: r.recorded_by,
    recordedAt: iso(r.recorded_at),
    updatedAt: iso(r.updated_at),
  }));
}

export async function meetingView(q: Queryable, orgId: string, meetingId: string): Promise<MeetingOut> {
  const [row] = await q.query<MeetingRow>(`SELECT ${MEETING_COLUMNS} FROM meetings m WHERE m.org_id = $1 AND m.meeting_id = $2`, [orgId, meetingId]);
  if (!row) throw notFound(`meeting ${meetingId}`);
  return (await meetingViews(q, orgId, [row]))[0];
}
