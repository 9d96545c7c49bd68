import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { mutate, ok, otherOrg, refused, rpc } from '../../helpers/calls.js';
import { folder, upload } from './drive-kit.js';

/* files.get, create, rename, duplicate, star: one file at a time. */

describe('files.create and files.get', () => {
  it('creates a folder at the root and a file in it; the creator manages it, the org edits it, the event holds no name', async ({ drive: o }) => {
    const { result, event } = await mutate(o.s, 'files.create', { kind: 'folder', name: 'Plans 2026' }, 'files.file.create', { key: o.mia.key });
    expect(result.file).toMatchObject({
      kind: 'folder',
      name: 'Plans 2026',
      parentId: null,
      restricted: false,
      status: 'active',
      revision: 0,
      createdBy: o.mia.id,
      starred: false,
    });
    expect(event.payload).toMatchObject({ fileId: result.file.id, kind: 'folder', parentId: null });
    expect(JSON.stringify(event)).not.toContain('Plans 2026');

    const inner = await upload(o.s, o.mia.key, 'notes.txt', 'hello drive', { parentId: result.file.id });
    expect(inner).toMatchObject({ kind: 'upload', parentId: result.file.id, revision: 1, sizeBytes: 11, contentType: 'text/plain; charset=utf-8' });

    const mine = await ok(o.s, 'files.get', { fileId: inner.id }, o.mia.key);
    expect(mine).toMatchObject({ myRole: 'manager', path: [{ id: result.file.id, name: 'Plans 2026' }], grants: [], exports: [] });
    const theirs = await ok(o.s, 'files.get', { fileId: inner.id }, o.max.key);
    expect(theirs.myRole).toBe('editor');
  });

  it('a restricted folder hides its contents from the org; get is NOT_FOUND without a grant', async ({ drive: o }) => {
    const secret = await folder(o.s, o.mia.key, 'HR', { restricted: true });
    const inside = await folder(o.s, o.mia.key, 'Salaries', { parentId: secret.id });
    for (const id of [secret.id, inside.id]) expect(await refused(o.s, 'files.get', { fileId: id }, 'NOT_FOUND', { key: o.max.key })).toContain(id);
    expect((await ok(o.s, 'files.get', { fileId: inside.id }, o.owner.key)).myRole).toBe('manager');
    // Creating into a folder you cannot see is NOT_FOUND too.
    await refused(o.s, 'files.create', { kind: 'folder', name: 'x', parentId: secret.id }, 'NOT_FOUND', { key: o.max.key });
  });

  it('refuses bad input naming the field, writing nothing', async ({ drive: o }) => {
    const f = await folder(o.s, o.mia.key, 'F');
    const file = await upload(o.s, o.mia.key, 'a.bin', Buffer.from([1, 2, 3]));
    expect(await refused(o.s, 'files.create', { kind: 'folder', name: '' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('name');
    expect(await refused(o.s, 'files.create', { kind: 'folder', name: 'x'.repeat(256) }, 'BAD_REQUEST', { key: o.mia.key })).toContain('name');
    expect(await refused(o.s, 'files.create', { kind: 'blob', name: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('kind');
    expect(await refused(o.s, 'files.create', { kind: 'folder', name: 'x', extra: 1 }, 'BAD_REQUEST', { key: o.mia.key })).toContain('extra');
    expect(await refused(o.s, 'files.create', { kind: 'upload', name: 'x', restricted: true }, 'BAD_REQUEST', { key: o.mia.key })).toContain('restricted');
    expect(await refused(o.s, 'files.create', { kind: 'folder', name: 'x', content: 'hi' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('content');
    expect(await refused(o.s, 'files.create', { kind: 'folder', name: 'x', reviewMode: true }, 'BAD_REQUEST', { key: o.mia.key })).toContain('reviewMode');
    expect(await refused(o.s, 'files.create', { kind: 'folder', name: 'x', parentId: file.id }, 'BAD_REQUEST', { key: o.mia.key })).toContain('parentId');
    expect(await refused(o.s, 'files.create', { kind: 'folder', name: 'x', parentId: 'fil_nope' }, 'NOT_FOUND', { key: o.mia.key })).toContain('fil_nope');
    expect(await refused(o.s, 'files.get', { fileId: 'doc_1' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('fileId');
    const other = await otherOrg(o.s);
    expect((await other.rpc('files.get', { fileId: f.id })).body.error.code).toBe('NOT_FOUND');
    expect((await other.rpc('files.create', { kind: 'folder', name: 'x', parentId: f.id })).body.error.code).toBe('NOT_FOUND');
  });

  it('an upload given as create content is the same as uploadRegister', async ({ drive: o }) => {
    const { result } = await mutate(
      o.s,
      'files.create',
      { kind: 'upload', name: 'c.txt', content: { contentBase64: Buffer.from('via create').toString('base64') } },
      'files.file.create',
      { key: o.mia.key },
    );
    expect(result.file).toMatchObject({ kind: 'upload', revision: 1, sizeBytes: 10 });
    expect(await refused(o.s, 'files.create', { kind: 'upload', name: 'c', content: { sha256: 'ab' } }, 'BAD_REQUEST', { key: o.mia.key })).toContain(
      'content.sha256',
    );
  });

  it('a missing scope is FORBIDDEN_SCOPE', async ({ drive: o }) => {
    const reader = await o.s.client.mint({ tier: 'reader' }, 'reader');
    const res = await rpc(o.s, 'files.create', { kind: 'folder', name: 'x' }, reader.apiKey);
    expect(res.body.error.code).toBe('FORBIDDEN_SCOPE');
  });
});

describe('files.rename, duplicate, star, move', () => {
  it('renames (editor), a same-name rename is changed:false with a noop event; a viewer is FORBIDDEN_SCOPE', async ({ drive: o }) => {
    const f = await upload(o.s, o.mia.key, 'draft.txt', 'v1');
    const { result, event } = await mutate(o.s, 'files.rename', { fileId: f.id, name: 'final.txt' }, 'files.file.rename', { key: o.max.key });
    expect(result).toMatchObject({ changed: true, file: { name: 'final.txt', updatedBy: o.max.id } });
    expect(JSON.stringify(event.payload)).not.toContain('final');
    const again = await mutate(o.s, 'files.rename', { fileId: f.id, name: 'final.txt' }, 'files.file.rename', { key: o.max.key });
    expect(again.result.changed).toBe(false);
    expect(again.event.payload.noop).toBe(true);

    const hr = await folder(o.s, o.mia.key, 'Viewer-only', { restricted: true });
    const inside = await upload(o.s, o.mia.key, 'x.txt', 'x', { parentId: hr.id });
    await ok(o.s, 'files.shareGrant', { fileId: hr.id, grantee: { principalId: o.max.id }, role: 'viewer' }, o.mia.key);
    expect(await refused(o.s, 'files.rename', { fileId: inside.id, name: 'y' }, 'FORBIDDEN_SCOPE', { key: o.max.key })).toContain('missing role editor');
  });

  it('duplicates an upload sharing its bytes; a folder is BAD_REQUEST; the copy is the caller’s', async ({ drive: o }) => {
    const f = await upload(o.s, o.mia.key, 'report.txt', 'the quarterly numbers');
    const { result, event } = await mutate(o.s, 'files.duplicate', { fileId: f.id }, 'files.file.duplicate', { key: o.max.key });
    expect(result.file).toMatchObject({ name: 'Copy of report.txt', sha256: f.sha256, sizeBytes: f.sizeBytes, createdBy: o.max.id, kind: 'upload' });
    expect(event.payload).toMatchObject({ fromFileId: f.id, fileId: result.file.id, sha256: f.sha256 });
    expect((await ok(o.s, 'files.get', { fileId: result.file.id }, o.max.key)).myRole).toBe('manager');
    const dir = await folder(o.s, o.mia.key, 'Dir');
    expect(await refused(o.s, 'files.duplicate', { fileId: dir.id }, 'BAD_REQUEST', { key: o.mia.key })).toContain('fileId');
    const named = await ok(o.s, 'files.duplicate', { fileId: f.id, name: 'mine.txt', parentId: dir.id }, o.mia.key);
    expect(named.file).toMatchObject({ name: 'mine.txt', parentId: dir.id });
  });

  it('stars per caller; starring twice is changed:false', async ({ drive: o }) => {
    const f = await upload(o.s, o.mia.key, 's.txt', 's');
    expect((await mutate(o.s, 'files.star', { fileId: f.id, starred: true }, 'files.star.set', { key: o.max.key })).result).toMatchObject({
      changed: true,
      file: { starred: true },
    });
    expect((await mutate(o.s, 'files.star', { fileId: f.id, starred: true }, 'files.star.set', { key: o.max.key })).result.changed).toBe(false);
    expect((await ok(o.s, 'files.get', { fileId: f.id }, o.mia.key)).file.starred).toBe(false);
    const starred = await ok(o.s, 'files.list', { view: 'starred' }, o.max.key);
    expect(starred.files.map((x: any) => x.id)).toContain(f.id);
    expect((await mutate(o.s, 'files.star', { fileId: f.id, starred: false }, 'files.star.set', { key: o.max.key })).result.file.starred).toBe(false);
  });

  it('moves a folder with its subtree: access follows the new place; a cycle is BAD_REQUEST', async ({ drive: o }) => {
    const open = await folder(o.s, o.mia.key, 'Open');
    const sub = await folder(o.s, o.mia.key, 'Sub', { parentId: open.id });
    const leaf = await upload(o.s, o.mia.key, 'leaf.txt', 'leaf', { parentId: sub.id });
    const vault = await folder(o.s, o.mia.key, 'Vault', { restricted: true });
    expect((await ok(o.s, 'files.get', { fileId: leaf.id }, o.max.key)).myRole).toBe('editor');

    expect(await refused(o.s, 'files.move', { fileId: open.id, parentId: sub.id }, 'BAD_REQUEST', { key: o.mia.key })).toContain('parentId');
    expect(await refused(o.s, 'files.move', { fileId: open.id, parentId: open.id }, 'BAD_REQUEST', { key: o.mia.key })).toContain('parentId');
    expect(await refused(o.s, 'files.move', { fileId: open.id, parentId: leaf.id }, 'BAD_REQUEST', { key: o.mia.key })).toContain('parentId');

    const { result, event } = await mutate(o.s, 'files.move', { fileId: open.id, parentId: vault.id }, 'files.file.move', { key: o.mia.key });
    expect(result).toMatchObject({ changed: true, file: { parentId: vault.id } });
    expect(event.payload).toMatchObject({ fromParentId: null, toParentId: vault.id, pathsRewritten: 3, openToOrg: false });
    await refused(o.s, 'files.get', { fileId: leaf.id }, 'NOT_FOUND', { key: o.max.key });
    const path = (await ok(o.s, 'files.get', { fileId: leaf.id }, o.mia.key)).path.map((x: any) => x.id);
    expect(path).toEqual([vault.id, open.id, sub.id]);

    await mutate(o.s, 'files.move', { fileId: open.id, parentId: null }, 'files.file.move', { key: o.mia.key });
    expect((await ok(o.s, 'files.get', { fileId: leaf.id }, o.max.key)).myRole).toBe('editor');
    expect((await mutate(o.s, 'files.move', { fileId: open.id, parentId: null }, 'files.file.move', { key: o.mia.key })).result.changed).toBe(false);
    // Into a folder the caller cannot see: NOT_FOUND.
    await refused(o.s, 'files.move', { fileId: open.id, parentId: vault.id }, 'NOT_FOUND', { key: o.max.key });
  });
});
