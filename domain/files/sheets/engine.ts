import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Model } from '@ironcalc/wasm';
import { badRequest } from '../../../protocol/errors.js';

/*
 * The formula engine: IronCalc (@ironcalc/wasm, a full spreadsheet engine in WebAssembly). Its module loads at the
 * first sheet call, never at start (tests/protocol/lazy-imports.test.ts), and is instantiated once per process from
 * the wasm bytes in node_modules. A Book is one sheet's tabs in an IronCalc model, built from stored inputs; rows and
 * columns are 1-based as in A1, tabs 0-based by position.
 */

export const MAX_ROW = 1_048_576;
export const MAX_COL = 16_384;

type IronCalc = typeof import('@ironcalc/wasm');
let ironcalc: IronCalc | undefined;

/** The engine's module, instantiated on first use. */
export async function engine(): Promise<IronCalc> {
  if (ironcalc) return ironcalc;
  const mod = await import('@ironcalc/wasm');
  const entry = createRequire(import.meta.url).resolve('@ironcalc/wasm');
  mod.initSync({ module: readFileSync(entry.replace(/wasm\.js$/, 'wasm_bg.wasm')) });
  ironcalc = mod;
  return mod;
}

/** 'A' → 1, 'XFD' → 16384. */
const colNumber = (letters: string): number => [...letters].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
export function colName(col: number): string {
  let s = '';
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
export const a1Of = (row: number, col: number): string => `${colName(col)}${row}`;

/** A1 (case-insensitive, `$` allowed) as row and column, or null when it is not a cell of a sheet. */
export function parseA1(a1: string): { row: number; col: number } | null {
  const m = /^\$?([A-Za-z]{1,3})\$?([1-9][0-9]{0,6})$/.exec(a1);
  if (!m) return null;
  const col = colNumber(m[1].toUpperCase());
  const row = Number(m[2]);
  return row <= MAX_ROW && col <= MAX_COL ? { row, col } : null;
}

export interface Area {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** `B7` or `A1:C10` (either corner first) as an area; BAD_REQUEST naming `field`. */
export function parseRange(range: string, field: string): Area {
  const parts = range.split(':');
  const cells = parts.map((p) => parseA1(p.trim()));
  if (parts.length > 2 || cells.some((c) => c === null))
    throw badRequest(field, `${JSON.stringify(range)} is not a cell or range in A1 notation (B7, A1:C10; columns A to XFD, rows 1 to ${MAX_ROW})`);
  const [a, b = a] = cells as { row: number; col: number }[];
  return { top: Math.min(a.row, b.row), bottom: Math.max(a.row, b.row), left: Math.min(a.col, b.col), right: Math.max(a.col, b.col) };
}

export const areaSize = (a: Area): number => (a.bottom - a.top + 1) * (a.right - a.left + 1);

export const inArea = (a: Area | null, row: number, col: number): boolean => a !== null && row >= a.top && row <= a.bottom && col >= a.left && col <= a.right;

export const areasOverlap = (x: Area | null, y: Area): boolean =>
  x !== null && x.left <= y.right && y.left <= x.right && x.top <= y.bottom && y.top <= x.bottom;

/** A tab's content: its inputs by A1 (literals as written, formulas as the engine normalises them). */
export interface TabCells {
  id: string;
  title: string;
  cells: Map<string, string>;
}

export const isFormula = (input: string): boolean => input.startsWith('=') && input.length > 1;

export interface CellValue {
  value: number | string | boolean | null;
  /** An error value (#DIV/0!, #REF!, #CIRC!…), or null. */
  error: string | null;
}

// getCellType: 1 number (and empty), 2 text, 4 boolean, 16 error.
const TEXT = 2;
const BOOLEAN = 4;
const ERROR = 16;

/** One sheet's tabs in an IronCalc model, evaluated. */
export class Book {
  /** Held by the cache (which frees it when it evicts it); a book out of the cache is its holder's to free. */
  cached = false;

  constructor(
    readonly model: Model,
    /** Input cells held (for the cache's bound). */
    public size: number,
  ) {}

  static async build(tabs: readonly TabCells[]): Promise<Book> {
    const ic = await engine();
    const model = new ic.Model('sheet', 'en', 'UTC', 'en');
    let size = 0;
    try {
      model.pauseEvaluation();
      tabs.forEach((t, i) => {
        if (i > 0) model.newSheet();
        model.renameSheet(i, t.title);
        for (const [a1, input] of t.cells) {
          const { row, col } = parseA1(a1)!;
          model.setUserInput(i, row, col, input);
          size++;
        }
      });
      model.resumeEvaluation();
      model.evaluate();
    } catch (e) {
      model.free();
      throw e;
    }
    return new Book(model, size);
  }

  /** The value and error of a cell. */
  cell(tab: number, row: number, col: number): CellValue {
    const m = this.model;
    const shown = m.getFormattedCellValue(tab, row, col);
    const type = m.getCellType(tab, row, col);
    if (type === ERROR) return { value: null, error: shown };
    if (type === BOOLEAN) return { value: shown === 'TRUE', error: null };
    if (type === TEXT) return { value: shown, error: null };
    if (shown === '') return { value: null, error: null };
    // A literal number reads at full precision from its content (10% is 0.1); a formula's as General shows it.
    const content = m.getCellContent(tab, row, col);
    const n = content.startsWith('=') ? Number(shown) : Number(content);
    if (Number.isFinite(n)) return { value: n, error: null };
    const s = Number(shown);
    return { value: Number.isFinite(s) ? s : shown, error: null };
  }

  /** What the engine holds as a cell's input (a formula normalised, references moved by row and column ops). */
  content = (tab: number, row: number, col: number): string => this.model.getCellContent(tab, row, col);

  free(): void {
    this.model.free();
  }
}

/*
 * A formula the engine cannot parse evaluates to #ERROR!. It is tried alone in a scratch model, where no other cell
 * can lend it an error, so a formula reading a cell that holds #ERROR! is not mistaken for one that is malformed.
 */
let scratch: Model | undefined;
export async function formulaProblem(input: string): Promise<string | null> {
  const ic = await engine();
  scratch ??= new ic.Model('check', 'en', 'UTC', 'en');
  try {
    scratch.setUserInput(0, 1, 1, input);
    scratch.evaluate();
    return scratch.getCellType(0, 1, 1) === ERROR && scratch.getFormattedCellValue(0, 1, 1) === '#ERROR!' ? 'the formula does not parse' : null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    scratch.setUserInput(0, 1, 1, '');
  }
}

/** Run an engine act; its refusal (a name taken, a row past the end) is BAD_REQUEST naming `field`. */
export function engineAct<T>(field: string, act: () => T): T {
  try {
    return act();
  } catch (e) {
    throw badRequest(field, `the sheet engine refused it: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/*
 * Evaluated books of recent revisions, keyed by org, file and content hash: a book is a function of its inputs, so
 * an entry is never stale. A writer takes its head's book out (it changes it) and puts the result back only once its
 * transaction commits. Bounded by input cells, oldest first out.
 */
const CACHE_CELLS = 1_000_000;
const books = new Map<string, Book>();
let held = 0;
const bookKey = (orgId: string, fileId: string, sha256: string) => `${orgId}/${fileId}/${sha256}`;

export function cachedBook(orgId: string, fileId: string, sha256: string): Book | undefined {
  const key = bookKey(orgId, fileId, sha256);
  const b = books.get(key);
  if (b) {
    books.delete(key);
    books.set(key, b);
  }
  return b;
}

/** Take a book out of the cache (the caller owns it: it may change it). */
export function takeBook(orgId: string, fileId: string, sha256: string): Book | undefined {
  const key = bookKey(orgId, fileId, sha256);
  const b = books.get(key);
  if (b) {
    books.delete(key);
    held -= b.size;
    b.cached = false;
  }
  return b;
}

/** A book a call took or built and did not hand to the cache (it failed): its WebAssembly memory goes back now. */
export function releaseBook(book: Book): void {
  if (!book.cached) book.free();
}

export function keepBook(orgId: string, fileId: string, sha256: string, book: Book): void {
  const key = bookKey(orgId, fileId, sha256);
  const old = books.get(key);
  if (old === book) return;
  if (old) {
    books.delete(key);
    held -= old.size;
    old.cached = false;
    old.free();
  }
  books.set(key, book);
  book.cached = true;
  held += book.size;
  for (const [k, v] of books) {
    if (held <= CACHE_CELLS || books.size <= 1) break;
    books.delete(k);
    held -= v.size;
    v.cached = false;
    v.free();
  }
}

/** Forget a purged sheet's books. */
export function forgetBooks(orgId: string, fileId: string): void {
  const prefix = bookKey(orgId, fileId, '');
  for (const [k, v] of books) {
    if (!k.startsWith(prefix)) continue;
    books.delete(k);
    held -= v.size;
    v.cached = false;
    v.free();
  }
}
