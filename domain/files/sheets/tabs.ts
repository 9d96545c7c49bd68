import { badRequest, conflict } from '../../../protocol/errors.js';
import { sheets as c } from '../../../protocol/methods/files/sheets.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { a1Of, engineAct, isFormula, keepBook, parseA1, releaseBook, type Book, type TabCells } from './engine.js';
import { commitForCall, headOf, sheetAccess, tabIndex } from './revise.js';
import { compose, MAX_TABS, ownBook, tabInfo } from './store.js';
import { reanchorCellThreads } from '../annotation/anchor.js';
import { copyFeeds, moveBlocks, type FeedBlock } from './feeds.js';

/*
 * files.sheetTabOp: a sheet's tabs and a tab's rows and columns, done by the engine so formula references follow
 * (inserting a row inside A1:A3 makes it A1:A4; deleting a referenced row makes #REF!; renaming a tab renames it
 * in formulas). Literals move with their cells; formulas everywhere are then read back from the engine. Fed blocks
 * move and stretch the same way; a duplicated tab's feeds are copied with it, a deleted tab's go with it.
 */

type Move = (row: number, col: number) => { row: number; col: number } | null;

/** Where rows or columns move: insert shifts those from `at` on; delete drops [at, at+count) and shifts the rest back. */
function moverOf(op: string, at: number, count: number): Move {
  const shift = (n: number): number | null => {
    if (op.startsWith('insert')) return n >= at ? n + count : n;
    if (n < at) return n;
    return n < at + count ? null : n - count;
  };
  const rows = op.endsWith('Rows');
  return (row, col) => {
    const n = shift(rows ? row : col);
    return n === null ? null : rows ? { row: n, col } : { row, col: n };
  };
}

/** Tabs as the engine now holds them: cells moved (for tab `moved`), formulas read back from the book. */
function resync(tabs: readonly TabCells[], book: Book, moved?: { index: number; move: Move }): TabCells[] {
  return tabs.map((t, i) => {
    const cells = new Map<string, string>();
    for (const [a1, input] of t.cells) {
      const was = parseA1(a1)!;
      const at = moved?.index === i ? moved.move(was.row, was.col) : was;
      if (!at) continue;
      cells.set(a1Of(at.row, at.col), isFormula(input) ? book.content(i, at.row, at.col) : input);
    }
    return { ...t, cells };
  });
}

export const sheetTabOp = handler(c.sheetTabOp, async (ctx, p) => {
  await sheetAccess(ctx, p.fileId, 'editor', true);
  const head = await headOf(ctx.q, ctx.orgId, p.fileId);
  const need = (field: string, v: unknown) => {
    if (v === undefined) throw badRequest(field, `required for op ${p.op}`);
  };
  if (p.op !== 'add') need('tabId', p.tabId);
  const ti = p.op === 'add' ? -1 : tabIndex(head, p.tabId);
  if ((p.op === 'add' || p.op === 'duplicate') && head.tabs.length >= MAX_TABS)
    throw conflict(`the sheet has ${MAX_TABS} tabs, the most it may hold: delete one first`);
  if (p.op === 'delete' && head.tabs.length === 1) {
    throw conflict(`${p.tabId} is the sheet's last tab: a sheet keeps at least one; add another tab first, or trash the sheet (files.delete)`);
  }
  if ((p.op === 'insertColumns' || p.op === 'deleteColumns') && p.at !== undefined && p.at > 16_384) throw badRequest('at', 'columns run 1 (A) to 16384 (XFD)');
  const { tabs, book } = await ownBook(ctx.q, ctx.orgId, p.fileId, head);
  // A failure below frees the book unless the cache holds it again.
  try {
    const m = book.model;
    let list: TabCells[] = [...tabs];
    let tabId = p.tabId ?? '';
    let moved: { index: number; move: Move } | undefined;
    let feeds: FeedBlock[] = head.feeds;
    const lastIndex = () => m.getWorksheetsProperties().length - 1;
    const place = (from: number, position: number | undefined) => {
      const to = Math.min(position ?? from, list.length - 1);
      if (to === from) return;
      engineAct('position', () => m.moveSheet(from, to));
      const [t] = list.splice(from, 1);
      list.splice(to, 0, t);
    };

    switch (p.op) {
      case 'add': {
        need('title', p.title);
        engineAct('title', () => {
          m.newSheet();
          m.renameSheet(lastIndex(), p.title!);
        });
        tabId = newId('tab');
        list.push({ id: tabId, title: p.title!, cells: new Map() });
        place(list.length - 1, p.position);
        break;
      }
      case 'rename': {
        need('title', p.title);
        if (list[ti].title !== p.title) engineAct('title', () => m.renameSheet(ti, p.title!));
        list[ti] = { ...list[ti], title: p.title! };
        break;
      }
      case 'move':
        need('position', p.position);
        place(ti, p.position);
        break;
      case 'duplicate': {
        engineAct('tabId', () => m.duplicateSheet(ti));
        // The engine puts the copy right after its original, titled "<title> (1)".
        const copy = ti + 1;
        if (p.title !== undefined) engineAct('title', () => m.renameSheet(copy, p.title!));
        tabId = newId('tab');
        list.splice(copy, 0, { id: tabId, title: m.getWorksheetsProperties()[copy].name, cells: new Map(list[ti].cells) });
        place(copy, p.position);
        const own = head.feeds.filter((b) => b.tabId === p.tabId);
        if (own.length > 0) feeds = [...feeds, ...(await copyFeeds(ctx.q, ctx.orgId, p.fileId, p.fileId, own, tabId))];
        break;
      }
      case 'delete':
        engineAct('tabId', () => m.deleteSheet(ti));
        list.splice(ti, 1);
        feeds = feeds.filter((b) => b.tabId !== p.tabId);
        break;
      default: {
        need('at', p.at);
        const count = p.count ?? 1;
        const field = p.op.startsWith('insert') ? 'count' : 'at';
        engineAct(field, () => {
          if (p.op === 'insertRows') m.insertRows(ti, p.at!, count);
          else if (p.op === 'deleteRows') m.deleteRows(ti, p.at!, count);
          else if (p.op === 'insertColumns') m.insertColumns(ti, p.at!, count);
          else m.deleteColumns(ti, p.at!, count);
        });
        moved = { index: ti, move: moverOf(p.op, p.at!, count) };
        feeds = moveBlocks(feeds, p.tabId!, p.op, p.at!, count);
      }
    }
    m.evaluate();
    // The engine's order is ours: every tab's formulas are read back (a rename or a delete rewrites references).
    const next = resync(list, book, moved);

    if (compose(next, 'op', feeds).contentSha256 === head.contentSha256 && JSON.stringify(feeds) === JSON.stringify(head.feeds)) {
      keepBook(ctx.orgId, p.fileId, head.contentSha256, book);
      await ctx.emit('files.sheet_tab.change', p.fileId, {
        fileId: p.fileId,
        tabId,
        op: p.op,
        revision: head.revision,
        contentSha256: head.contentSha256,
        tabs: head.tabs.length,
        noop: true,
      });
      return { tabId, tabs: tabInfo(head), revision: head.revision, contentSha256: head.contentSha256, changed: false };
    }
    const state = await commitForCall(ctx, p.fileId, { state: head, tabs }, next, { source: 'tab', feeds }, 'op', book);
    // Cell threads follow their cells (or are orphaned with them, and with a deleted tab), in this transaction.
    if (moved) await reanchorCellThreads(ctx.q, ctx.orgId, p.fileId, tabId, moved.move);
    if (p.op === 'delete') await reanchorCellThreads(ctx.q, ctx.orgId, p.fileId, tabId, null);
    await ctx.emit('files.sheet_tab.change', p.fileId, {
      fileId: p.fileId,
      tabId,
      op: p.op,
      revision: state.revision,
      contentSha256: state.contentSha256,
      tabs: state.tabs.length,
    });
    return { tabId, tabs: tabInfo(state), revision: state.revision, contentSha256: state.contentSha256, changed: true };
  } catch (e) {
    releaseBook(book);
    throw e;
  }
});
