import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { folder, upload } from './drive-kit.js';
import { ok, refused } from '../../helpers/calls.js';

/* files.list: children, views, search; only what the caller may read; keyset pages. */

const names = (r: any) => r.files.map((f: any) => f.name);

describe('files.list', () => {
  it('lists a folder’s children folders first, by name, in keyset pages; R calls append nothing', async ({ drive: o }) => {
    const top = await folder(o.s, o.mia.key, 'Top');
    for (const n of ['b.txt', 'a.txt', 'c.txt']) await upload(o.s, o.mia.key, n, n, { parentId: top.id });
    for (const n of ['Zeta', 'Alpha']) await folder(o.s, o.mia.key, n, { parentId: top.id });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await ok(o.s, 'files.list', { parentId: top.id, limit: 2, ...(cursor ? { cursor } : {}) }, o.max.key);
      seen.push(...names(r));
      cursor = r.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['Alpha', 'Zeta', 'a.txt', 'b.txt', 'c.txt']);
    expect(names(await ok(o.s, 'files.list', { parentId: top.id, kind: 'folder' }, o.max.key))).toEqual(['Alpha', 'Zeta']);
    expect(names(await ok(o.s, 'files.list', {}, o.max.key))).toContain('Top');
  });

  it('leaves out what the caller cannot read (a restricted folder, its contents, the search)', async ({ drive: o }) => {
    const secret = await folder(o.s, o.mia.key, 'Secret plans', { restricted: true });
    await upload(o.s, o.mia.key, 'launch codes.txt', 'zanzibar orbit', { parentId: secret.id });
    expect(names(await ok(o.s, 'files.list', {}, o.max.key))).not.toContain('Secret plans');
    expect(names(await ok(o.s, 'files.list', {}, o.mia.key))).toContain('Secret plans');
    await refused(o.s, 'files.list', { parentId: secret.id }, 'NOT_FOUND', { key: o.max.key });
    expect((await ok(o.s, 'files.list', { query: 'zanzibar' }, o.max.key)).files).toEqual([]);
    const mine = await ok(o.s, 'files.list', { query: 'zanzibar' }, o.mia.key);
    expect(names(mine)).toEqual(['launch codes.txt']);
    expect(mine.hits[0]).toMatchObject({ matched: 'text', snippet: expect.stringContaining('**zanzibar**') });
    expect(names(await ok(o.s, 'files.list', { query: 'launch' }, o.owner.key))).toEqual(['launch codes.txt']);
    // Fuzzy on names: a typo still finds it.
    expect(names(await ok(o.s, 'files.list', { query: 'lanch' }, o.mia.key))).toContain('launch codes.txt');
  });

  it('views: shared with you, recent, trash', async ({ drive: o }) => {
    const vault = await folder(o.s, o.mia.key, 'Shared vault', { restricted: true });
    await ok(o.s, 'files.shareGrant', { fileId: vault.id, grantee: { principalId: o.max.id }, role: 'viewer' }, o.mia.key);
    expect(names(await ok(o.s, 'files.list', { view: 'shared' }, o.max.key))).toEqual(['Shared vault']);
    // An admin key reads everything; its views work the same way.
    for (const view of ['shared', 'starred', 'recent', 'trash']) await ok(o.s, 'files.list', { view }, o.owner.key);
    const recent = await ok(o.s, 'files.list', { view: 'recent', limit: 1 }, o.mia.key);
    expect(names(recent)).toEqual(['Shared vault']);
    expect(recent.nextCursor).toBeTypeOf('string');
    const next = await ok(o.s, 'files.list', { view: 'recent', limit: 1, cursor: recent.nextCursor }, o.mia.key);
    expect(names(next)).not.toEqual(['Shared vault']);
    const gone = await upload(o.s, o.mia.key, 'old.txt', 'old');
    await ok(o.s, 'files.delete', { fileId: gone.id }, o.mia.key);
    expect(names(await ok(o.s, 'files.list', { view: 'trash' }, o.mia.key))).toContain('old.txt');
    expect(names(await ok(o.s, 'files.list', { view: 'recent', limit: 500 }, o.mia.key))).not.toContain('old.txt');
  });

  it('bad input is BAD_REQUEST naming the field', async ({ drive: o }) => {
    const f = await upload(o.s, o.mia.key, 'f.txt', 'f');
    expect(await refused(o.s, 'files.list', { view: 'nope' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('view');
    expect(await refused(o.s, 'files.list', { view: 'trash', parentId: f.id }, 'BAD_REQUEST', { key: o.mia.key })).toContain('view');
    expect(await refused(o.s, 'files.list', { query: 'x', view: 'trash' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('query');
    expect(await refused(o.s, 'files.list', { parentId: f.id }, 'BAD_REQUEST', { key: o.mia.key })).toContain('parentId');
    expect(await refused(o.s, 'files.list', { cursor: 'garbage' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('cursor');
    expect(await refused(o.s, 'files.list', { limit: 501 }, 'BAD_REQUEST', { key: o.mia.key })).toContain('limit');
  });
});
