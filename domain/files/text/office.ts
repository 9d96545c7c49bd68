import { unzipSync } from 'fflate';

/*
 * Text of Office Open XML (docx, xlsx, pptx) and OpenDocument (odt, ods, odp) files for search. Both are zip
 * archives of XML: the text is in a few known parts and elements, read with a scanner rather than an XML parser
 * (nothing is evaluated, no entity is expanded but the five predefined and numeric ones). Only the parts named
 * below are inflated, each at most the size its zip entry declares (fflate writes no further), all together at
 * most MAX_INFLATED_BYTES: a zip bomb costs that much memory, no more.
 */

export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

export const OOXML_DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const OOXML_XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const OOXML_PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const ODF_TYPES = new Set([
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
]);

interface Reading {
  /** Which parts of the archive hold the text. */
  parts: (name: string) => boolean;
  /** The parts' text, in reading order. */
  text: (parts: Map<string, string>) => string;
}

/** Parts numbered in their names (slide2.xml, sheet10.xml) in number order. */
const numbered = (parts: Map<string, string>, prefix: RegExp) =>
  [...parts.keys()].filter((n) => prefix.test(n)).sort((a, b) => Number(/(\d+)\.xml$/.exec(a)?.[1] ?? 0) - Number(/(\d+)\.xml$/.exec(b)?.[1] ?? 0));

const SLIDE = /^ppt\/slides\/slide\d+\.xml$/;
const SHEET = /^xl\/worksheets\/sheet\d+\.xml$/;

const READINGS: Record<string, Reading> = {
  [OOXML_DOCX]: {
    parts: (n) => n === 'word/document.xml' || /^word\/(footnotes|endnotes)\.xml$/.test(n),
    text: (p) =>
      ['word/document.xml', 'word/footnotes.xml', 'word/endnotes.xml']
        .map((n) => wordText(p.get(n) ?? ''))
        .filter(Boolean)
        .join('\n'),
  },
  [OOXML_PPTX]: {
    parts: (n) => SLIDE.test(n),
    text: (p) =>
      numbered(p, SLIDE)
        .map((n) => scan(p.get(n)!, { text: 'a:t', paragraph: 'a:p', breaks: ['a:br'] }))
        .join('\n'),
  },
  [OOXML_XLSX]: {
    parts: (n) => n === 'xl/sharedStrings.xml' || SHEET.test(n),
    text: (p) => [scan(p.get('xl/sharedStrings.xml') ?? '', { text: 't', paragraph: 'si' }), ...numbered(p, SHEET).map((n) => sheetText(p.get(n)!))].join('\n'),
  },
};

const ODF: Reading = { parts: (n) => n === 'content.xml', text: (p) => odfText(p.get('content.xml') ?? '') };

/** Whether this module reads the type. */
export const readsOffice = (mime: string): boolean => mime in READINGS || ODF_TYPES.has(mime);

/** The document's text; throws on a damaged archive or one whose text parts inflate past the limit. */
export function officeText(bytes: Uint8Array, mime: string): string {
  const reading = READINGS[mime] ?? (ODF_TYPES.has(mime) ? ODF : undefined);
  if (!reading) throw new Error(`not an Office or OpenDocument type: ${mime}`);
  let inflated = 0;
  const files = unzipSync(bytes, {
    filter: (f) => {
      if (!reading.parts(f.name)) return false;
      inflated += f.originalSize;
      if (inflated > MAX_INFLATED_BYTES) throw new Error(`the text parts inflate past ${MAX_INFLATED_BYTES} bytes`);
      return true;
    },
  });
  const decoder = new TextDecoder();
  return reading.text(new Map(Object.entries(files).map(([name, data]) => [name, decoder.decode(data)])));
}

/** Word: runs' text (w:t), tabs and breaks, a line per paragraph; deleted text (w:delText) and field codes left out. */
function wordText(xml: string): string {
  // A paragraph's tab stops (w:tabs > w:tab) are settings, not tabs in its text.
  return scan(xml.replace(/<w:tabs>[\s\S]*?<\/w:tabs>/g, ''), { text: 'w:t', paragraph: 'w:p', tabs: ['w:tab'], breaks: ['w:br', 'w:cr'] }).trim();
}

/** A worksheet's inline strings and the values of cells that are not shared strings (numbers, formulas' results). */
function sheetText(xml: string): string {
  const out: string[] = [];
  for (const m of xml.matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
    const [, attrs, body = ''] = m;
    const type = /\bt="([^"]*)"/.exec(attrs)?.[1];
    if (type === 's') continue; // an index into the shared strings, read from there
    if (type === 'inlineStr') out.push(scan(body, { text: 't' }));
    else {
      const v = /<v>([^<]*)<\/v>/.exec(body)?.[1];
      if (v !== undefined) out.push(decodeXml(v));
    }
  }
  return out.filter(Boolean).join('\n');
}

/** OpenDocument: paragraphs and headings (text:p, text:h) a line each, with their spaces, tabs and line breaks. */
function odfText(xml: string): string {
  // Notes are paragraphs inside a paragraph: left out, so each paragraph reads whole.
  const body = (/<office:body\b[\s\S]*<\/office:body>/.exec(xml)?.[0] ?? xml).replace(/<text:note\b[\s\S]*?<\/text:note>/g, '');
  const lines: string[] = [];
  for (const m of body.matchAll(/<text:(p|h)\b[^>]*?(?:\/>|>([\s\S]*?)<\/text:\1>)/g)) {
    const inner = (m[2] ?? '')
      .replace(/<text:s\b([^>]*)\/>/g, (_, attrs: string) => ' '.repeat(Math.min(Number(/\bc="(\d+)"/.exec(attrs)?.[1] ?? 1), 100)))
      .replace(/<text:tab\b[^>]*\/>/g, '\t')
      .replace(/<text:line-break\b[^>]*\/>/g, '\n')
      .replace(/<[^>]+>/g, '');
    lines.push(decodeXml(inner));
  }
  return lines.join('\n');
}

interface Elements {
  /** The element whose content is text (w:t). */
  text: string;
  /** The element that ends a line when it closes (w:p). */
  paragraph?: string;
  tabs?: string[];
  breaks?: string[];
}

/** The content of every `text` element in document order, with tabs, breaks and a newline after each paragraph. */
function scan(xml: string, e: Elements): string {
  const names = [e.text, e.paragraph, ...(e.tabs ?? []), ...(e.breaks ?? [])].filter(Boolean);
  const token = new RegExp(`<(/?)(${names.join('|')})\\b[^>]*?(/?)>`, 'g');
  let out = '';
  let textStart = -1;
  for (const m of xml.matchAll(token)) {
    const [whole, closing, name, selfClosing] = m;
    if (name === e.text) {
      if (!closing && !selfClosing) textStart = m.index + whole.length;
      else if (closing && textStart >= 0) {
        out += decodeXml(xml.slice(textStart, m.index));
        textStart = -1;
      }
    } else if (name === e.paragraph) {
      if (closing) out += '\n';
    } else if (!closing) out += e.tabs?.includes(name) ? '\t' : '\n';
  }
  return out.replace(/\n+$/, '');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The five predefined entities and numeric references; anything else is left as written. */
function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
