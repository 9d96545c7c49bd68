import { badRequest } from '../../../protocol/errors.js';
import type { SelectorValue } from '../../../protocol/methods/annotation.js';
import type { Queryable } from '../../../db/types.js';
import type { FamilySet } from '../../core/family.js';
import type { Target } from '../../refs.js';
import { loadBlocks, loadRevision } from '../docs/store.js';
import { loadRevision as loadSheetRevision } from '../sheets/store.js';
import { loadRevision as loadDeckRevision } from '../decks/store.js';
import { quoteOf, type DocBlock } from './anchor.js';

/*
 * Which selector fits which target: a doc takes Block (+ TextQuote), a sheet Cell, a deck
 * Slide, a call Line (its transcript) or Time, an audio or video upload Time; every other record is annotated
 * whole. A wrong type is BAD_REQUEST `selector.type` naming the ones that fit. What a selector points at is
 * checked: a transcript line must be the call's, a doc range must be in a block of the doc's head revision, a cell
 * in a tab and a slide in the head of its sheet or deck (read through each kind's store).
 */

type SelectorType = SelectorValue['type'];

/** The selector types a target takes (none: the whole record only). */
export function selectorTypesFor(target: Target): readonly SelectorType[] {
  if (target.file) {
    const f = target.file.file;
    if (f.kind === 'doc') return ['block'];
    if (f.kind === 'sheet') return ['cell'];
    if (f.kind === 'deck') return ['slide'];
    if (f.kind === 'upload' && /^(audio|video)\//.test(f.content_type ?? '')) return ['time'];
    return [];
  }
  if (target.type === 'call') return ['line', 'time'];
  return [];
}

const described = (target: Target): string => {
  const what = target.file ? target.file.file.kind : target.type;
  return `${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} (${target.id})`;
};

/** A doc tab's blocks at its head revision with their plain text (offsets count in it); undefined: no such tab. */
async function docBlocks(q: Queryable, orgId: string, fileId: string, tabId: string): Promise<DocBlock[] | undefined> {
  const tab = (await loadRevision(q, orgId, fileId))?.tabs.find((t) => t.id === tabId);
  if (!tab) return undefined;
  const stored = await loadBlocks(
    q,
    orgId,
    fileId,
    tab.blocks.map((b) => b.hash),
  );
  return tab.blocks.map((b) => ({ id: b.id, text: stored.get(b.hash)!.plain }));
}

/**
 * The selector as stored: checked against the target (BAD_REQUEST naming the field), a doc range given its
 * TextQuote from the doc's text when the caller sent none, and its offsets found again from a quote sent.
 */
export async function checkSelector(
  families: FamilySet,
  q: Queryable,
  orgId: string,
  target: Target,
  selector: SelectorValue,
  field = 'selector',
): Promise<SelectorValue> {
  const fits = selectorTypesFor(target);
  if (!fits.includes(selector.type)) {
    throw badRequest(
      `${field}.type`,
      fits.length === 0
        ? `${described(target)} takes no selector: leave it out to annotate the whole record`
        : `${described(target)} takes ${fits.join(' or ')} selectors, not ${selector.type}`,
    );
  }
  if (selector.type === 'line' && (await lineCall(families, q, orgId, selector.lineId)) !== target.id) {
    throw badRequest(`${field}.lineId`, `no transcript line ${selector.lineId} in ${target.id}`);
  }
  if (selector.type === 'block') return anchorInDoc(await docBlocks(q, orgId, target.id, selector.tabId), selector, target.id, field);
  if (selector.type === 'cell' && !(await loadSheetRevision(q, orgId, target.id))?.tabs.some((t) => t.id === selector.tabId)) {
    throw badRequest(`${field}.tabId`, `no tab ${selector.tabId} in ${target.id}`);
  }
  if (selector.type === 'slide' && !(await loadDeckRevision(q, orgId, target.id))?.slides.some((s) => s.id === selector.slideId)) {
    throw badRequest(`${field}.slideId`, `no slide ${selector.slideId} in ${target.id}`);
  }
  return selector;
}

/**
 * Transcript lines belong to calls (the messaging group, which needs the files group, so it is not imported back):
 * the family that keeps them contributes `transcriptLines`, the call a line is in.
 */
export type TranscriptLines = (q: Queryable, orgId: string, lineId: string) => Promise<string | undefined>;

declare module '../../core/family.js' {
  interface Contributions {
    transcriptLines: TranscriptLines;
  }
}

async function lineCall(families: FamilySet, q: Queryable, orgId: string, lineId: string): Promise<string | undefined> {
  for (const c of families.contributions('transcriptLines')) {
    const callId = await c.value(q, orgId, lineId);
    if (callId) return callId;
  }
  return undefined;
}

type BlockSelector = Extract<SelectorValue, { type: 'block' }>;

function anchorInDoc(blocks: DocBlock[] | undefined, s: BlockSelector, fileId: string, field: string): BlockSelector {
  if (!blocks) throw badRequest(`${field}.tabId`, `no tab ${s.tabId} in ${fileId}`);
  const block = blocks.find((b) => b.id === s.blockId);
  if (!block) throw badRequest(`${field}.blockId`, `no block ${s.blockId} in tab ${s.tabId}`);
  if (s.quote === undefined) {
    if (s.end > block.text.length) throw badRequest(`${field}.end`, `must be at most ${block.text.length} (the block's length)`);
    return s.end === s.start ? s : { ...s, quote: quoteOf(block.text, s.start, s.end) };
  }
  if (block.text.slice(s.start, s.end) === s.quote.exact) return s;
  // The quote is the anchor: its offsets are found in the block (nearest the ones sent).
  let best = -1;
  for (let at = block.text.indexOf(s.quote.exact); at !== -1; at = block.text.indexOf(s.quote.exact, at + 1)) {
    if (best === -1 || Math.abs(at - s.start) < Math.abs(best - s.start)) best = at;
  }
  if (best === -1) throw badRequest(`${field}.quote.exact`, `not found in block ${s.blockId}`);
  return { ...s, start: best, end: best + s.quote.exact.length };
}
