import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_HANDLERS } from '../../../domain/deployed.js';
import { fill, toElement } from '../../../domain/branding/render/tree.js';
import { eventsAfter, head, mutate, noop, ok, refused, rpc } from '../../helpers/calls.js';
import { person } from '../../helpers/people.js';
import { tempDir } from '../../helpers/temp.js';
import { download, folder } from '../files/drive-kit.js';
import { brandOrg, libraryWrite, PACKAGE, save, FOUNDATION, type BrandOrg } from './kit.js';
import { hasTools } from '../../helpers/tools.js';

/*
 * branding.renderTemplate: PNG, SVG and PDF from a template and values on the live tokens (satori, resvg, pdfmake),
 * checked with real tools (sharp's metadata, qpdf); one event per call, the replay of a key its stored frame, the
 * same inputs with a new key the same render (changed:false); the bytes served equal the event's sha256; values
 * checked by field (BAD_REQUEST naming it), another org's template NOT_FOUND, a deleted one CONFLICT.
 */

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let o: BrandOrg;
let tpl: any;
let dir: string;
beforeAll(async () => {
  o = await brandOrg();
  await save(o, FOUNDATION);
  tpl = (await libraryWrite(o, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: 'render-tpl' })).template;
  dir = tempDir('render');
});
afterAll(() => o.s.close());

const render = (params: Record<string, unknown>) => ({ templateId: tpl.id, values: { headline: 'Spring sale', subline: 'all week' }, ...params });

describe('branding.renderTemplate', () => {
  it('a PNG: one event naming the render; the URL serves the bytes of its sha256; 1080×1080 as sharp reads it; a replay is the stored frame; a new key: changed:false', async () => {
    const { result, event } = await mutate(o.s, 'branding.renderTemplate', render({ format: 'png' }), 'branding.template.render', { idem: 'png-1' });
    expect(result).toMatchObject({ templateId: tpl.id, revision: 1, format: 'png', contentType: 'image/png', width: 1080, height: 1080, changed: true });
    expect(result.renderId).toMatch(/^rnd_/);
    expect(result.missingImages).toEqual(['img_0123456789abcdef']);
    expect(event.payload).toMatchObject({ renderId: result.renderId, templateId: tpl.id, revision: 1, version: result.version, sha256: result.sha256 });
    expect(JSON.stringify(event.payload)).not.toContain('Spring sale');
    const got = await download(o.s, result.url);
    expect(got.status).toBe(200);
    expect(sha(got.bytes)).toBe(event.payload.sha256);
    expect(await sharp(got.bytes).metadata()).toMatchObject({ format: 'png', width: 1080, height: 1080 });
    // The background is the surface token (#ffffff), the accent bar the accent token.
    const { data } = await sharp(got.bytes).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([255, 255, 255]);
    const before = await head(o.s);
    expect(await ok(o.s, 'branding.renderTemplate', render({ format: 'png' }), undefined, 'png-1')).toEqual(result);
    expect(await eventsAfter(o.s, before)).toEqual([]);
    const again = await noop(o.s, 'branding.renderTemplate', render({ format: 'png' }), 'branding.template.render');
    expect(again).toMatchObject({ renderId: result.renderId, sha256: result.sha256, changed: false });
    // Another retina density is another render, twice the pixels.
    const big = (await mutate(o.s, 'branding.renderTemplate', render({ format: 'png', scale: 2 }), 'branding.template.render')).result;
    expect(big).toMatchObject({ width: 2160, height: 2160, changed: true });
    const meta = await sharp((await download(o.s, big.url)).bytes).metadata();
    expect([meta.width, meta.height]).toEqual([2160, 2160]);
  });

  it.skipIf(!hasTools('qpdf', 'pdfinfo'))(
    'SVG and PDF: the SVG is drawn (text as paths, no font needed); the PDF passes qpdf --check, one page of the template size',
    async () => {
      const svg = (await mutate(o.s, 'branding.renderTemplate', render({ format: 'svg', scale: 2 }), 'branding.template.render')).result;
      const text = (await download(o.s, svg.url)).bytes.toString();
      expect(text).toMatch(/^<svg width="2160" height="2160" viewBox="0 0 1080 1080"/);
      expect(text).toContain('<path');
      expect(text).not.toContain('Spring sale');
      const pdf = (await mutate(o.s, 'branding.renderTemplate', render({ format: 'pdf' }), 'branding.template.render')).result;
      expect(pdf).toMatchObject({ contentType: 'application/pdf', width: 1080, height: 1080 });
      const file = path.join(dir, 'render.pdf');
      writeFileSync(file, (await download(o.s, pdf.url)).bytes);
      expect(execFileSync('qpdf', ['--check', file]).toString()).toMatch(/No syntax or stream encoding errors/);
      expect(execFileSync('qpdf', ['--show-npages', file]).toString().trim()).toBe('1');
      expect(execFileSync('pdfinfo', [file]).toString()).toMatch(/Page size:\s+1080 x 1080 pts/);
    },
  );

  it('the same inputs render the same bytes, PNG and PDF (another org, the same package and foundation)', async () => {
    await ok(o.other, 'branding.saveFoundation', { baseVersion: 0, patch: FOUNDATION });
    const copy = (await ok(o.other, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: 'same' })).template;
    const here = await ok(o.s, 'branding.renderTemplate', render({ format: 'png' }));
    const there = await ok(o.other, 'branding.renderTemplate', { ...render({ format: 'png' }), templateId: copy.id });
    expect(there.sha256).toBe(here.sha256);
    // A PDF too: its dates are fixed (pdfmake would write the moment, and hash it into the file ID).
    const pdf = { ...render({ format: 'pdf' }), values: { headline: 'Same PDF' } };
    const herePdf = await ok(o.s, 'branding.renderTemplate', pdf);
    const therePdf = await ok(o.other, 'branding.renderTemplate', { ...pdf, templateId: copy.id });
    expect(therePdf.renderId).not.toBe(herePdf.renderId);
    expect(therePdf.sha256).toBe(herePdf.sha256);
    expect((await download(o.s, herePdf.url)).bytes.toString('latin1')).toMatch(/\(D:20260101000000Z\)/);
  });

  it('saveToFolderId files the render as a drive file in that folder', async () => {
    const f = await folder(o.s, o.owner.key, 'Renders');
    const { result, event } = await mutate(
      o.s,
      'branding.renderTemplate',
      render({ saveToFolderId: f.id, values: { headline: 'Filed' } }),
      'branding.template.render',
    );
    expect(result.fileId).toMatch(/^fil_/);
    expect(event.payload.fileId).toBe(result.fileId);
    const file = (await ok(o.s, 'files.get', { fileId: result.fileId })).file;
    expect(file).toMatchObject({ parentId: f.id, name: 'Launch post.png', sha256: result.sha256 });
    await refused(o.s, 'branding.renderTemplate', render({ saveToFolderId: 'fil_0123456789abcdef' }), 'NOT_FOUND');
  });

  it('misuse: BAD_REQUEST naming the field; another org NOT_FOUND; deleted CONFLICT; no design.read FORBIDDEN_SCOPE; nothing appended', async () => {
    const bad = (params: Record<string, unknown>, message: RegExp) => refused(o.s, 'branding.renderTemplate', params, 'BAD_REQUEST', { message });
    await bad(render({ values: { headline: 'x'.repeat(81) } }), /^values\.headline: at most 80 characters$/);
    await bad(render({ values: { nope: 'x' } }), /^values\.nope: unknown field \(fields: headline, subline\)$/);
    await bad(render({ scale: 5 }), /^scale: must be at most 4$/);
    await bad(render({ scale: 0 }), /^scale: must be >= 1$/);
    await bad(render({ format: 'gif' }), /^format: /);
    await bad(render({ revision: 2 ** 31 }), /^revision: must be at most 2147483647$/);
    await bad(render({ extra: 1 }), /extra/);
    const big = { ...PACKAGE, template: { ...PACKAGE.template, size: { width: 4096, height: 4096 } } };
    const huge = (await ok(o.s, 'branding.cloneTemplate', { package: big, idempotencyId: 'huge' })).template;
    await bad({ ...render({ scale: 2 }), templateId: huge.id }, /^scale: 4096×4096 at 2 is 67\.1 MP, above 36 MP: use a smaller scale$/);
    await refused(o.s, 'branding.renderTemplate', render({ revision: 9 }), 'NOT_FOUND', { message: new RegExp(`template ${tpl.id} revision 9 not found`) });
    const res = await rpc(o.other, 'branding.renderTemplate', render({}));
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: `template ${tpl.id} not found` });
    const nobody = await person(o.s, 'No Design', { scopes: ['org.read'], principalKind: 'human' });
    await refused(o.s, 'branding.renderTemplate', render({}), 'FORBIDDEN_SCOPE', { message: /^missing scope design\.read/, key: nobody.key });
    const dup = (await libraryWrite(o, 'branding.cloneTemplate', { templateId: tpl.id, idempotencyId: 'to-delete' })).template;
    await libraryWrite(o, 'branding.deleteTemplate', { templateId: dup.id, idempotencyId: 'del-render' });
    await refused(o.s, 'branding.renderTemplate', { ...render({}), templateId: dup.id }, 'CONFLICT', { message: /is deleted .* to render it$/ });
  });

  it.skipIf(!METHOD_HANDLERS.has('branding.uploadImage'))(
    'an image field: a library image drawn; a missing or unknown image BAD_REQUEST naming the field',
    async () => {
      const png = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#ff0000' } })
        .png()
        .toBuffer();
      const img = (await ok(o.s, 'branding.uploadImage', { contentBase64: png.toString('base64'), idempotencyId: 'red' })).asset;
      const withImage = {
        ...PACKAGE.template,
        body: { type: 'frame', style: { width: 200, height: 100 }, children: [{ type: 'image', src: '{{photo}}', style: { width: 200 } }] },
        fields: [{ name: 'photo', type: 'image' }],
        size: { width: 200, height: 100 },
      };
      const t = (await ok(o.s, 'branding.cloneTemplate', { package: { ...PACKAGE, template: withImage }, idempotencyId: 'img-tpl' })).template;
      const r = await ok(o.s, 'branding.renderTemplate', { templateId: t.id, values: { photo: img.id } });
      const { data } = await sharp((await download(o.s, r.url)).bytes)
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect([...data.subarray(0, 3)]).toEqual([255, 0, 0]);
      await refused(o.s, 'branding.renderTemplate', { templateId: t.id, values: {} }, 'BAD_REQUEST', { message: /^values\.photo: missing image/ });
      await refused(o.s, 'branding.renderTemplate', { templateId: t.id, values: { photo: 'img_0000000000000000' } }, 'BAD_REQUEST', {
        message: /^values\.photo: img_0000000000000000 is no active image of the library$/,
      });
    },
  );
});

describe('the render tree', () => {
  it('values fill slots as text: a value holding {{slots}} or markup adds no nodes', () => {
    expect(fill('Hi {{a}}!', { a: '{{b}} <div>' })).toBe('Hi {{b}} <div>!');
    const input = (values: Record<string, string>) => ({
      body: PACKAGE.template.body,
      size: { width: 1080, height: 1080 },
      tokens: new Map(),
      values,
      images: new Map(),
    });
    const count = (el: any): number =>
      1 + (el.props.children ?? []).filter((c: unknown) => typeof c === 'object').reduce((n: number, c: any) => n + count(c), 0);
    expect(count(toElement(input({ headline: '{{#x}}{{/x}}{{subline}}', subline: '<b>bold</b>' })))).toBe(count(toElement(input({}))));
  });
});
