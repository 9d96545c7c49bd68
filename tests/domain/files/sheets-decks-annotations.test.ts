import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { ok, refused } from '../../helpers/calls.js';

/* Threads anchored on sheet cells and deck slides: checked against the head, following rows and columns, orphaned with what they were on. */

const thread = async (o: any, annotationId: string) => (await ok(o.s, 'annotation.getThread', { annotationId }, o.mia.key)).annotation;

describe('annotations on sheet cells', () => {
  it('a cell thread follows its cell through row and column inserts and deletes, and is orphaned with its row or its tab', async ({ drive: o }) => {
    const { file } = await ok(
      o.s,
      'files.create',
      {
        kind: 'sheet',
        name: 'Plan',
        content: {
          tabs: [
            { title: 'Q1', cells: { B2: '10', C3: '20' } },
            { title: 'Q2', cells: { A1: '1' } },
          ],
        },
      },
      o.mia.key,
    );
    const read = await ok(o.s, 'files.sheetRead', { fileId: file.id }, o.mia.key);
    const [q1, q2] = read.tabs.map((t: any) => t.id);
    const on = async (selector: unknown) =>
      (await ok(o.s, 'annotation.create', { targetId: file.id, kind: 'comment', body: 'check this', selector }, o.mia.key)).annotation.id as string;
    const cell = await on({ type: 'cell', tabId: q1, a1: 'B2' });
    const range = await on({ type: 'cell', tabId: q1, a1: 'B2:C3' });
    const other = await on({ type: 'cell', tabId: q2, a1: 'A1' });
    expect(
      await refused(
        o.s,
        'annotation.create',
        { targetId: file.id, kind: 'flag', selector: { type: 'cell', tabId: 'tab_0000000000000000', a1: 'A1' } },
        'BAD_REQUEST',
        { key: o.mia.key },
      ),
    ).toMatch(/^selector\.tabId: no tab tab_0000000000000000 in fil_/);

    await ok(o.s, 'files.sheetTabOp', { fileId: file.id, op: 'insertRows', tabId: q1, at: 1, count: 2 }, o.mia.key);
    expect((await thread(o, cell)).selector).toMatchObject({ a1: 'B4' });
    expect((await thread(o, range)).selector).toMatchObject({ a1: 'B4:C5' });
    await ok(o.s, 'files.sheetTabOp', { fileId: file.id, op: 'insertColumns', tabId: q1, at: 1 }, o.mia.key);
    expect((await thread(o, cell)).selector).toMatchObject({ a1: 'C4' });
    expect((await thread(o, other)).selector).toMatchObject({ a1: 'A1' });

    await ok(o.s, 'files.sheetTabOp', { fileId: file.id, op: 'deleteRows', tabId: q1, at: 5 }, o.mia.key);
    expect(await thread(o, cell)).toMatchObject({ anchorStatus: 'anchored', selector: { a1: 'C4' } });
    expect((await thread(o, range)).anchorStatus).toBe('orphaned');
    await ok(o.s, 'files.sheetTabOp', { fileId: file.id, op: 'deleteRows', tabId: q1, at: 4 }, o.mia.key);
    expect((await thread(o, cell)).anchorStatus).toBe('orphaned');

    await ok(o.s, 'files.sheetTabOp', { fileId: file.id, op: 'delete', tabId: q2 }, o.mia.key);
    expect((await thread(o, other)).anchorStatus).toBe('orphaned');
  });
});

describe('annotations on deck slides', () => {
  it('a slide thread needs a slide of the deck, and is orphaned when the slide is deleted', async ({ drive: o }) => {
    const { file } = await ok(o.s, 'files.create', { kind: 'deck', name: 'Pitch', content: { slides: [{ title: 'One' }, { title: 'Two' }] } }, o.mia.key);
    const deck = await ok(o.s, 'files.deckRead', { fileId: file.id }, o.mia.key);
    const [one, two] = deck.slides.map((s: any) => s.id);
    const on = async (slideId: string) =>
      (await ok(o.s, 'annotation.create', { targetId: file.id, kind: 'comment', body: 'tighten', selector: { type: 'slide', slideId } }, o.mia.key)).annotation
        .id as string;
    const first = await on(one);
    const second = await on(two);
    expect(
      await refused(
        o.s,
        'annotation.create',
        { targetId: file.id, kind: 'flag', selector: { type: 'slide', slideId: 'sld_0000000000000000' } },
        'BAD_REQUEST',
        { key: o.mia.key },
      ),
    ).toMatch(/^selector\.slideId: no slide sld_0000000000000000 in fil_/);
    await ok(o.s, 'files.deckWriteSlides', { fileId: file.id, baseRevision: deck.revision, ops: [{ op: 'delete', slideId: two }] }, o.mia.key);
    expect((await thread(o, second)).anchorStatus).toBe('orphaned');
    expect((await thread(o, first)).anchorStatus).toBe('anchored');
  });
});
