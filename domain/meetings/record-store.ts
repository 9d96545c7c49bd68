import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { appendUnverifiedEntry } from '../knowledge/index.js';
import type { PlannedLine } from './content.js';
import type { DecisionRow, LineRow } from './model.js';
import type { AttendeeIn, Occurrence } from './occurrence.js';
import { textHash, type Content } from './record-content.js';

/*
 * meetings.record's writes of a revision: attendees, lines and decisions (each new decision an unverified knowledge
 * entry). Rows that stay the same keep their ids; the rest close at the previous revision.
 */

export async function saveAttendees(ctx: HandlerCtx, meetingId: string, attendees: readonly AttendeeIn[], replace: boolean): Promise<void> {
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

export type Base = { org: string; meetingId: string; revision: number };

/** Decisions: each new one an unverified knowledge entry citing the meeting; kept ones keep theirs. The new entry ids. */
export async function saveDecisions(
  ctx: HandlerCtx,
  b: Base,
  decisions: readonly string[],
  now: readonly DecisionRow[],
  subject: string | null,
): Promise<string[]> {
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
    const entry = await appendUnverifiedEntry(ctx, {
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

/** A first record's meeting row (its content follows with saveRevision). */
export async function insertMeeting(ctx: HandlerCtx, meetingId: string, occ: Occurrence, content: Content, at: string): Promise<void> {
  await ctx.q.query(
    `INSERT INTO meetings (org_id, meeting_id, occurrence_key, event_id, original_start, call_id, title, private, started_at, ended_at, notes, revision,
                           recorded_by, recorded_at, updated_by, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1, $12, $13, $12, $13)`,
    [
      ctx.orgId,
      meetingId,
      occ.key,
      occ.eventId,
      occ.originalStart,
      occ.callId,
      occ.title,
      occ.private,
      content.startedAt,
      content.endedAt,
      content.notes,
      ctx.principal.id,
      at,
    ],
  );
}

/** Rows no longer in the meeting, closed at the previous revision (they stay readable as of it). */
export async function closeRows(ctx: HandlerCtx, b: Base, table: 'meeting_lines' | 'meeting_actions', id: 'line_id' | 'action_id', ids: readonly string[]) {
  if (ids.length === 0) return;
  await ctx.q.query(`UPDATE ${table} SET to_revision = $3 WHERE org_id = $1 AND meeting_id = $2 AND ${id} = ANY($4::text[])`, [
    b.org,
    b.meetingId,
    b.revision - 1,
    ids,
  ]);
}

/** Lines: kept ones keep their mtl_ id; the rest close at the previous revision; new ones start here. */
export async function saveLines(ctx: HandlerCtx, b: Base, lines: readonly PlannedLine[], now: readonly LineRow[]): Promise<void> {
  const kept = new Set(lines.flatMap((l) => (l.lineId ? [l.lineId] : [])));
  const closed = now.filter((l) => !kept.has(l.line_id)).map((l) => l.line_id);
  await closeRows(ctx, b, 'meeting_lines', 'line_id', closed);
  const fresh = lines.map((l) => l.lineId ?? newId('mtl'));
  await ctx.q.query(
    `INSERT INTO meeting_lines (org_id, line_id, meeting_id, seq, speaker_id, speaker, start_ms, end_ms, text, source_line_id, from_revision)
     SELECT $1, l.id, $2, l.n, l.speaker_id, l.speaker, l.start_ms, l.end_ms, l.text, l.source, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::text[], $10::text[]) WITH ORDINALITY AS l(id, speaker_id, speaker, start_ms, end_ms, text, source, n)
     ON CONFLICT (org_id, line_id) DO UPDATE SET seq = EXCLUDED.seq`,
    [
      ctx.orgId,
      b.meetingId,
      b.revision,
      fresh,
      lines.map((l) => l.speakerId),
      lines.map((l) => l.speaker),
      lines.map((l) => l.startMs),
      lines.map((l) => l.endMs),
      lines.map((l) => l.text),
      lines.map((l) => l.sourceLineId),
    ],
  );
}

/** The meeting row brought to the revision (its search text too), and the revision's record with its hash. */
export async function saveRevision(ctx: HandlerCtx, b: Base, content: Content, sha: string, at: string): Promise<void> {
  const { lines } = content;
  const searchText = [content.notes ?? '', ...lines.map((l) => l.text), ...content.decisions, ...content.actions.map((a) => a.text)]
    .join('\n')
    .slice(0, 200_000);
  await ctx.q.query(
    `UPDATE meetings SET revision = $3, notes = $4, started_at = $5, ended_at = $6, status = 'recorded', search_text = $7, updated_by = $8, updated_at = $9
      WHERE org_id = $1 AND meeting_id = $2`,
    [ctx.orgId, b.meetingId, b.revision, content.notes, content.startedAt, content.endedAt, searchText, ctx.principal.id, at],
  );
  await ctx.q.query(
    `INSERT INTO meeting_revisions (org_id, meeting_id, revision, lines, decisions, actions, content_sha256, recorded_by, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [ctx.orgId, b.meetingId, b.revision, lines.length, content.decisions.length, content.actions.length, sha, ctx.principal.id, at],
  );
}
