import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { documentText } from '../../../domain/files/text/index.js';
import { OOXML_DOCX } from '../../../domain/files/text/office.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download, driveOrg, type DriveOrg } from './drive-kit.js';
import { makeDoc, readAll, sha256, write } from './docs-kit.js';
import { ok, refused } from '../../helpers/calls.js';
import { tempDir } from '../../helpers/temp.js';

/* files.exportRequest of a doc: md, html, docx and pdf rendered from a revision; docx and pdf read back by the upload's text extraction (pdf.js for the pdf). */

let o: DriveOrg;
let fileId: string;
beforeAll(async () => {
  o = await driveOrg();
  const file = await makeDoc(o, o.mia.key, {
    markdown: [
      '# Quarterly plan',
      'We ship **bold** things, read [the site](https://example.com) and ask <@usr_alice01>.',
      '- first item',
      '- second item',
      '1. step one',
      '2. step two',
      '> a quoted line',
      '```ts\nconst answer = 42;\n```',
      '---',
      '![diagram](fil_diagram01)',
      'Escapes: <script>alert(1)</script> & done.',
    ].join('\n\n'),
  });
  fileId = file.id;
  await ok(o.s, 'files.docTabOp', { fileId, op: 'add', title: 'Appendix' }, o.mia.key);
  const { read } = await readAll(o, fileId, o.mia.key);
  await write(o, o.mia.key, fileId, read.revision, [{ op: 'setContent', tabId: read.tabs[1].id, markdown: 'Appendix text zebra.' }]);
});
afterAll(() => o.s.close());

async function exported(format: string, revision?: number): Promise<{ bytes: Buffer; result: any; type: string }> {
  const result = await ok(o.s, 'files.exportRequest', { fileId, format, ...(revision ? { revision } : {}) }, o.mia.key);
  const got = await download(o.s, result.url);
  expect(got.status).toBe(200);
  expect(sha256(got.bytes)).toBe(result.export.sha256);
  return { bytes: got.bytes, result, type: String(got.headers['content-type']) };
}

const textOfOffice = (bytes: Buffer) => documentText(bytes, bytes.subarray(0, 4).toString('latin1') === '%PDF' ? 'application/pdf' : OOXML_DOCX);

describe('doc exports', () => {
  it('md: GFM of every tab, each under its title', async () => {
    const { bytes, type } = await exported('md');
    expect(type).toContain('text/markdown');
    const md = bytes.toString('utf8');
    expect(md).toContain('# Tab 1\n\n# Quarterly plan\n\nWe ship **bold** things, read [the site](https://example.com) and ask <@usr_alice01>.');
    expect(md).toContain('- first item\n- second item');
    expect(md).toContain('```ts\nconst answer = 42;\n```');
    expect(md).toContain('![diagram](fil_diagram01)');
    expect(md).toContain('# Appendix\n\nAppendix text zebra.');
  });

  it('html: the schema rendered with text escaped and block ids as anchors', async () => {
    const { bytes, type } = await exported('html');
    expect(type).toContain('text/html');
    const html = bytes.toString('utf8');
    const { blocks } = await readAll(o, fileId, o.mia.key);
    expect(html).toContain(`<h1 id="${blocks[0].attrs.id}">Quarterly plan</h1>`);
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<a href="https://example.com">the site</a>');
    expect(html).toContain('<span data-type="mention" data-id="usr_alice01">@usr_alice01</span>');
    expect(html).toContain('<pre');
    expect(html).toContain('<code class="language-ts">const answer = 42;</code>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; done.');
    expect(html).not.toContain('<script>');
    expect(html).toContain('<h1 class="tab-title">Appendix</h1>');
  });

  it('docx: a Word document whose text reads back (the upload’s extraction, and the XML itself)', async () => {
    const { bytes, type } = await exported('docx');
    expect(type).toContain('wordprocessingml');
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    const text = await textOfOffice(bytes);
    for (const words of [
      'Quarterly plan',
      'first item',
      'step two',
      'a quoted line',
      'const answer = 42;',
      '[image fil_diagram01: diagram]',
      'Appendix text zebra.',
      '<script>alert(1)</script>',
    ]) {
      expect(text).toContain(words);
    }
    const dir = tempDir('docx-');
    writeFileSync(path.join(dir, 'd.docx'), bytes);
    const xml = execFileSync('unzip', ['-p', path.join(dir, 'd.docx'), 'word/document.xml']).toString('utf8');
    expect(xml).toContain('w:val="Heading1"');
    expect(xml).toContain('<w:hyperlink');
  });

  it('pdf: a PDF whose text reads back', async () => {
    const { bytes, type } = await exported('pdf');
    expect(type).toContain('application/pdf');
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = (await textOfOffice(bytes)).replace(/\s+/g, ' ');
    for (const words of ['Quarterly plan', 'first item', 'const answer = 42;', 'Appendix text zebra.']) expect(text).toContain(words);
  }, 30_000);

  it('a past revision exports as it was; a bad format or revision is BAD_REQUEST', async () => {
    const { bytes } = await exported('md', 1);
    expect(bytes.toString('utf8')).not.toContain('Appendix');
    expect(await refused(o.s, 'files.exportRequest', { fileId, format: 'xlsx' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /format: a doc exports as docx, pdf, md, html/,
    );
    expect(await refused(o.s, 'files.exportRequest', { fileId, format: 'md', revision: 99 }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/revision: /);
  });
});
