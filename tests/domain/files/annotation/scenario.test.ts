import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annOrg, someEvent, task, type AnnOrg } from './kit.js';
import { eventsAfter, head, ok } from '../../../helpers/calls.js';

/*
 * The files group's acceptance scenario 5, end to end over HTTP: threads on a doc range, on a ledger event and on
 * a task. Doc revisions re-anchor open threads in their own transaction: edited text keeps its anchor, text moved to
 * another block takes the anchor along, a deleted block orphans it. files.comments and annotation.list return the
 * same row.
 */

let o: AnnOrg;
beforeAll(async () => {
  o = await annOrg();
});
afterAll(() => o.s.close());

const blocksOf = async (fileId: string): Promise<{ id: string; tabId: string; text: string }[]> =>
  (await ok(o.s, 'files.docRead', { fileId, format: 'text' })).blocks;
const thread = async (id: string) => (await ok(o.s, 'annotation.getThread', { annotationId: id })).annotation;

describe('scenario 5: annotations', () => {
  it('threads on a doc range, an event and a task; moved text keeps its anchor, a deleted block orphans it; both views show the same row', async () => {
    const d = (
      await ok(
        o.s,
        'files.create',
        { kind: 'doc', name: 'Plan', content: { markdown: '# Plan\n\nThe budget is 100k.\n\nIntro to be removed.\n\nClosing words.\n' } },
        o.mia.key,
      )
    ).file;
    const [, budget, intro, closing] = await blocksOf(d.id);
    const tabId = budget.tabId;

    const onBudget = (
      await ok(
        o.s,
        'files.commentAdd',
        { fileId: d.id, body: 'Source for 100k?', selector: { type: 'block', tabId, blockId: budget.id, start: 4, end: 10 } },
        o.max.key,
      )
    ).annotation;
    const onIntro = (
      await ok(
        o.s,
        'annotation.create',
        { targetId: d.id, kind: 'highlight', selector: { type: 'block', tabId, blockId: intro.id, start: 0, end: 5, quote: { exact: 'Intro' } } },
        o.max.key,
      )
    ).annotation;
    const onClosing = (
      await ok(o.s, 'annotation.create', { targetId: d.id, kind: 'flag', selector: { type: 'block', tabId, blockId: closing.id, start: 0, end: 7 } }, o.mia.key)
    ).annotation;
    const evt = await someEvent(o.s);
    const onEvent = (await ok(o.s, 'annotation.create', { targetId: evt, kind: 'comment', body: 'Why was this created?' }, o.max.key)).annotation;
    const onTask = (await ok(o.s, 'annotation.create', { targetId: await task(o.s), kind: 'comment', body: 'Blocked?' }, o.max.key)).annotation;
    expect([onEvent.targetType, onTask.targetType]).toEqual(['event', 'task']);

    // Text inserted before the quote: the offsets follow it, in the same block. The revision's event is the only one.
    let base = (await ok(o.s, 'files.docRead', { fileId: d.id })).head;
    const before = await head(o.s.client);
    await ok(
      o.s,
      'files.docWriteRevision',
      { fileId: d.id, baseRevision: base, ops: [{ op: 'replaceText', blockId: budget.id, find: 'The budget', replace: 'This year the budget' }] },
      o.mia.key,
    );
    expect((await eventsAfter(o.s.client, before)).map((e) => e.kind)).toEqual(['files.doc.revise']);
    expect((await thread(onBudget.id)).selector).toMatchObject({ blockId: budget.id, start: 14, end: 20, quote: { exact: 'budget' } });

    // The sentence moves to a new block at the end; its old block is deleted: the anchor moves with the text.
    base = (await ok(o.s, 'files.docRead', { fileId: d.id })).head;
    await ok(
      o.s,
      'files.docWriteRevision',
      {
        fileId: d.id,
        baseRevision: base,
        ops: [
          { op: 'delete', blockId: budget.id },
          { op: 'insert', afterBlockId: closing.id, markdown: 'Moved: this year the budget is 100k.' },
        ],
      },
      o.mia.key,
    );
    const moved = (await blocksOf(d.id)).find((b) => b.text.startsWith('Moved'))!;
    const movedThread = await thread(onBudget.id);
    expect(movedThread).toMatchObject({ anchorStatus: 'anchored', selector: { blockId: moved.id, tabId, start: 21, end: 27 } });
    expect(moved.text.slice(movedThread.selector.start, movedThread.selector.end)).toBe('budget');

    // The intro block is deleted: its highlight is orphaned; the untouched closing flag stays anchored.
    base = (await ok(o.s, 'files.docRead', { fileId: d.id })).head;
    await ok(o.s, 'files.docWriteRevision', { fileId: d.id, baseRevision: base, ops: [{ op: 'delete', blockId: intro.id }] }, o.mia.key);
    expect(await thread(onIntro.id)).toMatchObject({ anchorStatus: 'orphaned', selector: { blockId: intro.id } });
    expect(await thread(onClosing.id)).toMatchObject({
      anchorStatus: 'anchored',
      selector: { blockId: closing.id, start: 0, end: 7, quote: { exact: 'Closing' } },
    });
    expect((await ok(o.s, 'annotation.list', { targetId: d.id, anchorStatus: 'orphaned' })).annotations.map((a: any) => a.id)).toEqual([onIntro.id]);

    // Both views, the same rows.
    const viaFiles = (await ok(o.s, 'files.comments', { fileId: d.id })).comments;
    const viaAnnotations = (await ok(o.s, 'annotation.list', { targetId: d.id })).annotations;
    expect(viaFiles).toEqual(viaAnnotations);
    expect(viaFiles.map((a: any) => a.id)).toEqual([onClosing.id, onIntro.id, onBudget.id]);
    expect(viaFiles.find((a: any) => a.id === onBudget.id)).toEqual(movedThread);
  });
});
