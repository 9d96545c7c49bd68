import { reconciliation as c } from '../../../protocol/methods/books/reconciliation.js';
import { handler } from '../../core/handler.js';
import { pageByN } from '../paging.js';
import { LINE_COLUMNS, lineView, type FeedLineRow } from './model.js';
import { suggestionsFor } from './suggestions.js';

/**
 * Feed lines in import order. SUGGESTED and UNMATCHED are both stored as UNMATCHED: the page is taken over the
 * stored rows, then kept to those with (or without) a suggestion, so a page may be shorter than limit.
 */
export const feedLines = handler(c.feedLines, async (ctx, p) => {
  const stored = p.status === 'SUGGESTED' ? 'UNMATCHED' : (p.status ?? null);
  const { rows, nextCursor } = await pageByN<FeedLineRow>(
    ctx.q,
    `SELECT ${LINE_COLUMNS} FROM books_feed_lines
      WHERE org_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::date IS NULL OR date >= $3::date) AND ($4::date IS NULL OR date <= $4::date)`,
    [ctx.orgId, stored, p.dateFrom ?? null, p.dateTo ?? null],
    p,
  );
  const suggestions = await suggestionsFor(ctx.q, ctx.orgId, rows);
  const lines = rows.map((r) => lineView(r, suggestions.get(r.line_id) ?? [])).filter((l) => !p.status || l.status === p.status);
  return { feedLines: lines, nextCursor };
});
