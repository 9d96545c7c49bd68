import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, refused } from '../../helpers/calls.js';
import { person } from '../../helpers/people.js';
import { tempDir } from '../../helpers/temp.js';
import { download } from '../files/drive-kit.js';
import { brandOrg, libraryWrite, PACKAGE, save, FOUNDATION, type BrandOrg } from './kit.js';
import { hasTools } from '../../helpers/tools.js';

/*
 * branding.exportKit: a zip that Debian's unzip tests and lists exactly as `entries` promised, with the tokens (DTCG,
 * and Style Dictionary's css, js, ios, android), templates as packages, the fonts and their licence, and a
 * guidelines.pdf qpdf accepts; every call a new export (egress) with one event whose sha256 is the served bytes'.
 */

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let o: BrandOrg;
let dir: string;
let tpl: any;
beforeAll(async () => {
  o = await brandOrg();
  await save(o, FOUNDATION);
  tpl = (await libraryWrite(o, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: 'kit-tpl' })).template;
  dir = tempDir('kit');
});
afterAll(() => o.s.close());

const unzip = (file: string, flag: string) => execFileSync('unzip', [flag, file]).toString();

describe('branding.exportKit', () => {
  it.skipIf(!hasTools('unzip', 'qpdf', 'pdftotext'))(
    'the whole kit: unzip -t passes and lists what entries promised; the CSS has --color-brand-primary; the served sha256 is the event’s',
    async () => {
      const { result, event } = await mutate(o.s, 'branding.exportKit', {}, 'branding.kit.export', { key: o.designer.key });
      expect(result.exportId).toMatch(/^bkx_/);
      expect(event.payload).toMatchObject({ exportId: result.exportId, version: result.version, bytes: result.bytes, sha256: result.sha256 });
      const got = await download(o.s, result.url);
      expect(got.status).toBe(200);
      expect(got.bytes.length).toBe(result.bytes);
      expect(sha(got.bytes)).toBe(event.payload.sha256);
      const file = path.join(dir, 'kit.zip');
      writeFileSync(file, got.bytes);
      expect(unzip(file, '-t')).toMatch(/No errors detected/);
      const listed = unzip(file, '-Z1').trim().split('\n');
      expect(listed).toEqual(result.entries.map((e: any) => e.path));
      expect(listed).toEqual(
        expect.arrayContaining([
          'tokens/tokens.json',
          'tokens/tokens.css',
          'tokens/tokens.js',
          'tokens/BrandTokens.swift',
          'tokens/tokens.xml',
          `templates/${tpl.id}.json`,
          'fonts/inter-latin-400-normal.woff2',
          'fonts/OFL.txt',
          'guidelines.pdf',
        ]),
      );
      const read = (entry: string) => execFileSync('unzip', ['-p', file, entry]).toString();
      expect(read('tokens/tokens.css')).toContain('--color-brand-primary: #0b5cad;');
      expect(JSON.parse(read('tokens/tokens.json'))).toEqual(FOUNDATION.tokens);
      expect(read('tokens/tokens.css')).toContain('--color-brand-accent: #e5661a;');
      expect(read('tokens/tokens.xml')).toContain('<dimen name="space_md">16dp</dimen>');
      expect(read('tokens/BrandTokens.swift')).toContain('public static let spaceMd = CGFloat(16)');
      expect(read('tokens/BrandTokens.swift')).toContain('public static let fontBody = "Inter, sans-serif"');
      expect(JSON.parse(read(`templates/${tpl.id}.json`))).toMatchObject({ format: 'wops.template/1', source: { templateId: tpl.id } });
      expect(read('fonts/OFL.txt')).toContain('SIL Open Font License');
      const pdf = path.join(dir, 'guidelines.pdf');
      writeFileSync(pdf, execFileSync('unzip', ['-p', file, 'guidelines.pdf']));
      expect(execFileSync('qpdf', ['--check', pdf]).toString()).toMatch(/No syntax or stream encoding errors/);
      const text = execFileSync('pdftotext', [pdf, '-']).toString();
      for (const words of ['Acme Books', 'color.brand.primary', '#0b5cad', 'passes', 'Say what happened, then what to do.', 'Avoid: synergy'])
        expect(text).toContain(words);
      expect(JSON.stringify(event.payload)).not.toContain('Acme');
    },
  );

  it('formats and include choose the parts; every call is a new export; bad params BAD_REQUEST naming the field; no design.read FORBIDDEN_SCOPE', async () => {
    const params = { formats: ['css'], include: ['tokens'] };
    const one = (await mutate(o.s, 'branding.exportKit', params, 'branding.kit.export')).result;
    expect(one.entries.map((e: any) => e.path)).toEqual(['tokens/tokens.css']);
    const two = (await mutate(o.s, 'branding.exportKit', params, 'branding.kit.export')).result;
    expect(two.exportId).not.toBe(one.exportId);
    expect(two.sha256).toBe(one.sha256);
    // The same version and options, the same bytes: guidelines.pdf's date is fixed as the entries' times are.
    const guide = { include: ['guidelines'] };
    const first = (await mutate(o.s, 'branding.exportKit', guide, 'branding.kit.export')).result;
    expect((await mutate(o.s, 'branding.exportKit', guide, 'branding.kit.export')).result.sha256).toBe(first.sha256);
    await refused(o.s, 'branding.exportKit', { formats: ['pdf'] }, 'BAD_REQUEST', { message: /^formats\.0: / });
    await refused(o.s, 'branding.exportKit', { include: [] }, 'BAD_REQUEST', { message: /^include: must name at least one part$/ });
    await refused(o.s, 'branding.exportKit', { other: true }, 'BAD_REQUEST', { message: /other/ });
    const nobody = await person(o.s, 'No Design', { scopes: ['org.read'], principalKind: 'human' });
    await refused(o.s, 'branding.exportKit', {}, 'FORBIDDEN_SCOPE', { message: /^missing scope design\.read/, key: nobody.key });
    // The URL is the requester's: another member's key cannot make it serve once that member loses design.read.
    expect((await download(o.s, one.url.replace(/sig=[^&]+/, 'sig=AAAA'))).status).toBe(404);
  });
});
