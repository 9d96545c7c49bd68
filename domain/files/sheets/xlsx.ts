import { strToU8, zipSync } from 'fflate';
import { escapeHtml as xml } from '../docs/export.js';
import { a1Of, isFormula, parseA1, type Book, type TabCells } from './engine.js';

/*
 * A sheet as an Office Open XML workbook (SpreadsheetML, ISO/IEC 29500): every tab a worksheet, every cell its
 * input, a formula as `<f>` with the value the engine computed as its cached `<v>` (so a reader that does not
 * calculate, or opens it read-only, sees the numbers). Written here over fflate (already a dependency): the five
 * parts a workbook needs are smaller than a library of the format, and the registry's maintained writers bring
 * a dozen packages (exceljs: archiver, unzipper, tmp …). Strings are inline (no shared-strings part); no styles.
 */

const CONTENT_TYPES = (sheets: number) =>
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
  Array.from(
    { length: sheets },
    (_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
  ).join('') +
  '</Types>';

const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
  '</Relationships>';

const workbook = (titles: readonly string[]) =>
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
  `<sheets>${titles.map((t, i) => `<sheet name="${xml(t)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets>` +
  // Readers recalculate on open: the cached values are the engine's, a spreadsheet application may differ in detail.
  '<calcPr fullCalcOnLoad="1"/></workbook>';

const workbookRels = (sheets: number) =>
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  Array.from(
    { length: sheets },
    (_, i) =>
      `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
  ).join('') +
  '</Relationships>';

/** One cell's XML: a literal as a number, boolean or inline string; a formula with its computed value. */
function cellXml(book: Book, tab: number, row: number, col: number, input: string): string {
  const r = a1Of(row, col);
  const { value, error } = book.cell(tab, row, col);
  if (isFormula(input)) {
    const f = `<f>${xml(input.slice(1))}</f>`;
    if (error !== null) return `<c r="${r}" t="e">${f}<v>${xml(error)}</v></c>`;
    if (typeof value === 'number') return `<c r="${r}">${f}<v>${value}</v></c>`;
    if (typeof value === 'boolean') return `<c r="${r}" t="b">${f}<v>${value ? 1 : 0}</v></c>`;
    return `<c r="${r}" t="str">${f}<v>${xml(value ?? '')}</v></c>`;
  }
  if (typeof value === 'number' && String(Number(input)) === input.trim()) return `<c r="${r}"><v>${value}</v></c>`;
  if (typeof value === 'boolean') return `<c r="${r}" t="b"><v>${value ? 1 : 0}</v></c>`;
  return `<c r="${r}" t="inlineStr"><is><t xml:space="preserve">${xml(input)}</t></is></c>`;
}

function worksheet(book: Book, tab: number, cells: ReadonlyMap<string, string>): string {
  const rows = new Map<number, { col: number; xml: string }[]>();
  for (const [a1, input] of cells) {
    const { row, col } = parseA1(a1)!;
    const list = rows.get(row) ?? [];
    list.push({ col, xml: cellXml(book, tab, row, col, input) });
    rows.set(row, list);
  }
  const body = [...rows.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([row, list]) =>
        `<row r="${row}">${list
          .sort((a, b) => a.col - b.col)
          .map((c) => c.xml)
          .join('')}</row>`,
    )
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${body}</sheetData></worksheet>`
  );
}

/** The workbook's bytes: the tabs in order, inputs and computed values. */
export function sheetXlsx(tabs: readonly TabCells[], book: Book): Buffer {
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8(CONTENT_TYPES(tabs.length)),
    '_rels/.rels': strToU8(ROOT_RELS),
    'xl/workbook.xml': strToU8(workbook(tabs.map((t) => t.title))),
    'xl/_rels/workbook.xml.rels': strToU8(workbookRels(tabs.length)),
  };
  tabs.forEach((t, i) => (files[`xl/worksheets/sheet${i + 1}.xml`] = strToU8(worksheet(book, i, t.cells))));
  return Buffer.from(zipSync(files, { level: 6 }));
}
