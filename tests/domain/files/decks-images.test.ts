import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { extractImages, extractText, getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { describe, expect, it as plain } from 'vitest';
import { one } from '../../../db/types.js';
import { exportEnv } from '../../../domain/files/export.js';
import { deckImage } from '../../../domain/files/decks/export.js';
import { deckPptx } from '../../../domain/files/decks/pptx.js';
import type { SlideValue } from '../../../domain/files/decks/store.js';
import { OOXML_PPTX, officeText } from '../../../domain/files/text/office.js';
import { it } from '../../helpers/fixtures.js';
import { ok } from '../../helpers/calls.js';
import { download, putBlob, upload, type DriveOrg } from './drive-kit.js';

/*
 * A deck's images in its pptx and pdf exports: the blobs the deck holds, PNG, JPEG and GIF embedded byte for byte in
 * the pptx (ppt/media/, drawn by p:pic), PNG and JPEG in the pdf (image XObjects, read back by pdf.js); anything else
 * a placeholder naming its type. The export's blob reader (exportEnv) gives only blobs the exported file holds.
 */

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const colour = (r: number, g: number, b: number) => ({ r, g, b });
/** Real images, made by sharp: a 40 × 20 PNG, a 30 × 60 JPEG, a 16 × 16 GIF. */
const pictures = async () => ({
  png: await sharp({ create: { width: 40, height: 20, channels: 3, background: colour(200, 30, 30) } })
    .png()
    .toBuffer(),
  jpeg: await sharp({ create: { width: 30, height: 60, channels: 3, background: colour(30, 30, 200) } })
    .jpeg()
    .toBuffer(),
  gif: await sharp({ create: { width: 16, height: 16, channels: 3, background: colour(30, 200, 30) } })
    .gif()
    .toBuffer(),
  svg: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'),
});

/** files.exportRequest as mia, downloaded (its bytes are what the export names). */
async function exported(o: DriveOrg, fileId: string, format: 'pptx' | 'pdf'): Promise<{ sha256: string; bytes: Buffer }> {
  const exp = await ok(o.s, 'files.exportRequest', { fileId, format }, o.mia.key);
  const res = await download(o.s, exp.url);
  expect(res.status).toBe(200);
  expect(sha(res.bytes)).toBe(exp.export.sha256);
  return { sha256: exp.export.sha256, bytes: res.bytes };
}

const partsOf = (bytes: Uint8Array) => unzipSync(bytes);
const xml = (data: Uint8Array) => new TextDecoder().decode(data);

/** A deck of two slides: a PNG and a JPEG on the first (with emoji text), a GIF and an SVG on the second. */
async function imageDeck(o: DriveOrg) {
  const pic = await pictures();
  const blobs = {
    png: await putBlob(o.s, o.mia.key, pic.png, 'image/png'),
    jpeg: await putBlob(o.s, o.mia.key, pic.jpeg, 'image/jpeg'),
    gif: await putBlob(o.s, o.mia.key, pic.gif, 'image/gif'),
    svg: await putBlob(o.s, o.mia.key, pic.svg, 'image/svg+xml'),
  };
  const image = (b: { sha256: string }, x: number, y: number, w: number, h: number) => ({ type: 'image', x, y, w, h, blobSha256: b.sha256 });
  const content = {
    slides: [
      { title: 'Pictures 🚀', body: 'Two of them 🎉', elements: [image(blobs.png, 100, 100, 200, 200), image(blobs.jpeg, 400, 50, 200, 200)] },
      { title: 'Others', elements: [image(blobs.gif, 10, 10, 50, 50), image(blobs.svg, 300, 10, 100, 100), image(blobs.png, 500, 300, 0, 50)] },
    ],
  };
  const fileId = (await ok(o.s, 'files.create', { kind: 'deck', name: 'Pictures', content }, o.mia.key)).file.id as string;
  return { pic, blobs, fileId };
}

/** The size (points) each image is drawn at on a page: the scale of the transform in force at each image. */
async function drawn(pdf: Awaited<ReturnType<typeof getDocumentProxy>>, page: number): Promise<string[]> {
  const { OPS } = await getResolvedPDFJS();
  const ops = await (await pdf.getPage(page)).getOperatorList();
  const out: string[] = [];
  let last: number[] = [];
  ops.fnArray.forEach((fn, i) => {
    if (fn === OPS.transform) last = ops.argsArray[i] as number[];
    if (fn === OPS.paintImageXObject) out.push(`${Math.round(last[0])}x${Math.round(Math.abs(last[3]))}`);
  });
  return out;
}

describe('deck exports show the deck’s images', () => {
  it('pptx: PNG, JPEG and GIF are ppt/media parts of exactly their bytes, drawn by p:pic in their boxes; SVG a placeholder', async ({ drive: o }) => {
    const { pic, fileId } = await imageDeck(o);
    const first = await exported(o, fileId, 'pptx');
    const parts = partsOf(first.bytes);
    const media = Object.entries(parts).filter(([name]) => name.startsWith('ppt/media/'));
    const byBytes = (b: Buffer) => media.filter(([, data]) => Buffer.from(data).equals(b)).map(([name]) => name);
    expect(byBytes(pic.png)).toEqual([expect.stringMatching(/^ppt\/media\/image-1-\d+\.png$/)]);
    expect(byBytes(pic.jpeg)).toEqual([expect.stringMatching(/^ppt\/media\/image-1-\d+\.jpeg$/)]);
    expect(byBytes(pic.gif)).toEqual([expect.stringMatching(/^ppt\/media\/image-2-\d+\.gif$/)]);
    expect(media).toHaveLength(3);

    // Each slide's pictures reference those parts through its relationships.
    const [slide1, slide2] = [xml(parts['ppt/slides/slide1.xml']), xml(parts['ppt/slides/slide2.xml'])];
    const rels1 = xml(parts['ppt/slides/_rels/slide1.xml.rels']);
    expect(slide1.match(/<p:pic>/g)).toHaveLength(2);
    expect(slide2.match(/<p:pic>/g)).toHaveLength(1);
    for (const name of [byBytes(pic.png)[0], byBytes(pic.jpeg)[0]]) {
      const rId = new RegExp(`Id="(rId\\d+)"[^>]*Target="\\.\\./media/${name.slice('ppt/media/'.length)}"`).exec(rels1)?.[1];
      expect(rId, name).toBeDefined();
      expect(slide1).toContain(`<a:blip r:embed="${rId}"`);
    }
    // Contained in the box, aspect kept, centred: 40 × 20 in 200 × 200 at (100, 100) is 200 × 100 at (100, 150);
    // 30 × 60 in 200 × 200 at (400, 50) is 100 × 200 at (450, 50). 12,700 EMU a point.
    const pics = slide1.match(/<p:pic>[\s\S]*?<\/p:pic>/g)!;
    expect(pics[0]).toMatch(/<a:off x="1270000" y="1905000"\/>\s*<a:ext cx="2540000" cy="1270000"\/>/);
    expect(pics[1]).toMatch(/<a:off x="5715000" y="635000"\/>\s*<a:ext cx="1270000" cy="2540000"\/>/);
    expect(pics[0]).toContain('descr="Image"');

    // The SVG (typed by its bytes, never trusted as SVG) is the framed placeholder naming its type; a box of no
    // width shows nothing. The text around the pictures, emoji included, is as written.
    const stored = one(
      await o.s.runtime.db.query<{ content_type: string }>('SELECT content_type FROM blobs WHERE org_id = $1 AND sha256 = $2', [o.s.org.orgId, sha(pic.svg)]),
    );
    const svgType = stored.content_type.split(';')[0];
    expect(officeText(first.bytes, OOXML_PPTX)).toBe(`Pictures 🚀\nTwo of them 🎉\nOthers\n[image not embedded: ${svgType}]`);

    // The same revision, the same bytes.
    expect((await exported(o, fileId, 'pptx')).sha256).toBe(first.sha256);
  });

  it('pdf: PNG and JPEG are image XObjects on their slide’s page, fitted to their boxes; GIF and SVG placeholders', async ({ drive: o }) => {
    const { pic, fileId } = await imageDeck(o);
    const { bytes } = await exported(o, fileId, 'pdf');
    expect(bytes.toString('latin1').match(/\/Subtype \/Image/g)?.length).toBeGreaterThanOrEqual(2);
    // pdfkit passes a JPEG through (DCTDecode): its exact bytes are in the file.
    expect(bytes.includes(pic.jpeg)).toBe(true);
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    expect(pdf.numPages).toBe(2);
    const sizes = (await extractImages(pdf, 1)).map((i) => `${i.width}x${i.height}`).sort();
    expect(sizes).toEqual(['30x60', '40x20']);
    expect(await extractImages(pdf, 2)).toEqual([]);
    // Drawn in one row under the text, each in its box (× 4/3 on the page), the row at most 240 points tall:
    // 40 × 20 and 30 × 60 in 266.7-point boxes are 266.7 × 133.3 and 133.3 × 266.7, then scaled to 240 tall.
    expect(await drawn(pdf, 1)).toEqual(['240x120', '120x240']);
    const { text } = await extractText(pdf, { mergePages: false });
    expect(text[0]).toContain('Pictures');
    expect(text[0]).not.toContain('image not embedded');
    expect(text[1]).toContain('[image not embedded: image/gif]');
    expect(text[1].match(/image not embedded/g)).toHaveLength(2);
  });

  it('a PNG whose header reads but whose data does not: the pdf leaves it out, keeps the rest', async ({ drive: o }) => {
    const { png, jpeg } = await pictures();
    const broken = Buffer.concat([png.subarray(0, 33), Buffer.from('IDAT-but-not-zlib'), Buffer.alloc(64, 7)]);
    const [bad, good] = [await putBlob(o.s, o.mia.key, broken, 'image/png'), await putBlob(o.s, o.mia.key, jpeg, 'image/jpeg')];
    const elements = [bad, good].map((b, i) => ({ type: 'image', x: i * 300, y: 0, w: 100, h: 100, blobSha256: b.sha256 }));
    const fileId = (await ok(o.s, 'files.create', { kind: 'deck', name: 'Broken', content: { slides: [{ title: 'Broken', elements }] } }, o.mia.key)).file.id;
    const pdf = await getDocumentProxy(new Uint8Array((await exported(o, fileId, 'pdf')).bytes));
    expect((await extractImages(pdf, 1)).map((i) => `${i.width}x${i.height}`)).toEqual(['30x60']);
    expect(await drawn(pdf, 1)).toEqual(['67x133']); // 30 × 60 in a 100-point box, 133.3 on the page
    expect((await extractText(pdf, { mergePages: true })).text).toContain('[image not embedded: image/png]');
  });

  it('the export reads only blobs the exported file holds, within its limits', async ({ drive: o }) => {
    const { pic, blobs, fileId } = await imageDeck(o);
    const { db, deps } = o.s.runtime;
    const orgId = o.s.org.orgId;
    const env = exportEnv(db, deps, orgId, fileId, new Set());
    expect(await env.blob(blobs.png.sha256)).toEqual({ bytes: pic.png, contentType: 'image/png' });
    // Another deck's image, and an upload's bytes (held by its version, fil_…#v1): not this deck's.
    const otherBytes = await sharp({ create: { width: 8, height: 8, channels: 3, background: colour(1, 2, 3) } })
      .png()
      .toBuffer();
    const otherBlob = await putBlob(o.s, o.mia.key, otherBytes, 'image/png');
    const slides = [{ elements: [{ type: 'image', x: 0, y: 0, w: 10, h: 10, blobSha256: otherBlob.sha256 }] }];
    const otherDeck = (await ok(o.s, 'files.create', { kind: 'deck', name: 'Other', content: { slides } }, o.mia.key)).file.id;
    expect(await env.blob(otherBlob.sha256)).toBeNull();
    expect(await exportEnv(db, deps, orgId, otherDeck, new Set()).blob(otherBlob.sha256)).toEqual({ bytes: otherBytes, contentType: 'image/png' });
    const uploadBytes = Buffer.from('an upload, held by its version');
    await upload(o.s, o.mia.key, 'other.txt', uploadBytes);
    expect(await env.blob(sha(uploadBytes))).toBeNull();
    // A blob no record holds, a blob of nothing, not a hash: none.
    const loose = await putBlob(o.s, o.mia.key, Buffer.from('held by nothing'));
    expect(await env.blob(loose.sha256)).toBeNull();
    expect(await env.blob('f'.repeat(64))).toBeNull();
    expect(await env.blob('not a hash')).toBeNull();
    // Another org's deck of the same bytes is not this org's.
    expect(await exportEnv(db, deps, `${orgId}x`, fileId, new Set()).blob(blobs.png.sha256)).toBeNull();

    // Past the size of one blob, or the export's total (spent in the order asked, each blob counted once): none.
    const small = exportEnv(db, deps, orgId, fileId, new Set(), { perBlob: pic.png.length - 1, total: 1e9 });
    expect(await small.blob(blobs.png.sha256)).toBeNull();
    expect(await small.blob(blobs.gif.sha256)).not.toBeNull();
    const budget = exportEnv(db, deps, orgId, fileId, new Set(), { perBlob: 1e9, total: pic.png.length + pic.gif.length });
    expect(await budget.blob(blobs.png.sha256)).not.toBeNull();
    expect(await budget.blob(blobs.png.sha256)).not.toBeNull();
    expect(await budget.blob(blobs.jpeg.sha256)).toBeNull(); // would pass the total
    expect(await budget.blob(blobs.gif.sha256)).not.toBeNull(); // fits what is left

    // Bytes gone from the store under a live row: none (a placeholder), not a failed export.
    const trashed = await deps.blobs.store.trash(orgId, blobs.jpeg.sha256);
    expect(trashed).not.toBeNull();
    try {
      expect(await exportEnv(db, deps, orgId, fileId, new Set()).blob(blobs.jpeg.sha256)).toBeNull();
    } finally {
      await deps.blobs.store.restore(trashed!);
    }
    expect(await exportEnv(db, deps, orgId, fileId, new Set()).blob(blobs.jpeg.sha256)).toEqual({ bytes: pic.jpeg, contentType: 'image/jpeg' });
  });
});

describe('deckImage: type and bytes must agree', () => {
  plain('PNG, JPEG and GIF by stored type and magic bytes, with their sizes; any disagreement is a placeholder', async () => {
    const { png, jpeg, gif, svg } = await pictures();
    expect(deckImage({ bytes: png, contentType: 'image/png' })).toMatchObject({ format: 'png', width: 40, height: 20 });
    expect(deckImage({ bytes: jpeg, contentType: 'image/jpeg' })).toMatchObject({ format: 'jpeg', width: 30, height: 60 });
    expect(deckImage({ bytes: gif, contentType: 'image/gif' })).toMatchObject({ format: 'gif', width: 16, height: 16 });
    expect(deckImage({ bytes: png, contentType: 'image/jpeg' })).toEqual({ type: 'image/jpeg', format: null });
    expect(deckImage({ bytes: jpeg, contentType: 'image/png' })).toEqual({ type: 'image/png', format: null });
    expect(deckImage({ bytes: Buffer.from('GIF89a'), contentType: 'image/gif' })).toEqual({ type: 'image/gif', format: null });
    expect(deckImage({ bytes: svg, contentType: 'image/svg+xml' })).toEqual({ type: 'image/svg+xml', format: null });
    expect(deckImage({ bytes: Buffer.from([0xff, 0xd8, 0xff, 0xd9]), contentType: 'image/jpeg' })).toEqual({ type: 'image/jpeg', format: null });
    expect(deckImage(null)).toEqual({ type: 'unavailable', format: null });
  });

  plain('deckPptx without a slide’s image shows the placeholder; pictures never pass the text’s emoji stand-ins', async () => {
    const { png } = await pictures();
    // Bytes that would be a private-use stand-in's UTF-8 if the text's substitution touched them.
    const slides: SlideValue[] = [
      {
        id: 'sld_a',
        layout: 'blank',
        title: '🚀',
        body: '',
        notes: '',
        elements: [
          { id: 'el_a', type: 'image', x: 0, y: 0, w: 80, h: 40, blobSha256: 'a'.repeat(64) },
          { id: 'el_b', type: 'image', x: 100, y: 0, w: 80, h: 40, blobSha256: 'b'.repeat(64) },
        ],
      },
    ];
    const marked = Buffer.concat([png, Buffer.from('\ue000', 'utf8')]);
    const bytes = await deckPptx(slides, new Map([['b'.repeat(64), { type: 'image/png', format: 'png', bytes: marked, width: 40, height: 20 }]]));
    const parts = partsOf(bytes);
    expect(officeText(bytes, OOXML_PPTX)).toBe('🚀\n[image not embedded: unavailable]');
    const media = Object.entries(parts).filter(([name]) => name.startsWith('ppt/media/'));
    expect(media.map(([, data]) => Buffer.from(data).equals(marked))).toEqual([true]);
  });
});
