import type { Queryable } from '../../../db/types.js';
import { a1Of, Book, cachedBook, keepBook, parseA1, type TabCells } from './engine.js';
import { blockArea, loadDefs, type FeedBlock, type FeedDef } from './feeds.js';
import { loadBook, type SheetState } from './store.js';

/*
 * What a reader may see of a sheet with feeds (decision 0058). A fed cell holds a value of a read the reader may lack
 * the scope of (books.reports needs books.read); so for that reader each such cell holds the error #N/A instead, and
 * the sheet is evaluated again over those inputs. Every value the reader then sees is computed from inputs they may
 * read: a formula over a hidden cell reads #N/A (or what IFERROR makes of it), whatever its references, INDIRECT
 * included. The masked book is cached beside the full one, keyed by the feeds it hides.
 */

/** Whoever reads: a caller by its scopes; a guest page or an outside person by none. */
export interface Viewer {
  sees(scope: string): boolean;
}

export const viewerOf = (scopes: ReadonlySet<string>): Viewer => ({ sees: (s) => scopes.has(s) });
/** An email grantee's page: holds no scope, so every fed value is hidden. */
export const OUTSIDER: Viewer = { sees: () => false };

/** What a hidden fed cell holds for the reader. */
export const HIDDEN_INPUT = '#N/A';

export interface SheetView {
  /** Inputs as the reader sees them (hidden fed cells hold #N/A). */
  tabs: TabCells[];
  /** Evaluated over those inputs; the cache's, so only read until the next await. */
  book: Book;
  /** Feeds at the revision, with their definitions. */
  feeds: { block: FeedBlock; def: FeedDef | undefined; hidden: boolean }[];
}

/** Feeds of a revision with their definitions, and which the viewer may not see. */
export async function feedsOf(q: Queryable, orgId: string, fileId: string, state: SheetState, viewer: Viewer): Promise<SheetView['feeds']> {
  if (state.feeds.length === 0) return [];
  const defs = await loadDefs(q, orgId, fileId);
  // A block whose definition is gone (it cannot be, but if it were) hides: its values' scope is unknown.
  return state.feeds.map((block) => {
    const def = defs.get(block.id);
    return { block, def, hidden: !def || !viewer.sees(def.scope) };
  });
}

/** Tabs with each hidden block's cells holding #N/A (empty cells of the block too: its shape is all it shows). */
export function maskTabs(tabs: readonly TabCells[], hidden: readonly FeedBlock[]): TabCells[] {
  return tabs.map((t) => {
    const mine = hidden.filter((b) => b.tabId === t.id);
    if (mine.length === 0) return t;
    const cells = new Map(t.cells);
    for (const b of mine) {
      const a = blockArea(b);
      if (!a) continue;
      for (let r = a.top; r <= a.bottom; r++) for (let c = a.left; c <= a.right; c++) cells.set(a1Of(r, c), HIDDEN_INPUT);
    }
    return { ...t, cells };
  });
}

/** A revision as the viewer sees it. */
export async function viewSheet(q: Queryable, orgId: string, fileId: string, state: SheetState, viewer: Viewer): Promise<SheetView> {
  const feeds = await feedsOf(q, orgId, fileId, state, viewer);
  const hidden = feeds.filter((f) => f.hidden).map((f) => f.block);
  const { tabs, book } = await loadBook(q, orgId, fileId, state);
  if (hidden.length === 0) return { tabs, book, feeds };
  const masked = maskTabs(tabs, hidden);
  const key = `${state.contentSha256}~${hidden
    .map((b) => b.id)
    .sort()
    .join(',')}`;
  let view = cachedBook(orgId, fileId, key);
  if (!view) {
    view = await Book.build(masked);
    keepBook(orgId, fileId, key, view);
  }
  return { tabs: masked, book: view, feeds };
}

type Shown = { value: number | string | boolean | null; error: string | null };
const MAX_RECALCULATED = 10_000;

/**
 * A write's answer as a caller who may not see some feeds sees it (null when they see every feed): the written cells
 * and the formulas whose value changed, both read from the views before and after, so the answer shows no more
 * than a read would.
 */
export async function viewedWrite(
  q: Queryable,
  orgId: string,
  fileId: string,
  before: SheetState,
  after: SheetState,
  viewer: Viewer,
  tab: number,
  written: readonly string[],
) {
  const feeds = await feedsOf(q, orgId, fileId, after, viewer);
  if (!feeds.some((f) => f.hidden) && !(await feedsOf(q, orgId, fileId, before, viewer)).some((f) => f.hidden)) return null;
  const formulas = (v: SheetView) => {
    const out = new Map<string, Shown>();
    v.tabs.forEach((t, i) => {
      for (const [a1, input] of t.cells) if (input.startsWith('=')) out.set(`${t.id}!${a1}`, cellOf(v.book, i, a1));
    });
    return out;
  };
  const was = formulas(await viewSheet(q, orgId, fileId, before, viewer));
  const now = await viewSheet(q, orgId, fileId, after, viewer);
  const t = now.tabs[tab];
  const cells = written.map((a1) => ({ a1, input: t.cells.get(a1) ?? '', ...cellOf(now.book, tab, a1) }));
  const mine = new Set(written.map((a1) => `${t.id}!${a1}`));
  const recalculated: { tabId: string; a1: string; value: Shown['value']; error: string | null }[] = [];
  for (const [k, v] of formulas(now)) {
    const old = was.get(k);
    if (mine.has(k) || !old || (old.value === v.value && old.error === v.error) || recalculated.length >= MAX_RECALCULATED) continue;
    const [tabId, a1] = k.split('!');
    recalculated.push({ tabId, a1, ...v });
  }
  const errors = [
    ...cells.filter((x) => x.error !== null).map((x) => ({ tabId: t.id, a1: x.a1, value: x.value, error: x.error })),
    ...recalculated.filter((x) => x.error !== null),
  ];
  return { cells, recalculated, errors };
}

function cellOf(book: Book, tab: number, a1: string): Shown {
  const { row, col } = parseA1(a1)!;
  return book.cell(tab, row, col);
}
