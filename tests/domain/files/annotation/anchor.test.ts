import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locate, quoteOf, reanchorDocThreads, type DocBlock } from '../../../../domain/files/annotation/anchor.js';
import type { Runtime } from '../../../../domain/deployed.js';
import { newId } from '../../../../domain/core/ids.js';
import { freshOrg, testRuntime } from '../../../helpers/harness.js';

/* Re-anchoring on block lists: the quote in its block, then anywhere in the tab, else orphaned. */

const blocks = (...texts: [string, string][]): DocBlock[] => texts.map(([id, text]) => ({ id, text }));

describe('locate', () => {
  it('follows the quote inside its block when text before it changes', () => {
    const anchor = { blockId: 'blk_a', start: 6, end: 11, quote: { exact: 'brown', prefix: 'quick ', suffix: ' fox' } };
    expect(locate(anchor, blocks(['blk_a', 'The quick brown fox']))).toEqual({ blockId: 'blk_a', start: 10, end: 15 });
  });

  it('picks the occurrence whose context matches, then the nearest', () => {
    const text = 'red apple, green apple, red apple';
    const green = { blockId: 'blk_a', start: 0, end: 5, quote: { exact: 'apple', prefix: 'green ', suffix: ', red' } };
    expect(locate(green, blocks(['blk_a', text]))).toEqual({ blockId: 'blk_a', start: 17, end: 22 });
    const near = { blockId: 'blk_a', start: 27, end: 32, quote: { exact: 'apple' } };
    expect(locate(near, blocks(['blk_a', text]))).toEqual({ blockId: 'blk_a', start: 28, end: 33 });
  });

  it('moves to the block of the tab that holds the quote when its block lost it or is gone', () => {
    const anchor = { blockId: 'blk_a', start: 0, end: 4, quote: { exact: 'plan', prefix: '', suffix: ' B' } };
    const moved = blocks(['blk_a', 'nothing here'], ['blk_b', 'plan A'], ['blk_c', 'the plan B']);
    expect(locate(anchor, moved)).toEqual({ blockId: 'blk_c', start: 4, end: 8 });
    expect(locate(anchor, blocks(['blk_x', 'our plan']))).toEqual({ blockId: 'blk_x', start: 4, end: 8 });
  });

  it('is orphaned when the quote is nowhere in the tab; without a quote it keeps a block that exists', () => {
    expect(locate({ blockId: 'blk_a', start: 0, end: 3, quote: { exact: 'gone' } }, blocks(['blk_a', 'other'], ['blk_b', 'text']))).toBeNull();
    expect(locate({ blockId: 'blk_a', start: 2, end: 9 }, blocks(['blk_a', 'short']))).toEqual({ blockId: 'blk_a', start: 2, end: 5 });
    expect(locate({ blockId: 'blk_a', start: 2, end: 9 }, blocks(['blk_b', 'short']))).toBeNull();
    expect(locate({ blockId: 'blk_a', start: 0, end: 1, quote: { exact: 'x' } }, [])).toBeNull();
  });

  it('property: a quote taken from a block is found again wherever the block moves and whatever is added around it', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        fc.boolean(),
        (mid, before, after, added, move) => {
          const text = `${before}${mid}${after}`;
          const anchor = {
            blockId: 'blk_a',
            start: before.length,
            end: before.length + mid.length,
            quote: quoteOf(text, before.length, before.length + mid.length),
          };
          const edited = `${added}${text}`;
          const at = locate(anchor, move ? blocks(['blk_z', 'zz'], ['blk_b', edited]) : blocks(['blk_a', edited]));
          expect(at).not.toBeNull();
          expect(edited.slice(at!.start, at!.end)).toBe(mid);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('reanchorDocThreads', () => {
  let runtime: Runtime;
  let orgId: string;
  beforeAll(async () => {
    runtime = await testRuntime();
    orgId = (await freshOrg(runtime, 'anchor')).orgId;
  });
  afterAll(() => runtime.close());

  async function thread(
    fileId: string,
    tabId: string,
    blockId: string,
    start: number,
    end: number,
    quote: object | undefined,
    status = 'open',
  ): Promise<string> {
    const id = newId('ann');
    const selector = { type: 'block', tabId, blockId, start, end, ...(quote ? { quote } : {}) };
    const at = new Date().toISOString();
    await runtime.db.query(
      `INSERT INTO annotations (org_id, annotation_id, target_id, target_type, kind, selector, selector_type, anchor_tab, anchor_block, status, resolved_at, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, 'file', 'highlight', $4::jsonb, 'block', $5, $6, $7, $8, 'usr_x', $9, $9)`,
      [orgId, id, fileId, JSON.stringify(selector), tabId, blockId, status, status === 'resolved' ? at : null, at],
    );
    return id;
  }
  const row = async (id: string) =>
    (await runtime.db.query<any>('SELECT selector, anchor_block, anchor_status FROM annotations WHERE org_id = $1 AND annotation_id = $2', [orgId, id]))[0];

  it('updates offsets, moves blocks and orphans in one pass over the tab; resolved threads and other tabs stay', async () => {
    const fileId = newId('fil');
    const same = await thread(fileId, 'tab_1', 'blk_a', 4, 9, { exact: 'quick', prefix: 'The ', suffix: ' fox' });
    const moved = await thread(fileId, 'tab_1', 'blk_b', 0, 6, { exact: 'budget', suffix: ' 2026' });
    const gone = await thread(fileId, 'tab_1', 'blk_c', 0, 5, { exact: 'Intro' });
    const resolved = await thread(fileId, 'tab_1', 'blk_c', 0, 5, { exact: 'Intro' }, 'resolved');
    const otherTab = await thread(fileId, 'tab_2', 'blk_c', 0, 5, { exact: 'Intro' });
    const result = await runtime.db.tx((q) =>
      reanchorDocThreads(q, orgId, fileId, 'tab_1', blocks(['blk_a', 'Now the quick fox'], ['blk_b', 'removed'], ['blk_d', 'The budget 2026 is set'])),
    );
    expect(result).toEqual({ threads: 3, moved: 1, orphaned: 1 });
    expect(await row(same)).toMatchObject({ anchor_block: 'blk_a', anchor_status: 'anchored', selector: { blockId: 'blk_a', start: 8, end: 13 } });
    expect(await row(moved)).toMatchObject({
      anchor_block: 'blk_d',
      anchor_status: 'anchored',
      selector: { blockId: 'blk_d', start: 4, end: 10, tabId: 'tab_1' },
    });
    expect(await row(gone)).toMatchObject({ anchor_block: 'blk_c', anchor_status: 'orphaned' });
    expect(await row(resolved)).toMatchObject({ anchor_status: 'anchored' });
    expect(await row(otherTab)).toMatchObject({ anchor_status: 'anchored' });

    // The text coming back anchors the orphan again; an unchanged doc changes nothing.
    const again = await runtime.db.tx((q) =>
      reanchorDocThreads(q, orgId, fileId, 'tab_1', blocks(['blk_e', 'Intro'], ['blk_d', 'The budget 2026 is set'], ['blk_a', 'Now the quick fox'])),
    );
    expect(again).toEqual({ threads: 3, moved: 1, orphaned: 0 });
    expect(await row(gone)).toMatchObject({ anchor_block: 'blk_e', anchor_status: 'anchored' });
    // A deleted tab is an empty block list: everything in it is orphaned.
    expect(await runtime.db.tx((q) => reanchorDocThreads(q, orgId, fileId, 'tab_1', []))).toEqual({ threads: 3, moved: 0, orphaned: 3 });
  });
});
