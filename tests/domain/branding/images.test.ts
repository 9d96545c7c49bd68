import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetBytes } from '../../../domain/branding/index.js';
import { ok, read } from '../../helpers/calls.js';
import { BODY, brandOrg, FIELDS, FOUNDATION, libraryRefused, libraryWrite, save, type BrandOrg } from './kit.js';
import { hasTools } from '../../helpers/tools.js';

/*
 * The library's images: uploadImage (inline bytes, a blob, a drive file) processed by sharp and resvg, EXIF and GPS
 * gone (checked with Debian exiftool), the same bytes the same img_; amendArtifact and its refusals; undo, redo and
 * restoreVersion over images; exportTemplate carrying each image's sha256. One design record each, no ledger event.
 */

let o: BrandOrg;
let dir: string;
beforeAll(async () => {
  o = await brandOrg();
  await save(o, FOUNDATION);
  dir = mkdtempSync(path.join(tmpdir(), 'h1-images-'));
});
afterAll(async () => {
  await o.s.close();
  rmSync(dir, { recursive: true, force: true });
});

const png = (w: number, h: number, colour = '#0b5cad') =>
  sharp({ create: { width: w, height: h, channels: 3, background: colour } })
    .png()
    .toBuffer();
const b64 = (b: Buffer) => b.toString('base64');
const upload = (bytes: Buffer, key: string, extra: Record<string, unknown> = {}) =>
  libraryWrite(o, 'branding.uploadImage', { contentBase64: b64(bytes), idempotencyId: key, ...extra });
async function putBlob(bytes: Buffer, key = o.s.org.adminKey): Promise<string> {
  const res = await o.s.app.inject({
    method: 'PUT',
    url: '/api/v1/blobs',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
    payload: bytes,
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().result.sha256;
}
const bytesOf = (id: string) => assetBytes(o.s.runtime.db, o.s.runtime.deps.blobs, o.s.org.orgId, id);

/** A PNG whose header says 8000 x 7525 (60.2 MP) and whose pixels are never there: refused before decoding. */
function hugePngHeader(): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => (b.reduce((x, byte) => table[(x ^ byte) & 0xff] ^ (x >>> 8), 0xffffffff) ^ 0xffffffff) >>> 0;
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(8000, 0);
  ihdr.writeUInt32BE(7525, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(16))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('uploadImage', () => {
  it.skipIf(!hasTools('exiftool'))(
    'a JPEG with GPS and orientation 6: stored upright, every metadata block gone (exiftool); the same bytes again: that image, changed:false',
    async () => {
      const file = path.join(dir, 'photo.jpg');
      writeFileSync(
        file,
        await sharp({ create: { width: 64, height: 48, channels: 3, background: '#e5661a' } })
          .jpeg()
          .toBuffer(),
      );
      execFileSync('exiftool', [
        '-q',
        '-overwrite_original',
        '-GPSLatitude=51.5',
        '-GPSLatitudeRef=N',
        '-GPSLongitude=0.12',
        '-GPSLongitudeRef=W',
        '-Orientation#=6',
        file,
      ]);
      const original = readFileSync(file);
      expect(execFileSync('exiftool', ['-s', '-GPSLatitude', file]).toString()).toMatch(/GPSLatitude/);
      const first = await upload(original, 'jpeg-1', { altText: 'A swatch', tags: ['swatch', 'swatch', 'orange'] });
      expect(first).toMatchObject({ changed: true, asset: { kind: 'image', revision: 1, status: 'active', contentType: 'image/jpeg', width: 48, height: 64 } });
      expect(first.asset).toMatchObject({ origin: 'upload', altText: 'A swatch', tags: ['swatch', 'orange'], generated: null });
      const stored = await bytesOf(first.asset.id);
      expect(stored.sha256).toBe(first.asset.sha256);
      const out = path.join(dir, 'stored.jpg');
      writeFileSync(out, stored.bytes);
      const tags = JSON.parse(execFileSync('exiftool', ['-json', '-a', '-G1', out]).toString())[0];
      expect(Object.keys(tags).filter((k) => !k.startsWith('ExifTool:') && /GPS|EXIF|IFD0|XMP|Orientation/i.test(k))).toEqual([]);
      const again = await upload(original, 'jpeg-2', { altText: 'other words' });
      expect(again).toMatchObject({ changed: false, version: first.version, asset: { id: first.asset.id, altText: 'A swatch' } });
    },
  );

  it('PNG, WebP, GIF and a clean SVG come in; SVG is rasterised by resvg to PNG', async () => {
    const webp = await upload(
      await sharp({ create: { width: 30, height: 20, channels: 3, background: '#123456' } })
        .webp()
        .toBuffer(),
      'webp',
    );
    expect(webp.asset).toMatchObject({ contentType: 'image/webp', width: 30, height: 20 });
    const gif = await upload(
      await sharp({ create: { width: 12, height: 10, channels: 3, background: '#654321' } })
        .gif()
        .toBuffer(),
      'gif',
    );
    expect(gif.asset).toMatchObject({ contentType: 'image/png', width: 12, height: 10 });
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="20"><defs><linearGradient id="g"><stop offset="0" stop-color="#0b5cad"/></linearGradient></defs><rect width="40" height="20" fill="url(#g)"/><use xlink:href="#g"/></svg>',
    );
    const made = await upload(svg, 'svg');
    expect(made.asset).toMatchObject({ contentType: 'image/png', width: 40, height: 20 });
    expect((await bytesOf(made.asset.id)).bytes.subarray(1, 4).toString()).toBe('PNG');
  });

  it('from a blob you uploaded, or a drive file you can read; another member’s blob is refused, an unreadable file NOT_FOUND', async () => {
    const bytes = await png(20, 20, '#aa00aa');
    const viaBlob = await libraryWrite(o, 'branding.uploadImage', { sha256: await putBlob(bytes), idempotencyId: 'blob-1' });
    expect(viaBlob.asset).toMatchObject({ width: 20, height: 20 });
    const file = (await ok(o.s, 'files.uploadRegister', { name: 'mark.png', contentBase64: b64(await png(24, 24, '#00aa00')) })).file;
    const viaFile = await libraryWrite(o, 'branding.uploadImage', { fileId: file.id, idempotencyId: 'file-1' });
    expect(viaFile.asset).toMatchObject({ width: 24, height: 24 });
    const doc = (await ok(o.s, 'files.create', { kind: 'doc', name: 'Notes', content: { markdown: 'x' } })).file;
    await libraryRefused(o, 'branding.uploadImage', { fileId: doc.id, idempotencyId: 'file-doc' }, 'BAD_REQUEST', /^fileId: is a doc, not an uploaded image$/);
    const foreign = (await ok(o.other, 'files.uploadRegister', { name: 'x.png', contentBase64: b64(await png(8, 8)) })).file;
    await libraryRefused(o, 'branding.uploadImage', { fileId: foreign.id, idempotencyId: 'file-x' }, 'NOT_FOUND', new RegExp(`^file ${foreign.id} not found`));
    const theirs = await putBlob(await png(9, 9, '#999999'), o.mia.key);
    await libraryRefused(o, 'branding.uploadImage', { sha256: theirs, idempotencyId: 'blob-x' }, 'BAD_REQUEST', /^sha256: no blob .* uploaded by you/);
  });

  it('refused, nothing recorded: 60.2 MP, scripted or external SVG, not an image, no source or two, no admin', async () => {
    const bad = (params: Record<string, unknown>, message: RegExp, code: 'BAD_REQUEST' | 'FORBIDDEN_SCOPE' = 'BAD_REQUEST', key?: string) =>
      libraryRefused(o, 'branding.uploadImage', { idempotencyId: `bad-${Math.random()}`, ...params }, code, message, key);
    await bad({ contentBase64: b64(hugePngHeader()) }, /^contentBase64: 60\.2 MP above 50 MP$/);
    const svg = (inner: string, attrs = '') => b64(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"${attrs}>${inner}</svg>`));
    await bad({ contentBase64: svg('<script>alert(1)</script>') }, /^contentBase64: an SVG that holds a script is refused$/);
    await bad({ contentBase64: svg('<rect width="1" height="1"/>', ' onload="alert(1)"') }, /^contentBase64: an SVG that has an event attribute/);
    await bad({ contentBase64: svg('<foreignObject><div/></foreignObject>') }, /^contentBase64: an SVG that holds a foreignObject/);
    await bad({ contentBase64: svg('<image href="https://evil.example/x.png" width="1" height="1"/>') }, /^contentBase64: an SVG that refers outside itself/);
    await bad(
      { contentBase64: svg('<rect style="fill: url(https://evil.example/p)" width="1" height="1"/>') },
      /^contentBase64: an SVG that refers outside itself/,
    );
    await bad({ contentBase64: b64(Buffer.from('%PDF-1.4 not an image')) }, /^contentBase64: must be a PNG, JPEG, WebP, GIF or SVG image$/);
    await bad({ altText: 'x' }, /^contentBase64: give exactly one of contentBase64, sha256 or fileId$/);
    await bad({ contentBase64: 'AAAA', fileId: 'fil_0123456789abcdef' }, /^contentBase64: give exactly one/);
    await bad({ contentBase64: '!!' }, /^contentBase64: must be base64$/);
    await bad({ contentBase64: b64(await png(4, 4)) }, /^missing scope admin/, 'FORBIDDEN_SCOPE', o.designer.key);
  });
});

describe('amendArtifact and the history over images', () => {
  it('amend: alt text, tags, crop, status as new revisions; stale base CONFLICT; same content changed:false; bad fields BAD_REQUEST; unknown NOT_FOUND', async () => {
    const img = (await upload(await png(16, 16, '#101010'), 'amend-src')).asset;
    const a = await libraryWrite(o, 'branding.amendArtifact', { artifactId: img.id, baseRevision: 1, altText: 'Dark', tags: ['dark'], idempotencyId: 'am-1' });
    expect(a).toMatchObject({ changed: true, asset: { revision: 2, altText: 'Dark', tags: ['dark'], sha256: img.sha256 } });
    const crop = { x: 0.1, y: 0.1, width: 0.5, height: 0.5 };
    expect((await libraryWrite(o, 'branding.amendArtifact', { artifactId: img.id, baseRevision: 2, crop, idempotencyId: 'am-2' })).asset.crop).toEqual(crop);
    const same = await libraryWrite(o, 'branding.amendArtifact', { artifactId: img.id, baseRevision: 3, crop, idempotencyId: 'am-3' });
    expect(same).toMatchObject({ changed: false, asset: { revision: 3 } });
    await libraryRefused(
      o,
      'branding.amendArtifact',
      { artifactId: img.id, baseRevision: 1, altText: 'x', idempotencyId: 'am-4' },
      'CONFLICT',
      new RegExp(`^image ${img.id} is at revision 3, not 1: read it and retry with baseRevision 3$`),
    );
    const bad = (params: Record<string, unknown>, message: RegExp) =>
      libraryRefused(
        o,
        'branding.amendArtifact',
        { artifactId: img.id, baseRevision: 3, idempotencyId: `b-${Math.random()}`, ...params },
        'BAD_REQUEST',
        message,
      );
    await bad({}, /^altText: give at least one of altText, tags, crop, status, retainUntil$/);
    await bad({ retainUntil: '2027-01-01T00:00:00Z' }, /^retainUntil: only a render or an export has a retainUntil$/);
    await bad({ crop: { x: 0, y: 0, width: 2, height: 1 } }, /^crop\.width: must be at most 1$/);
    await bad({ artifactId: 'tpl_0123456789abcdef', altText: 'x' }, /^artifactId: must be an img_…, rnd_… or bkx_… id$/);
    await libraryRefused(
      o,
      'branding.amendArtifact',
      { artifactId: 'img_0123456789abcdef', baseRevision: 1, altText: 'x', idempotencyId: 'nf' },
      'NOT_FOUND',
      /^image img_0123456789abcdef not found$/,
    );
    const res = await o.other.rpc('branding.amendArtifact', { artifactId: img.id, baseRevision: 3, altText: 'x', idempotencyId: 'other' });
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('archiving a logo of the live foundation or an image a live template shows: CONFLICT naming it, unless force', async () => {
    const logo = (await upload(await png(32, 16, '#202020'), 'logo')).asset;
    await save(o, { logos: { primary: logo.id } });
    await libraryRefused(
      o,
      'branding.amendArtifact',
      { artifactId: logo.id, baseRevision: 1, status: 'archived', idempotencyId: 'arch-logo' },
      'CONFLICT',
      new RegExp(`^image ${logo.id} is in use, as the live foundation's primary logo`),
    );
    const shown = (await upload(await png(32, 16, '#303030'), 'shown')).asset;
    const body = { ...BODY, children: [...BODY.children.slice(0, 1), { type: 'image', src: shown.id, style: { width: 100 } }] };
    const tpl = (
      await libraryWrite(o, 'branding.cloneTemplate', {
        package: {
          format: 'wops.template/1',
          template: { kind: 'social-post', name: 'With image', size: { width: 1080, height: 1080 }, body, fields: FIELDS },
          tokens: {},
        },
        idempotencyId: 'tpl-img',
      })
    ).template;
    await libraryRefused(
      o,
      'branding.amendArtifact',
      { artifactId: shown.id, baseRevision: 1, status: 'archived', idempotencyId: 'arch-tpl' },
      'CONFLICT',
      new RegExp(`^image ${shown.id} is in use, as shown by live template ${tpl.id}`),
    );
    const { package: pkg } = await read(o.s, 'branding.exportTemplate', { templateId: tpl.id });
    expect(pkg.images).toEqual([{ imageId: shown.id, sha256: shown.sha256 }]);
    const forced = await libraryWrite(o, 'branding.amendArtifact', {
      artifactId: shown.id,
      baseRevision: 1,
      status: 'archived',
      force: true,
      idempotencyId: 'arch-f',
    });
    expect(forced.asset.status).toBe('archived');
  });

  it('undo, redo and restoreVersion cover images: an upload undone is archived, an amend undone goes back; the history lists them', async () => {
    const made = await upload(await png(10, 30, '#404040'), 'hist-up', { altText: 'Before' });
    const amended = await libraryWrite(o, 'branding.amendArtifact', {
      artifactId: made.asset.id,
      baseRevision: 1,
      altText: 'After',
      idempotencyId: 'hist-am',
    });
    const undone = await libraryWrite(o, 'branding.undo', { version: amended.version, idempotencyId: 'hist-undo' });
    expect(undone.items).toEqual([{ itemId: made.asset.id, revision: 3, status: 'active' }]);
    const redone = await libraryWrite(o, 'branding.redo', { version: undone.version, idempotencyId: 'hist-redo' });
    expect(redone.items).toEqual([{ itemId: made.asset.id, revision: 4, status: 'active' }]);
    await libraryRefused(
      o,
      'branding.undo',
      { version: made.version, idempotencyId: 'hist-u2' },
      'CONFLICT',
      new RegExp(`^image ${made.asset.id} was changed again by version ${amended.version}`),
    );
    const restored = await libraryWrite(o, 'branding.restoreVersion', { version: made.version - 1, itemIds: [made.asset.id], idempotencyId: 'hist-r' });
    expect(restored.items).toEqual([{ itemId: made.asset.id, revision: 5, status: 'archived' }]);
    const back = await libraryWrite(o, 'branding.restoreVersion', { version: made.version, itemIds: [made.asset.id], idempotencyId: 'hist-r2' });
    expect(back.items).toEqual([{ itemId: made.asset.id, revision: 6, status: 'active' }]);
    expect((await bytesOf(made.asset.id)).status).toBe('active');
    const { versions } = await read(o.s, 'branding.listVersions', { scope: 'library', itemId: made.asset.id });
    expect(versions.map((v: any) => v.kind)).toEqual(['version.restore', 'version.restore', 'version.redo', 'version.undo', 'artifact.amend', 'image.upload']);
    const page = (await o.s.client.get('ops', { source: 'design', limit: 50 })).body;
    const upload1 = page.records.find((r: any) => r.record.kind === 'branding.image.upload' && r.record.entityId === made.asset.id);
    expect(upload1.record.payload).toMatchObject({ imageId: made.asset.id, source: 'contentBase64', items: 1 });
    expect(JSON.stringify(page.records)).not.toContain('Before');
  });
});
