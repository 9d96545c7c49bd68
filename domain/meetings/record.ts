import type { z } from 'zod';
import { ApiError, badRequest, conflict, notFound } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { meetings as c } from '../../protocol/methods/meetings.js';
import { addIntakeTasks } from '../board/index.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { appendUnverifiedEntry } from '../knowledge/index.js';
import { getMembers } from '../people/index.js';
import { matchAttendee, planLines, type LineIn, type PlannedLine } from './content.js';
import {
  currentActions,
  currentDecisions,
  currentLines,
  iso,
  meetingView,
  visibleMeeting,
  type ActionRow,
  type DecisionRow,
  type MeetingRow,
} from './model.js';
import { callOccurrence, eventOccurrence, type AttendeeIn, type Occurrence } from './occurrence.js';

/*
 * meetings.record: a meeting of an occurrence (a calendar event's or a call's), or, with meetingId, its next
 * revision. Fields left out of an amend stay as they were; a call's transcript is read from the call again. Lines,
 * decisions and actions that stay the same keep their ids (mtl_, kn_, act_, task_): a decision becomes one knowledge
 * entry and an action one triage task, however often the meeting is amended. The one event names ids and counts.
 */

type Params = z.output<typeof c.record.params>;
type ActionIn = NonNullable<Params['actionItems']>[number];

const BOARD_WRITE = 'board.write';
const textHash = (s: string) => sha256Hex(s.trim().replace(/\s+/g, ' '));

/** What the params say before anything is read: BAD_REQUEST naming the field, FORBIDDEN_SCOPE for tasks. */
function checkParams(ctx: HandlerCtx, p: Params): void {
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
async function amended(ctx: HandlerCtx, p: Params): Promise<MeetingRow> {
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

/** Assignees: a member id (an active member of the org), or a name matching exactly one attendee who is a member. */
async function assignees(ctx: HandlerCtx, items: readonly ActionIn[], attendees: readonly AttendeeIn[]) {
  const ids = [...new Set(items.flatMap((a) => (a.assigneeId ? [a.assigneeId] : [])))];
  const members = new Map((await getMembers(ctx.q, ctx.orgId, ids)).map((m) => [m.id, m]));
  const unassigned: { index: number; assignee: string; matches: number }[] = [];
  const out = items.map((a, index): string | null => {
    if (a.assigneeId !== undefined) {
      const m = members.get(a.assigneeId);
      if (!m) throw notFound(`member ${a.assigneeId}`);
      if (m.status !== 'active') throw conflict(`member ${m.id} is ${m.status}: assign the action to an active member, or give no assignee`);
      return m.id;
    }
    if (a.assignee === undefined) return null;
    const matches = matchAttendee(a.assignee, attendees);
    if (matches.length === 1) return matches[0];
    unassigned.push({ index, assignee: a.assignee, matches: matches.length });
    return null;
  });
  return { ids: out, unassigned };
}

interface Content {
  lines: PlannedLine[];
  notes: string | null;
  decisions: string[];
  actions: { text: string; assigneeId: string | null; createTask: boolean }[];
  startedAt: string;
  endedAt: string;
}

const contentHash = (c: Content) =>
  sha256Hex(
    canonicalJson({
      lines: c.lines.map((l) => [l.speaker, l.speakerId, l.startMs, l.endMs, l.text]),
      notes: c.notes,
      decisions: c.decisions,
      actions: c.actions.map((a) => [a.text, a.assigneeId]),
      startedAt: c.startedAt,
      endedAt: c.endedAt,
    }),
  );

export const record = handler(c.record, async (ctx, p) => {
  checkParams(ctx, p);
  const now = ctx.deps.clock.now();
  const at = now.toISOString();
  const existing = p.meetingId === undefined ? null : await amended(ctx, p);
  // The occurrence, read as the caller: a call again on every amend (its transcript may have grown).
  let occ: Occurrence | null = null;
  if (existing === null) {
    occ =
      p.callId !== undefined
        ? await callOccurrence(ctx.q, ctx.orgId, p.callId, ctx.principal.id)
        : await eventOccurrence(ctx.q, ctx.orgId, p.eventId!, p.originalStart ?? null, ctx.principal.id);
    // One meeting per occurrence: the check and the insert under one lock per occurrence.
    await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('meetings:' || $1 || ':' || $2))`, [ctx.orgId, occ.key]);
    const [taken] = await ctx.q.query<{ meeting_id: string }>('SELECT meeting_id FROM meetings WHERE org_id = $1 AND occurrence_key = $2', [
      ctx.orgId,
      occ.key,
    ]);
    if (taken) throw conflict(`meeting ${taken.meeting_id} already records this occurrence: amend it with meetingId ${taken.meeting_id} (meetings.record)`);
    if (occ.callLines === null && p.transcript === undefined && p.notes === undefined) throw badRequest('transcript', 'give transcript lines or notes');
  } else if (existing.call_id !== null) {
    occ = await callOccurrence(ctx.q, ctx.orgId, existing.call_id, ctx.principal.id);
  }
  const meetingId = existing?.meeting_id ?? newId('mtg');
  const revision = existing === null ? 1 : Number(existing.revision) + 1;
  const attendees: AttendeeIn[] =
    occ?.attendees ??
    (
      await ctx.q.query<AttendeeIn>(
        `SELECT attendee_key AS key, principal_id AS "principalId", person_id AS "personId", email, name FROM meeting_attendees WHERE org_id = $1 AND meeting_id = $2`,
        [ctx.orgId, meetingId],
      )
    ).map((a) => ({ ...a }));

  const nowLines = existing === null ? [] : await currentLines(ctx.q, ctx.orgId, meetingId);
  const nowDecisions: DecisionRow[] = existing === null ? [] : await currentDecisions(ctx.q, ctx.orgId, [meetingId]);
  const nowActions: ActionRow[] = existing === null ? [] : await currentActions(ctx.q, ctx.orgId, [meetingId]);

  const given: LineIn[] | null =
    occ?.callLines?.map((l) => ({ speaker: l.speakerId ?? l.speakerLabel ?? '', startMs: l.startMs, endMs: l.endMs, text: l.text, sourceLineId: l.lineId })) ??
    p.transcript?.map((l) => ({ speaker: l.speaker, startMs: l.startMs ?? null, endMs: l.endMs ?? l.startMs ?? null, text: l.text, sourceLineId: null })) ??
    null;
  const lines =
    given === null
      ? nowLines.map((l) => ({
          lineId: l.line_id,
          speaker: l.speaker,
          speakerId: l.speaker_id,
          startMs: l.start_ms === null ? null : Number(l.start_ms),
          endMs: l.end_ms === null ? null : Number(l.end_ms),
          text: l.text,
          sourceLineId: l.source_line_id,
        }))
      : await planLines(ctx.q, ctx.orgId, given, attendees, nowLines);
  const items = p.actionItems;
  const assigned = items ? await assignees(ctx, items, attendees) : { ids: [], unassigned: [] };
  const content: Content = {
    lines,
    notes: p.notes ?? existing?.notes ?? null,
    decisions: [...new Set((p.decisions ?? nowDecisions.map((d) => d.text)).map((d) => d.trim()))],
    actions: items
      ? items.map((a, i) => ({ text: a.text.trim(), assigneeId: assigned.ids[i], createTask: a.createTask }))
      : nowActions.map((a) => ({ text: a.text, assigneeId: a.assignee_id, createTask: false })),
    startedAt: iso(p.startedAt ?? (existing ? existing.started_at : occ!.startedAt)),
    endedAt: iso(p.endedAt ?? (existing ? existing.ended_at : (occ!.endedAt ?? at))),
  };
  if (Date.parse(content.endedAt) <= Date.parse(content.startedAt)) {
    throw badRequest(
      p.endedAt !== undefined ? 'endedAt' : 'startedAt',
      `the meeting must end after it starts (${content.startedAt} to ${content.endedAt}): give startedAt and endedAt`,
    );
  }
  const sha = contentHash(content);

  if (existing !== null) {
    const [last] = await ctx.q.query<{ content_sha256: string }>(
      'SELECT content_sha256 FROM meeting_revisions WHERE org_id = $1 AND meeting_id = $2 AND revision = $3',
      [ctx.orgId, meetingId, existing.revision],
    );
    const missingTasks = content.actions.some((a) => a.createTask && !nowActions.some((n) => n.text_sha256 === textHash(a.text) && n.task_id !== null));
    if (last?.content_sha256 === sha && !missingTasks) {
      const meeting = await meetingView(ctx.q, ctx.orgId, meetingId);
      await ctx.emit('meetings.meeting.record', meetingId, { meetingId, revision: Number(existing.revision), noop: true });
      return { meeting, taskIds: [], entryIds: [], unassigned: assigned.unassigned, changed: false };
    }
  }

  const base = { org: ctx.orgId, meetingId, revision };
  if (existing === null) {
    await ctx.q.query(
      `INSERT INTO meetings (org_id, meeting_id, occurrence_key, event_id, original_start, call_id, title, private, started_at, ended_at, notes, revision,
                             recorded_by, recorded_at, updated_by, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1, $12, $13, $12, $13)`,
      [
        ctx.orgId,
        meetingId,
        occ!.key,
        occ!.eventId,
        occ!.originalStart,
        occ!.callId,
        occ!.title,
        occ!.private,
        content.startedAt,
        content.endedAt,
        content.notes,
        ctx.principal.id,
        at,
      ],
    );
  }
  if (occ !== null) await saveAttendees(ctx, meetingId, occ.attendees, existing !== null);

  // Lines: kept ones keep their mtl_ id; the rest close at the previous revision; new ones start here.
  const kept = new Set(lines.flatMap((l) => (l.lineId ? [l.lineId] : [])));
  const closed = nowLines.filter((l) => !kept.has(l.line_id)).map((l) => l.line_id);
  if (closed.length) {
    await ctx.q.query('UPDATE meeting_lines SET to_revision = $3 WHERE org_id = $1 AND meeting_id = $2 AND line_id = ANY($4::text[])', [
      ctx.orgId,
      meetingId,
      revision - 1,
      closed,
    ]);
  }
  const fresh = lines.map((l) => l.lineId ?? newId('mtl'));
  await ctx.q.query(
    `INSERT INTO meeting_lines (org_id, line_id, meeting_id, seq, speaker_id, speaker, start_ms, end_ms, text, source_line_id, from_revision)
     SELECT $1, l.id, $2, l.n, l.speaker_id, l.speaker, l.start_ms, l.end_ms, l.text, l.source, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::text[], $10::text[]) WITH ORDINALITY AS l(id, speaker_id, speaker, start_ms, end_ms, text, source, n)
     ON CONFLICT (org_id, line_id) DO UPDATE SET seq = EXCLUDED.seq`,
    [
      ctx.orgId,
      meetingId,
      revision,
      fresh,
      lines.map((l) => l.speakerId),
      lines.map((l) => l.speaker),
      lines.map((l) => l.startMs),
      lines.map((l) => l.endMs),
      lines.map((l) => l.text),
      lines.map((l) => l.sourceLineId),
    ],
  );

  const entryIds = await saveDecisions(
    ctx,
    base,
    content.decisions,
    nowDecisions,
    occ?.eventId ?? existing?.event_id ?? occ?.callId ?? existing?.call_id ?? null,
  );
  const taskIds = await saveActions(ctx, base, content.actions, nowActions);

  const searchText = [content.notes ?? '', ...lines.map((l) => l.text), ...content.decisions, ...content.actions.map((a) => a.text)]
    .join('\n')
    .slice(0, 200_000);
  await ctx.q.query(
    `UPDATE meetings SET revision = $3, notes = $4, started_at = $5, ended_at = $6, status = 'recorded', search_text = $7, updated_by = $8, updated_at = $9
      WHERE org_id = $1 AND meeting_id = $2`,
    [ctx.orgId, meetingId, revision, content.notes, content.startedAt, content.endedAt, searchText, ctx.principal.id, at],
  );
  await ctx.q.query(
    `INSERT INTO meeting_revisions (org_id, meeting_id, revision, lines, decisions, actions, content_sha256, recorded_by, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [ctx.orgId, meetingId, revision, lines.length, content.decisions.length, content.actions.length, sha, ctx.principal.id, at],
  );
  const meeting = await meetingView(ctx.q, ctx.orgId, meetingId);
  await ctx.emit('meetings.meeting.record', meetingId, {
    meetingId,
    revision,
    eventId: meeting.eventId,
    callId: meeting.callId,
    lines: lines.length,
    linesAdded: lines.filter((l) => l.lineId === null).length,
    decisions: content.decisions.length,
    actions: content.actions.length,
    tasksCreated: taskIds.length,
    taskIds,
    entryIds,
    unassigned: assigned.unassigned.length,
  });
  return { meeting, taskIds, entryIds, unassigned: assigned.unassigned, changed: true };
});

async function saveAttendees(ctx: HandlerCtx, meetingId: string, attendees: readonly AttendeeIn[], replace: boolean): Promise<void> {
  if (replace) await ctx.q.query('DELETE FROM meeting_attendees WHERE org_id = $1 AND meeting_id = $2', [ctx.orgId, meetingId]);
  const unique = [...new Map(attendees.map((a) => [a.key, a])).values()];
  if (unique.length === 0) return;
  await ctx.q.query(
    `INSERT INTO meeting_attendees (org_id, meeting_id, attendee_key, principal_id, person_id, email, name)
     SELECT $1, $2, a.k, a.p, a.per, a.e, a.n FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS a(k, p, per, e, n)`,
    [
      ctx.orgId,
      meetingId,
      unique.map((a) => a.key),
      unique.map((a) => a.principalId),
      unique.map((a) => a.personId),
      unique.map((a) => a.email),
      unique.map((a) => a.name),
    ],
  );
}

type Base = { org: string; meetingId: string; revision: number };

/** Decisions: each new one an unverified knowledge entry citing the meeting; kept ones keep theirs. The new entry ids. */
async function saveDecisions(ctx: HandlerCtx, b: Base, decisions: readonly string[], now: readonly DecisionRow[], subject: string | null): Promise<string[]> {
  const wanted = new Map(decisions.map((d, i) => [textHash(d), { text: d, seq: i + 1 }]));
  const gone = now.filter((d) => !wanted.has(d.text_sha256)).map((d) => d.text_sha256);
  if (gone.length) {
    await ctx.q.query(
      'UPDATE meeting_decisions SET to_revision = $3 WHERE org_id = $1 AND meeting_id = $2 AND to_revision IS NULL AND text_sha256 = ANY($4::text[])',
      [b.org, b.meetingId, b.revision - 1, gone],
    );
  }
  const entryIds: string[] = [];
  for (const [hash, d] of wanted) {
    const stays = now.find((n) => n.text_sha256 === hash);
    if (stays) {
      await ctx.q.query('UPDATE meeting_decisions SET seq = $4 WHERE org_id = $1 AND meeting_id = $2 AND to_revision IS NULL AND text_sha256 = $3', [
        b.org,
        b.meetingId,
        hash,
        d.seq,
      ]);
      continue;
    }
    const entry = await appendUnverifiedEntry(ctx.q, ctx.orgId, {
      body: d.text,
      kind: 'decision',
      subjectIds: subject ? [subject] : [],
      sources: [{ kind: 'meeting', ref: b.meetingId }],
      authorId: ctx.principal.id,
      at: ctx.deps.clock.now(),
    });
    if (entry.appended) entryIds.push(entry.entryId);
    await ctx.q.query(
      `INSERT INTO meeting_decisions (org_id, meeting_id, text_sha256, seq, text, entry_id, from_revision) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (org_id, meeting_id, text_sha256, from_revision) DO NOTHING`,
      [b.org, b.meetingId, hash, d.seq, d.text, entry.entryId, b.revision],
    );
  }
  return entryIds;
}

/** Actions: kept ones (same words) keep their act_ and task; createTask makes a triage task once. The new task ids. */
async function saveActions(ctx: HandlerCtx, b: Base, actions: Content['actions'], now: readonly ActionRow[]): Promise<string[]> {
  const seen = new Set<string>();
  const plan = actions.flatMap((a, i) => {
    const hash = textHash(a.text);
    if (seen.has(hash)) return [];
    seen.add(hash);
    return [{ ...a, hash, seq: i + 1, row: now.find((n) => n.text_sha256 === hash) }];
  });
  const gone = now.filter((n) => !seen.has(n.text_sha256)).map((n) => n.action_id);
  if (gone.length) {
    await ctx.q.query('UPDATE meeting_actions SET to_revision = $3 WHERE org_id = $1 AND meeting_id = $2 AND action_id = ANY($4::text[])', [
      b.org,
      b.meetingId,
      b.revision - 1,
      gone,
    ]);
  }
  const needTask = plan.filter((a) => a.createTask && !a.row?.task_id);
  const taskIds = await addIntakeTasks(
    ctx.q,
    ctx.orgId,
    ctx.principal.id,
    needTask.map((a) => ({ title: a.text.slice(0, 200), description: `Action item of meeting ${b.meetingId}: "${a.text}"`, assignee: a.assigneeId })),
  );
  const taskOf = new Map(needTask.map((a, i) => [a.hash, taskIds[i]]));
  for (const a of plan) {
    const taskId = a.row?.task_id ?? taskOf.get(a.hash) ?? null;
    if (a.row) {
      await ctx.q.query('UPDATE meeting_actions SET seq = $3, assignee_id = $4, task_id = $5 WHERE org_id = $1 AND action_id = $2', [
        b.org,
        a.row.action_id,
        a.seq,
        a.assigneeId,
        taskId,
      ]);
    } else {
      await ctx.q.query(
        `INSERT INTO meeting_actions (org_id, action_id, meeting_id, text_sha256, seq, text, assignee_id, task_id, from_revision) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [b.org, newId('act'), b.meetingId, a.hash, a.seq, a.text, a.assigneeId, taskId, b.revision],
      );
    }
  }
  return taskIds;
}
