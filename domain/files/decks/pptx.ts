import { unzipSync, zipSync, type Zippable } from 'fflate';
import type * as Pptx from 'pptxgenjs';
import type { DeckImage } from './export.js';
import { bodyParagraphs } from './slide-markdown.js';
import type { Element, SlideValue } from './store.js';

/*
 * A deck as PowerPoint (files.exportRequest format pptx), written by pptxgenjs (loaded at the first pptx export,
 * never at start: tests/protocol/lazy-imports.test.ts). One 16:9 slide per deck slide, in order: the title and the
 * body in the layout's placeholders (real titles: PowerPoint's outline and screen readers find them), the elements
 * where the model puts them (the deck's 720×405 point canvas is the 10×5.625 inch slide), and the notes as speaker
 * notes. A body's Markdown becomes formatted text where that is simple (slide-markdown.ts); anything else shows as
 * written. Titles and element texts are plain text, as the model says.
 *
 * An image element shows its picture, the blob the deck holds (export.ts reads it through kinds.ts ExportEnv),
 * when that is a PNG, JPEG or GIF by stored type and by bytes: as large as fits its box, aspect kept, centred.
 * Anything else (SVG, WebP, a blob past the export's limits) is a framed "[image not embedded: <type>]" box there.
 * The bytes depend on the slides and pictures alone (no clock, fixed metadata), so the same revision exports the
 * same sha256: pptxgenjs stamps the time into docProps/core.xml and its zip entries, so the package is unzipped and
 * written again here without them. Pictures go in as base64 and come out as ppt/media/ parts, copied byte for byte:
 * the text's emoji stand-ins (textIn) touch only XML parts.
 */

type PptxGenJS = typeof Pptx.default.default;
type Pres = InstanceType<PptxGenJS>;
type Slide = ReturnType<Pres['addSlide']>;
type TextProps = Pptx.default.TextProps;
type Box = { x: number; y: number; w: number; h: number };

/** Points per inch: pptxgenjs places in inches, the deck in points. */
const PT = 72;

/** Where a layout puts its title and body (inches), and at what size; `placeholders` are the ones it offers. */
interface Frame {
  title: Box & { fontSize: number; align: 'left' | 'center'; valign: 'top' | 'middle' | 'bottom' };
  body: Box & { fontSize: number; align: 'left' | 'center' };
  placeholders: readonly ('title' | 'body')[];
}

const CONTENT = {
  title: { x: 0.5, y: 0.3, w: 9, h: 0.9, fontSize: 28, align: 'left', valign: 'bottom' },
  body: { x: 0.5, y: 1.35, w: 9, h: 3.95, fontSize: 18, align: 'left' },
} as const;

const FRAMES: Record<SlideValue['layout'], Frame> = {
  title: {
    title: { x: 0.75, y: 1.3, w: 8.5, h: 1.5, fontSize: 40, align: 'center', valign: 'bottom' },
    body: { x: 0.75, y: 3.0, w: 8.5, h: 1.6, fontSize: 20, align: 'center' },
    placeholders: ['title', 'body'],
  },
  sectionHeader: {
    title: { x: 0.75, y: 1.6, w: 8.5, h: 1.3, fontSize: 36, align: 'left', valign: 'bottom' },
    body: { x: 0.75, y: 3.05, w: 8.5, h: 1.5, fontSize: 18, align: 'left' },
    placeholders: ['title', 'body'],
  },
  mainPoint: {
    title: { x: 0.75, y: 0.9, w: 8.5, h: 2.4, fontSize: 44, align: 'center', valign: 'middle' },
    body: { x: 0.75, y: 3.45, w: 8.5, h: 1.5, fontSize: 18, align: 'center' },
    placeholders: ['title', 'body'],
  },
  // The model has one body: a twoColumns slide shows it across the width.
  titleAndBody: { ...CONTENT, placeholders: ['title', 'body'] },
  twoColumns: { ...CONTENT, placeholders: ['title', 'body'] },
  titleOnly: { ...CONTENT, placeholders: ['title'] },
  blank: { ...CONTENT, placeholders: [] },
};

const INK = '1F2937';
const MONO = 'Courier New';
const IMAGE = {
  fill: { color: 'F3F4F6' },
  line: { color: '9CA3AF', width: 1, dashType: 'dash' },
  fontSize: 12,
  italic: true,
  color: '6B7280',
  align: 'center',
  valign: 'middle',
} as const;

// ---- Text in, text back ------------------------------------------------------------------------------------------

const PRIVATE_USE = /[\ue000-\uf8ff]/g;

/**
 * The deck's text as pptxgenjs takes it: as XML 1.0 allows (control characters, which the API accepts, shown as
 * U+FFFD; line ends as \n), and with no surrogate pair. jszip, under pptxgenjs, encodes a part 16 K characters at a
 * time and can cut a pair at the seam, writing each half as U+FFFD; so each character past the BMP (an emoji) goes
 * in as a private-use stand-in the deck's own text does not use, and `back` puts it back in the written parts.
 * Past the 6,400 stand-ins there are, such a character shows as U+FFFD.
 */
function textIn(slides: readonly SlideValue[]) {
  const texts = slides.flatMap((s) => [s.title, s.body, s.notes, ...s.elements.map((e) => e.text ?? '')]);
  const taken = new Set(texts.flatMap((t) => t.match(PRIVATE_USE) ?? []));
  const standIn = new Map<string, string>();
  const original = new Map<string, string>();
  let next = 0xe000;
  const swap = (c: string): string => {
    let to = standIn.get(c);
    if (to === undefined) {
      while (next <= 0xf8ff && taken.has(String.fromCharCode(next))) next++;
      to = next <= 0xf8ff ? String.fromCharCode(next++) : '\ufffd';
      standIn.set(c, to);
      if (to !== '\ufffd') original.set(to, c);
    }
    return to;
  };
  const clean = (s: string): string =>
    s
      .toWellFormed()
      .replace(/\r\n?/g, '\n')
      .replace(/[\u0001-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
      .replace(/[\u{10000}-\u{10ffff}]/gu, swap);
  return {
    slides: slides.map((s) => ({
      ...s,
      title: clean(s.title),
      body: clean(s.body),
      notes: clean(s.notes),
      elements: s.elements.map((e) => (e.text === undefined ? e : { ...e, text: clean(e.text) })),
    })),
    /** A written part's text with the stand-ins replaced by what they stand for. */
    back: (xml: string): string => (original.size === 0 ? xml : xml.replace(PRIVATE_USE, (c) => original.get(c) ?? c)),
  };
}

const HEADING_EXTRA = [0, 10, 6, 3, 2, 0, 0];

/** pptxgenjs text runs of a body: a paragraph's last run breaks the line. */
function bodyRuns(markdown: string, fontSize: number): TextProps[] {
  const paras = bodyParagraphs(markdown);
  return paras.flatMap((p, k) => {
    const size = p.kind === 'heading' ? fontSize + HEADING_EXTRA[p.level] : p.kind === 'code' ? fontSize - 2 : fontSize;
    const spans = p.spans.length > 0 ? p.spans : [{ text: '' }];
    return spans.map((s, i): TextProps => {
      const options: TextProps['options'] = { fontSize: size, color: p.kind === 'quote' ? '4B5563' : INK };
      if (s.bold || p.kind === 'heading') options.bold = true;
      if (s.italic || p.kind === 'quote') options.italic = true;
      if (s.strike) options.strike = 'sngStrike';
      if (s.code || p.kind === 'code') options.fontFace = MONO;
      if (i === 0) {
        if (p.kind === 'bullet') options.bullet = true;
        if (p.kind === 'number') options.bullet = { type: 'number', numberStartAt: p.start };
        if (p.level > 0 && (p.kind === 'bullet' || p.kind === 'number')) options.indentLevel = p.level;
        if (p.gap || (p.kind === 'heading' && k > 0)) options.paraSpaceBefore = Math.round(size / 2);
      }
      if (i === spans.length - 1 && k < paras.length - 1) options.breakLine = true;
      return { text: s.text, options };
    });
  });
}

/** Plain text as runs, a paragraph a line. */
const plainRuns = (text: string, options: TextProps['options'] = {}): TextProps[] => {
  const lines = text.split('\n');
  return lines.map((line, i) => ({ text: line, options: { ...options, ...(i < lines.length - 1 ? { breakLine: true } : {}) } }));
};

// ---- Slides --------------------------------------------------------------------------------------------------------

/**
 * pptxgenjs reads a number of 100 or more as EMU, not inches; so a place in points goes as EMU (12,700 a point)
 * unless that is under 100 (then inches, which pptxgenjs converts to the same EMU).
 */
const place = (pt: number): number => {
  const emu = Math.round(pt * 12_700);
  return emu >= 100 ? emu : pt / PT;
};
const boxOf = (e: Element) => ({ x: place(e.x), y: place(e.y), w: place(e.w), h: place(e.h) });

/** What an image element shows, in pptx and pdf, when its picture cannot be shown. */
export const imagePlaceholder = (image: DeckImage | undefined): string => `[image not embedded: ${image?.type ?? 'unavailable'}]`;

/** A picture as large as fits the element's box, its aspect kept, centred in it (points). */
function contain(e: Element, image: { width: number; height: number }) {
  const scale = Math.min(e.w / image.width, e.h / image.height);
  const w = image.width * scale;
  const h = image.height * scale;
  return { x: e.x + (e.w - w) / 2, y: e.y + (e.h - h) / 2, w, h };
}

function addElement(pres: Pres, slide: Slide, e: Element, images: ReadonlyMap<string, DeckImage>): void {
  const box = boxOf(e);
  const text = e.text ?? '';
  if (e.type === 'text') {
    if (text !== '') slide.addText(plainRuns(text), { ...box, fontSize: 16, color: INK, valign: 'top', margin: 4, fit: 'shrink' });
    return;
  }
  if (e.type === 'shape') {
    const shape = { ...box, shape: pres.ShapeType.rect, fill: { color: 'E8EEF7' }, line: { color: '8497B0', width: 1 } };
    if (text === '') slide.addShape(pres.ShapeType.rect, shape);
    else slide.addText(plainRuns(text), { ...shape, fontSize: 16, color: INK, align: 'center', valign: 'middle', margin: 4, fit: 'shrink' });
    return;
  }
  if (e.w <= 0 || e.h <= 0) return; // no room to show anything
  const image = images.get(e.blobSha256 ?? '');
  if (image?.format) {
    const fit = contain(e, image);
    const data = `image/${image.format};base64,${image.bytes.toString('base64')}`;
    // The model has no alt text: a plain word, not pptxgenjs's stand-in file name.
    slide.addImage({ data, x: place(fit.x), y: place(fit.y), w: place(fit.w), h: place(fit.h), altText: 'Image' });
    return;
  }
  slide.addText(imagePlaceholder(image), { ...box, shape: pres.ShapeType.rect, ...IMAGE });
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function addSlide(pres: Pres, s: SlideValue, images: ReadonlyMap<string, DeckImage>): void {
  const frame = FRAMES[s.layout] ?? FRAMES.titleAndBody;
  const slide = pres.addSlide({ masterName: s.layout });
  const title = oneLine(s.title);
  const { title: t, body: b } = frame;
  if (title) {
    const runs = [{ text: title, options: { fontSize: t.fontSize, bold: true, color: INK } }];
    if (frame.placeholders.includes('title')) slide.addText(runs, { placeholder: 'title', fontSize: t.fontSize });
    else slide.addText(runs, { x: t.x, y: t.y, w: t.w, h: t.h, fontSize: t.fontSize, align: t.align, valign: t.valign, fit: 'shrink' });
  }
  // The box's own size is its paragraphs' end marks' (pptxgenjs takes the first run's otherwise: a heading's).
  if (s.body.trim()) {
    const runs = bodyRuns(s.body, b.fontSize);
    if (frame.placeholders.includes('body')) slide.addText(runs, { placeholder: 'body', fontSize: b.fontSize });
    else slide.addText(runs, { x: b.x, y: b.y, w: b.w, h: b.h, fontSize: b.fontSize, align: b.align, valign: 'top', fit: 'shrink' });
  }
  // Back to front, over the title and body.
  for (const e of s.elements) addElement(pres, slide, e, images);
  if (s.notes.trim()) slide.addNotes(s.notes);
}

/** A master per layout the deck uses (in the model's order, so the same slides give the same parts). */
function defineMasters(pres: Pres, slides: readonly SlideValue[]): void {
  const used = new Set(slides.map((s) => s.layout));
  for (const [layout, frame] of Object.entries(FRAMES)) {
    if (!used.has(layout as SlideValue['layout'])) continue;
    const { title: t, body: b } = frame;
    pres.defineSlideMaster({
      title: layout,
      background: { color: 'FFFFFF' },
      objects: frame.placeholders.map((name) =>
        name === 'title'
          ? { placeholder: { options: { name, type: 'title', x: t.x, y: t.y, w: t.w, h: t.h, align: t.align, valign: t.valign, fit: 'shrink' }, text: '' } }
          : { placeholder: { options: { name, type: 'body', x: b.x, y: b.y, w: b.w, h: b.h, align: b.align, valign: 'top', fit: 'shrink' }, text: '' } },
      ),
    });
  }
}

// ---- The package ---------------------------------------------------------------------------------------------------

/** The zip entries' time: DOS time starts in 1980 (local time, as zip readers read it). */
const ZIP_TIME = new Date(1980, 0, 1);

/**
 * The package again without the clock: no created/modified time in docProps/core.xml, one fixed time on every
 * entry, no folder entries; the stand-ins replaced (textIn). And one a:pPr per paragraph: pptxgenjs writes one
 * before every run of a paragraph, where the schema allows a single one, first.
 */
function settle(bytes: Uint8Array, back: (xml: string) => string): Buffer {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const encoder = new TextEncoder();
  const files: Zippable = {};
  for (const [name, data] of Object.entries(unzipSync(bytes))) {
    if (name.endsWith('/')) continue;
    if (!/\.(xml|rels)$/.test(name)) {
      files[name] = [data, { mtime: ZIP_TIME }];
      continue;
    }
    let xml = decoder.decode(data);
    if (name === 'docProps/core.xml') xml = xml.replace(/\s*<dcterms:(created|modified)\b[^>]*>[^<]*<\/dcterms:\1>/g, '');
    // No slides (never through the API: a deck keeps one) is no list, as PowerPoint writes it.
    else if (name === 'ppt/presentation.xml') xml = xml.replace('<p:sldIdLst></p:sldIdLst>', '');
    else if (/^ppt\/slides\/slide\d+\.xml$/.test(name)) xml = onePPr(xml);
    files[name] = [encoder.encode(back(xml)), { mtime: ZIP_TIME }];
  }
  return Buffer.from(zipSync(files, { level: 6 }));
}

/** Every paragraph with its first a:pPr only. */
const onePPr = (xml: string): string =>
  xml.replace(/<a:p>([\s\S]*?)<\/a:p>/g, (_, inner: string) => {
    let first = true;
    return `<a:p>${inner.replace(/<a:pPr\b[^>]*?(?:\/>|>[\s\S]*?<\/a:pPr>)/g, (p) => (first ? ((first = false), p) : ''))}</a:p>`;
  });

/** The deck as a .pptx: a 16:9 slide per slide, in order; `images` by sha256 (one not there is a placeholder). */
export async function deckPptx(slides: readonly SlideValue[], images: ReadonlyMap<string, DeckImage> = new Map()): Promise<Buffer> {
  // The ES build's default export is the class; its types, read as CommonJS under NodeNext, put it one level down.
  const PptxGen = (await import('pptxgenjs')).default as unknown as PptxGenJS;
  const pres = new PptxGen();
  pres.layout = 'LAYOUT_16x9';
  pres.author = 'workspace-ops';
  pres.company = 'workspace-ops';
  pres.subject = '';
  const text = textIn(slides);
  pres.title = oneLine(text.slides[0]?.title ?? '') || 'Deck';
  defineMasters(pres, text.slides);
  for (const s of text.slides) addSlide(pres, s, images);
  const written = (await pres.write({ outputType: 'uint8array' })) as Uint8Array;
  return settle(written, text.back);
}
