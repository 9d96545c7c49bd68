import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { kindContent } from '../../../domain/files/kinds.js';
import { download, folder, upload } from './drive-kit.js';
import { mutate, ok, refused } from '../../helpers/calls.js';

/* files.exportRequest: every download is an export, ledgered with the bytes' hash and size. */

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('files.exportRequest', () => {
  it('an upload leaves as its original bytes through a 15-minute signed URL; the event names hash and size', async ({ drive: o }) => {
    const bytes = Buffer.from('the exact bytes, byte for byte');
    const f = await upload(o.s, o.mia.key, 'exact.txt', bytes);
    const { result, event } = await mutate(o.s, 'files.exportRequest', { fileId: f.id, format: 'original' }, 'files.export.create', { key: o.max.key });
    expect(result.export).toMatchObject({ fileId: f.id, format: 'original', revision: 1, sha256: sha(bytes), sizeBytes: bytes.length, createdBy: o.max.id });
    expect(event.payload).toEqual({
      exportId: result.export.id,
      fileId: f.id,
      kind: 'upload',
      format: 'original',
      revision: 1,
      sha256: sha(bytes),
      sizeBytes: bytes.length,
    });
    expect(JSON.stringify(event)).not.toContain('/api/v1/blobs');
    const minutes = (Date.parse(result.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15.1);
    const got = await download(o.s, result.url);
    expect(got.status).toBe(200);
    expect(Buffer.compare(got.bytes, bytes)).toBe(0);
    expect((await ok(o.s, 'files.get', { fileId: f.id }, o.mia.key)).exports.map((e: any) => e.id)).toEqual([result.export.id]);
  });

  it('an older version by revision; bad format, folder or revision is BAD_REQUEST; unreadable is NOT_FOUND', async ({ drive: o }) => {
    const f = await upload(o.s, o.mia.key, 'v.txt', 'version one');
    await ok(o.s, 'files.uploadRegister', { fileId: f.id, contentBase64: Buffer.from('version two').toString('base64') }, o.mia.key);
    const old = await ok(o.s, 'files.exportRequest', { fileId: f.id, format: 'original', revision: 1 }, o.mia.key);
    expect((await download(o.s, old.url)).bytes.toString()).toBe('version one');
    expect(await refused(o.s, 'files.exportRequest', { fileId: f.id, format: 'original', revision: 3 }, 'BAD_REQUEST', { key: o.mia.key })).toContain(
      'revision',
    );
    expect(await refused(o.s, 'files.exportRequest', { fileId: f.id, format: 'pdf' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('format');
    expect(await refused(o.s, 'files.exportRequest', { fileId: f.id, format: 'PDF!' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('format');
    const dir = await folder(o.s, o.mia.key, 'Nothing to download', { restricted: true });
    expect(await refused(o.s, 'files.exportRequest', { fileId: dir.id, format: 'original' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('fileId');
    const hidden = await upload(o.s, o.mia.key, 'hidden.txt', 'h', { parentId: dir.id });
    await refused(o.s, 'files.exportRequest', { fileId: hidden.id, format: 'original' }, 'NOT_FOUND', { key: o.max.key });
  });

  it('a signed export URL is bound to the export and its requester: a revoked grant, a trashed or purged file stop it', async ({ drive: o }) => {
    const dir = await folder(o.s, o.mia.key, 'Board papers', { restricted: true });
    const f = await upload(o.s, o.mia.key, 'minutes.txt', 'the minutes', { parentId: dir.id });
    const grant = (await ok(o.s, 'files.shareGrant', { fileId: dir.id, grantee: { principalId: o.max.id }, role: 'viewer' }, o.mia.key)).grant;
    const maxUrl = (await ok(o.s, 'files.exportRequest', { fileId: f.id, format: 'original' }, o.max.key)).url as string;
    const miaUrl = (await ok(o.s, 'files.exportRequest', { fileId: f.id, format: 'original' }, o.mia.key)).url as string;
    expect(new URL(maxUrl).searchParams.get('as')).toBe(o.max.id);
    expect((await download(o.s, maxUrl)).status).toBe(200);

    // Max's grant is revoked: his URL stops at once (the same answer as an unknown blob); Mia's still serves.
    await ok(o.s, 'files.shareRevoke', { fileId: dir.id, grantId: grant.id }, o.mia.key);
    const refusedDownload = await download(o.s, maxUrl);
    expect(refusedDownload.status).toBe(404);
    expect(JSON.parse(refusedDownload.bytes.toString()).error.code).toBe('NOT_FOUND');
    expect((await download(o.s, miaUrl)).status).toBe(200);

    // The binding is signed: moving the URL to another export or another requester breaks it.
    const forged = new URL(miaUrl, 'http://x');
    forged.searchParams.set('as', o.max.id);
    expect((await download(o.s, `${forged.pathname}${forged.search}`)).status).toBe(404);
    const unbound = new URL(miaUrl, 'http://x');
    unbound.searchParams.delete('rec');
    unbound.searchParams.delete('as');
    expect((await download(o.s, `${unbound.pathname}${unbound.search}`)).status).toBe(404);

    // Trashed: no download (recover it to download again); purged: gone.
    await ok(o.s, 'files.delete', { fileId: f.id }, o.mia.key);
    expect((await download(o.s, miaUrl)).status).toBe(404);
    await ok(o.s, 'files.recover', { fileId: f.id }, o.mia.key);
    expect((await download(o.s, miaUrl)).status).toBe(200);
    await ok(o.s, 'files.delete', { fileId: f.id }, o.mia.key);
    await ok(o.s, 'files.delete', { fileId: f.id, permanent: true }, o.mia.key);
    expect((await download(o.s, miaUrl)).status).toBe(404);
  });

  it.runIf(kindContent('doc') !== undefined)('a native doc is rendered by its kind and the rendering held by the export', async ({ drive: o }) => {
    const doc = (await ok(o.s, 'files.create', { kind: 'doc', name: 'Memo', content: { markdown: '# Memo\n\nThe pelican clause.' } }, o.mia.key)).file;
    const { result, event } = await mutate(o.s, 'files.exportRequest', { fileId: doc.id, format: 'md' }, 'files.export.create', { key: o.mia.key });
    expect(event.payload).toMatchObject({ kind: 'doc', format: 'md', revision: doc.revision });
    const got = await download(o.s, result.url);
    expect(got.bytes.toString()).toContain('pelican');
    expect(sha(got.bytes)).toBe(result.export.sha256);
    const held = await o.s.runtime.db.query('SELECT holder FROM blob_refs WHERE org_id = $1 AND holder = $2', [o.s.org.orgId, result.export.id]);
    expect(held.length).toBe(1);
    expect(await refused(o.s, 'files.exportRequest', { fileId: doc.id, format: 'original' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('format');
  });
});
