import { createHash } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it as plain, vi } from 'vitest';
import { deckPptx } from '../../../domain/files/decks/pptx.js';
import { bodyParagraphs } from '../../../domain/files/decks/slide-markdown.js';
import type { SlideValue } from '../../../domain/files/decks/store.js';
import { OOXML_PPTX, officeText } from '../../../domain/files/text/office.js';
import { it } from '../../helpers/fixtures.js';
import { ok, refused } from '../../helpers/calls.js';
import { download, putBlob, type DriveOrg } from './drive-kit.js';

/*
 * A deck as pptx through files.exportRequest, checked by readers other than the writer: fflate lists the package's
 * parts, and the search extractor (domain/files/text/office.ts) reads the slides' text back. LibreOffice renders
 * it in decks-pptx-libreoffice.test.ts.
 */

const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/** files.exportRequest pptx as mia, downloaded: the export record and the bytes (whose sha256 it names). */
async function exportPptx(o: DriveOrg, fileId: string): Promise<{ exp: any; bytes: Buffer }> {
  const exp = await ok(o.s, 'files.exportRequest', { fileId, format: 'pptx' }, o.mia.key);
  expect(exp.export).toMatchObject({ format: 'pptx', contentType: PPTX });
  const res = await download(o.s, exp.url);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe(PPTX);
  expect(createHash('sha256').update(res.bytes).digest('hex')).toBe(exp.export.sha256);
  return { exp, bytes: res.bytes };
}

const makeDeck = async (o: DriveOrg, content?: unknown): Promise<string> =>
  (await ok(o.s, 'files.create', { kind: 'deck', name: 'A deck', ...(content === undefined ? {} : { content }) }, o.mia.key)).file.id;

/** The package's parts as text. */
function partsOf(bytes: Uint8Array): Record<string, string> {
  const decoder = new TextDecoder();
  return Object.fromEntries(Object.entries(unzipSync(bytes)).map(([name, data]) => [name, decoder.decode(data)]));
}

const named = (parts: Record<string, string>, re: RegExp) => Object.keys(parts).filter((n) => re.test(n));

/** The slides' text as search reads it. */
const slidesText = (bytes: Uint8Array) => officeText(bytes, OOXML_PPTX);

/** A notes part's text, read by the same extractor (which reads slide parts: it is handed the notes as one). */
const notesText = (parts: Record<string, string>, n: number) =>
  officeText(zipSync({ 'ppt/slides/slide1.xml': new TextEncoder().encode(parts[`ppt/notesSlides/notesSlide${n}.xml`]) }), OOXML_PPTX)
    // The notes placeholder, then the slide-number field.
    .replace(/\r\n/g, '\n')
    .replace(new RegExp(`\\n${n}$`), '');

describe('files.exportRequest pptx', () => {
  it('a slide per slide in order: titles, bodies and element texts read back; notes as speaker notes', async ({ drive: o }) => {
    const image = await putBlob(o.s, o.mia.key, Buffer.from('png bytes, say'));
    const fileId = await makeDeck(o, {
      slides: [
        { title: 'Quarterly review', body: 'Acme **and** partners', notes: 'Welcome everyone\nthen the numbers' },
        {
          title: 'Why now',
          body: '# Market\nThe market **moved** and _we_ did not.\n\n- one\n- two with `code`\n  - nested\n1. first\n1. second\n> a quote\nsnake_case stays',
          elements: [
            { type: 'text', x: 36, y: 300, w: 300, h: 60, text: 'Footnote box' },
            { type: 'shape', x: 400, y: 300, w: 200, h: 80, text: 'Shape label' },
            { type: 'image', x: 620, y: 20, w: 80, h: 60, blobSha256: image.sha256 },
          ],
        },
        { layout: 'blank', elements: [{ type: 'text', x: -10, y: 0.004, w: 100, h: 20, text: 'Edge' }], notes: 'Closing & thanks' },
      ],
    });
    const { bytes } = await exportPptx(o, fileId);
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    const parts = partsOf(bytes);
    expect(named(parts, /^ppt\/slides\/slide\d+\.xml$/).sort()).toEqual(['ppt/slides/slide1.xml', 'ppt/slides/slide2.xml', 'ppt/slides/slide3.xml']);
    expect(named(parts, /^ppt\/notesSlides\/notesSlide\d+\.xml$/)).toHaveLength(3);
    expect(parts['ppt/presentation.xml'].match(/<p:sldId /g)).toHaveLength(3);
    // 16:9: 10 × 5.625 inches, the deck's 720 × 405 points.
    expect(parts['ppt/presentation.xml']).toContain('<p:sldSz cx="9144000" cy="5143500"/>');
    expect(parts['[Content_Types].xml']).toContain('presentationml.slide+xml');

    expect(slidesText(bytes)).toBe(
      [
        'Quarterly review\nAcme and partners',
        // The image's bytes are text, typed so by the blob store: a placeholder naming that type (decks-images.test.ts).
        'Why now\nMarket\nThe market moved and we did not.\none\ntwo with code\nnested\nfirst\nsecond\na quote\nsnake_case stays\nFootnote box\nShape label\n[image not embedded: text/plain]',
        'Edge',
      ].join('\n'),
    );
    expect(notesText(parts, 1)).toBe('Welcome everyone\nthen the numbers');
    expect(notesText(parts, 2)).toBe('');
    expect(notesText(parts, 3)).toBe('Closing & thanks');
  });

  it('turns simple Markdown into formatted runs, and places elements where the model says', async ({ drive: o }) => {
    const fileId = await makeDeck(o, {
      slides: [
        { layout: 'titleAndBody', title: 'Plan', body: '## Goals\nThe market **moved** and *we* did ~~not~~.\n- one\n  - nested\n3. third\n4. fourth' },
        { layout: 'blank', elements: [{ type: 'text', x: -10, y: 0.004, w: 100, h: 20, text: 'Edge' }] },
      ],
    });
    const parts = partsOf((await exportPptx(o, fileId)).bytes);
    const slide = parts['ppt/slides/slide1.xml'];
    const run = (text: string) => new RegExp(`<a:rPr\\b([^>]*)>(?:(?!</a:rPr>).)*</a:rPr><a:t>${text}</a:t>`).exec(slide)?.[1] ?? '';
    expect(run('Goals')).toMatch(/sz="2400" b="1"/); // 18 pt body, a level-2 heading 6 pt more
    expect(run('moved')).toContain('b="1"');
    expect(run('we')).toContain('i="1"');
    expect(run('not')).toContain('strike="sngStrike"');
    expect(run('The market ')).not.toMatch(/ [bi]="1"/);
    expect(slide).toMatch(/<a:pPr [^>]*marL="342900"[^>]*><a:buSzPct val="100000"\/><a:buChar char="&#x2022;"\/><\/a:pPr><a:r>(?:(?!<\/a:r>)[\s\S])*<a:t>one</);
    expect(slide).toMatch(/<a:pPr [^>]*lvl="1"[^>]*>(?:(?!<\/a:pPr>)[\s\S])*<a:buChar (?:(?!<\/a:p>)[\s\S])*<a:t>nested</);
    // A numbered list keeps its written start; later items count on from it.
    expect(slide.match(/<a:buAutoNum type="arabicPeriod" startAt="3"\/>/g)).toHaveLength(2);
    // One paragraph-properties element per paragraph, first (pptxgenjs writes one per run).
    for (const p of slide.match(/<a:p>(?:(?!<\/a:p>)[\s\S])*<\/a:p>/g) ?? []) expect(p.match(/<a:pPr\b/g)?.length ?? 0).toBeLessThanOrEqual(1);
    // The title is the slide's title placeholder; the body its body placeholder.
    expect(slide).toMatch(/type="title"(?:(?!<\/p:sp>)[\s\S])*<a:t>Plan</);
    expect(slide).toMatch(/type="body"(?:(?!<\/p:sp>)[\s\S])*<a:t>Goals</);
    // Points to EMU (12,700 a point), negative and tiny included.
    expect(parts['ppt/slides/slide2.xml']).toContain('<a:off x="-127000" y="51"/><a:ext cx="1270000" cy="254000"/>');
  });

  it('the same revision exports the same bytes, with no clock in them', async ({ drive: o }) => {
    const fileId = await makeDeck(o, { slides: [{ title: 'Same', body: 'Every time', notes: 'n' }, { title: 'Two' }] });
    const first = await exportPptx(o, fileId);
    const second = await exportPptx(o, fileId);
    expect(second.exp.export.id).not.toBe(first.exp.export.id);
    expect(second.exp.export.sha256).toBe(first.exp.export.sha256);
    const core = partsOf(first.bytes)['docProps/core.xml'];
    expect(core).not.toMatch(/dcterms:(created|modified)/);
    expect(core).toContain('<dc:creator>workspace-ops</dc:creator>');
    // Built at two other times, the same bytes again (the zip entries' times are fixed too).
    const slides = (await ok(o.s, 'files.deckRead', { fileId }, o.mia.key)).slides as SlideValue[];
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2031-07-04T12:34:56Z'));
      const later = await deckPptx(slides);
      vi.setSystemTime(new Date('2002-02-02T02:02:02Z'));
      const earlier = await deckPptx(slides);
      expect(later.equals(first.bytes)).toBe(true);
      expect(earlier.equals(first.bytes)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('hostile text round-trips as text', async ({ drive: o }) => {
    const title = `<script>alert("x")</script> & 'quotes' "double"`;
    // jszip cuts a part's text every 16 K characters: across these runs of pairs, a seam falls inside a pair.
    const pairs = `${'🚀'.repeat(9_000)}x${'🚀'.repeat(9_000)}`;
    const long = [...Array.from({ length: 2_000 }, (_, i) => `Line ${i} of a long body with & and < and > 🚀`), pairs].join('\n');
    const fileId = await makeDeck(o, {
      slides: [
        { title, body: 'Emoji 👩‍👩‍👧 and &amp; as written, private use \ue000 kept, a bell\u0007 shown as U+FFFD', notes: '</a:t><p:sp> & 🎉' },
        { title: 'Long', body: long, elements: [{ type: 'shape', x: 0, y: 0, w: 100, h: 100, text: ']]> <!-- & -->' }] },
        { title: 'Unclosed **bold and `code and _under', body: '**never closed\n__also\n`tick\n*a *b *c' },
      ],
    });
    const { bytes } = await exportPptx(o, fileId);
    const parts = partsOf(bytes);
    expect(slidesText(bytes)).toBe(
      [
        `${title}\nEmoji 👩‍👩‍👧 and &amp; as written, private use \ue000 kept, a bell\ufffd shown as U+FFFD`,
        `Long\n${long}\n]]> <!-- & -->`,
        'Unclosed **bold and `code and _under\n**never closed\n__also\n`tick\n*a *b *c',
      ].join('\n'),
    );
    expect(notesText(parts, 1)).toBe('</a:t><p:sp> & 🎉');
    expect(parts['ppt/slides/slide1.xml']).not.toContain('<script>');
  });

  it('a deck always has a slide: the default deck exports one empty slide; no slides at all is still a package', async ({ drive: o }) => {
    const fileId = await makeDeck(o);
    const { slideIds } = await ok(o.s, 'files.deckRead', { fileId }, o.mia.key);
    expect(slideIds).toHaveLength(1);
    await refused(o.s, 'files.deckWriteSlides', { fileId, baseRevision: 1, ops: [{ op: 'delete', slideId: slideIds[0] }] }, 'BAD_REQUEST', {
      key: o.mia.key,
      message: /keeps at least one slide/,
    });
    const { bytes } = await exportPptx(o, fileId);
    const parts = partsOf(bytes);
    expect(named(parts, /^ppt\/slides\/slide\d+\.xml$/)).toEqual(['ppt/slides/slide1.xml']);
    expect(slidesText(bytes).trim()).toBe('');
    expect(notesText(parts, 1)).toBe('');
  });
});

describe('deckPptx and the body Markdown it formats', () => {
  plain('spans: bold, italic, struck, code; escapes, words with underscores and unclosed marks stay as written', () => {
    expect(bodyParagraphs('a **b _c_** `**x**` \\*y\\* snake_case_name ~~gone~~ 1 * 2 * 3 **open')[0].spans).toEqual([
      { text: 'a ' },
      { text: 'b ', bold: true },
      { text: 'c', bold: true, italic: true },
      { text: ' ' },
      { text: '**x**', code: true },
      { text: ' *y* snake_case_name ' },
      { text: 'gone', strike: true },
      { text: ' 1 * 2 * 3 **open' },
    ]);
  });

  plain('lines: headings, nested and numbered items, quotes, code blocks; blank lines and rules become space', () => {
    const paras = bodyParagraphs('# Title #\n\n2. two\n7. seven\n   - inner\n8. eight\ntext\n```\n# not a heading\n```\n---\n> q\n#tag');
    expect(paras.map((p) => [p.kind, p.level, p.start ?? null, p.gap, p.spans.map((s) => s.text).join('')])).toEqual([
      ['heading', 1, null, false, 'Title'],
      // A numbered list counts on from its first number, across a nested item.
      ['number', 0, 2, true, 'two'],
      ['number', 0, 2, false, 'seven'],
      ['bullet', 1, null, false, 'inner'],
      ['number', 0, 2, false, 'eight'],
      ['text', 0, null, false, 'text'],
      ['code', 0, null, false, '# not a heading'],
      ['quote', 0, null, true, 'q'],
      ['text', 0, null, false, '#tag'],
    ]);
  });

  plain('with no slides (the API never asks), still a presentation: its parts, no slide list', async () => {
    const parts = partsOf(await deckPptx([]));
    expect(parts['ppt/presentation.xml']).toContain('<p:presentation');
    expect(parts['ppt/presentation.xml']).not.toContain('sldIdLst');
    expect(named(parts, /^ppt\/slides\//)).toEqual([]);
    expect(Object.keys(parts)).toContain('[Content_Types].xml');
  });
});
