import { renderPdf } from '../pdf.js';
import { parseA1, type Book, type TabCells } from './engine.js';

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
  let budget = MAX_PDF_CELLS;
  let wide = false;
  const content = tabs.flatMap((t, i): Node[] => {
    let rows = 0;
    let cols = 0;
    for (const a1 of t.cells.keys()) {
      const { row, col } = parseA1(a1)!;
      rows = Math.max(rows, row);
      cols = Math.max(cols, col);
    }
    const shownCols = Math.min(cols, MAX_PDF_COLS);
    const shownRows = Math.min(rows, Math.floor(budget / Math.max(shownCols, 1)));
    budget -= shownRows * shownCols;
    wide ||= shownCols > 8;
    const title = { text: t.title, fontSize: 16, bold: true, margin: [0, 0, 0, 8], ...(i > 0 ? { pageBreak: 'before' } : {}) };
    if (shownRows === 0 || shownCols === 0)
      return [title, { text: rows ? 'Not shown: the export holds more cells than a PDF shows (export xlsx).' : 'This tab is empty.', italics: true }];
    const body = Array.from({ length: shownRows }, (_, r) =>
      Array.from({ length: shownCols }, (_, c) => ({ text: book.model.getFormattedCellValue(i, r + 1, c + 1), noWrap: false })),
    );
    const left = [shownRows < rows ? `${rows - shownRows} more rows` : '', shownCols < cols ? `${cols - shownCols} more columns` : ''].filter(Boolean);
    return [
      title,
      { table: { body, widths: Array(shownCols).fill('auto') }, fontSize: 8, layout: 'lightHorizontalLines' },
      ...(left.length ? [{ text: `Not shown: ${left.join(' and ')} (export xlsx for all of it).`, italics: true, margin: [0, 6, 0, 0] }] : []),
    ];
  });
  return renderPdf({ content, pageOrientation: wide ? 'landscape' : 'portrait', info: { title: name, producer: 'workspace-ops' } });
}
