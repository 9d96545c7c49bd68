import { describe, expect } from 'vitest';
import { documentText } from '../../../domain/files/text/index.js';
import { it } from '../../helpers/fixtures.js';
import { ok, refused } from '../../helpers/calls.js';
import { download } from './drive-kit.js';
import type { DriveOrg } from './drive-kit.js';

/* Sheets and decks as PDF through files.exportRequest, read back by pdf.js (the upload's text extraction). */

async function exportPdf(o: DriveOrg, fileId: string): Promise<string> {
  const exp = await ok(o.s, 'files.exportRequest', { fileId, format: 'pdf' }, o.mia.key);
  const res = await download(o.s, `${new URL(exp.url).pathname}${new URL(exp.url).search}`);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toContain('application/pdf');
  expect(res.bytes.subarray(0, 4).toString('latin1')).toBe('%PDF');
  return (await documentText(res.bytes, 'application/pdf')) ?? '';
}

describe('pdf exports of sheets and decks', () => {
  it('a sheet prints each tab under its title with computed values', async ({ drive: o }) => {
    const content = {
      tabs: [
        { title: 'Costs', cells: { A1: 'Rent', B1: '1200', A2: 'Total', B2: '=B1*3' } },
        { title: 'Notes', cells: { A1: 'Quarterly' } },
      ],
    };
    const { file } = await ok(o.s, 'files.create', { kind: 'sheet', name: 'Budget', content }, o.mia.key);
    const text = await exportPdf(o, file.id);
    for (const words of ['Costs', 'Rent', '1200', 'Total', '3600', 'Notes', 'Quarterly']) expect(text).toContain(words);
    expect(text).not.toContain('=B1*3');
    expect(await refused(o.s, 'files.exportRequest', { fileId: file.id, format: 'pptx' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/xlsx, csv, pdf/);
  });

  it('a deck prints a page per slide, titles and bodies, without the speaker notes', async ({ drive: o }) => {
    const content = {
      slides: [
        { title: 'Why now', body: 'The market moved.', notes: 'Private aside' },
        { title: 'The ask', body: 'Sixteen thousand.' },
      ],
    };
    const { file } = await ok(o.s, 'files.create', { kind: 'deck', name: 'Pitch', content }, o.mia.key);
    const text = await exportPdf(o, file.id);
    for (const words of ['Why now', 'The market moved.', 'The ask', 'Sixteen thousand.']) expect(text).toContain(words);
    expect(text).not.toContain('Private aside');
  });
});
