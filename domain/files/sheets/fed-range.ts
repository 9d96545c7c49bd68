import type { z } from 'zod';
import { ApiError, badRequest, conflict } from '../../../protocol/errors.js';
import { sheets as c } from '../../../protocol/methods/files/sheets.js';
import { METHODS } from '../../../protocol/registry.js';
import { handler, type HandlerCtx, type PrepareCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { callerOf, fileAccess } from '../access.js';
import { a1Of, areasOverlap, inArea, isFormula, keepBook, MAX_COL, MAX_ROW, parseA1, releaseBook, type Book, type TabCells } from './engine.js';
import { blockArea, blockRange, feedView, insertDef, loadDefs, recordOutcome, type FeedBlock, type FeedDef, type FeedSource } from './feeds.js';
import { commitForCall, headOf, sheetAccess, tabIndex } from './revise.js';
import { SourceShapeError, tableOf } from './source.js';
import { compose, ownBook, type SheetState } from './store.js';
import { viewerOf, type Viewer } from './visible.js';

/*
 * files.sheetFedRange (decision 0058): a block of a tab filled from a read method run as the caller. The source runs
 * in prepare, outside the transaction (a read through ctx.readAs, with the caller's scopes); the block is written in
 * the call's transaction like any write, as a new revision that records where every feed's block is. set and
 * remove are one feed; refresh is one or every feed of the sheet, each ok or failed on its own (a failed one keeps
 * its old values and says why). Refreshing a feed needs its source's scope: a caller without it is FORBIDDEN_SCOPE.
 */

type Params = z.output<typeof c.sheetFedRange.params>;
type Outcome = { table: string[][] } | { error: string };
interface Prepared {
  /** set: the source's block and the scope it needs. */
  set?: { table: string[][]; scope: string };
  /** refresh: each feed's new block or why it failed. */
  refresh?: Map<string, Outcome>;
}

const viewOf = (ctx: { principal: { scopes: ReadonlySet<string> } }): Viewer => viewerOf(ctx.principal.scopes);

/** The source method's spec, refused by name when it cannot feed a sheet. */
function sourceSpec(method: string) {
  const spec = METHODS.get(method);
  if (!spec) throw badRequest('source.method', `no method ${method}`);
  if (!spec.readOnly) throw badRequest('source.method', `${method} is not a read (R) method: a feed only reads`);
  if (method.endsWith('.ask')) throw badRequest('source.method', `${method} answers with a model: a feed takes figures from a report or a list`);
  return spec;
}

const missingScope = (scope: string, what: string) => new ApiError('FORBIDDEN_SCOPE', `missing scope ${scope}: ${what}`);

/** Run a source as the caller: its block, or the source's refusal as a sentence. */
async function runSource(ctx: PrepareCtx, source: FeedSource): Promise<Outcome> {
  try {
    return { table: tableOf(await ctx.readAs(source.method, source.params), source) };
  } catch (e) {
    if (e instanceof SourceShapeError) return { error: e.message };
    if (e instanceof ApiError && e.code !== 'INTERNAL') return { error: `${source.method} answered ${e.code}: ${e.message}` };
    throw e;
  }
}

async function prepare(ctx: PrepareCtx, p: Params): Promise<Prepared> {
  // The file is checked first, as the run checks it again: an unreadable sheet is NOT_FOUND before any source runs.
  const { file } = await fileAccess(ctx.db, ctx.orgId, p.fileId, callerOf(ctx.principal), 'editor', { now: ctx.deps.clock.now() });
  if (file.kind !== 'sheet') throw badRequest('fileId', `${p.fileId} is a ${file.kind}, not a sheet`);
  if (p.op === 'set') {
    if (!p.source) throw badRequest('source', 'required for op set');
    if (!p.anchor) throw badRequest('anchor', 'required for op set');
    const spec = sourceSpec(p.source.method);
    if (!ctx.principal.scopes.has(spec.scope)) throw missingScope(spec.scope, `a feed runs ${spec.name} as you`);
    const source = { method: spec.name, params: p.source.params, rows: p.source.rows ?? null, columns: p.source.columns ?? null, header: p.source.header };
    const out = await runSource(ctx, source);
    if ('error' in out) throw badRequest('source', out.error);
    return { set: { table: out.table, scope: spec.scope } };
  }
  if (p.op === 'refresh') {
    const head = await headOf(ctx.db, ctx.orgId, p.fileId);
    const defs = await loadDefs(ctx.db, ctx.orgId, p.fileId);
    const chosen = pickFeeds(head, p.feedId).map((b) => defs.get(b.id)!);
    const lacking = chosen.filter((d) => !ctx.principal.scopes.has(d.scope));
    if (lacking.length > 0) {
      throw missingScope(
        lacking[0].scope,
        `refreshing ${lacking.map((d) => d.id).join(', ')} runs ${lacking[0].source.method} as you; ask someone who holds it`,
      );
    }
    const refresh = new Map<string, Outcome>();
    for (const d of chosen) refresh.set(d.id, await runSource(ctx, d.source));
    return { refresh };
  }
  return {};
}

/** The feeds a refresh or remove is about: one by id (NOT_FOUND when it is not on the sheet's head), or every one. */
function pickFeeds(head: SheetState, feedId: string | undefined): FeedBlock[] {
  if (feedId === undefined) return head.feeds;
  const b = head.feeds.find((f) => f.id === feedId);
  if (!b) throw new ApiError('NOT_FOUND', `feed ${feedId} not found on this sheet (its feeds: ${head.feeds.map((f) => f.id).join(', ') || 'none'})`);
  return [b];
}

/** Cells of the block at (row, col) sized by `table`, and whether it fits the sheet. */
function blockFor(id: string, tabId: string, row: number, col: number, table: string[][]): FeedBlock {
  const rows = table.length;
  const cols = rows === 0 ? 0 : table[0].length;
  if (rows > 0 && (row + rows - 1 > MAX_ROW || col + cols - 1 > MAX_COL))
    throw new SourceShapeError(`the block of ${rows} rows by ${cols} columns from ${a1Of(row, col)} would run past the sheet's last row or column`);
  return rows === 0 ? { id, tabId, row, col, rows: 0, cols: 0 } : { id, tabId, row, col, rows, cols };
}

/** Cells of `block` that hold something and belong to no feed but `own`: what a fill would overwrite. */
function inTheWay(tab: TabCells, block: FeedBlock, feeds: readonly FeedBlock[], own: FeedBlock | undefined): { cells: string[]; feed?: string } {
  const a = blockArea(block);
  if (!a) return { cells: [] };
  const other = feeds.find((f) => f.id !== block.id && f.tabId === block.tabId && areasOverlap(blockArea(f), a));
  if (other) return { cells: [], feed: other.id };
  const ownArea = own ? blockArea(own) : null;
  const cells: string[] = [];
  for (const [a1] of tab.cells) {
    const { row, col } = parseA1(a1)!;
    if (inArea(a, row, col) && !inArea(ownArea, row, col)) cells.push(a1);
  }
  return { cells };
}

/** Write a block's inputs (and clear what its old block held beyond it) into the book and the tab's cells. */
function fill(book: Book, ti: number, cells: Map<string, string>, old: FeedBlock | undefined, next: FeedBlock | undefined, table: string[][] | null) {
  const writes = new Map<string, string>();
  const oldArea = old ? blockArea(old) : null;
  if (oldArea) for (let r = oldArea.top; r <= oldArea.bottom; r++) for (let col = oldArea.left; col <= oldArea.right; col++) writes.set(a1Of(r, col), '');
  if (next && table) table.forEach((row, i) => row.forEach((input, j) => writes.set(a1Of(next.row + i, next.col + j), input)));
  const m = book.model;
  m.pauseEvaluation();
  try {
    for (const [a1, input] of writes) {
      const { row, col } = parseA1(a1)!;
      if ((cells.get(a1) ?? '') === input) continue;
      m.setUserInput(ti, row, col, input);
      if (input === '') cells.delete(a1);
      else cells.set(a1, input);
    }
  } finally {
    m.resumeEvaluation();
  }
}

/** Formula values over every tab, to count what a fill recalculated. */
function formulaValues(tabs: readonly TabCells[], book: Book): Map<string, string> {
  const out = new Map<string, string>();
  tabs.forEach((t, i) => {
    for (const [a1, input] of t.cells) {
      if (!isFormula(input)) continue;
      const { row, col } = parseA1(a1)!;
      out.set(`${i}!${a1}`, JSON.stringify(book.cell(i, row, col)));
    }
  });
  return out;
}

export const sheetFedRange = handler(
  c.sheetFedRange,
  async (ctx, p, prepared: Prepared) => {
    await sheetAccess(ctx, p.fileId, 'editor', true);
    const head = await headOf(ctx.q, ctx.orgId, p.fileId);
    const { tabs, book } = await ownBook(ctx.q, ctx.orgId, p.fileId, head);
    try {
      return await apply(ctx, p, prepared, head, tabs, book);
    } catch (e) {
      releaseBook(book);
      throw e;
    }
  },
  { prepare },
);

async function apply(ctx: HandlerCtx, p: Params, prepared: Prepared, head: SheetState, tabs: TabCells[], book: Book) {
  const at = ctx.deps.clock.now().toISOString();
  const before = formulaValues(tabs, book);
  const next = tabs.map((t) => ({ ...t, cells: new Map(t.cells) }));
  let feeds = [...head.feeds];
  const touched: { block: FeedBlock; def: FeedDef }[] = [];
  const defs = await loadDefs(ctx.q, ctx.orgId, p.fileId);

  if (p.op === 'set') {
    const { table, scope } = prepared.set!;
    const ti = tabIndex(head, p.tabId);
    const pos = parseA1(p.anchor!);
    if (!pos) throw badRequest('anchor', `${JSON.stringify(p.anchor)} is not a cell in A1 notation (B7)`);
    let block: FeedBlock;
    try {
      block = blockFor(newId('fed'), head.tabs[ti].id, pos.row, pos.col, table);
    } catch (e) {
      throw e instanceof SourceShapeError ? badRequest('anchor', e.message) : e;
    }
    const way = inTheWay(next[ti], block, feeds, undefined);
    if (way.feed) throw conflict(`${blockRange(block)} overlaps feed ${way.feed}: remove it first, or set this feed elsewhere`);
    if (way.cells.length > 0 && !p.overwrite)
      throw conflict(
        `${way.cells.slice(0, 20).join(', ')} ${way.cells.length === 1 ? 'holds' : 'hold'} content in the block ${blockRange(block)}: send overwrite true to replace it, or choose another anchor`,
      );
    fill(book, ti, next[ti].cells, undefined, block, table);
    const source: FeedSource = {
      method: p.source!.method,
      params: p.source!.params,
      rows: p.source!.rows ?? null,
      columns: p.source!.columns ?? null,
      header: p.source!.header,
    };
    const def: FeedDef = { id: block.id, source, scope, status: 'ok', error: null, refreshedAt: at };
    await insertDef(ctx.q, ctx.orgId, p.fileId, def, ctx.principal.id, at);
    feeds.push(block);
    touched.push({ block, def });
  } else if (p.op === 'refresh') {
    for (const old of pickFeeds(head, p.feedId)) {
      const outcome = prepared.refresh?.get(old.id);
      // A feed set after prepare ran: nothing was read for it; it waits for the next refresh.
      if (!outcome) continue;
      const ti = head.tabs.findIndex((t) => t.id === old.tabId);
      let error = 'error' in outcome ? outcome.error : null;
      let block = old;
      if (!error && 'table' in outcome) {
        try {
          const nextBlock = blockFor(old.id, old.tabId, old.row, old.col, outcome.table);
          const way = inTheWay(next[ti], nextBlock, feeds, old);
          if (way.feed) error = `its block now needs ${blockRange(nextBlock)}, which overlaps feed ${way.feed}; the old values stay`;
          else if (way.cells.length > 0)
            error = `its block now needs ${blockRange(nextBlock)}, and ${way.cells.slice(0, 10).join(', ')} ${way.cells.length === 1 ? 'holds' : 'hold'} other content; move it and refresh, the old values stay`;
          else {
            fill(book, ti, next[ti].cells, old, nextBlock, outcome.table);
            block = nextBlock;
          }
        } catch (e) {
          if (!(e instanceof SourceShapeError)) throw e;
          error = e.message;
        }
      }
      await recordOutcome(ctx.q, ctx.orgId, old.id, error, ctx.principal.id, at);
      feeds = feeds.map((f) => (f.id === old.id ? block : f));
      touched.push({ block, def: { ...defs.get(old.id)!, status: error === null ? 'ok' : 'error', error, refreshedAt: at } });
    }
  } else {
    if (p.feedId === undefined) throw badRequest('feedId', 'required for op remove');
    const [old] = pickFeeds(head, p.feedId);
    const def = defs.get(old.id)!;
    if (p.keepValues && !ctx.principal.scopes.has(def.scope))
      throw missingScope(def.scope, `keepValues shows ${old.id}'s values to every reader of the sheet; without it, remove clears them`);
    const ti = head.tabs.findIndex((t) => t.id === old.tabId);
    if (!p.keepValues) fill(book, ti, next[ti].cells, old, undefined, null);
    feeds = feeds.filter((f) => f.id !== old.id);
    touched.push({ block: old, def });
  }

  book.model.evaluate();
  const after = formulaValues(next, book);
  const recalculated = [...after].filter(([k, v]) => before.has(k) && before.get(k) !== v).length;
  const viewer = viewOf(ctx);
  const views = touched.map((t) => feedView(t.block, t.def, !viewer.sees(t.def.scope)));
  const sameFeeds = JSON.stringify(feeds) === JSON.stringify(head.feeds);
  const ids = {
    fileId: p.fileId,
    feeds: touched.length,
    failed: touched.filter((t) => t.def.status === 'error').length,
    ...(touched.length === 1 ? { feedId: touched[0].block.id, method: touched[0].def.source.method } : {}),
    recalculated,
  };
  if (sameFeeds && compose(next, 'op', feeds).contentSha256 === head.contentSha256) {
    keepBook(ctx.orgId, p.fileId, head.contentSha256, book);
    await ctx.emit(`files.sheet_feed.${p.op}`, p.fileId, { ...ids, revision: head.revision, contentSha256: head.contentSha256, noop: true });
    return { revision: head.revision, contentSha256: head.contentSha256, feeds: views, recalculated, changed: false };
  }
  const state = await commitForCall(ctx, p.fileId, { state: head, tabs }, next, { source: 'feed', feeds }, 'op', book);
  await ctx.emit(`files.sheet_feed.${p.op}`, p.fileId, { ...ids, revision: state.revision, contentSha256: state.contentSha256 });
  return { revision: state.revision, contentSha256: state.contentSha256, feeds: views, recalculated, changed: true };
}
