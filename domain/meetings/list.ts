import type { z } from 'zod';
import { badRequest } from '../../protocol/errors.js';
import { meetingsReadContracts } from '../../protocol/reads/meetings.js';
import { reads } from '../core/family.js';
import { decodeCursor, encodeCursor, timeAndId } from '../core/cursor.js';
import { readHandler } from '../core/handler.js';
import { currentLines, MEETING_COLUMNS, meetingViews, toLine, VISIBLE_SQL, visibleMeeting, type MeetingRow } from './model.js';

/*
 * GET /meetings.list: the meetings the caller may see, newest first by start (index (org_id, started_at DESC,
 * meeting_id DESC)), keyset-paged; q matches the title and the current words (search_doc, or their stems); attendeeId
 * narrows to a member's meetings. With id: one meeting, and its current lines with include=transcript.
 */

type Query = z.output<(typeof meetingsReadContracts)['meetings.list']['query']>;

export const list = readHandler(meetingsReadContracts['meetings.list'], async (ctx, query: Query) => {
  if (query.id !== undefined) {
    const row = await visibleMeeting(ctx.q, ctx.orgId, query.id, ctx.principal.id);
    const [meeting] = await meetingViews(ctx.q, ctx.orgId, [row]);
    if (query.include !== 'transcript') return { meeting };
    return { meeting, lines: (await currentLines(ctx.q, ctx.orgId, query.id)).map(toLine) };
  }
  if (query.include !== undefined) throw badRequest('include', 'goes with id (one meeting)');
  if (query.from !== undefined && query.to !== undefined && Date.parse(query.to) <= Date.parse(query.from)) throw badRequest('to', 'must be after from');
  const params: unknown[] = [ctx.orgId, ctx.principal.id];
  const where = ['m.org_id = $1', VISIBLE_SQL('$2')];
  if (query.from !== undefined) where.push(`m.started_at >= $${params.push(query.from)}`);
  if (query.to !== undefined) where.push(`m.started_at < $${params.push(query.to)}`);
  if (query.attendeeId !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM meeting_attendees aa WHERE aa.org_id = m.org_id AND aa.meeting_id = m.meeting_id AND aa.principal_id = $${params.push(query.attendeeId)})`,
    );
  }
  if (query.q !== undefined && query.q.trim() !== '') {
    const n = params.push(query.q);
    where.push(`(m.search_doc @@ websearch_to_tsquery('wops_search', $${n}) OR m.search_stem @@ websearch_to_tsquery('wops_search_stem', $${n}))`);
  }
  if (query.cursor !== undefined) {
    const [at, id] = decodeCursor<[string, string]>(query.cursor, 'cursor', timeAndId);
    where.push(`(m.started_at, m.meeting_id) < ($${params.push(at)}::timestamptz, $${params.push(id)})`);
  }
  const rows = await ctx.q.query<MeetingRow>(
    `SELECT ${MEETING_COLUMNS} FROM meetings m WHERE ${where.join(' AND ')} ORDER BY m.started_at DESC, m.meeting_id DESC LIMIT $${params.push(query.limit + 1)}`,
    params,
  );
  const shown = rows.slice(0, query.limit);
  const last = shown[shown.length - 1];
  return {
    meetings: await meetingViews(ctx.q, ctx.orgId, shown),
    nextCursor: rows.length > query.limit && last ? encodeCursor([new Date(last.started_at).toISOString(), last.meeting_id]) : null,
  };
});

export const meetingsReads = reads({ 'meetings.list': list });
