import { badRequest } from '../../../protocol/errors.js';
import type { ExportResult } from '../kinds.js';
import { escapeHtml as esc } from '../docs/export.js';
import { renderPdf } from '../pdf.js';
import { deckPptx } from './pptx.js';
import type { SlideValue } from './store.js';

/*
 * A deck rendered for files.exportRequest. Markdown is an outline, one section per slide: its title as a heading
 * (numbered, so an untitled slide still has one), its body as written, the text of its elements, and its notes as
 * a quote; pdf a 16:9 page per slide without the notes; pptx a 16:9 slide per slide with the notes as speaker notes
 * (pptx.ts).
 */

export const DECK_EXPORT_FORMATS = ['pdf', 'md', 'pptx'] as const;

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

/** Each slide a 16:9 page: its title, its body and its elements' text (Markdown as written); no speaker notes. */
async function deckPdf(slides: readonly SlideValue[]): Promise<Buffer> {
  const content = slides.flatMap((s, i) => [
    { text: oneLine(s.title) || `Slide ${i + 1}`, fontSize: 28, bold: true, margin: [0, 0, 0, 16], ...(i > 0 ? { pageBreak: 'before' } : {}) },
    ...[s.body, ...elementTexts(s)].filter((t) => t.trim()).map((t) => ({ text: t.trim(), fontSize: 16, margin: [0, 0, 0, 10] })),
  ]);
  return renderPdf({
    content,
    pageSize: { width: 960, height: 540 },
    pageMargins: [48, 40, 48, 40],
    info: { title: slides[0]?.title || 'Deck', producer: 'workspace-ops' },
  });
}

export async function exportDeck(slides: readonly SlideValue[], format: string): Promise<ExportResult> {
  if (format === 'md') return { bytes: Buffer.from(deckMarkdown(slides)), contentType: 'text/markdown; charset=utf-8', extension: 'md' };
  if (format === 'pdf') return { bytes: await deckPdf(slides), contentType: 'application/pdf', extension: 'pdf' };
  if (format === 'pptx')
    return { bytes: await deckPptx(slides), contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', extension: 'pptx' };
  throw badRequest('params.format', `a deck exports as ${DECK_EXPORT_FORMATS.join(', ')}`);
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
