import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { person } from '../../helpers/people.js';
import { download, type DriveOrg } from './drive-kit.js';

/*
 * files.sheetFedRange (decision 0058): books.reports into a sheet as the caller, refresh ok/error per feed, writes
 * into a fed block refused, and a reader without books.read seeing #N/A for the fed cells and the formulas over them
 * in every view: reads, write answers, exports, the guest page, search, copies and past revisions.
 */

/** The expense lines of one month's profit and loss: each test posts in a month of its own, as the org is shared. */
const source = (month: string) => ({
  method: 'books.reports',
  params: { report: 'profitAndLoss', from: `${month}-01`, to: `${month}-28` },
  rows: 'expenses.lines',
  columns: ['account', 'name', 'amountCents'],
});

/** Post an expense of `cents` on account 429 (General expenses) against 850 (Suspense) on `date`. */
async function spend(o: DriveOrg, cents: number, date: string, account = '429'): Promise<void> {
  await ok(
    o.s,
    'books.journalPost',
    {
      date,
      narration: 'Stationery',
      lines: [
        { account, amountCents: cents },
        { account: '850', amountCents: -cents },
      ],
    },
    o.owner.key,
  );
}

/** A budget sheet: a title, a total under where the feed goes, and a feed at A3 filled from the P&L's expense lines. */
async function fedBudget(o: DriveOrg, month: string) {
  const fileId = (
    await ok(o.s, 'files.create', {
      kind: 'sheet',
      name: 'Budget',
      content: { tabs: [{ title: 'Budget', cells: { A1: 'Expenses Q1', E1: 'Total', F1: '=SUM(C:C)', F2: '=IFERROR(C4,0)*0+7' } }] },
    })
  ).file.id;
  const { result, event } = await mutate(o.s, 'files.sheetFedRange', { fileId, op: 'set', anchor: 'A3', source: source(month) }, 'files.sheet_feed.set');
  return { fileId, feed: result.feeds[0], result, event };
}

/** A member who may read and write files but holds no books scope. */
const noBooks = (o: DriveOrg) => person(o.s, 'Nora No-Books', { scopes: ['org.read', 'files.read', 'files.write'], principalKind: 'human' });

const cellsOf = (read: any) => Object.fromEntries(read.cells.map((c: any) => [c.a1, c]));

describe('files.sheetFedRange', () => {
  it('set fills a block from books.reports run as the caller (cents stay integers) and formulas recalculate; refresh picks up new postings', async ({
    drive: o,
  }) => {
    await spend(o, 12_345, '2026-01-10');
    const { fileId, feed, result, event } = await fedBudget(o, '2026-01');
    expect(feed).toMatchObject({ tabId: expect.stringMatching(/^tab_/), range: 'A3:C4', scope: 'books.read', status: 'ok', error: null, hidden: false });
    expect(result).toMatchObject({ revision: 2, changed: true, recalculated: 1 });
    expect(event.payload).toMatchObject({ fileId, feedId: feed.id, method: 'books.reports', feeds: 1, failed: 0, revision: 2 });
    expect(JSON.stringify(event.payload)).not.toMatch(/12345|Stationery|General/);
    const by = cellsOf(await ok(o.s, 'files.sheetRead', { fileId }));
    expect(by.A3).toMatchObject({ input: "'account", value: 'account' });
    expect(by.A4).toMatchObject({ input: "'429", value: '429' });
    expect(by.C4).toMatchObject({ input: '12345', value: 12_345, error: null });
    expect(by.F1).toMatchObject({ value: 12_345 });

    await spend(o, 655, '2026-01-01');
    const again = await ok(o.s, 'files.sheetFedRange', { fileId, op: 'refresh' });
    expect(again).toMatchObject({ revision: 3, changed: true, recalculated: 1, feeds: [{ id: feed.id, status: 'ok', range: 'A3:C4' }] });
    expect(cellsOf(await ok(o.s, 'files.sheetRead', { fileId })).F1.value).toBe(13_000);
    // Nothing new: the refresh changes no cell, and says so.
    expect(await ok(o.s, 'files.sheetFedRange', { fileId, op: 'refresh', feedId: feed.id })).toMatchObject({ revision: 3, changed: false });
    const listed = (await ok(o.s, 'files.sheetRead', { fileId })).feeds;
    expect(listed).toEqual([expect.objectContaining({ id: feed.id, range: 'A3:C4', source: { ...source('2026-01'), header: true }, hidden: false })]);
  });

  it('a write into a fed cell is CONFLICT even with overwriteFormulas; set over content is CONFLICT unless overwrite; overlapping feeds are refused', async ({
    drive: o,
  }) => {
    await spend(o, 100, '2026-02-10');
    const { fileId, feed } = await fedBudget(o, '2026-02');
    for (const overwriteFormulas of [false, true])
      await refused(o.s, 'files.sheetWriteCells', { fileId, cells: [{ a1: 'B4', input: 'x' }], overwriteFormulas }, 'CONFLICT', {
        message: new RegExp(`^B4 is fed by ${feed.id}: refresh the feed or remove it`),
      });
    await refused(o.s, 'files.sheetFedRange', { fileId, op: 'set', anchor: 'A2', source: source('2026-02') }, 'CONFLICT', {
      message: /overlaps feed fed_/,
    });
    await refused(o.s, 'files.sheetFedRange', { fileId, op: 'set', anchor: 'E1', source: source('2026-02') }, 'CONFLICT', {
      message: /^E1, F1, F2 hold content in the block E1:G2: send overwrite true/,
    });
    const over = await ok(o.s, 'files.sheetFedRange', { fileId, op: 'set', anchor: 'E1', source: source('2026-02'), overwrite: true });
    expect(over.feeds[0].range).toBe('E1:G2');
  });

  it('refresh reports ok or error per feed: a block that would grow into content fails alone and keeps its values', async ({ drive: o }) => {
    await spend(o, 100, '2026-03-10');
    const { fileId, feed } = await fedBudget(o, '2026-03');
    const second = (
      await ok(o.s, 'files.sheetFedRange', {
        fileId,
        op: 'set',
        anchor: 'H1',
        source: { method: 'books.reports', params: { report: 'trialBalance', asOf: '2026-12-31' }, rows: 'lines' },
      })
    ).feeds[0];
    expect(second.range).toMatch(/^H1:K\d+$/);
    await ok(o.s, 'files.sheetWriteCells', { fileId, cells: [{ a1: 'A5', input: 'a note under the block' }] });
    await spend(o, 200, '2026-03-20');
    await ok(o.s, 'books.journalPost', {
      date: '2026-03-21',
      narration: 'Rent',
      lines: [
        { account: '404', amountCents: 5000 },
        { account: '850', amountCents: -5000 },
      ],
    });
    const out = await ok(o.s, 'files.sheetFedRange', { fileId, op: 'refresh' });
    const by = Object.fromEntries(out.feeds.map((f: any) => [f.id, f]));
    expect(by[feed.id]).toMatchObject({ status: 'error', range: 'A3:C4', error: expect.stringMatching(/now needs A3:C5, and A5 holds other content/) });
    expect(by[second.id]).toMatchObject({ status: 'ok', error: null });
    expect(cellsOf(await ok(o.s, 'files.sheetRead', { fileId })).C4.value).toBe(100);
    expect((await ok(o.s, 'files.sheetRead', { fileId })).feeds.find((f: any) => f.id === feed.id).status).toBe('error');
  });

  it('FORBIDDEN_SCOPE: set and refresh without books.read, keepValues without it; remove clears the block', async ({ drive: o }) => {
    await spend(o, 100, '2026-04-10');
    const { fileId, feed } = await fedBudget(o, '2026-04');
    const nora = await noBooks(o);
    await ok(o.s, 'files.shareGrant', { fileId, grantee: { principalId: nora.id }, role: 'editor' });
    await refused(o.s, 'files.sheetFedRange', { fileId, op: 'refresh' }, 'FORBIDDEN_SCOPE', {
      key: nora.key,
      message: /missing scope books\.read: refreshing fed_/,
    });
    await refused(o.s, 'files.sheetFedRange', { fileId, op: 'set', anchor: 'H1', source: source('2026-04') }, 'FORBIDDEN_SCOPE', {
      key: nora.key,
      message: /books\.read/,
    });
    await refused(o.s, 'files.sheetFedRange', { fileId, op: 'remove', feedId: feed.id, keepValues: true }, 'FORBIDDEN_SCOPE', { key: nora.key });
    const gone = await mutate(o.s, 'files.sheetFedRange', { fileId, op: 'remove', feedId: feed.id }, 'files.sheet_feed.remove', { key: nora.key });
    expect(gone.result).toMatchObject({ changed: true, feeds: [{ id: feed.id, hidden: true }] });
    const read = await ok(o.s, 'files.sheetRead', { fileId });
    expect(read.feeds).toEqual([]);
    expect(read.cells.map((c: any) => c.a1)).toEqual(['A1', 'E1', 'F1', 'F2']);
    // Gone from the head, the feed is NOT_FOUND to a refresh; keepValues by someone who holds the scope leaves plain cells.
    await refused(o.s, 'files.sheetFedRange', { fileId, op: 'refresh', feedId: feed.id }, 'NOT_FOUND');
    const kept = (await ok(o.s, 'files.sheetFedRange', { fileId, op: 'set', anchor: 'A3', source: source('2026-04') })).feeds[0];
    await ok(o.s, 'files.sheetFedRange', { fileId, op: 'remove', feedId: kept.id, keepValues: true });
    expect(cellsOf(await ok(o.s, 'files.sheetRead', { fileId }, nora.key)).C4.value).toBe(100);
  });

  it('BAD_REQUEST names the field: no source or anchor, a write method, an ask, unknown rows, a list column; NOT_FOUND across orgs', async ({ drive: o }) => {
    await spend(o, 100, '2026-05-10');
    const { fileId } = await fedBudget(o, '2026-05');
    const bad = async (params: Record<string, unknown>, message: RegExp) =>
      refused(o.s, 'files.sheetFedRange', { fileId, op: 'set', anchor: 'H1', source: source('2026-05'), ...params }, 'BAD_REQUEST', { message });
    await refused(o.s, 'files.sheetFedRange', { fileId, op: 'set', source: source('2026-05') }, 'BAD_REQUEST', { message: /^anchor: required/ });
    await refused(o.s, 'files.sheetFedRange', { fileId, op: 'set', anchor: 'A1' }, 'BAD_REQUEST', { message: /^source: required/ });
    await bad({ anchor: 'A0' }, /^anchor: /);
    await bad({ source: { ...source('2026-05'), method: 'books.journalPost' } }, /^source\.method: books\.journalPost is not a read/);
    await bad({ source: { ...source('2026-05'), method: 'books.ask' } }, /^source\.method: books\.ask answers with a model/);
    await bad({ source: { ...source('2026-05'), method: 'books.nosuch' } }, /^source\.method: no method books\.nosuch/);
    await bad(
      { source: { ...source('2026-05'), rows: 'assets' } },
      /^source: books\.reports's result has no list at assets \(its lists: income\.lines, expenses\.lines\)/,
    );
    await bad({ source: { ...source('2026-05'), rows: undefined } }, /several lists \(income\.lines, expenses\.lines\): name one in source\.rows/);
    await bad({ source: { ...source('2026-05'), params: { report: 'nosuch' } } }, /^source: books\.reports answered BAD_REQUEST/);
    await bad(
      { source: { method: 'books.reports', params: { report: 'trialBalance', asOf: '2026-12-31' }, rows: 'lines', columns: ['nosuch', 'account'] } },
      /^source: no row has a field nosuch \(their fields: account, name, debitCents, creditCents\)/,
    );
    await refused(o.s, 'files.sheetFedRange', { fileId, op: 'remove' }, 'BAD_REQUEST', { message: /^feedId: required/ });
    await refused(await otherOrg(o.s), 'files.sheetFedRange', { fileId, op: 'refresh' }, 'NOT_FOUND');
  });
});

describe('what a reader without the source scope sees', () => {
  it('fed cells and every formula over them read #N/A; formulas that do not depend on them read as usual', async ({ drive: o }) => {
    await spend(o, 4_200, '2026-06-10');
    const { fileId } = await fedBudget(o, '2026-06');
    const nora = await noBooks(o);
    await ok(o.s, 'files.shareGrant', { fileId, grantee: { principalId: nora.id }, role: 'editor' });
    const read = await ok(o.s, 'files.sheetRead', { fileId }, nora.key);
    const by = cellsOf(read);
    for (const a1 of ['A3', 'B3', 'C3', 'A4', 'B4', 'C4']) expect(by[a1]).toEqual({ a1, input: '#N/A', value: null, error: '#N/A' });
    expect(by.F1).toMatchObject({ input: '=SUM(C:C)', value: null, error: '#N/A' });
    expect(by.F2).toMatchObject({ value: 7, error: null });
    expect(by.A1.value).toBe('Expenses Q1');
    expect(read.feeds[0]).toMatchObject({ hidden: true, scope: 'books.read' });
    expect(JSON.stringify(read)).not.toContain('4200');

    // A formula she writes over the block answers #N/A too, in the write's own answer.
    const wrote = await ok(
      o.s,
      'files.sheetWriteCells',
      {
        fileId,
        cells: [
          { a1: 'G1', input: '=C4*2' },
          { a1: 'G2', input: '=INDIRECT("C"&4)' },
        ],
      },
      nora.key,
    );
    expect(wrote.cells).toEqual([
      { a1: 'G1', input: '=C4*2', value: null, error: '#N/A' },
      { a1: 'G2', input: '=INDIRECT("C"&4)', value: null, error: '#N/A' },
    ]);
    expect(JSON.stringify(wrote)).not.toContain('4200');
    expect(JSON.stringify(wrote)).not.toContain('8400');
    // The owner, who holds books.read, sees the values.
    const mine = cellsOf(await ok(o.s, 'files.sheetRead', { fileId }));
    expect([mine.C4.value, mine.G1.value, mine.G2.value]).toEqual([4_200, 8_400, 4_200]);
  });

  it('exports, the guest page, search, a copy of the sheet or the tab and a past revision show her no fed value', async ({ drive: o }) => {
    await spend(o, 9_876, '2026-07-10');
    const { fileId, feed } = await fedBudget(o, '2026-07');
    const nora = await noBooks(o);
    await ok(o.s, 'files.shareGrant', { fileId, grantee: { principalId: nora.id }, role: 'editor' });
    for (const format of ['csv', 'xlsx', 'pdf']) {
      const theirs = await ok(o.s, 'files.exportRequest', { fileId, format }, nora.key);
      const mine = await ok(o.s, 'files.exportRequest', { fileId, format });
      expect(theirs.export.sha256, format).not.toBe(mine.export.sha256);
      if (format === 'csv') {
        const text = (await download(o.s, theirs.url)).bytes.toString();
        expect(text).toContain('#N/A');
        expect(text).not.toContain('9876');
      }
    }
    // An outside person's page: no scope at all, so every fed cell and the total over them read #N/A.
    const { guestUrl } = await ok(o.s, 'files.shareGrant', { fileId, grantee: { email: 'client@outside.example' }, role: 'viewer' });
    const guest = await download(o.s, guestUrl);
    expect(guest.status).toBe(200);
    expect(guest.bytes.toString()).toContain('#N/A');
    expect(guest.bytes.toString()).not.toMatch(/9876|9,876|General expenses/);
    // Search: a fed text is never indexed, for anyone.
    expect((await ok(o.s, 'files.list', { query: 'General Expenses' })).files.map((f: any) => f.id)).not.toContain(fileId);

    const copy = (await ok(o.s, 'files.duplicate', { fileId }, nora.key)).file.id;
    const copied = await ok(o.s, 'files.sheetRead', { fileId: copy }, nora.key);
    expect(copied.feeds[0]).toMatchObject({ hidden: true, range: 'A3:C4' });
    expect(JSON.stringify(copied)).not.toContain('9876');
    const tab = copied.tabs[0].id;
    const dup = await ok(o.s, 'files.sheetTabOp', { fileId: copy, op: 'duplicate', tabId: tab }, nora.key);
    const dupRead = await ok(o.s, 'files.sheetRead', { fileId: copy, tabId: dup.tabId }, nora.key);
    expect(JSON.stringify(dupRead)).not.toContain('9876');
    expect(dupRead.feeds).toHaveLength(2);
    expect(cellsOf(await ok(o.s, 'files.sheetRead', { fileId: copy, tabId: dup.tabId })).C4.value).toBe(9_876);

    // A past revision still knows its fed cells, after the feed is removed and its block cleared.
    await ok(o.s, 'files.sheetFedRange', { fileId, op: 'remove', feedId: feed.id });
    const past = await ok(o.s, 'files.sheetRead', { fileId, revision: 2 }, nora.key);
    expect(cellsOf(past).C4.error).toBe('#N/A');
    expect(JSON.stringify(past)).not.toContain('9876');
    // Restoring revision 2 brings the feed back with its cells, still hidden from her.
    await ok(o.s, 'files.recover', { fileId, toRevision: 2 });
    const restored = await ok(o.s, 'files.sheetRead', { fileId }, nora.key);
    expect(restored.feeds).toHaveLength(1);
    expect(cellsOf(restored).C4.error).toBe('#N/A');
  });

  it('row and column ops move and stretch a fed block; deleting its tab drops it', async ({ drive: o }) => {
    await spend(o, 100, '2026-08-10');
    const { fileId, feed } = await fedBudget(o, '2026-08');
    const tabId = feed.tabId;
    await ok(o.s, 'files.sheetTabOp', { fileId, op: 'insertRows', tabId, at: 1, count: 2 });
    expect((await ok(o.s, 'files.sheetRead', { fileId })).feeds[0].range).toBe('A5:C6');
    await ok(o.s, 'files.sheetTabOp', { fileId, op: 'insertColumns', tabId, at: 2 });
    expect((await ok(o.s, 'files.sheetRead', { fileId })).feeds[0].range).toBe('A5:D6');
    await refused(o.s, 'files.sheetWriteCells', { fileId, cells: [{ a1: 'B5', input: 'x' }] }, 'CONFLICT');
    await ok(o.s, 'files.sheetTabOp', { fileId, op: 'deleteRows', tabId, at: 6 });
    expect((await ok(o.s, 'files.sheetRead', { fileId })).feeds[0].range).toBe('A5:D5');
    await ok(o.s, 'files.sheetTabOp', { fileId, op: 'add', title: 'Other' });
    await ok(o.s, 'files.sheetTabOp', { fileId, op: 'delete', tabId });
    expect((await ok(o.s, 'files.sheetRead', { fileId })).feeds).toEqual([]);
  });
});
