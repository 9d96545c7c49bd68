import { badRequest, conflict } from '../../../protocol/errors.js';
import { sheets as c } from '../../../protocol/methods/files/sheets.js';
import { handler } from '../../core/handler.js';
import { inputText } from './content.js';
import { a1Of, formulaProblem, isFormula, keepBook, parseA1, releaseBook, type CellValue, type TabCells } from './engine.js';
import { commitForCall, headOf, sheetAccess, tabIndex } from './revise.js';
import { changedSince, compose, ownBook } from './store.js';
import { feedAt } from './feeds.js';
import { viewedWrite, viewerOf } from './visible.js';

/*
 * files.sheetWriteCells: inputs into one tab, evaluated together. A write that changes a formula cell needs
 * overwriteFormulas (agents overwriting formulas with values is the classic spreadsheet-API accident); a formula
 * the engine cannot parse is BAD_REQUEST and nothing is written. The event carries ids, counts and hashes only.
 */

const MAX_RECALCULATED = 10_000;

export const sheetWriteCells = handler(c.sheetWriteCells, async (ctx, p) => {
  await sheetAccess(ctx, p.fileId, 'editor', true);
  const head = await headOf(ctx.q, ctx.orgId, p.fileId);
  if (p.baseRevision !== undefined && p.baseRevision > head.revision) {
    throw badRequest('baseRevision', `revision ${p.baseRevision} is ahead of the head (${head.revision}): read the sheet again`);
  }
  const ti = tabIndex(head, p.tabId);
  const writes = new Map<string, { row: number; col: number; input: string }>();
  for (const [i, cell] of p.cells.entries()) {
    const pos = parseA1(cell.a1);
    if (!pos) throw badRequest(`cells.${i}.a1`, `${JSON.stringify(cell.a1)} is not a cell in A1 notation (B7; columns A to XFD, rows 1 to 1048576)`);
    const input = inputText(cell.input, `cells.${i}.input`);
    if (isFormula(input)) {
      const problem = await formulaProblem(input);
      if (problem) throw badRequest(`cells.${i}.input`, `${problem} (${cell.a1})`);
    }
    writes.set(a1Of(pos.row, pos.col), { ...pos, input });
  }

  const fed = [...writes.values()].map((w) => feedAt(head.feeds, head.tabs[ti].id, w.row, w.col)).filter((f) => f !== undefined);
  if (fed.length > 0) {
    const cells = [...writes].filter(([, w]) => feedAt(head.feeds, head.tabs[ti].id, w.row, w.col)).map(([a1]) => a1);
    throw conflict(
      `${cells.slice(0, 20).join(', ')} ${cells.length === 1 ? 'is' : 'are'} fed by ${[...new Set(fed.map((f) => f.id))].join(', ')}: refresh the feed or remove it (files.sheetFedRange), or write elsewhere`,
    );
  }

  const { tabs, book } = await ownBook(ctx.q, ctx.orgId, p.fileId, head);
  // A failure below frees the book unless the cache holds it again.
  try {
    const tab = tabs[ti];
    if (!p.overwriteFormulas) {
      const hit = [...writes].filter(([a1, w]) => isFormula(tab.cells.get(a1) ?? '') && tab.cells.get(a1) !== w.input).map(([a1]) => a1);
      if (hit.length > 0) {
        keepBook(ctx.orgId, p.fileId, head.contentSha256, book);
        throw conflict(`${hit.slice(0, 20).join(', ')} ${hit.length === 1 ? 'holds a formula' : 'hold formulas'}: send overwriteFormulas true to replace them`);
      }
    }
    if (p.baseRevision !== undefined && p.baseRevision < head.revision) {
      const stale = await changedSince(ctx.q, ctx.orgId, p.fileId, tab.id, p.baseRevision, [...writes.keys()]);
      if (stale.length > 0) throw conflict(`${stale.slice(0, 20).join(', ')} changed since revision ${p.baseRevision}: read the sheet again`);
    }

    // Values of every formula cell before, to report what the write recalculated.
    const key = (t: number, a1: string) => `${t}!${a1}`;
    const before = new Map<string, CellValue>();
    tabs.forEach((t, i) => {
      for (const [a1, input] of t.cells) {
        if (!isFormula(input) || (i === ti && writes.has(a1))) continue;
        const { row, col } = parseA1(a1)!;
        before.set(key(i, a1), book.cell(i, row, col));
      }
    });
    const m = book.model;
    m.pauseEvaluation();
    try {
      for (const [a1, w] of writes) {
        try {
          m.setUserInput(ti, w.row, w.col, w.input);
        } catch (e) {
          const i = p.cells.findLastIndex((x) => parseA1(x.a1) !== null && a1Of(parseA1(x.a1)!.row, parseA1(x.a1)!.col) === a1);
          throw badRequest(`cells.${i}.input`, `the sheet engine refused it: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    } finally {
      m.resumeEvaluation();
    }
    m.evaluate();

    const cells = new Map(tab.cells);
    for (const [a1, w] of writes) {
      if (w.input === '') cells.delete(a1);
      else cells.set(a1, isFormula(w.input) ? book.content(ti, w.row, w.col) : w.input);
    }
    const next: TabCells[] = tabs.map((t, i) => (i === ti ? { ...t, cells } : t));
    const read = (a1: string) => {
      const { row, col } = parseA1(a1)!;
      return { a1, input: cells.get(a1) ?? '', ...book.cell(ti, row, col) };
    };
    const written = [...writes.keys()].map(read);
    const recalculated: { tabId: string; a1: string; value: CellValue['value']; error: string | null }[] = [];
    for (const [k, was] of before) {
      const [t, a1] = [Number(k.slice(0, k.indexOf('!'))), k.slice(k.indexOf('!') + 1)];
      const { row, col } = parseA1(a1)!;
      const now = book.cell(t, row, col);
      if ((now.value !== was.value || now.error !== was.error) && recalculated.length < MAX_RECALCULATED) recalculated.push({ tabId: tabs[t].id, a1, ...now });
    }
    const errors = [
      ...written.filter((x) => x.error !== null).map((x) => ({ tabId: tab.id, a1: x.a1, value: x.value, error: x.error })),
      ...recalculated.filter((x) => x.error !== null),
    ];
    const ids = {
      fileId: p.fileId,
      tabId: tab.id,
      baseRevision: p.baseRevision ?? null,
      cells: writes.size,
      recalculated: recalculated.length,
      errors: errors.length,
    };

    // A caller who may not see a feed is answered from the views it may see (visible.ts).
    const seen = async (after: typeof head) =>
      (await viewedWrite(ctx.q, ctx.orgId, p.fileId, head, after, viewerOf(ctx.principal.scopes), ti, [...writes.keys()])) ?? {
        cells: written,
        recalculated,
        errors,
      };
    if (compose(next, 'cells', head.feeds).contentSha256 === head.contentSha256) {
      keepBook(ctx.orgId, p.fileId, head.contentSha256, book);
      const shown = await seen(head);
      await ctx.emit('files.sheet.write', p.fileId, { ...ids, revision: head.revision, contentSha256: head.contentSha256, noop: true });
      return { revision: head.revision, contentSha256: head.contentSha256, ...shown, changed: false };
    }
    const state = await commitForCall(ctx, p.fileId, { state: head, tabs }, next, { source: 'write', baseRevision: p.baseRevision }, 'cells', book);
    const shown = await seen(state);
    await ctx.emit('files.sheet.write', p.fileId, { ...ids, revision: state.revision, contentSha256: state.contentSha256, sizeBytes: state.sizeBytes });
    return { revision: state.revision, contentSha256: state.contentSha256, ...shown, changed: true };
  } catch (e) {
    releaseBook(book);
    throw e;
  }
});
