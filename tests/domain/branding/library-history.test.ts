import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { designLog } from '../../../domain/branding/index.js';
import { head, mutate, ok, read } from '../../helpers/calls.js';
import { brandOrg, designSeq, FOUNDATION, libraryRefused, libraryWrite, PACKAGE, save, versionOf, type BrandOrg } from './kit.js';

/*
 * Scenario 3, the history (starters aside: a template cloned from a package stands for one): amend (retried: one
 * record), delete, undo, redo, restore; no ledger event and one design record each; the chain verifies; the next
 * foundation.save carries its head. Then undo, redo and restoreVersion refused where they must be.
 */

let o: BrandOrg;
beforeAll(async () => {
  o = await brandOrg();
  await save(o, FOUNDATION);
});
afterAll(() => o.s.close());

const template = async (id: string) => (await ok(o.s, 'branding.exportTemplate', { templateId: id })).template;

describe('the library history', () => {
  it('scenario 3: amend (retried), delete, undo, redo, restore; one design record each, no event; the chain verifies; the next save carries its head', async () => {
    const ledger = await head(o.s);
    const seq0 = await designSeq(o);
    const tpl = (await libraryWrite(o, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: 's3-clone' })).template;
    const amendParams = { templateId: tpl.id, baseRevision: 1, name: 'Launch, amended', idempotencyId: 's3-amend' };
    const amended = await libraryWrite(o, 'branding.amendTemplate', amendParams);
    expect(await ok(o.s, 'branding.amendTemplate', amendParams)).toEqual(amended);
    const deleted = await libraryWrite(o, 'branding.deleteTemplate', { templateId: tpl.id, idempotencyId: 's3-delete' });
    const undone = await libraryWrite(o, 'branding.undo', { version: deleted.version, idempotencyId: 's3-undo' });
    expect(undone).toMatchObject({ changed: true, fromVersion: deleted.version, items: [{ itemId: tpl.id, revision: 4, status: 'active' }] });
    expect(await template(tpl.id)).toMatchObject({ status: 'active', name: 'Launch, amended', sha256: amended.template.sha256 });
    const redone = await libraryWrite(o, 'branding.redo', { version: undone.version, idempotencyId: 's3-redo' });
    expect(redone.items).toEqual([{ itemId: tpl.id, revision: 5, status: 'deleted' }]);
    const restored = await libraryWrite(o, 'branding.restoreVersion', { version: tpl.version, idempotencyId: 's3-restore' });
    expect(restored.items).toEqual([{ itemId: tpl.id, revision: 6, status: 'active' }]);
    expect(await template(tpl.id)).toMatchObject({ name: 'Launch post', sha256: tpl.sha256, revision: 6 });

    expect(await head(o.s)).toBe(ledger);
    expect(await designSeq(o)).toBe(seq0 + 6);
    const page = (await o.s.client.get('ops', { source: 'design', order: 'asc' })).body;
    expect(page.records.map((r: any) => r.record.kind)).toEqual([
      'branding.template.clone',
      'branding.template.amend',
      'branding.template.delete',
      'branding.version.undo',
      'branding.version.redo',
      'branding.version.restore',
    ]);
    expect(page.records[3].record.payload).toMatchObject({ undoes: deleted.version, version: undone.version, items: 1 });
    expect(await designLog.verify(o.s.runtime.db, o.s.org.orgId)).toMatchObject({ ok: true, count: 6 });

    const { versions } = await read(o.s, 'branding.listVersions', { scope: 'library', itemId: tpl.id });
    expect(versions.map((v: any) => [v.kind, v.auditRef.designSeq, v.undoneBy])).toEqual([
      ['version.restore', 6, null],
      ['version.redo', 5, null],
      ['version.undo', 4, redone.version],
      ['template.delete', 3, undone.version],
      ['template.amend', 2, null],
      ['template.clone', 1, null],
    ]);
    const { event } = await mutate(o.s, 'branding.saveFoundation', { baseVersion: 1, patch: { name: 'Acme' } }, 'branding.foundation.save');
    expect(event.payload.designHead).toEqual({ seq: 6, hash: page.head.rowHash });
    expect(event.payload.version).toBe(restored.version + 1);
  });

  it('undo: a foundation version is BAD_REQUEST, unknown NOT_FOUND, undone twice or under a later change CONFLICT; redo takes only an undo', async () => {
    const tpl = (await libraryWrite(o, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: 'h-clone' })).template;
    const a = await libraryWrite(o, 'branding.amendTemplate', { templateId: tpl.id, baseRevision: 1, name: 'A', idempotencyId: 'h-a' });
    const b = await libraryWrite(o, 'branding.amendTemplate', { templateId: tpl.id, baseRevision: 2, name: 'B', idempotencyId: 'h-b' });
    await libraryRefused(
      o,
      'branding.undo',
      { version: a.version, idempotencyId: 'u-a' },
      'CONFLICT',
      new RegExp(`^template ${tpl.id} was changed again by version ${b.version} after version ${a.version}: undo version ${b.version} first`),
    );
    const foundationVersion = await versionOf(o);
    await libraryRefused(
      o,
      'branding.undo',
      { version: foundationVersion, idempotencyId: 'u-f' },
      'BAD_REQUEST',
      /^version: version \d+ changed the foundation, not the library: restore a foundation with branding.restoreFoundation$/,
    );
    await libraryRefused(o, 'branding.undo', { version: 9999, idempotencyId: 'u-x' }, 'NOT_FOUND', /^brand version 9999 not found: the latest is \d+/);
    await libraryRefused(
      o,
      'branding.redo',
      { version: b.version, idempotencyId: 'r-b' },
      'BAD_REQUEST',
      /^version: version \d+ is a template.amend, not an undo/,
    );
    const undoB = await libraryWrite(o, 'branding.undo', { version: b.version, idempotencyId: 'u-b' });
    expect((await template(tpl.id)).name).toBe('A');
    await libraryRefused(
      o,
      'branding.undo',
      { version: b.version, idempotencyId: 'u-b2' },
      'CONFLICT',
      new RegExp(`is undone already, by version ${undoB.version}: to have it back, redo version ${undoB.version}`),
    );
    await libraryWrite(o, 'branding.redo', { version: undoB.version, idempotencyId: 'r-ub' });
    await libraryRefused(
      o,
      'branding.redo',
      { version: undoB.version, idempotencyId: 'r-ub2' },
      'CONFLICT',
      /is undone already, by version \d+: undo version \d+ to go back/,
    );
    expect((await template(tpl.id)).name).toBe('B');
    await libraryRefused(o, 'branding.undo', { version: b.version, idempotencyId: 'u-d' }, 'FORBIDDEN_SCOPE', /^missing scope admin/, o.designer.key);
  });

  it('restoreVersion: some items or all; nothing differs: changed:false; a future version NOT_FOUND; a foreign item NOT_FOUND', async () => {
    const tpl = (await libraryWrite(o, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: 'r-clone' })).template;
    const before = tpl.version - 1;
    const one = await libraryWrite(o, 'branding.restoreVersion', { version: before, itemIds: [tpl.id], idempotencyId: 'r-1' });
    expect(one.items).toEqual([{ itemId: tpl.id, revision: 2, status: 'deleted' }]);
    const again = await libraryWrite(o, 'branding.restoreVersion', { version: before, itemIds: [tpl.id], idempotencyId: 'r-2' });
    expect(again).toMatchObject({ changed: false, items: [] });
    const latest = (await ok(o.s, 'branding.getFoundation', {})).latestVersion;
    await libraryRefused(o, 'branding.restoreVersion', { version: latest + 1, idempotencyId: 'r-3' }, 'NOT_FOUND', new RegExp(`the latest is ${latest}`));
    const exported = (await ok(o.s, 'branding.exportTemplate', { templateId: tpl.id, revision: 1 })).package;
    const foreign = (await ok(o.other, 'branding.cloneTemplate', { package: exported, idempotencyId: 'f' })).template;
    await libraryRefused(
      o,
      'branding.restoreVersion',
      { version: 0, itemIds: [foreign.id], idempotencyId: 'r-4' },
      'NOT_FOUND',
      new RegExp(`template ${foreign.id} not found`),
    );
    const empty = await libraryWrite(o, 'branding.restoreVersion', { version: 0, idempotencyId: 'r-5' });
    expect(empty.items.every((i: any) => i.status === 'deleted')).toBe(true);
    expect((await ok(o.s, 'branding.listTemplates', {})).templates).toEqual([]);
    const back = await libraryWrite(o, 'branding.undo', { version: empty.version, idempotencyId: 'r-6' });
    expect(back.items.length).toBe(empty.items.length);
  });
});
