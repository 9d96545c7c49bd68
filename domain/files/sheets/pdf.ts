import { renderPdf } from '../pdf.js';
import type { Book, TabCells } from './engine.js';
import { shownValues, tabWindows } from './view.js';

/*
 * A sheet as PDF: each tab under its title, a table of the values a reader sees (formulas computed), landscape when
 * it is wide. Bounded like a printout, not a dump: past MAX_PDF_CELLS or MAX_PDF_COLS the page says what it left out
 * (xlsx carries everything).
 */

const MAX_PDF_CELLS = 20_000;
const MAX_PDF_COLS = 26;

/** A pdfmake content node (the definition is plain data). */
type Node = Record<string, unknown>;

export async function sheetPdf(tabs: readonly TabCells[], book: Book, name: string): Promise<Buffer> {
  const windows = tabWindows(tabs, MAX_PDF_CELLS, MAX_PDF_COLS);
  const wide = windows.some((w) => w.shownCols > 8);
  const content = tabs.flatMap((t, i): Node[] => {
    const { rows, cols, shownRows, shownCols } = windows[i];
    const title = { text: t.title, fontSize: 16, bold: true, margin: [0, 0, 0, 8], ...(i > 0 ? { pageBreak: 'before' } : {}) };
    if (shownRows === 0 || shownCols === 0)
      return [title, { text: rows ? 'Not shown: the export holds more cells than a PDF shows (export xlsx).' : 'This tab is empty.', italics: true }];
    const body = shownValues(book, i, shownRows, shownCols).map((row) => row.map((text) => ({ text, noWrap: false })));
    const left = [shownRows < rows ? `${rows - shownRows} more rows` : '', shownCols < cols ? `${cols - shownCols} more columns` : ''].filter(Boolean);
    return [
      title,
      { table: { body, widths: Array(shownCols).fill('auto') }, fontSize: 8, layout: 'lightHorizontalLines' },
      ...(left.length ? [{ text: `Not shown: ${left.join(' and ')} (export xlsx for all of it).`, italics: true, margin: [0, 6, 0, 0] }] : []),
    ];
  });
  return renderPdf({ content, pageOrientation: wide ? 'landscape' : 'portrait', info: { title: name, producer: 'workspace-ops' } });
}
