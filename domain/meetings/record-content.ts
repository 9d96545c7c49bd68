import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import type { HandlerCtx } from '../core/handler.js';
import { getMembers } from '../people/index.js';
import { matchAttendee, planLines, type LineIn, type PlannedLine } from './content.js';
import { iso, type ActionRow, type DecisionRow, type LineRow, type MeetingRow } from './model.js';
import type { AttendeeIn, Occurrence } from './occurrence.js';
import type { Params } from './record-params.js';

/*
 * What a revision of a meeting says: its lines, notes, decisions, actions (with assignees resolved) and times, and
 * the hash that tells an amend saying the same from one saying something new.
 */

type ActionIn = NonNullable<Params['actionItems']>[number];

/** Decisions and actions are known by their words, spaces folded. */
export const textHash = (s: string) => sha256Hex(s.trim().replace(/\s+/g, ' '));

/** Assignees: a member id (an active member of the org), or a name matching exactly one attendee who is a member. */
export async function assignees(ctx: HandlerCtx, items: readonly ActionIn[], attendees: readonly AttendeeIn[]) {
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

export interface Content {
  lines: PlannedLine[];
  notes: string | null;
  decisions: string[];
  actions: { text: string; assigneeId: string | null; createTask: boolean }[];
  startedAt: string;
  endedAt: string;
}

export const contentHash = (c: Content) =>
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

/** What the revision holds now, before the params change it (a first record: nothing). */
export interface Current {
  existing: MeetingRow | null;
  occ: Occurrence | null;
  attendees: AttendeeIn[];
  lines: LineRow[];
  decisions: DecisionRow[];
  actions: ActionRow[];
}

/**
 * The revision the params make of the current one: fields left out stay, a call's transcript is the call's, lines
 * are matched to the current ones (planLines), assignees resolved. BAD_REQUEST when it would end before it starts.
 */
export async function contentOf(ctx: HandlerCtx, p: Params, now: Current, at: string) {
  const { existing, occ, attendees } = now;
  const given: LineIn[] | null =
    occ?.callLines?.map((l) => ({ speaker: l.speakerId ?? l.speakerLabel ?? '', startMs: l.startMs, endMs: l.endMs, text: l.text, sourceLineId: l.lineId })) ??
    p.transcript?.map((l) => ({ speaker: l.speaker, startMs: l.startMs ?? null, endMs: l.endMs ?? l.startMs ?? null, text: l.text, sourceLineId: null })) ??
    null;
  const lines =
    given === null
      ? now.lines.map((l) => ({
          lineId: l.line_id,
          speaker: l.speaker,
          speakerId: l.speaker_id,
          startMs: l.start_ms === null ? null : Number(l.start_ms),
          endMs: l.end_ms === null ? null : Number(l.end_ms),
          text: l.text,
          sourceLineId: l.source_line_id,
        }))
      : await planLines(ctx.q, ctx.orgId, given, attendees, now.lines);
  const items = p.actionItems;
  const assigned = items ? await assignees(ctx, items, attendees) : { ids: [], unassigned: [] };
  const content: Content = {
    lines,
    notes: p.notes ?? existing?.notes ?? null,
    decisions: [...new Set((p.decisions ?? now.decisions.map((d) => d.text)).map((d) => d.trim()))],
    actions: items
      ? items.map((a, i) => ({ text: a.text.trim(), assigneeId: assigned.ids[i], createTask: a.createTask }))
      : now.actions.map((a) => ({ text: a.text, assigneeId: a.assignee_id, createTask: false })),
    startedAt: iso(p.startedAt ?? (existing ? existing.started_at : occ!.startedAt)),
    endedAt: iso(p.endedAt ?? (existing ? existing.ended_at : (occ!.endedAt ?? at))),
  };
  if (Date.parse(content.endedAt) <= Date.parse(content.startedAt)) {
    throw badRequest(
      p.endedAt !== undefined ? 'endedAt' : 'startedAt',
      `the meeting must end after it starts (${content.startedAt} to ${content.endedAt}): give startedAt and endedAt`,
    );
  }
  return { content, lines, assigned };
}
