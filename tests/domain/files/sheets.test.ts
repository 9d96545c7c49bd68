import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { download, folder, type DriveOrg } from './drive-kit.js';
import { clientSha } from './docs-kit.js';

/* files.sheetRead, sheetWriteCells and sheetTabOp on the IronCalc engine, sheets made by files.create. */

/** A sheet made by `key` (default the owner's) from content, in a folder when given: its id. */
async function makeSheet(o: DriveOrg, content?: unknown, opts: { key?: string; parentId?: string } = {}): Promise<string> {
  const params = { kind: 'sheet', name: 'A sheet', ...(content === undefined ? {} : { content }), ...(opts.parentId ? { parentId: opts.parentId } : {}) };
  return (await ok(o.s, 'files.create', params, opts.key ?? o.owner.key)).file.id;
}

const SUM = { tabs: [{ title: 'Data', cells: { A1: 1, A2: 2, A3: '3', A4: '=SUM(A1:A3)', B1: 'Q3 revenue' } }] };

describe('sheet content and files.sheetRead', () => {
  it('=SUM(A1:A3) reads 6; an empty sheet has one tab Sheet1; contentSha256 is the canonical JSON of the inputs', async ({ drive: o }) => {
    const fileId = await makeSheet(o, SUM);
    const read = await ok(o.s, 'files.sheetRead', { fileId });
    expect(read).toMatchObject({ revision: 1, head: 1, range: 'A1:B4' });
    expect(read.cells).toEqual([
      { a1: 'A1', input: '1', value: 1, error: null },
      { a1: 'B1', input: 'Q3 revenue', value: 'Q3 revenue', error: null },
      { a1: 'A2', input: '2', value: 2, error: null },
      { a1: 'A3', input: '3', value: 3, error: null },
      { a1: 'A4', input: '=SUM(A1:A3)', value: 6, error: null },
    ]);
    const tab = read.tabs[0];
    const cells = Object.fromEntries(read.cells.map((c: any) => [c.a1, c.input]));
    expect(clientSha({ tabs: [{ id: tab.id, title: 'Data', cells }] })).toBe(read.contentSha256);
    expect(clientSha(cells)).toBe(tab.sha256);
    expect((await ok(o.s, 'files.get', { fileId })).file).toMatchObject({ kind: 'sheet', revision: 1, sha256: read.contentSha256 });

    const empty = await ok(o.s, 'files.sheetRead', { fileId: await makeSheet(o) });
    expect(empty).toMatchObject({ range: null, cells: [] });
    expect(empty.tabs).toEqual([{ id: expect.stringMatching(/^tab_/), title: 'Sheet1', sha256: expect.any(String), cells: 0 }]);
    expect((await ok(o.s, 'files.sheetRead', { fileId, range: 'a4' })).cells).toEqual([{ a1: 'A4', input: '=SUM(A1:A3)', value: 6, error: null }]);
  });

  it('errors are values: #DIV/0!, a circular reference #CIRC!, an unknown function #NAME?', async ({ drive: o }) => {
    const fileId = await makeSheet(o, { tabs: [{ title: 'S', cells: { A1: '=1/0', B1: '=B2', B2: '=B1', C1: '=NOSUCH(1)', D1: 'TRUE' } }] });
    const cells = (await ok(o.s, 'files.sheetRead', { fileId, range: 'A1:D2' })).cells;
    const by = Object.fromEntries(cells.map((c: any) => [c.a1, c]));
    expect(by.A1).toMatchObject({ value: null, error: '#DIV/0!' });
    expect(by.B1.error).toBe('#CIRC!');
    expect(by.B2.error).toBe('#CIRC!');
    expect(by.C1.error).toBe('#NAME?');
    expect(by.D1).toMatchObject({ value: true, error: null });
  });

  it('BAD_REQUEST for a bad range or one over 10k cells; NOT_FOUND for another org; a non-sheet file names fileId', async ({ drive: o }) => {
    const fileId = await makeSheet(o, SUM);
    for (const range of ['A0', 'ZZZZ1', 'A1:B', 'XFE1']) await refused(o.s, 'files.sheetRead', { fileId, range }, 'BAD_REQUEST', { message: /^range: / });
    await refused(o.s, 'files.sheetRead', { fileId, range: 'A1:J1001' }, 'BAD_REQUEST', { message: /range: .*10010 cells/ });
    await refused(await otherOrg(o.s), 'files.sheetRead', { fileId }, 'NOT_FOUND');
    const f = await folder(o.s, o.owner.key, 'Not a sheet');
    await refused(o.s, 'files.sheetRead', { fileId: f.id }, 'BAD_REQUEST', { message: /fileId: .* is a folder, not a sheet/ });
  });
});

describe('files.sheetWriteCells', () => {
  it('recalculates: A2 changes and the SUM follows; one files.sheet.write event with no cell text', async ({ drive: o }) => {
    const fileId = await makeSheet(o, SUM);
    const cells = [
      { a1: 'A2', input: 20 },
      { a1: 'C1', input: 'secret words' },
    ];
    const { result: w, event } = await mutate(o.s, 'files.sheetWriteCells', { fileId, cells }, 'files.sheet.write');
    expect(w).toMatchObject({ revision: 2, changed: true, errors: [] });
    expect(w.cells).toEqual([
      { a1: 'A2', input: '20', value: 20, error: null },
      { a1: 'C1', input: 'secret words', value: 'secret words', error: null },
    ]);
    expect(w.recalculated).toEqual([{ tabId: expect.stringMatching(/^tab_/), a1: 'A4', value: 24, error: null }]);
    expect(JSON.stringify(event.payload)).not.toMatch(/secret|revenue|SUM|Data/);
    expect(event.payload).toMatchObject({ fileId, cells: 2, recalculated: 1, revision: 2, contentSha256: w.contentSha256 });
    expect((await ok(o.s, 'files.sheetRead', { fileId, range: 'A4' })).cells[0].value).toBe(24);
    // The old revision still reads as it was.
    expect((await ok(o.s, 'files.sheetRead', { fileId, range: 'A4', revision: 1 })).cells[0].value).toBe(6);
    // A write that changes nothing is changed:false, noop.
    expect(await ok(o.s, 'files.sheetWriteCells', { fileId, cells: [{ a1: 'A2', input: '20' }] })).toMatchObject({ revision: 2, changed: false });
  });

  it('a formula cell is CONFLICT without overwriteFormulas, and written with it; a new error shows in errors', async ({ drive: o }) => {
    const fileId = await makeSheet(o, SUM);
    const message = /A4 holds a formula: send overwriteFormulas/;
    await refused(o.s, 'files.sheetWriteCells', { fileId, cells: [{ a1: 'A4', input: 7 }] }, 'CONFLICT', { message });
    const w = await ok(o.s, 'files.sheetWriteCells', { fileId, cells: [{ a1: 'A4', input: '=A1/0' }], overwriteFormulas: true });
    expect(w.cells).toEqual([{ a1: 'A4', input: '=A1/0', value: null, error: '#DIV/0!' }]);
    expect(w.errors).toEqual([{ tabId: expect.any(String), a1: 'A4', value: null, error: '#DIV/0!' }]);
  });

  it('BAD_REQUEST naming cells[i]: A0, ZZZZ1, a formula that does not parse, over 10k cells; baseRevision CONFLICT', async ({ drive: o }) => {
    const fileId = await makeSheet(o, SUM);
    const bad = (params: Record<string, unknown>, code: 'BAD_REQUEST' | 'CONFLICT', message: RegExp) =>
      refused(o.s, 'files.sheetWriteCells', { fileId, ...params }, code, { message });
    const a0 = [
      { a1: 'B1', input: 'x' },
      { a1: 'A0', input: 'x' },
    ];
    await bad({ cells: a0 }, 'BAD_REQUEST', /^cells\.1\.a1: /);
    await bad({ cells: [{ a1: 'ZZZZ1', input: 'x' }] }, 'BAD_REQUEST', /^cells\.0\.a1: /);
    const unparsed = [
      { a1: 'C1', input: 1 },
      { a1: 'C2', input: '=SUM(A1:' },
    ];
    await bad({ cells: unparsed }, 'BAD_REQUEST', /^cells\.1\.input: /);
    const many = Array.from({ length: 10_001 }, (_, i) => ({ a1: `C${i + 1}`, input: i }));
    await bad({ cells: many }, 'BAD_REQUEST', /cells/);
    const w = await ok(o.s, 'files.sheetWriteCells', { fileId, baseRevision: 1, cells: [{ a1: 'A1', input: 5 }] });
    await bad({ baseRevision: 1, cells: [{ a1: 'A1', input: 6 }] }, 'CONFLICT', /A1 changed since revision 1/);
    // Another cell merges onto the head.
    expect((await ok(o.s, 'files.sheetWriteCells', { fileId, baseRevision: 1, cells: [{ a1: 'B2', input: 6 }] })).revision).toBe(w.revision + 1);
    await bad({ baseRevision: 99, cells: [{ a1: 'A1', input: 6 }] }, 'BAD_REQUEST', /baseRevision/);
  });

  it('access: a viewer reads but writing is FORBIDDEN_SCOPE; another org is NOT_FOUND', async ({ drive: o }) => {
    const f = await folder(o.s, o.owner.key, 'Private', { restricted: true });
    const fileId = await makeSheet(o, SUM, { parentId: f.id });
    const write = { fileId, cells: [{ a1: 'A1', input: 1 }] };
    await refused(o.s, 'files.sheetRead', { fileId }, 'NOT_FOUND', { key: o.max.key });
    await ok(o.s, 'files.shareGrant', { fileId, grantee: { principalId: o.max.id }, role: 'viewer' }, o.owner.key);
    expect((await ok(o.s, 'files.sheetRead', { fileId }, o.max.key)).cells).toHaveLength(5);
    await refused(o.s, 'files.sheetWriteCells', write, 'FORBIDDEN_SCOPE', { key: o.max.key, message: new RegExp(`missing role editor on ${fileId}`) });
    await refused(await otherOrg(o.s), 'files.sheetWriteCells', write, 'NOT_FOUND');
  });
});

describe('files.sheetTabOp', () => {
  const inputs = (cells: any[]) => cells.map((c: any) => [c.a1, c.input, c.value]);

  it('insertRows moves references (=SUM(A1:A3) becomes =SUM(A1:A4)); deleteRows moves them back; columns too', async ({ drive: o }) => {
    const fileId = await makeSheet(o, SUM);
    const read = async (range: string) => (await ok(o.s, 'files.sheetRead', { fileId, range })).cells;
    const tabId = (await ok(o.s, 'files.sheetRead', { fileId })).tabs[0].id;
    const { result: ins, event } = await mutate(o.s, 'files.sheetTabOp', { fileId, op: 'insertRows', tabId, at: 2 }, 'files.sheet_tab.change');
    expect(ins).toMatchObject({ revision: 2, changed: true });
    expect(JSON.stringify(event.payload)).not.toMatch(/Data|SUM|revenue/);
    expect(inputs(await read('A1:A5'))).toEqual([
      ['A1', '1', 1],
      ['A3', '2', 2],
      ['A4', '3', 3],
      ['A5', '=SUM(A1:A4)', 6],
    ]);
    await ok(o.s, 'files.sheetWriteCells', { fileId, cells: [{ a1: 'A2', input: 10 }] });
    expect((await read('A5'))[0].value).toBe(16);
    await ok(o.s, 'files.sheetTabOp', { fileId, op: 'deleteRows', tabId, at: 2, count: 1 });
    expect(inputs(await read('A1:A4'))).toEqual([
      ['A1', '1', 1],
      ['A2', '2', 2],
      ['A3', '3', 3],
      ['A4', '=SUM(A1:A3)', 6],
    ]);
    await ok(o.s, 'files.sheetTabOp', { fileId, op: 'insertColumns', tabId, at: 1, count: 2 });
    expect(await read('C4:D4')).toEqual([{ a1: 'C4', input: '=SUM(C1:C3)', value: 6, error: null }]);
    await ok(o.s, 'files.sheetTabOp', { fileId, op: 'deleteColumns', tabId, at: 1, count: 2 });
    expect((await read('A4'))[0].input).toBe('=SUM(A1:A3)');
  });

  it('add, rename (formulas follow), duplicate, move, delete; the last tab is CONFLICT', async ({ drive: o }) => {
    const fileId = await makeSheet(o, SUM);
    const tabOp = (params: Record<string, unknown>) => ok(o.s, 'files.sheetTabOp', { fileId, ...params });
    const read = (params: Record<string, unknown>) => ok(o.s, 'files.sheetRead', { fileId, ...params });
    const titles = (r: any) => r.tabs.map((t: any) => t.title);
    const data = (await read({})).tabs[0].id;
    const added = await tabOp({ op: 'add', title: 'Summary' });
    expect(titles(added)).toEqual(['Data', 'Summary']);
    await ok(o.s, 'files.sheetWriteCells', { fileId, tabId: added.tabId, cells: [{ a1: 'A1', input: '=Data!A4*2' }] });
    expect((await read({ tabId: added.tabId })).cells[0].value).toBe(12);
    await tabOp({ op: 'rename', tabId: data, title: 'Raw' });
    expect((await read({ tabId: added.tabId })).cells[0]).toMatchObject({ input: '=Raw!A4*2', value: 12 });
    await refused(o.s, 'files.sheetTabOp', { fileId, op: 'rename', tabId: added.tabId, title: 'Raw' }, 'BAD_REQUEST', { message: /title/ });
    const dup = await tabOp({ op: 'duplicate', tabId: data, title: 'Copy', position: 0 });
    expect(titles(dup)).toEqual(['Copy', 'Raw', 'Summary']);
    expect((await read({ tabId: dup.tabId, range: 'A4' })).cells[0].value).toBe(6);
    expect(titles(await tabOp({ op: 'move', tabId: dup.tabId, position: 2 }))).toEqual(['Raw', 'Summary', 'Copy']);
    expect(titles(await tabOp({ op: 'delete', tabId: data }))).toEqual(['Summary', 'Copy']);
    expect((await read({ tabId: added.tabId })).cells[0].error).toBe('#REF!');
    await tabOp({ op: 'delete', tabId: dup.tabId });
    await refused(o.s, 'files.sheetTabOp', { fileId, op: 'delete', tabId: added.tabId }, 'CONFLICT', { message: /last tab/ });
    // Each op is a revision; an old one still reads its tabs.
    expect(titles(await read({ revision: 1 }))).toEqual(['Data']);
  });

  it('csv export, duplicate and restore through files.exportRequest, files.duplicate and files.recover', async ({ drive: o }) => {
    const fileId = await makeSheet(o, { tabs: [{ title: 'T', cells: { A1: 'a,b', B1: 2, B2: '=B1*3' } }] });
    const exp = await ok(o.s, 'files.exportRequest', { fileId, format: 'csv' });
    expect((await download(o.s, exp.url)).bytes.toString()).toBe('"a,b",2\r\n,6\r\n');
    const first = await ok(o.s, 'files.sheetRead', { fileId, revision: 1 });
    const copy = (await ok(o.s, 'files.duplicate', { fileId })).file;
    expect(await ok(o.s, 'files.sheetRead', { fileId: copy.id })).toMatchObject({ revision: 1, contentSha256: first.contentSha256 });
    await ok(o.s, 'files.sheetWriteCells', { fileId, cells: [{ a1: 'B1', input: 5 }] });
    const restored = (await ok(o.s, 'files.recover', { fileId, toRevision: 1 })).file;
    expect(restored.revision).toBe(3);
    expect(restored.sha256).toBe(first.contentSha256);
  });
});
