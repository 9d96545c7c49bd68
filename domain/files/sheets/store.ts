import { badRequest } from '../../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import type { Queryable } from '../../../db/types.js';
import { a1Of, Book, cachedBook, forgetBooks, isFormula, keepBook, parseA1, takeBook, type TabCells } from './engine.js';
import { loadRevisionRow } from '../content-store.js';
import { feedAt, type FeedBlock } from './feeds.js';

/*
 * Sheet revisions and cells (db/migrations/049_sheets.sql). A revision lists its tabs; cells are versioned rows
 * live from the revision that set them until the one that changed them, so a commit stores only the cells that
 * differ from the previous head. The hashes a sheet is known by:
 *   tab sha256     = SHA-256 of the canonical JSON (RFC 8785) of the tab's `{A1: input}`;
 *   contentSha256  = SHA-256 of the canonical JSON of `{tabs:[{cells:{A1: input}, id, title}, …]}` in tab order.
 */

/** Input cells in a whole sheet (every tab). */
export const MAX_CELLS = 200_000;
/** Most tabs a sheet has. */
export const MAX_TABS = 100;

export interface TabState {
  id: string;
  title: string;
  sha256: string;
  cells: number;
}

export interface SheetState {
  revision: number;
  contentSha256: string;
  sizeBytes: number;
  tabs: TabState[];
  /** The feeds attached at this revision, with their blocks (feeds.ts). */
  feeds: FeedBlock[];
}

/** A revision (default the latest), or undefined when there is none such. */
export async function loadRevision(q: Queryable, orgId: string, fileId: string, revision?: number): Promise<SheetState | undefined> {
  const row = await loadRevisionRow<TabState[]>(q, 'sheet_revisions', 'tabs', orgId, fileId, revision, 'feeds');
  if (!row) return undefined;
  const { parts, extra, ...head } = row;
  return { ...head, tabs: parts, feeds: (extra as FeedBlock[] | undefined) ?? [] };
}

/** The inputs of every tab as they were at a revision, in its tab order. */
export async function loadCells(q: Queryable, orgId: string, fileId: string, state: SheetState): Promise<TabCells[]> {
  const rows = await q.query<{ tab_id: string; row: number; col: number; input: string }>(
    `SELECT tab_id, row, col, input FROM sheet_cells WHERE org_id = $1 AND file_id = $2 AND from_rev <= $3 AND (to_rev IS NULL OR to_rev > $3)
      ORDER BY tab_id, row, col`,
    [orgId, fileId, state.revision],
  );
  const tabs = new Map(state.tabs.map((t) => [t.id, { id: t.id, title: t.title, cells: new Map<string, string>() }]));
  for (const r of rows) tabs.get(r.tab_id)?.cells.set(a1Of(Number(r.row), Number(r.col)), r.input);
  return [...tabs.values()];
}

/** A revision's inputs and its evaluated book (from the cache when there). The book is only read until the next await. */
export async function loadBook(q: Queryable, orgId: string, fileId: string, state: SheetState): Promise<{ tabs: TabCells[]; book: Book }> {
  const tabs = await loadCells(q, orgId, fileId, state);
  let book = cachedBook(orgId, fileId, state.contentSha256);
  if (!book) {
    book = await Book.build(tabs);
    keepBook(orgId, fileId, state.contentSha256, book);
  }
  return { tabs, book };
}

/** Like loadBook, but the book is the caller's to change: taken out of the cache, or built. */
export async function ownBook(q: Queryable, orgId: string, fileId: string, state: SheetState): Promise<{ tabs: TabCells[]; book: Book }> {
  const tabs = await loadCells(q, orgId, fileId, state);
  return { tabs, book: takeBook(orgId, fileId, state.contentSha256) ?? (await Book.build(tabs)) };
}

export interface Composed {
  tabs: TabState[];
  contentSha256: string;
  sizeBytes: number;
  /** Tab titles and text literals, for search (never a fed cell's: its reader may lack the source's scope). */
  text: string;
}

/** Hashes, size and search text of these tabs; past MAX_CELLS is BAD_REQUEST naming `field`. */
export function compose(tabs: readonly TabCells[], field: string, feeds: readonly FeedBlock[] = []): Composed {
  const total = tabs.reduce((n, t) => n + t.cells.size, 0);
  if (total > MAX_CELLS) throw badRequest(field, `the sheet would hold ${total} cells, past the ${MAX_CELLS} limit of a sheet: split it into sheets`);
  const entries: string[] = [];
  const texts: string[] = [];
  const out = tabs.map((t): TabState => {
    const cells = canonicalJson(Object.fromEntries(t.cells));
    entries.push(`{"cells":${cells},"id":${canonicalJson(t.id)},"title":${canonicalJson(t.title)}}`);
    texts.push(t.title);
    for (const [a1, input] of t.cells) {
      if (isFormula(input) || !Number.isNaN(Number(input))) continue;
      if (feeds.length > 0 && feedAt(feeds, t.id, parseA1(a1)!.row, parseA1(a1)!.col)) continue;
      texts.push(input);
    }
    return { id: t.id, title: t.title, sha256: sha256Hex(cells), cells: t.cells.size };
  });
  const whole = `{"tabs":[${entries.join(',')}]}`;
  return { tabs: out, contentSha256: sha256Hex(whole), sizeBytes: Buffer.byteLength(whole), text: texts.join('\n') };
}

export interface RevisionMeta {
  source: 'create' | 'duplicate' | 'write' | 'tab' | 'restore' | 'feed';
  authorId: string;
  at: string;
  baseRevision?: number;
  /** The feeds attached at the new revision (default: the previous head's). */
  feeds?: FeedBlock[];
}

/**
 * Append the next revision with `next` (prev: the head and its inputs, none for a new sheet): only cells that
 * differ are closed and stored. `book`, when given, is `next` evaluated: it is cached under the new hash.
 */
export async function commit(
  q: Queryable,
  orgId: string,
  fileId: string,
  prev: { state: SheetState; tabs: readonly TabCells[] } | undefined,
  next: readonly TabCells[],
  meta: RevisionMeta,
  field: string,
  book?: Book,
): Promise<{ state: SheetState; text: string; changedCells: number }> {
  const feeds = meta.feeds ?? prev?.state.feeds ?? [];
  const composed = compose(next, field, feeds);
  const revision = (prev?.state.revision ?? 0) + 1;
  const gone: [string, number, number][] = [];
  const added: [string, number, number, string][] = [];
  const before = new Map((prev?.tabs ?? []).map((t) => [t.id, t.cells]));
  for (const t of next) {
    const old = before.get(t.id);
    before.delete(t.id);
    for (const [a1, input] of t.cells) {
      const was = old?.get(a1);
      if (was === input) continue;
      const { row, col } = parseA1(a1)!;
      if (was !== undefined) gone.push([t.id, row, col]);
      added.push([t.id, row, col, input]);
    }
    for (const a1 of old?.keys() ?? []) {
      if (t.cells.has(a1)) continue;
      const { row, col } = parseA1(a1)!;
      gone.push([t.id, row, col]);
    }
  }
  const goneTabs = [...before.keys()];
  if (goneTabs.length > 0) {
    await q.query('UPDATE sheet_cells SET to_rev = $3 WHERE org_id = $1 AND file_id = $2 AND to_rev IS NULL AND tab_id = ANY($4::text[])', [
      orgId,
      fileId,
      revision,
      goneTabs,
    ]);
  }
  if (gone.length > 0) {
    await q.query(
      `UPDATE sheet_cells SET to_rev = $3 WHERE org_id = $1 AND file_id = $2 AND to_rev IS NULL
         AND (tab_id, row, col) IN (SELECT * FROM unnest($4::text[], $5::int[], $6::int[]))`,
      [orgId, fileId, revision, gone.map((g) => g[0]), gone.map((g) => g[1]), gone.map((g) => g[2])],
    );
  }
  if (added.length > 0) {
    await q.query(
      `INSERT INTO sheet_cells (org_id, file_id, tab_id, row, col, from_rev, input)
       SELECT $1, $2, t, r, c, $3, i FROM unnest($4::text[], $5::int[], $6::int[], $7::text[]) AS u(t, r, c, i)`,
      [orgId, fileId, revision, added.map((a) => a[0]), added.map((a) => a[1]), added.map((a) => a[2]), added.map((a) => a[3])],
    );
  }
  const changedCells = new Set([...gone, ...added].map((c) => `${c[0]}!${c[1]}:${c[2]}`)).size;
  await q.query(
    `INSERT INTO sheet_revisions (org_id, file_id, revision, tabs, content_sha256, size_bytes, source, base_revision, cells, author_id, created_at, feeds)
     VALUES ($1, $2, $3, $4::json, $5, $6, $7, $8, $9, $10, $11, $12::json)`,
    [
      orgId,
      fileId,
      revision,
      JSON.stringify(composed.tabs),
      composed.contentSha256,
      composed.sizeBytes,
      meta.source,
      meta.baseRevision ?? null,
      changedCells,
      meta.authorId,
      meta.at,
      JSON.stringify(feeds),
    ],
  );
  // A book is a function of its inputs: caching it before the commit is safe (a rollback leaves it unused).
  if (book) keepBook(orgId, fileId, composed.contentSha256, book);
  const state = { revision, contentSha256: composed.contentSha256, sizeBytes: composed.sizeBytes, tabs: composed.tabs, feeds };
  return { state, text: composed.text, changedCells };
}

/** Cells of `tabId` among `cells` (A1) whose input changed after revision `base`. */
export async function changedSince(q: Queryable, orgId: string, fileId: string, tabId: string, base: number, cells: readonly string[]): Promise<string[]> {
  const at = cells.map((a1) => parseA1(a1)!);
  const rows = await q.query<{ row: number; col: number }>(
    `SELECT DISTINCT row, col FROM sheet_cells WHERE org_id = $1 AND file_id = $2 AND tab_id = $3 AND (from_rev > $4 OR to_rev > $4)
       AND (row, col) IN (SELECT * FROM unnest($5::int[], $6::int[]))`,
    [orgId, fileId, tabId, base, at.map((c) => c.row), at.map((c) => c.col)],
  );
  return rows.map((r) => a1Of(Number(r.row), Number(r.col)));
}

/** Erase a purged sheet: its revisions, cells and feeds (and its cached books). */
export async function eraseSheet(q: Queryable, orgId: string, fileId: string): Promise<void> {
  for (const table of ['sheet_cells', 'sheet_revisions', 'sheet_feeds'])
    await q.query(`DELETE FROM ${table} WHERE org_id = $1 AND file_id = $2`, [orgId, fileId]);
  forgetBooks(orgId, fileId);
}

/** Tab metadata as the contract shows it. */
export const tabInfo = (state: SheetState) => state.tabs.map((t) => ({ id: t.id, title: t.title, sha256: t.sha256, cells: t.cells }));
