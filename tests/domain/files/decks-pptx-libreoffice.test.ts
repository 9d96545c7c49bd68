import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { extractImages, extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deckImage } from '../../../domain/files/decks/export.js';
import { deckPptx } from '../../../domain/files/decks/pptx.js';
import type { SlideValue } from '../../../domain/files/decks/store.js';
import { SLIDE_LAYOUTS } from '../../../protocol/methods/files/decks.js';

/*
 * A deck's pptx opened by another program: LibreOffice (headless) converts it to PDF, and pdf.js reads each page's
 * text (unpdf, as uploads' text is read: poppler's pdftotext is not needed). On the slow list of vitest.config.ts: it
 * starts a process.
 */

const SOFFICE = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'soffice'))
  .find((path) => existsSync(path));
const missing = SOFFICE ? undefined : 'LibreOffice is not installed: no soffice on PATH (on Debian: apt-get install libreoffice-impress-nogui)';
if (missing) console.warn(`tests/domain/files/decks-pptx-libreoffice.test.ts skipped: ${missing}`);

let work = '';

/** The pptx as LibreOffice prints it: the PDF's path. */
async function printed(name: string, bytes: Buffer): Promise<string> {
  const dir = mkdtempSync(join(work, `${name}-`));
  writeFileSync(join(dir, `${name}.pptx`), bytes);
  // A profile of its own, so parallel runs do not share (or lock) one.
  await promisify(execFile)(
    SOFFICE!,
    [`-env:UserInstallation=file://${dir}/lo`, '--headless', '--convert-to', 'pdf', '--outdir', dir, join(dir, `${name}.pptx`)],
    { timeout: 120_000 },
  );
  const pdf = join(dir, `${name}.pdf`);
  expect(existsSync(pdf), `LibreOffice wrote no PDF for ${name}.pptx`).toBe(true);
  return pdf;
}

/** The pptx as LibreOffice prints it: each page's text, whitespace made single spaces. */
async function pagesOf(name: string, bytes: Buffer): Promise<string[]> {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(readFileSync(await printed(name, bytes)))), { mergePages: false });
  return text.map((page) => page.replace(/\s+/g, ' ').trim());
}

const slide = (fields: Partial<SlideValue>): SlideValue => ({ id: 'sld_x', layout: 'titleAndBody', title: '', body: '', notes: '', elements: [], ...fields });

describe.skipIf(missing !== undefined)(`pptx read back by LibreOffice${missing ? ` [skipped: ${missing}]` : ''}`, () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'wops-pptx-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('a page per slide, in order, each with its title, body and element texts', async () => {
    const byLayout = SLIDE_LAYOUTS.map((layout) => slide({ layout, title: `Layout ${layout}`, body: `Body of ${layout}`, notes: `Notes of ${layout}` }));
    const slides = [
      ...byLayout,
      slide({
        title: `Tom & Jerry's <script>alert("x")</script>`,
        body: '# Heading\nSome **bold** and _italic_ text\n- first point\n  - nested point\n1. numbered one\n1. numbered two\n> quoted line',
        elements: [
          { id: 'el_a', type: 'text', x: 40, y: 320, w: 300, h: 40, text: 'Text box words' },
          { id: 'el_b', type: 'shape', x: 400, y: 300, w: 250, h: 80, text: 'Shape words' },
          { id: 'el_c', type: 'image', x: 600, y: 20, w: 100, h: 60, blobSha256: 'a'.repeat(64) },
        ],
      }),
      slide({ title: 'Long', body: Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of forty`).join('\n') }),
    ];
    const pages = await pagesOf('deck', await deckPptx(slides));
    expect(pages).toHaveLength(slides.length);
    SLIDE_LAYOUTS.forEach((layout, i) => {
      expect(pages[i]).toContain(`Layout ${layout}`);
      expect(pages[i]).toContain(`Body of ${layout}`);
      // Speaker notes are not printed on the slides.
      expect(pages[i]).not.toContain('Notes of');
    });
    const rich = pages[SLIDE_LAYOUTS.length];
    for (const words of [
      `Tom & Jerry's <script>alert("x")</script>`,
      'Heading',
      'Some bold and italic text',
      'first point',
      'nested point',
      'numbered one',
      'numbered two',
      'quoted line',
      'Text box words',
      'Shape words',
      '[image not embedded: unavailable]',
    ])
      expect(rich).toContain(words);
    expect(rich).not.toContain('**');
    // Numbered items count on from the first.
    expect(rich).toMatch(/1\. ?numbered one 2\. ?numbered two/);
    expect(pages[SLIDE_LAYOUTS.length + 1]).toContain('Line 1 of forty');
    expect(pages[SLIDE_LAYOUTS.length + 1]).toContain('Line 40 of forty');
  });

  it('a deck with pictures opens: PNG, JPEG and GIF drawn on their pages, the text around them intact', async () => {
    const make = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 180, g: 60, b: 20 } } });
    const [png, jpeg, gif] = [await make(40, 20).png().toBuffer(), await make(30, 60).jpeg().toBuffer(), await make(16, 16).gif().toBuffer()];
    const [a, b, c] = ['a', 'b', 'c'].map((x) => x.repeat(64));
    const images = new Map([
      [a, deckImage({ bytes: png, contentType: 'image/png' })],
      [b, deckImage({ bytes: jpeg, contentType: 'image/jpeg' })],
      [c, deckImage({ bytes: gif, contentType: 'image/gif' })],
    ]);
    const picture = (id: string, blobSha256: string, x: number) => ({ id, type: 'image' as const, x, y: 150, w: 150, h: 150, blobSha256 });
    const slides = [
      slide({ title: 'Pictures 🚀', body: 'Before the pictures', elements: [picture('el_a', a, 40), picture('el_b', b, 300)] }),
      slide({ title: 'A GIF', elements: [picture('el_c', c, 40)] }),
    ];
    const pdf = await getDocumentProxy(new Uint8Array(readFileSync(await printed('pictures', await deckPptx(slides, images)))));
    expect(pdf.numPages).toBe(2);
    const { text } = await extractText(pdf, { mergePages: false });
    expect(text[0]).toContain('Pictures 🚀');
    expect(text[0]).toContain('Before the pictures');
    expect(text.join(' ')).not.toContain('image not embedded');
    const sizes = async (page: number) => (await extractImages(pdf, page)).map((i) => `${i.width}x${i.height}`).sort();
    expect(await sizes(1)).toEqual(['30x60', '40x20']);
    expect(await sizes(2)).toEqual(['16x16']);
  });

  it('a new deck’s one empty slide, and a package with no slides, both open', async () => {
    expect(await pagesOf('one-empty', await deckPptx([slide({ layout: 'title' })]))).toEqual(['']);
    // LibreOffice shows a presentation without slides as one blank page.
    expect((await pagesOf('none', await deckPptx([]))).join('')).toBe('');
  });
});
