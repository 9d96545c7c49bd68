import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveOrg, folder, type DriveOrg } from './drive-kit.js';
import { rpc } from '../../helpers/calls.js';

/*
 * Paths stay true under concurrency: moves and trashes of a folder race creates deep inside it, and afterwards
 * every file's access path is its parent's plus itself (a restricted folder starts its own), and nothing active
 * sits in a trashed folder. (On PGlite calls queue on one connection; on PostgreSQL they truly overlap.)
 */

let o: DriveOrg;
beforeAll(async () => {
  o = await driveOrg();
});
afterAll(() => o.s.close());

async function inconsistencies(orgId: string): Promise<unknown[]> {
  return o.s.runtime.db.query(
    `SELECT c.file_id, c.access_path, c.open_to_org, p.access_path AS parent_path FROM files c LEFT JOIN files p ON p.org_id = c.org_id AND p.file_id = c.parent_id
      WHERE c.org_id = $1 AND c.status <> 'purged' AND (
        c.access_path <> (CASE WHEN c.restricted OR p.file_id IS NULL THEN ARRAY[c.file_id] ELSE p.access_path || c.file_id END)
        OR c.open_to_org <> (CASE WHEN c.restricted THEN false WHEN p.file_id IS NULL THEN true ELSE p.open_to_org END)
        OR (c.status = 'active' AND p.status = 'trashed'))`,
    [orgId],
  );
}

describe('concurrent moves, trashes and creates', () => {
  it('keeps every access path and trash state consistent', async () => {
    const a = await folder(o.s, o.mia.key, 'A');
    const b = await folder(o.s, o.mia.key, 'B', { parentId: a.id });
    const c = await folder(o.s, o.mia.key, 'C', { parentId: b.id });
    const vault = await folder(o.s, o.mia.key, 'Vault', { restricted: true });
    const creates = Array.from({ length: 12 }, (_, i) => rpc(o.s, 'files.create', { kind: 'folder', name: `n${i}`, parentId: i % 2 ? b.id : c.id }, o.mia.key));
    const moves = [
      rpc(o.s, 'files.move', { fileId: a.id, parentId: vault.id }, o.mia.key),
      rpc(o.s, 'files.move', { fileId: a.id, parentId: null }, o.mia.key),
      rpc(o.s, 'files.move', { fileId: b.id, parentId: vault.id }, o.mia.key),
    ];
    const answers = await Promise.all([...creates, ...moves]);
    for (const r of answers) expect([200, 409]).toContain(r.status);
    expect(await inconsistencies(o.s.org.orgId)).toEqual([]);

    const more = Array.from({ length: 8 }, (_, i) => rpc(o.s, 'files.create', { kind: 'folder', name: `m${i}`, parentId: c.id }, o.mia.key));
    const trash = rpc(o.s, 'files.delete', { fileId: b.id }, o.mia.key);
    for (const r of await Promise.all([...more, trash])) expect([200, 409]).toContain(r.status);
    expect(await inconsistencies(o.s.org.orgId)).toEqual([]);
  });
});

describe('concurrent feeds and writes on one sheet', () => {
  it('two feeds set over one block and writes into it: at most one feed holds it, every write into it is CONFLICT, nothing is lost', async () => {
    const sheet = (await rpc(o.s, 'files.create', { kind: 'sheet', name: 'Race', content: { tabs: [{ title: 'S', cells: { F1: '=SUM(A:C)' } }] } })).body.result
      .file;
    const source = { method: 'books.reports', params: { report: 'trialBalance', asOf: '2026-12-31' }, rows: 'lines', columns: ['account', 'debitCents'] };
    const sets = [0, 1].map(() => rpc(o.s, 'files.sheetFedRange', { fileId: sheet.id, op: 'set', anchor: 'A1', source }));
    const writes = Array.from({ length: 6 }, (_, i) =>
      rpc(o.s, 'files.sheetWriteCells', { fileId: sheet.id, cells: [{ a1: i % 2 ? 'A1' : 'B1', input: `w${i}` }] }),
    );
    const answers = await Promise.all([...sets, ...writes]);
    for (const r of answers) expect([200, 409]).toContain(r.status);
    const setOk = answers.slice(0, 2).filter((r) => r.status === 200);
    const read = (await rpc(o.s, 'files.sheetRead', { fileId: sheet.id })).body.result;
    expect(read.feeds.length).toBe(setOk.length);
    expect(setOk.length).toBeLessThanOrEqual(1);
    // The header row is always in the block: writes that ran first make both sets CONFLICT, a set that ran first refuses them all.
    const wrote = answers.slice(2).filter((r) => r.status === 200).length;
    if (setOk.length === 1) expect(wrote).toBe(0);
    else expect(wrote).toBe(6);
  });
});
