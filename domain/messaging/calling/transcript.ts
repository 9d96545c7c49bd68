import type { z } from 'zod';
import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { calling as c, type TranscriptLine } from '../../../protocol/methods/calling.js';
import { one } from '../../../db/types.js';
import { decodeCursor, encodeCursor, fitsInt32 } from '../../core/cursor.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { getMembers } from '../../people/index.js';
import { callAccess, iso } from './model.js';
import { toWebVtt } from './webvtt.js';

/*
 * The transcript: lines added by whoever was in the call (a transcriber joins like anyone), while live and up to
 * 24 hours after the end, numbered in the order added and read in order of their start.
 */

const AFTER_END_MS = 24 * 60 * 60 * 1000;

interface LineRow {
  line_id: string;
  line_seq: number;
  speaker_id: string | null;
  speaker_label: string | null;
  text: string;
  start_ms: string | number;
  end_ms: string | number;
  added_by: string;
  added_at: string | Date;
}

const LINE_COLUMNS = 'line_id, line_seq, speaker_id, speaker_label, text, start_ms, end_ms, added_by, added_at';

function toLine(r: LineRow): z.infer<typeof TranscriptLine> {
  return {
    id: r.line_id,
    lineSeq: Number(r.line_seq),
    speaker: r.speaker_id,
    speakerLabel: r.speaker_label,
    text: r.text,
    startMs: Number(r.start_ms),
    endMs: Number(r.end_ms),
    addedBy: r.added_by,
    addedAt: iso(r.added_at),
  };
}

export const addTranscriptLine = handler(c.addTranscriptLine, async (ctx, p) => {
  if ((p.speaker === undefined) === (p.speakerLabel === undefined)) {
    throw badRequest('speaker', p.speaker === undefined ? 'give speaker (a member) or speakerLabel' : 'give speaker or speakerLabel, not both');
  }
  if (p.endMs < p.startMs) throw badRequest('endMs', `must be >= startMs (${p.startMs})`);
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  const callId = a.call.call_id;
  if (!a.me?.joined_at || a.me.state === 'removed') {
    throw conflict(`you have not been in call ${callId}: only its participants add transcript lines; join it first (calling.join)`);
  }
  if (a.call.ended_at !== null && now.getTime() > new Date(a.call.ended_at).getTime() + AFTER_END_MS) {
    throw conflict(`call ${callId} ended more than 24 hours ago (${iso(a.call.ended_at)}): its transcript is closed`);
  }
  if (p.speaker !== undefined && (await getMembers(ctx.q, ctx.orgId, [p.speaker])).length === 0) throw notFound(`member ${p.speaker}`);
  const [earlier] = await ctx.q.query<LineRow>(
    `SELECT ${LINE_COLUMNS} FROM call_transcript_lines
      WHERE org_id = $1 AND call_id = $2 AND coalesce(speaker_id, 'label:' || speaker_label) = $3 AND start_ms = $4`,
    [ctx.orgId, callId, p.speaker ?? `label:${p.speakerLabel}`, p.startMs],
  );
  if (earlier) {
    await ctx.emit('calling.transcript.add_line', callId, { callId, lineId: earlier.line_id, lineSeq: Number(earlier.line_seq), noop: true });
    // The same speaker and startMs: a replay of the earlier line, said so in the result (nothing added).
    return { line: toLine(earlier), changed: false, replayed: true };
  }
  const { last_line_seq: lineSeq } = one(
    await ctx.q.query<{ last_line_seq: number }>(
      'UPDATE calls SET last_line_seq = last_line_seq + 1 WHERE org_id = $1 AND call_id = $2 RETURNING last_line_seq',
      [ctx.orgId, callId],
    ),
  );
  const row = one(
    await ctx.q.query<LineRow>(
      `INSERT INTO call_transcript_lines (org_id, line_id, call_id, line_seq, speaker_id, speaker_label, text, start_ms, end_ms, added_by, added_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${LINE_COLUMNS}`,
      [ctx.orgId, newId('tl'), callId, lineSeq, p.speaker ?? null, p.speakerLabel ?? null, p.text, p.startMs, p.endMs, ctx.principal.id, now.toISOString()],
    ),
  );
  await ctx.emit('calling.transcript.add_line', callId, {
    callId,
    lineId: row.line_id,
    lineSeq: Number(lineSeq),
    speaker: p.speaker ?? null,
    startMs: p.startMs,
    endMs: p.endMs,
  });
  return { line: toLine(row), changed: true };
});

export const getTranscript = handler(c.getTranscript, async (ctx, p) => {
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id);
  const params: unknown[] = [ctx.orgId, a.call.call_id];
  let after = '';
  if (p.cursor !== undefined) {
    const [startMs, lineSeq] = decodeCursor<[number, number]>(
      p.cursor,
      'cursor',
      // start_ms is bigint, line_seq integer.
      (v) => v.length === 2 && v.every((x) => Number.isSafeInteger(x) && (x as number) >= 0) && fitsInt32(v[1]),
    );
    after = `AND (start_ms, line_seq) > ($${params.push(startMs)}, $${params.push(lineSeq)})`;
  }
  const rows = await ctx.q.query<LineRow>(
    `SELECT ${LINE_COLUMNS} FROM call_transcript_lines WHERE org_id = $1 AND call_id = $2 ${after}
      ORDER BY start_ms, line_seq LIMIT $${params.push(p.limit + 1)}`,
    params,
  );
  const lines = rows.slice(0, p.limit).map(toLine);
  const last = lines[lines.length - 1];
  const nextCursor = rows.length > p.limit && last ? encodeCursor([last.startMs, last.lineSeq]) : null;
  if (p.format === 'json') return { callId: a.call.call_id, format: p.format, lines, webvtt: null, nextCursor };
  // Voices are named as people know them: a member's name, else the line's label.
  const speakers = [...new Set(lines.flatMap((l) => (l.speaker ? [l.speaker] : [])))];
  const names = new Map((await getMembers(ctx.q, ctx.orgId, speakers)).map((m) => [m.id, m.name]));
  const cues = lines.map((l) => ({
    id: l.id,
    startMs: l.startMs,
    endMs: l.endMs,
    voice: (l.speaker ? names.get(l.speaker) : l.speakerLabel) ?? l.speaker ?? '',
    text: l.text,
  }));
  return { callId: a.call.call_id, format: p.format, lines: null, webvtt: toWebVtt(cues), nextCursor };
});
