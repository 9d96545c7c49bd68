import type { Queryable } from '../../db/types.js';

/**
 * Cursor paging over a table's identity column `n` (monotonic, never reused): a page is the rows with
 * n > cursor in n order; nextCursor is the last row's n, or null when no row follows.
 */
export async function pageByN<T extends { n: number }>(
  q: Queryable,
  sql: string,
  args: unknown[],
  p: { cursor: number; limit: number },
): Promise<{ rows: T[]; nextCursor: number | null }> {
  const rows = await q.query<T>(`${sql} AND n > $${args.length + 1} ORDER BY n LIMIT $${args.length + 2}`, [...args, p.cursor, p.limit + 1]);
  const pageRows = rows.slice(0, p.limit);
  return { rows: pageRows, nextCursor: rows.length > p.limit ? Number(pageRows[pageRows.length - 1].n) : null };
}
