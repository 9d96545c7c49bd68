import { badRequest } from '../../../protocol/errors.js';
import type { ExportEnv, ExportResult } from '../kinds.js';
import { escapeHtml as esc } from '../docs/export.js';
import { renderPdf } from '../pdf.js';
import { deckPptx, imagePlaceholder } from './pptx.js';
import type { SlideValue } from './store.js';

/*
 * A deck rendered for files.exportRequest. Markdown is an outline, one section per slide: its title as a heading
 * (numbered, so an untitled slide still has one), its body as written, the text of its elements, and its notes as
 * a quote; pdf a 16:9 page per slide without the notes; pptx a 16:9 slide per slide with the notes as speaker notes
 * (pptx.ts). pdf and pptx show the deck's images: the blobs the deck holds (ExportEnv.blob), PNG and JPEG in both,
 * GIF in pptx only (pdfmake reads no GIF); anything else, or an image past the export's limits, is a placeholder
 * naming its type.
 */

export const DECK_EXPORT_FORMATS = ['pdf', 'md', 'pptx'] as const;

/**
 * An image element's picture as the exports use it: bytes of a known format and size, or none; `type` is the blob's
 * stored type (without parameters), 'unavailable' when the export may not read it.
 */
export type DeckImage = { type: string } & ({ format: 'png' | 'jpeg' | 'gif'; bytes: Buffer; width: number; height: number } | { format: null });

/** Width and height from a PNG's IHDR, a GIF's screen descriptor or a JPEG's frame header; null when not one. */
function pictureSize(format: 'png' | 'jpeg' | 'gif', b: Buffer): { width: number; height: number } | null {
  if (format === 'png') {
    const ok =
      b.length >= 24 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) && b.toString('latin1', 12, 16) === 'IHDR';
    return ok ? { width: b.readUInt32BE(16), height: b.readUInt32BE(20) } : null;
  }
  if (format === 'gif') {
    const ok = b.length >= 10 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6));
    return ok ? { width: b.readUInt16LE(6), height: b.readUInt16LE(8) } : null;
  }
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8 || b[2] !== 0xff) return null;
  // Segments up to the first frame header (SOF0-15 but DHT C4, JPG C8, DAC CC): its height, then its width.
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    i += 2 + b.readUInt16BE(i + 2);
  }
  return null;
}

const FORMATS: Record<string, 'png' | 'jpeg' | 'gif'> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif' };

/** A blob as a picture: its stored type AND its bytes must both say PNG, JPEG or GIF (neither alone is trusted). */
export function deckImage(blob: { bytes: Buffer; contentType: string } | null): DeckImage {
  if (!blob) return { type: 'unavailable', format: null };
  const type = blob.contentType.split(';')[0].trim().toLowerCase() || 'unknown type';
  const format = FORMATS[type];
  const size = format ? pictureSize(format, blob.bytes) : null;
  if (!format || !size || size.width === 0 || size.height === 0) return { type, format: null };
  return { type, format, bytes: blob.bytes, width: size.width, height: size.height };
}

/** The slides' images, read slide by slide and element by element (so the export's byte budget always falls alike). */
async function deckImages(slides: readonly SlideValue[], env: ExportEnv): Promise<Map<string, DeckImage>> {
  const out = new Map<string, DeckImage>();
  for (const e of slides.flatMap((s) => s.elements))
    if (e.type === 'image' && e.blobSha256 && !out.has(e.blobSha256)) out.set(e.blobSha256, deckImage(await env.blob(e.blobSha256)));
  return out;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
/** The text of a slide's elements that have some (shapes and text boxes), as written. */
const elementTexts = (s: SlideValue): string[] => s.elements.flatMap((e) => (e.text?.trim() ? [e.text] : []));

export function deckMarkdown(slides: readonly SlideValue[]): string {
  const sections = slides.map((s, i) => {
    const parts = [`## ${i + 1}. ${oneLine(s.title) || `Slide ${i + 1}`}`];
    if (s.body.trim()) parts.push(s.body.trim());
    const texts = elementTexts(s).map((t) => t.trim());
    if (texts.length > 0) parts.push(texts.join('\n\n'));
    if (s.notes.trim())
      parts.push(
        [
          '> **Notes**',
          ...s.notes
            .trim()
            .split('\n')
            .map((l) => (l ? `> ${l}` : '>')),
        ].join('\n'),
      );
    return parts.join('\n\n');
  });
  return `${sections.join('\n\n')}\n`;
}

/** The pdf page (points) and its margins; the deck's 720 × 405 canvas is drawn 4/3 as large. */
const PAGE = { width: 960, height: 540, margins: [48, 40, 48, 40] as const, scale: 960 / 720 };
/** A slide's pictures share one row under its text, at most this tall, so a slide with some text stays one page. */
const PICTURE_ROW = { height: 240, gap: 12 };

/**
 * Each slide a 16:9 page: its title, its body and its elements' text (Markdown as written), then its images in a
 * row, each fitted into its element's size (aspect kept; the row scaled down to the page's width and PICTURE_ROW),
 * then a placeholder line for each image that cannot show; no speaker notes.
 */
async function deckPdf(slides: readonly SlideValue[], images: ReadonlyMap<string, DeckImage>): Promise<Buffer> {
  const [left, , right] = PAGE.margins;
  const rowWidth = PAGE.width - left - right;
  const render = (embed: ReadonlySet<string>) => {
    const pictures = (s: SlideValue): Record<string, unknown>[] => {
      const row: { image: string; width: number; height: number }[] = [];
      const missing: Record<string, unknown>[] = [];
      for (const e of s.elements) {
        if (e.type !== 'image' || e.w <= 0 || e.h <= 0) continue;
        const image = images.get(e.blobSha256 ?? '');
        if (image?.format && embed.has(e.blobSha256!)) {
          const fit = Math.min((e.w * PAGE.scale) / image.width, (e.h * PAGE.scale) / image.height);
          row.push({ image: e.blobSha256!, width: image.width * fit, height: image.height * fit });
        } else missing.push({ text: imagePlaceholder(image), fontSize: 12, italics: true, color: '#6B7280', margin: [0, 0, 0, 6] });
      }
      if (row.length === 0) return missing;
      const room = rowWidth - PICTURE_ROW.gap * (row.length - 1);
      const wide = row.reduce((sum, p) => sum + p.width, 0);
      const k = Math.min(1, room / wide, PICTURE_ROW.height / Math.max(...row.map((p) => p.height)));
      // fit, not width and height: pdfmake turns a JPEG by its EXIF orientation, and then keeps its aspect still.
      const sized = row.map((p) => ({ image: p.image, width: p.width * k, fit: [p.width * k, p.height * k] }));
      return [{ columns: sized, columnGap: PICTURE_ROW.gap, margin: [0, 0, 0, 10] }, ...missing];
    };
    const content = slides.flatMap((s, i) => [
      { text: oneLine(s.title) || `Slide ${i + 1}`, fontSize: 28, bold: true, margin: [0, 0, 0, 16], ...(i > 0 ? { pageBreak: 'before' } : {}) },
      ...[s.body, ...elementTexts(s)].filter((t) => t.trim()).map((t) => ({ text: t.trim(), fontSize: 16, margin: [0, 0, 0, 10] })),
      ...pictures(s),
    ]);
    return renderPdf({
      content,
      images: Object.fromEntries([...embed].map((sha) => [sha, dataUrl(images.get(sha)!)])),
      pageSize: { width: PAGE.width, height: PAGE.height },
      pageMargins: PAGE.margins,
      info: { title: slides[0]?.title || 'Deck', producer: 'workspace-ops' },
    });
  };
  // pdfmake reads PNG and JPEG, not GIF.
  const embed = new Set([...images].filter(([, image]) => image.format === 'png' || image.format === 'jpeg').map(([sha]) => sha));
  try {
    return await render(embed);
  } catch (err) {
    if (embed.size === 0) throw err;
    // A picture whose header reads but whose data does not (a broken PNG stream): each tried alone, the broken left out.
    const readable = new Set<string>();
    for (const sha of embed) {
      const alone = renderPdf({ content: [{ image: sha, width: 8 }], images: { [sha]: dataUrl(images.get(sha)!) } });
      if (await alone.then(() => true).catch(() => false)) readable.add(sha);
    }
    if (readable.size === embed.size) throw err;
    return render(readable);
  }
}

const dataUrl = (image: DeckImage): string => (image.format ? `data:image/${image.format};base64,${image.bytes.toString('base64')}` : '');

export async function exportDeck(slides: readonly SlideValue[], format: string, env: ExportEnv): Promise<ExportResult> {
  if (format === 'md') return { bytes: Buffer.from(deckMarkdown(slides)), contentType: 'text/markdown; charset=utf-8', extension: 'md' };
  if (format === 'pdf') return { bytes: await deckPdf(slides, await deckImages(slides, env)), contentType: 'application/pdf', extension: 'pdf' };
  if (format === 'pptx')
    return {
      bytes: await deckPptx(slides, await deckImages(slides, env)),
      contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      extension: 'pptx',
    };
  throw badRequest('format', `a deck exports as ${DECK_EXPORT_FORMATS.join(', ')}`);
}

/**
 * The deck on a guest's page (domain/files/guest.ts): each slide a section with its title, its body and its elements'
 * text as escaped paragraphs (Markdown shown as written). Speaker notes stay with the org: a guest sees the slides.
 */
export function deckGuestHtml(slides: readonly SlideValue[]): string {
  const paragraphs = (text: string) =>
    text
      .trim()
      .split(/\n\s*\n/)
      .filter((p) => p.trim())
      .map((p) => `<p>${esc(p.trim()).replace(/\n/g, '<br>')}</p>\n`)
      .join('');
  return slides
    .map((s, i) => {
      return `<section class="slide">\n<h2>${i + 1}. ${esc(oneLine(s.title) || `Slide ${i + 1}`)}</h2>\n${paragraphs(s.body)}${elementTexts(s).map(paragraphs).join('')}</section>\n`;
    })
    .join('');
}
