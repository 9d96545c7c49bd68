import { createHash } from 'node:crypto';
import { Document, Packer, Paragraph } from 'docx';
import { describe, expect } from 'vitest';
import { one } from '../../../db/types.js';
import { it } from '../../helpers/fixtures.js';
import { folder, putBlob, tinyPdf, upload } from './drive-kit.js';
import { mutate, ok, refused } from '../../helpers/calls.js';

/* files.uploadRegister: blobs become files; types sniffed from the bytes; text extracted for search; versions. */

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('files.uploadRegister', () => {
  it('registers a PUT blob: the type comes from the bytes, PDF text is searchable, the event names the hash and size', async ({ drive: o }) => {
    const pdf = tinyPdf('Quarterly hippopotamus forecast');
    const blob = await putBlob(o.s, o.mia.key, pdf, 'image/png');
    const { result, event } = await mutate(
      o.s,
      'files.uploadRegister',
      { sha256: blob.sha256, sizeBytes: blob.size, name: 'forecast.png' },
      'files.upload.register',
      { key: o.mia.key },
    );
    expect(result.file).toMatchObject({
      kind: 'upload',
      name: 'forecast.png',
      contentType: 'application/pdf',
      sha256: sha(pdf),
      sizeBytes: pdf.length,
      revision: 1,
    });
    expect(event.payload).toMatchObject({ fileId: result.file.id, sha256: sha(pdf), sizeBytes: pdf.length, version: 1, newFile: true });
    expect(JSON.stringify(event)).not.toContain('forecast');
    const found = await ok(o.s, 'files.list', { query: 'hippopotamus' }, o.max.key);
    expect(found.files.map((f: any) => f.id)).toEqual([result.file.id]);
  });

  it('extracts DOCX text; a PNG named .pdf is image/png; unknown bytes are octet-stream', async ({ drive: o }) => {
    const docx = await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('The kumquat memorandum')] }] }));
    const d = await upload(o.s, o.mia.key, 'memo.docx', docx);
    expect(d.contentType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect((await ok(o.s, 'files.list', { query: 'kumquat' }, o.mia.key)).files.map((f: any) => f.id)).toEqual([d.id]);
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000a49444154789c63000100000500010d0a2db40000000049454e44ae426082',
      'hex',
    );
    expect((await upload(o.s, o.mia.key, 'fake.pdf', png)).contentType).toBe('image/png');
    expect((await upload(o.s, o.mia.key, 'x.bin', Buffer.from([0, 159, 146, 150, 0, 1]))).contentType).toBe('application/octet-stream');
    // A broken document is still kept (extraction is never fatal), found by its name.
    const broken = await upload(o.s, o.mia.key, 'broken-quince.pdf', Buffer.from('%PDF-1.4\n garbage'));
    expect(broken.contentType).toBe('application/pdf');
    expect((await ok(o.s, 'files.list', { query: 'quince' }, o.mia.key)).files.map((f: any) => f.id)).toEqual([broken.id]);
  });

  it('refuses a wrong or foreign sha256, a size mismatch, both sources, oversize input, naming the field and writing nothing', async ({ drive: o }) => {
    const data = Buffer.from('mine alone');
    const blob = await putBlob(o.s, o.mia.key, data);
    expect(await refused(o.s, 'files.uploadRegister', { sha256: 'f'.repeat(64), sizeBytes: 1, name: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toContain(
      'sha256',
    );
    expect(
      await refused(o.s, 'files.uploadRegister', { sha256: blob.sha256, sizeBytes: blob.size + 1, name: 'x' }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toContain('sha256');
    // Knowing a hash is not owning the bytes: another member's blob is unknown to you.
    expect(await refused(o.s, 'files.uploadRegister', { sha256: blob.sha256, sizeBytes: blob.size, name: 'x' }, 'BAD_REQUEST', { key: o.max.key })).toContain(
      'sha256',
    );
    expect(await refused(o.s, 'files.uploadRegister', { sha256: 'ABC', sizeBytes: 1, name: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('sha256');
    expect(await refused(o.s, 'files.uploadRegister', { sha256: blob.sha256, name: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('sizeBytes');
    expect(await refused(o.s, 'files.uploadRegister', { name: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('sha256');
    expect(
      await refused(o.s, 'files.uploadRegister', { sha256: blob.sha256, sizeBytes: blob.size, contentBase64: 'AA==', name: 'x' }, 'BAD_REQUEST', {
        key: o.mia.key,
      }),
    ).toContain('contentBase64');
    expect(
      await refused(o.s, 'files.uploadRegister', { sha256: blob.sha256, sizeBytes: 200 * 1024 * 1024, name: 'x' }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toContain('sizeBytes');
    expect(await refused(o.s, 'files.uploadRegister', { contentBase64: 'A'.repeat(1_024_004), name: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toContain(
      'contentBase64',
    );
    expect(await refused(o.s, 'files.uploadRegister', { contentBase64: 'not base64!', name: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toContain(
      'contentBase64',
    );
    expect(await refused(o.s, 'files.uploadRegister', { sha256: blob.sha256, sizeBytes: blob.size }, 'BAD_REQUEST', { key: o.mia.key })).toContain('name');
    const count = await o.s.runtime.db.query("SELECT count(*)::int AS n FROM files WHERE org_id = $1 AND name = 'x'", [o.s.org.orgId]);
    expect(one(count).n).toBe(0);
  });

  it('takes inline bytes up to 750 KiB (what fits the API’s 1 MiB params bound)', async ({ drive: o }) => {
    const big = Buffer.alloc(750 * 1024, 0x61);
    const f = await upload(o.s, o.mia.key, 'big.txt', big);
    expect(f).toMatchObject({ sizeBytes: big.length, sha256: sha(big), contentType: 'text/plain; charset=utf-8' });
  });

  it('adds versions to an upload (editor): each holds its blob; the same bytes again is changed:false', async ({ drive: o }) => {
    const dir = await folder(o.s, o.mia.key, 'Versions');
    const f = await upload(o.s, o.mia.key, 'plan.txt', 'plan one', { parentId: dir.id });
    const { result, event } = await mutate(
      o.s,
      'files.uploadRegister',
      { fileId: f.id, contentBase64: Buffer.from('plan two').toString('base64') },
      'files.upload.register',
      { key: o.max.key },
    );
    expect(result).toMatchObject({ changed: true, file: { id: f.id, revision: 2, name: 'plan.txt', sizeBytes: 8, updatedBy: o.max.id } });
    expect(event.payload).toMatchObject({ version: 2, previousSha256: f.sha256, newFile: false });
    const holders = await o.s.runtime.db.query<{ holder: string }>('SELECT holder FROM blob_refs WHERE org_id = $1 AND holder LIKE $2 ORDER BY holder', [
      o.s.org.orgId,
      `${f.id}#%`,
    ]);
    expect(holders.map((h) => h.holder)).toEqual([`${f.id}#v1`, `${f.id}#v2`]);
    const same = await mutate(
      o.s,
      'files.uploadRegister',
      { fileId: f.id, contentBase64: Buffer.from('plan two').toString('base64') },
      'files.upload.register',
      { key: o.max.key },
    );
    expect(same.result.changed).toBe(false);
    expect(same.event.payload.noop).toBe(true);

    expect(await refused(o.s, 'files.uploadRegister', { fileId: dir.id, contentBase64: 'AA==' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('fileId');
    expect(await refused(o.s, 'files.uploadRegister', { fileId: f.id, parentId: dir.id, contentBase64: 'AA==' }, 'BAD_REQUEST', { key: o.mia.key })).toContain(
      'parentId',
    );
    await refused(o.s, 'files.uploadRegister', { fileId: 'fil_unknown', contentBase64: 'AA==' }, 'NOT_FOUND', { key: o.mia.key });
  });
});
