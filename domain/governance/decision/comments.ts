import { decision as c } from '../../../protocol/methods/decision.js';
import { handler } from '../../core/handler.js';
import { decodeCursor, encodeCursor } from '../../core/cursor.js';
import { COMMENT_COLUMNS, getDecision, toComment, type CommentRow } from './model.js';

/**
 * decision.listComments: oldest first. The cursor is the last row's time in whole microseconds (exact on both
 * databases, unlike the millisecond ISO string the row shows) and its id.
 */
export const listComments = handler(c.listComments, async (ctx, p) => {
  await getDecision(ctx.q, ctx.orgId, p.decisionId);
  const after =
    p.cursor === undefined
      ? null
      : decodeCursor<[number, string]>(p.cursor, 'cursor', (v) => v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string');
  const rows = await ctx.q.query<CommentRow & { micros: number | string }>(
    `SELECT ${COMMENT_COLUMNS}, (extract(epoch FROM created_at) * 1000000)::bigint AS micros FROM decision_comments
      WHERE org_id = $1 AND decision_id = $2 AND ($3::text IS NULL OR kind = $3)
        AND ($4::bigint IS NULL OR (created_at, comment_id) > (timestamptz 'epoch' + $4::bigint * interval '1 microsecond', $5::text))
      ORDER BY created_at, comment_id LIMIT $6`,
    [ctx.orgId, p.decisionId, p.kind ?? null, after?.[0] ?? null, after?.[1] ?? '', p.limit + 1],
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return {
    comments: page.map(toComment),
    nextCursor: rows.length > p.limit && last ? encodeCursor([Number(last.micros), last.comment_id]) : null,
  };
});
