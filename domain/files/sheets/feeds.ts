import type { Queryable } from '../../../db/types.js';
import { newId } from '../../core/ids.js';
import { a1Of, inArea, type Area } from './engine.js';

/*
 * Fed ranges (db/migrations/053_sheet_feeds.sql): a feed's definition and last outcome are a sheet_feeds row; its
 * block at a revision is that revision's `feeds` entry, so every revision knows which of its cells were fed. Row and
 * column ops move and stretch blocks as they move formula ranges; a duplicated tab or sheet copies its feeds.
 */

/** A feed's block at a revision: from (row, col), rows x cols (0 x 0 while it has never filled). */
export interface FeedBlock {
  id: string;
  tabId: string;
  row: number;
  col: number;
  rows: number;
  cols: number;
}

export interface FeedSource {
  method: string;
  params: Record<string, unknown>;
  rows: string | null;
  columns: string[] | null;
  header: boolean;
}

export interface FeedDef {
  id: string;
  source: FeedSource;
  scope: string;
  status: 'ok' | 'error';
  error: string | null;
  refreshedAt: string;
}

export const blockArea = (b: FeedBlock): Area | null =>
  b.rows === 0 || b.cols === 0 ? null : { top: b.row, left: b.col, bottom: b.row + b.rows - 1, right: b.col + b.cols - 1 };

export function blockRange(b: FeedBlock): string | null {
  const a = blockArea(b);
  if (!a) return null;
  return a.top === a.bottom && a.left === a.right ? a1Of(a.top, a.left) : `${a1Of(a.top, a.left)}:${a1Of(a.bottom, a.right)}`;
}

/** The feed whose block holds the cell, if any. */
export const feedAt = (blocks: readonly FeedBlock[], tabId: string, row: number, col: number): FeedBlock | undefined =>
  blocks.find((b) => b.tabId === tabId && inArea(blockArea(b), row, col));

/**
 * Blocks after a row or column op on `tabId`: an insert before a block moves it, inside it stretches it; a delete
 * shrinks it by the lines it removes and moves it back by those before it.
 */
export function moveBlocks(blocks: readonly FeedBlock[], tabId: string, op: string, at: number, count: number): FeedBlock[] {
  const rows = op.endsWith('Rows');
  return blocks.map((b) => {
    if (b.tabId !== tabId) return b;
    const start = rows ? b.row : b.col;
    const size = rows ? b.rows : b.cols;
    let nextStart = start;
    let nextSize = size;
    if (op.startsWith('insert')) {
      if (at <= start) nextStart = start + count;
      else if (size > 0 && at < start + size) nextSize = size + count;
    } else {
      const end = at + count; // deleted: [at, end)
      const before = Math.max(0, Math.min(end, start) - at);
      const within = size === 0 ? 0 : Math.max(0, Math.min(end, start + size) - Math.max(at, start));
      nextStart = Math.max(1, start - before);
      nextSize = size - within;
    }
    const moved = rows ? { ...b, row: nextStart, rows: nextSize } : { ...b, col: nextStart, cols: nextSize };
    return nextSize === 0 ? { ...moved, rows: 0, cols: 0 } : moved;
  });
}

/** A feed as the contract shows it; `hidden`: the reader lacks its scope (its cells read #N/A for them). */
export function feedView(block: FeedBlock, def: FeedDef, hidden: boolean) {
  const { method, params, rows, columns, header } = def.source;
  return {
    id: block.id,
    tabId: block.tabId,
    range: blockRange(block),
    source: { method, params, rows, columns, header },
    scope: def.scope,
    status: def.status,
    error: def.error,
    refreshedAt: def.refreshedAt,
    hidden,
  };
}

const SOURCE_COLUMNS = 'feed_id, source, scope, status, error, refreshed_at';

interface DefRow {
  feed_id: string;
  source: FeedSource;
  scope: string;
  status: 'ok' | 'error';
  error: string | null;
  refreshed_at: string | Date;
}

const toDef = (r: DefRow): FeedDef => ({
  id: r.feed_id,
  source: r.source,
  scope: r.scope,
  status: r.status,
  error: r.error,
  refreshedAt: new Date(r.refreshed_at).toISOString(),
});

/** The definitions of a sheet's feeds, by id. */
export async function loadDefs(q: Queryable, orgId: string, fileId: string): Promise<Map<string, FeedDef>> {
  const rows = await q.query<DefRow>(`SELECT ${SOURCE_COLUMNS} FROM sheet_feeds WHERE org_id = $1 AND file_id = $2`, [orgId, fileId]);
  return new Map(rows.map((r) => [r.feed_id, toDef(r)]));
}

export async function insertDef(q: Queryable, orgId: string, fileId: string, def: FeedDef, by: string, at: string): Promise<void> {
  await q.query(
    `INSERT INTO sheet_feeds (org_id, feed_id, file_id, source, scope, status, error, refreshed_at, refreshed_by, created_by, created_at)
     VALUES ($1, $2, $3, $4::json, $5, $6, $7, $8, $9, $9, $8)`,
    [orgId, def.id, fileId, JSON.stringify(def.source), def.scope, def.status, def.error, at, by],
  );
}

/** A refresh's outcome on the definition: ok (the error cleared) or the reason it failed. */
export async function recordOutcome(q: Queryable, orgId: string, feedId: string, error: string | null, by: string, at: string): Promise<void> {
  await q.query('UPDATE sheet_feeds SET status = $3, error = $4, refreshed_at = $5, refreshed_by = $6 WHERE org_id = $1 AND feed_id = $2', [
    orgId,
    feedId,
    error === null ? 'ok' : 'error',
    error,
    at,
    by,
  ]);
}

/**
 * Copies of `blocks` under new ids (a duplicated sheet, `toFile`; or a duplicated tab, `toTab`), their definitions
 * copied too: a copy of fed values stays fed, so a reader without the source's scope sees no more in the copy.
 */
export async function copyFeeds(
  q: Queryable,
  orgId: string,
  fromFile: string,
  toFile: string,
  blocks: readonly FeedBlock[],
  toTab?: string,
): Promise<FeedBlock[]> {
  const out: FeedBlock[] = [];
  for (const b of blocks) {
    const id = newId('fed');
    await q.query(
      `INSERT INTO sheet_feeds (org_id, feed_id, file_id, source, scope, status, error, refreshed_at, refreshed_by, created_by, created_at)
       SELECT org_id, $4, $3, source, scope, status, error, refreshed_at, refreshed_by, created_by, created_at FROM sheet_feeds
        WHERE org_id = $1 AND file_id = $2 AND feed_id = $5`,
      [orgId, fromFile, toFile, id, b.id],
    );
    out.push({ ...b, id, tabId: toTab ?? b.tabId });
  }
  return out;
}
