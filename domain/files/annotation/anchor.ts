import type { Queryable } from '../../../db/types.js';
import { a1Of, parseA1 } from '../sheets/engine.js';

/*
 * Re-anchoring (docs/families/files.md, Comments, annotations and pins): when a doc revision changes a tab, each open
 * thread anchored in it finds its quote again: in its own block first (its offsets follow the text), then anywhere in
 * the tab (it moves to that block), else it is orphaned. A thread without a quote keeps its block while the block
 * exists. The doc write calls reanchorDocThreads in its own transaction; its event covers this (no event here).
 */

export interface DocBlock {
  /** The block's stable id (blk_…). */
  id: string;
  /** Its plain text, as offsets count it (UTF-16 units). */
  text: string;
}

export interface TextQuote {
  exact: string;
  prefix?: string;
  suffix?: string;
}

export interface BlockAnchor {
  blockId: string;
  start: number;
  end: number;
  quote?: TextQuote;
}

/** Where the anchor sits now, or null when its text is gone from the tab. */
export type Located = { blockId: string; start: number; end: number } | null;

const commonSuffix = (a: string, b: string): number => {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
};
const commonPrefix = (a: string, b: string): number => {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
};

/** The best occurrence of the quote in a text: most context matching, then nearest `near`; -1 when absent. */
function bestOccurrence(text: string, quote: TextQuote, near: number | null): { at: number; score: number } {
  let best = { at: -1, score: -1, distance: Infinity };
  for (let at = text.indexOf(quote.exact); at !== -1; at = text.indexOf(quote.exact, at + 1)) {
    const score = commonSuffix(text.slice(0, at), quote.prefix ?? '') + commonPrefix(text.slice(at + quote.exact.length), quote.suffix ?? '');
    const distance = near === null ? 0 : Math.abs(at - near);
    if (score > best.score || (score === best.score && distance < best.distance)) best = { at, score, distance };
  }
  return { at: best.at, score: best.score };
}

/** Where an anchor belongs in the tab's blocks now (pure; unit-tested on block lists). */
export function locate(anchor: BlockAnchor, blocks: readonly DocBlock[]): Located {
  const own = blocks.find((b) => b.id === anchor.blockId);
  const quote = anchor.quote;
  if (!quote) {
    if (!own) return null;
    const end = Math.min(anchor.end, own.text.length);
    return { blockId: own.id, start: Math.min(anchor.start, end), end };
  }
  if (own) {
    const hit = bestOccurrence(own.text, quote, anchor.start);
    if (hit.at !== -1) return { blockId: own.id, start: hit.at, end: hit.at + quote.exact.length };
  }
  // Moved: the block in the tab where the quote fits its context best (the first such block in doc order).
  let moved: { blockId: string; at: number; score: number } | null = null;
  for (const b of blocks) {
    if (b.id === anchor.blockId) continue;
    const hit = bestOccurrence(b.text, quote, null);
    if (hit.at !== -1 && (moved === null || hit.score > moved.score)) moved = { blockId: b.id, at: hit.at, score: hit.score };
  }
  return moved && { blockId: moved.blockId, start: moved.at, end: moved.at + quote.exact.length };
}

/** Context kept around a quote captured from the doc: enough to tell repeats apart. */
export const QUOTE_CONTEXT = 32;

/** A TextQuote for [start, end) of a block's text (annotations give one when the caller did not). */
export const quoteOf = (text: string, start: number, end: number): TextQuote => ({
  exact: text.slice(start, end),
  prefix: text.slice(Math.max(0, start - QUOTE_CONTEXT), start),
  suffix: text.slice(end, end + QUOTE_CONTEXT),
});

interface ThreadAnchorRow {
  annotation_id: string;
  selector: { type: 'block'; tabId: string; blockId: string; start: number; end: number; quote?: TextQuote };
  anchor_status: 'anchored' | 'orphaned';
}

export interface ReanchorResult {
  /** Open threads looked at in the tab. */
  threads: number;
  /** Anchored in another block than before. */
  moved: number;
  /** Newly orphaned. */
  orphaned: number;
}

/**
 * Re-anchor the open threads on a doc's tab to its new blocks (every top-level block of the tab, in order, with
 * its plain text), in the caller's transaction. A deleted tab is an empty block list: its threads are orphaned.
 * Orphaned open threads are tried too, so text that comes back anchors them again.
 */
export async function reanchorDocThreads(q: Queryable, orgId: string, fileId: string, tabId: string, blocks: readonly DocBlock[]): Promise<ReanchorResult> {
  const rows = await q.query<ThreadAnchorRow>(
    `SELECT annotation_id, selector, anchor_status FROM annotations
      WHERE org_id = $1 AND target_id = $2 AND anchor_tab = $3 AND status = 'open' ORDER BY annotation_id FOR UPDATE`,
    [orgId, fileId, tabId],
  );
  const result: ReanchorResult = { threads: rows.length, moved: 0, orphaned: 0 };
  for (const row of rows) {
    const sel = row.selector;
    const at = locate(sel, blocks);
    if (at === null) {
      if (row.anchor_status === 'orphaned') continue;
      result.orphaned++;
      await q.query(`UPDATE annotations SET anchor_status = 'orphaned' WHERE org_id = $1 AND annotation_id = $2`, [orgId, row.annotation_id]);
      continue;
    }
    if (at.blockId === sel.blockId && at.start === sel.start && at.end === sel.end && row.anchor_status === 'anchored') continue;
    if (at.blockId !== sel.blockId) result.moved++;
    const selector = { ...sel, blockId: at.blockId, start: at.start, end: at.end };
    await q.query(`UPDATE annotations SET selector = $3::jsonb, anchor_block = $4, anchor_status = 'anchored' WHERE org_id = $1 AND annotation_id = $2`, [
      orgId,
      row.annotation_id,
      JSON.stringify(selector),
      at.blockId,
    ]);
  }
  return result;
}

/** Where a cell went after a row or column op: its new row and column, or null when it was deleted. */
export type CellMove = (row: number, col: number) => { row: number; col: number } | null;

/**
 * Follow the open cell threads on a sheet tab through a row or column insert or delete (`move`), or orphan them all
 * when the tab is deleted (`move` null), in the caller's transaction: a thread on B2 is on B3 once a row is inserted
 * above it; a range keeps both corners or, with a corner deleted, is orphaned.
 */
export async function reanchorCellThreads(q: Queryable, orgId: string, fileId: string, tabId: string, move: CellMove | null): Promise<ReanchorResult> {
  const rows = await q.query<{ annotation_id: string; selector: { type: 'cell'; tabId: string; a1: string } }>(
    `SELECT annotation_id, selector FROM annotations
      WHERE org_id = $1 AND target_id = $2 AND anchor_tab = $3 AND selector_type = 'cell' AND status = 'open' AND anchor_status = 'anchored'
      ORDER BY annotation_id FOR UPDATE`,
    [orgId, fileId, tabId],
  );
  const result: ReanchorResult = { threads: rows.length, moved: 0, orphaned: 0 };
  for (const row of rows) {
    const corners = row.selector.a1.split(':').map((a1) => {
      const at = parseA1(a1);
      return at && move ? move(at.row, at.col) : null;
    });
    if (corners.some((c) => c === null)) {
      result.orphaned++;
      await q.query(`UPDATE annotations SET anchor_status = 'orphaned' WHERE org_id = $1 AND annotation_id = $2`, [orgId, row.annotation_id]);
      continue;
    }
    const a1 = corners.map((c) => a1Of(c!.row, c!.col)).join(':');
    if (a1 === row.selector.a1) continue;
    result.moved++;
    await q.query(`UPDATE annotations SET selector = $3::jsonb WHERE org_id = $1 AND annotation_id = $2`, [
      orgId,
      row.annotation_id,
      JSON.stringify({ ...row.selector, a1 }),
    ]);
  }
  return result;
}

/** Orphan the open threads on slides a revision deleted, in the caller's transaction. */
export async function orphanSlideThreads(q: Queryable, orgId: string, fileId: string, slideIds: readonly string[]): Promise<void> {
  if (slideIds.length === 0) return;
  await q.query(
    `UPDATE annotations SET anchor_status = 'orphaned'
      WHERE org_id = $1 AND target_id = $2 AND selector_type = 'slide' AND anchor_block = ANY($3::text[]) AND status = 'open' AND anchor_status = 'anchored'`,
    [orgId, fileId, slideIds],
  );
}
