import { badRequest } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import { newId } from '../../core/ids.js';
import type { ContentResult, KindContent } from '../kinds.js';
import { escapeHtml } from '../docs/export.js';
import { sheetXlsx } from './xlsx.js';
import { sheetPdf } from './pdf.js';
import { shownValues, tabWindows, usedSize } from './view.js';
import { a1Of, Book, formulaProblem, isFormula, parseA1, releaseBook, type TabCells } from './engine.js';
import { commit, eraseSheet, loadCells, loadRevision, MAX_CELLS, MAX_TABS, type SheetState } from './store.js';
import { copyFeeds } from './feeds.js';
import { OUTSIDER, viewerOf, viewSheet } from './visible.js';

/*
 * The sheet kind's content module (domain/files/kinds.ts): create, duplicate, restore, export and purge a sheet
 * without the drive reading sheet tables. files.create's content is {tabs:[{title, cells:{A1: input}}]}; absent,
 * the sheet starts with one empty tab "Sheet1".
 */

export const SHEET_EXPORT_FORMATS = ['xlsx', 'csv', 'pdf'] as const;
/** Longest tab title (a sheet name in Excel and IronCalc). */
export const MAX_TITLE = 31;
/** Longest input of a cell (Excel's limit). */
export const MAX_INPUT = 32_767;
/** Largest csv export, in cells of its rectangle (empty ones count). */
const MAX_CSV_CELLS = 5_000_000;
/** A guest page shows at most this many cells over every tab, and columns A to AZ. */
const MAX_GUEST_CELLS = 5_000;
const MAX_GUEST_COLS = 52;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A cell's input as text: strings as they are, numbers and booleans written out; BAD_REQUEST naming `field`. */
export function inputText(v: unknown, field: string): string {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v !== 'string') throw badRequest(field, 'must be a string (a literal or =formula), a number or a boolean');
  if (v.length > MAX_INPUT) throw badRequest(field, `must be at most ${MAX_INPUT} characters`);
  return v;
}

/** files.create's content as tabs of checked inputs (formulas not yet normalised). */
async function tabsFromContent(content: unknown): Promise<TabCells[]> {
  const field = 'content';
  if (content === undefined || content === null) return [{ id: newId('tab'), title: 'Sheet1', cells: new Map() }];
  if (!isObject(content) || !Array.isArray(content.tabs) || Object.keys(content).length !== 1)
    throw badRequest(field, 'must be {tabs:[{title, cells:{A1: input}}]}');
  if (content.tabs.length === 0 || content.tabs.length > MAX_TABS) throw badRequest(`${field}.tabs`, `must hold 1 to ${MAX_TABS} tabs`);
  let total = 0;
  const titles = new Set<string>();
  const out: TabCells[] = [];
  for (const [i, t] of content.tabs.entries()) {
    const at = `${field}.tabs.${i}`;
    if (!isObject(t)) throw badRequest(at, 'must be a tab {title, cells}');
    const title = t.title ?? `Sheet${i + 1}`;
    if (typeof title !== 'string' || title.length < 1 || title.length > MAX_TITLE) throw badRequest(`${at}.title`, `must be 1 to ${MAX_TITLE} characters`);
    if (titles.has(title.toLowerCase())) throw badRequest(`${at}.title`, `another tab is titled ${JSON.stringify(title)}`);
    titles.add(title.toLowerCase());
    const cells = new Map<string, string>();
    if (t.cells !== undefined && !isObject(t.cells)) throw badRequest(`${at}.cells`, 'must be an object {A1: input}');
    for (const [a1, v] of Object.entries(t.cells ?? {})) {
      const pos = parseA1(a1);
      if (!pos) throw badRequest(`${at}.cells.${a1}`, 'is not a cell in A1 notation (B7; columns A to XFD, rows 1 to 1048576)');
      const input = inputText(v, `${at}.cells.${a1}`);
      if (isFormula(input)) {
        const problem = await formulaProblem(input);
        if (problem) throw badRequest(`${at}.cells.${a1}`, problem);
      }
      if (input !== '') cells.set(a1Of(pos.row, pos.col), input);
    }
    total += cells.size;
    if (total > MAX_CELLS) throw badRequest(`${at}.cells`, `a sheet holds at most ${MAX_CELLS} cells`);
    out.push({ id: newId('tab'), title, cells });
  }
  return out;
}

/** Formulas as the engine normalises them (what it reads back after row and column ops). */
export function normalised(tabs: readonly TabCells[], book: Book): TabCells[] {
  return tabs.map((t, i) => {
    const cells = new Map<string, string>();
    for (const [a1, input] of t.cells) {
      const { row, col } = parseA1(a1)!;
      cells.set(a1, isFormula(input) ? book.content(i, row, col) : input);
    }
    return { ...t, cells };
  });
}

const result = (state: SheetState, text: string): ContentResult => ({
  revision: state.revision,
  sha256: state.contentSha256,
  sizeBytes: state.sizeBytes,
  text,
});

async function revisionOrRefuse(q: Queryable, orgId: string, fileId: string, revision: number | undefined, field: string): Promise<SheetState> {
  const state = await loadRevision(q, orgId, fileId, revision);
  if (!state) throw badRequest(field, revision === undefined ? `${fileId} has no content yet` : `${fileId} has no revision ${revision}`);
  return state;
}

/** A CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
const csvField = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export const sheetContent: KindContent = {
  exportFormats: SHEET_EXPORT_FORMATS,

  async create(q, orgId, fileId, authorId, content, now) {
    const raw = await tabsFromContent(content);
    let book: Book;
    try {
      book = await Book.build(raw);
    } catch (e) {
      throw badRequest('content.tabs', `the sheet engine refused a tab title: ${e instanceof Error ? e.message : String(e)}`);
    }
    try {
      const { state, text } = await commit(
        q,
        orgId,
        fileId,
        undefined,
        normalised(raw, book),
        { source: 'create', authorId, at: now.toISOString() },
        'content',
        book,
      );
      return result(state, text);
    } catch (e) {
      releaseBook(book);
      throw e;
    }
  },

  async duplicate(q, orgId, fromId, toId, authorId, now) {
    const from = await revisionOrRefuse(q, orgId, fromId, undefined, 'fileId');
    // Same tabs and ids: a copy reads as the original does (its book is built again when first read).
    const tabs = await loadCells(q, orgId, fromId, from);
    // Fed values stay fed in the copy: a reader without a source's scope sees no more of the copy than of the original.
    const feeds = await copyFeeds(q, orgId, fromId, toId, from.feeds);
    const { state, text } = await commit(q, orgId, toId, undefined, tabs, { source: 'duplicate', authorId, at: now.toISOString(), feeds }, 'fileId');
    return result(state, text);
  },

  async restoreRevision(q, orgId, fileId, revision, authorId, now) {
    const head = await revisionOrRefuse(q, orgId, fileId, undefined, 'toRevision');
    const old = revision === head.revision ? head : await revisionOrRefuse(q, orgId, fileId, revision, 'toRevision');
    const headTabs = await loadCells(q, orgId, fileId, head);
    const oldTabs = old === head ? headTabs : await loadCells(q, orgId, fileId, old);
    const { state, text } = await commit(
      q,
      orgId,
      fileId,
      { state: head, tabs: headTabs },
      oldTabs,
      // The feeds come back with the cells they filled (their definitions are kept for as long as the sheet).
      { source: 'restore', authorId, at: now.toISOString(), baseRevision: revision, feeds: old.feeds },
      'toRevision',
    );
    return result(state, text);
  },

  purge: eraseSheet,

  // The guest page: each tab a table of the values an outside person sees (formulas computed; fed cells #N/A), escaped; large tabs cut.
  async guestHtml(q, orgId, fileId) {
    const state = await revisionOrRefuse(q, orgId, fileId, undefined, 'fileId');
    const { tabs, book } = await viewSheet(q, orgId, fileId, state, OUTSIDER);
    // From here on nothing awaits: the book is the cache's.
    const windows = tabWindows(tabs, MAX_GUEST_CELLS, MAX_GUEST_COLS);
    return tabs
      .map((t, i) => {
        const { rows, shownRows: shown, shownCols } = windows[i];
        const body = shownValues(book, i, shown, shownCols)
          .map((row) => `<tr>${row.map((v) => `<td>${escapeHtml(v)}</td>`).join('')}</tr>\n`)
          .join('');
        const cut = shown < rows ? `<p class="meta">The first ${shown} of ${rows} rows.</p>\n` : '';
        return `<section>\n<h2>${escapeHtml(t.title)}</h2>\n${rows ? `<table>\n${body}</table>\n` : '<p class="meta">This tab is empty.</p>\n'}${cut}</section>\n`;
      })
      .join('');
  },

  // xlsx: every tab, inputs with computed values; csv: the first tab's values as shown, its used rows and columns from A1.
  async exportAs(q, orgId, fileId, format, revision, env) {
    if (!(SHEET_EXPORT_FORMATS as readonly string[]).includes(format)) throw badRequest('format', `a sheet exports as ${SHEET_EXPORT_FORMATS.join(', ')}`);
    const state = await revisionOrRefuse(q, orgId, fileId, revision, 'revision');
    const { tabs, book } = await viewSheet(q, orgId, fileId, state, viewerOf(env.scopes));
    // No await from here on: the book is the cache's.
    if (format === 'pdf') {
      // The values are read into the document before it renders: the book is not used across the await.
      return { bytes: await sheetPdf(tabs, book, tabs[0]?.title ?? 'Sheet'), contentType: 'application/pdf', extension: 'pdf' };
    }
    if (format === 'xlsx') {
      return { bytes: sheetXlsx(tabs, book), contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' };
    }
    const { rows, cols } = usedSize(tabs[0].cells);
    if (rows * cols > MAX_CSV_CELLS)
      throw badRequest('format', `the first tab spans ${rows} rows by ${cols} columns, past the ${MAX_CSV_CELLS} cells a csv export holds`);
    const lines = shownValues(book, 0, rows, cols).map((row) => row.map(csvField).join(','));
    return { bytes: Buffer.from(lines.map((l) => `${l}\r\n`).join('')), contentType: 'text/csv; charset=utf-8', extension: 'csv' };
  },
};
