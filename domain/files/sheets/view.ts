import { parseA1, type Book, type TabCells } from './engine.js';

/*
 * What the printed views of a sheet (csv, pdf, the guest page) show: each tab's used rows and columns from A1, cut to
 * a cell budget shared by the tabs and a column cap, and the values as a reader sees them (formulas computed).
 */

/** The rows and columns a tab's inputs reach, from A1 (0 and 0 when it is empty). */
export function usedSize(cells: ReadonlyMap<string, string>): { rows: number; cols: number } {
  let rows = 0;
  let cols = 0;
  for (const a1 of cells.keys()) {
    const { row, col } = parseA1(a1)!;
    rows = Math.max(rows, row);
    cols = Math.max(cols, col);
  }
  return { rows, cols };
}

export interface TabWindow {
  /** The tab's used size. */
  rows: number;
  cols: number;
  /** What is shown of it, from A1. */
  shownRows: number;
  shownCols: number;
}

/** Each tab's window: at most `maxCols` columns, and whole rows while the cells shown over all tabs stay within `budget`. */
export function tabWindows(tabs: readonly TabCells[], budget: number, maxCols: number): TabWindow[] {
  let left = budget;
  return tabs.map((t) => {
    const { rows, cols } = usedSize(t.cells);
    const shownCols = Math.min(cols, maxCols);
    const shownRows = Math.min(rows, Math.floor(left / Math.max(shownCols, 1)));
    left -= shownRows * shownCols;
    return { rows, cols, shownRows, shownCols };
  });
}

/** The values of a tab's first `rows` rows and `cols` columns as the engine formats them, row by row. */
export const shownValues = (book: Book, tab: number, rows: number, cols: number): string[][] =>
  Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => book.model.getFormattedCellValue(tab, r + 1, c + 1)));
