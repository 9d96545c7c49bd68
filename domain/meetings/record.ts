import { badRequest, conflict } from '../../protocol/errors.js';
import { meetings as c } from '../../protocol/methods/meetings.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { currentActions, currentDecisions, currentLines, meetingView, type ActionRow, type DecisionRow } from './model.js';
import { callOccurrence, eventOccurrence, type AttendeeIn, type Occurrence } from './occurrence.js';
import { contentHash, contentOf, textHash } from './record-content.js';
import { amended, checkParams } from './record-params.js';
import { insertMeeting, saveAttendees, saveDecisions, saveLines, saveRevision } from './record-store.js';
import { saveActions } from './record-tasks.js';

/*
 * meetings.record: a meeting of an occurrence (a calendar event's or a call's), or, with meetingId, its next
 * revision. Fields left out of an amend stay as they were; a call's transcript is read from the call again. Lines,
 * decisions and actions that stay the same keep their ids (mtl_, kn_, act_, task_): a decision becomes one knowledge
 * entry and an action one triage task, however often the meeting is amended. The one event names ids and counts.
 * The params are checked in record-params.ts, the revision built in record-content.ts, written in record-store.ts
 * (its action items and their board tasks in record-tasks.ts).
 */

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

  const { content, lines, assigned } = await contentOf(ctx, p, { existing, occ, attendees, lines: nowLines, decisions: nowDecisions, actions: nowActions }, at);
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
  if (existing === null) await insertMeeting(ctx, meetingId, occ!, content, at);
  if (occ !== null) await saveAttendees(ctx, meetingId, occ.attendees, existing !== null);

  await saveLines(ctx, base, lines, nowLines);

  const entryIds = await saveDecisions(
    ctx,
    base,
    content.decisions,
    nowDecisions,
    occ?.eventId ?? existing?.event_id ?? occ?.callId ?? existing?.call_id ?? null,
  );
  const taskIds = await saveActions(ctx, base, content.actions, nowActions);

  await saveRevision(ctx, base, content, sha, at);
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
