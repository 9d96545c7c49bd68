import { badRequest } from '../../../protocol/errors.js';
import { MAX_READ_CELLS, sheets as c } from '../../../protocol/methods/files/sheets.js';
import { handler } from '../../core/handler.js';
import { a1Of, areaSize, parseA1, parseRange, type Area } from './engine.js';
import { headOf, sheetAccess, tabIndex } from './revise.js';
import { loadRevision, tabInfo } from './store.js';
import { feedView } from './feeds.js';
import { viewerOf, viewSheet } from './visible.js';

/*
 * files.sheetRead: a range of one tab (default its used range) at a revision (default the head): each non-empty
 * cell's input and the value the engine computes, as the caller may see it (visible.ts). Viewers read; a trashed
 * sheet reads too.
 */

export const sheetRead = handler(c.sheetRead, async (ctx, p) => {
  await sheetAccess(ctx, p.fileId, 'viewer', false);
  const head = await headOf(ctx.q, ctx.orgId, p.fileId);
  if (p.revision !== undefined && p.revision > head.revision) throw badRequest('revision', `the head is revision ${head.revision}`);
  const state = p.revision === undefined || p.revision === head.revision ? head : await loadRevision(ctx.q, ctx.orgId, p.fileId, p.revision);
  if (!state) throw badRequest('revision', `no revision ${p.revision} (revisions run 1 to ${head.revision})`);
  const ti = tabIndex(state, p.tabId);
  let area: Area | null = p.range === undefined ? null : parseRange(p.range, 'range');
  if (area && areaSize(area) > MAX_READ_CELLS)
    throw badRequest('range', `${p.range} spans ${areaSize(area)} cells, past the ${MAX_READ_CELLS} a read returns: read it in parts`);
  // Fed cells the caller lacks the source's scope for read #N/A, and so do formulas over them (visible.ts).
  const { tabs, book, feeds } = await viewSheet(ctx.q, ctx.orgId, p.fileId, state, viewerOf(ctx.principal.scopes));
  // From here to the return nothing awaits: the book is the cache's.
  const tab = tabs[ti];
  if (!area && tab.cells.size > 0) {
    area = { top: Infinity, bottom: 0, left: Infinity, right: 0 };
    for (const k of tab.cells.keys()) {
      const { row, col } = parseA1(k)!;
      area = { top: Math.min(area.top, row), bottom: Math.max(area.bottom, row), left: Math.min(area.left, col), right: Math.max(area.right, col) };
    }
    if (areaSize(area) > MAX_READ_CELLS) {
      throw badRequest(
        'range',
        `the tab's used range ${a1Of(area.top, area.left)}:${a1Of(area.bottom, area.right)} spans ${areaSize(area)} cells, past the ${MAX_READ_CELLS} a read returns: give a range`,
      );
    }
  }
  const cells: { a1: string; input: string; value: number | string | boolean | null; error: string | null }[] = [];
  if (area) {
    for (let r = area.top; r <= area.bottom; r++) {
      for (let col = area.left; col <= area.right; col++) {
        const a1 = a1Of(r, col);
        const input = tab.cells.get(a1) ?? '';
        const v = book.cell(ti, r, col);
        if (input !== '' || v.value !== null || v.error !== null) cells.push({ a1, input, ...v });
      }
    }
  }
  const range = area ? (areaSize(area) === 1 ? a1Of(area.top, area.left) : `${a1Of(area.top, area.left)}:${a1Of(area.bottom, area.right)}`) : null;
  return {
    fileId: p.fileId,
    tabId: tab.id,
    revision: state.revision,
    head: head.revision,
    contentSha256: state.contentSha256,
    range,
    cells,
    tabs: tabInfo(state),
    feeds: feeds.flatMap(({ block, def, hidden }) => (def ? [feedView(block, def, hidden)] : [])),
  };
});
