import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { driveOrg, folder, type DriveOrg, upload } from './drive-kit.js';
import { approved, held, mutate, ok, refused } from '../../helpers/calls.js';

/* files.delete and files.recover: the trash, purges (an agent's hold), recovery of a subtree. */

let o: DriveOrg;
beforeAll(async () => {
  o = await driveOrg();
});
afterAll(() => o.s.close());

const refs = async (fileId: string) =>
  one(await o.s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM blob_refs WHERE org_id = $1 AND holder LIKE $2', [o.s.org.orgId, `${fileId}%`]))
    .n;

describe('files.delete and files.recover', () => {
  it('trashes a folder with its subtree; recover brings back exactly that; a second delete is changed:false', async () => {
    const top = await folder(o.s, o.mia.key, 'Project');
    const sub = await folder(o.s, o.mia.key, 'Specs', { parentId: top.id });
    const a = await upload(o.s, o.mia.key, 'a.txt', 'a', { parentId: sub.id });
    const early = await upload(o.s, o.mia.key, 'early.txt', 'e', { parentId: top.id });
    await ok(o.s, 'files.delete', { fileId: early.id }, o.mia.key);

    const { result, event } = await mutate(o.s, 'files.delete', { fileId: top.id }, 'files.file.trash', { key: o.max.key });
    expect(result).toMatchObject({ status: 'trashed', files: 3, changed: true, file: { status: 'trashed', trashedRoot: top.id } });
    expect(event.payload).toMatchObject({ fileId: top.id, files: 3 });
    expect((await ok(o.s, 'files.get', { fileId: a.id }, o.mia.key)).file).toMatchObject({ status: 'trashed', trashedRoot: top.id });
    expect((await mutate(o.s, 'files.delete', { fileId: top.id }, 'files.file.trash', { key: o.max.key })).result.changed).toBe(false);

    // Writes to trashed files wait for a recover; a child goes back with its root only.
    expect(await refused(o.s, 'files.rename', { fileId: a.id, name: 'b' }, 'CONFLICT', { key: o.mia.key })).toContain(`files.recover on ${top.id}`);
    expect(await refused(o.s, 'files.recover', { fileId: a.id }, 'CONFLICT', { key: o.mia.key })).toContain(top.id);
    expect(await refused(o.s, 'files.create', { kind: 'folder', name: 'x', parentId: sub.id }, 'CONFLICT', { key: o.mia.key })).toContain('trash');
    expect(await refused(o.s, 'files.recover', { fileId: early.id }, 'CONFLICT', { key: o.mia.key })).toContain(`folder ${top.id}`);

    const back = await mutate(o.s, 'files.recover', { fileId: top.id }, 'files.file.recover', { key: o.max.key });
    expect(back.result).toMatchObject({ files: 3, changed: true, file: { status: 'active', trashedRoot: null } });
    expect((await ok(o.s, 'files.get', { fileId: a.id }, o.mia.key)).file.status).toBe('active');
    // The file deleted on its own before stays in the trash until recovered itself.
    expect((await ok(o.s, 'files.get', { fileId: early.id }, o.mia.key)).file.status).toBe('trashed');
    expect(await refused(o.s, 'files.recover', { fileId: top.id }, 'CONFLICT', { key: o.mia.key })).toContain('not in the trash');
  });

  it('purges only from the trash and only as manager; the blobs are released; purging again is changed:false', async () => {
    const f = await upload(o.s, o.mia.key, 'purge-me.txt', 'bytes to release');
    await ok(o.s, 'files.exportRequest', { fileId: f.id, format: 'original' }, o.mia.key);
    expect(await refused(o.s, 'files.delete', { fileId: f.id, permanent: true }, 'CONFLICT', { key: o.mia.key })).toContain('not in the trash');
    await ok(o.s, 'files.delete', { fileId: f.id }, o.mia.key);
    expect(await refused(o.s, 'files.delete', { fileId: f.id, permanent: true }, 'FORBIDDEN_SCOPE', { key: o.max.key })).toContain('missing role manager');
    expect(await refs(f.id)).toBe(1);
    const { result, event } = await mutate(o.s, 'files.delete', { fileId: f.id, permanent: true }, 'files.file.purge', { key: o.mia.key });
    expect(result).toMatchObject({ status: 'purged', files: 1, changed: true });
    expect(event.payload).toMatchObject({ fileId: f.id, files: 1, blobsReleased: 1 });
    expect(await refs(f.id)).toBe(0);
    await refused(o.s, 'files.get', { fileId: f.id }, 'NOT_FOUND', { key: o.mia.key });
    await refused(o.s, 'files.recover', { fileId: f.id }, 'NOT_FOUND', { key: o.mia.key });
    const again = await mutate(o.s, 'files.delete', { fileId: f.id, permanent: true }, 'files.file.purge', { key: o.mia.key });
    expect(again.result).toMatchObject({ changed: false, status: 'purged' });
    expect(again.event.payload.noop).toBe(true);
  });

  it('an agent’s purge holds until a human approves; the retry purges', async () => {
    const f = await upload(o.s, o.agent.key, 'agent-scratch.txt', 'scratch');
    await ok(o.s, 'files.delete', { fileId: f.id }, o.agent.key);
    const approval = await held(o.s, 'files.delete', { fileId: f.id, permanent: true }, { key: o.agent.key, holdKind: 'files.signature.hold' });
    expect(approval).toMatchObject({ actionClass: 'files.delete' });
    expect(await refs(f.id)).toBe(1);
    const approvalId = await approved(o.s, approval, o.agent.key, o.owner.key);
    const { result, event } = await mutate(o.s, 'files.delete', { fileId: f.id, permanent: true, approvalId }, 'files.file.purge', { key: o.agent.key });
    expect(result.changed).toBe(true);
    expect(event.payload.approvalId).toBe(approvalId);
    expect(await refs(f.id)).toBe(0);
  });

  it('refuses unknown files and bad input', async () => {
    await refused(o.s, 'files.delete', { fileId: 'fil_nothere' }, 'NOT_FOUND', { key: o.mia.key });
    expect(await refused(o.s, 'files.delete', { fileId: 'fil_x', permanent: 'yes' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('permanent');
    expect(await refused(o.s, 'files.recover', { fileId: 'fil_x', toRevision: 0 }, 'BAD_REQUEST', { key: o.mia.key })).toContain('toRevision');
    const u = await upload(o.s, o.mia.key, 'u.txt', 'u');
    expect(await refused(o.s, 'files.recover', { fileId: u.id, toRevision: 1 }, 'BAD_REQUEST', { key: o.mia.key })).toContain('toRevision');
  });
});
