import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approved, eventsAfter, head, held, mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { clientSha, makeDoc, readAll, sharedDoc, textOf, write } from './docs-kit.js';
import { driveOrg, type DriveOrg } from './drive-kit.js';

/* Suggestions: files.docWriteRevision in suggest mode or by an agent on a review-mode doc, docSuggestions, docSuggestResolve. */

let o: DriveOrg;
beforeAll(async () => {
  o = await driveOrg();
});
afterAll(() => o.s.close());

const suggestions = async (fileId: string, key: string, extra: Record<string, unknown> = {}) =>
  (await ok(o.s, 'files.docSuggestions', { fileId, ...extra }, key)).suggestions;

describe('acceptance scenario 1: review', () => {
  it("an agent's edit of a human's review-mode doc is a suggestion; its accept holds; after approval the retry makes revision 2 whose contentSha256 is sha256(docRead json)", async () => {
    const file = await makeDoc(o, o.mia.key, { markdown: '# Terms\n\nPayment within 30 days.\n\nSigned by both.' }, { reviewMode: true });
    const [, terms] = (await readAll(o, file.id, o.agent.key)).blocks.map((b) => b.attrs.id);

    const { result: edit, event } = await mutate(
      o.s,
      'files.docWriteRevision',
      { fileId: file.id, baseRevision: 1, ops: [{ op: 'replaceText', blockId: terms, find: '30 days', replace: '14 days' }] },
      'files.doc.suggest',
      { key: o.agent.key },
    );
    expect(edit).toMatchObject({ outcome: 'suggested', revision: 1, suggestionId: expect.stringMatching(/^sug_/), changedBlocks: [terms], changed: true });
    expect(event.payload).toEqual({ fileId: file.id, baseRevision: 1, ops: 1, suggestionId: edit.suggestionId, blocks: 1, reviewMode: true });
    expect((await readAll(o, file.id, o.mia.key)).read.revision).toBe(1);
    const [listed] = await suggestions(file.id, o.mia.key);
    expect(listed).toMatchObject({
      id: edit.suggestionId,
      status: 'open',
      baseRevision: 1,
      authorId: o.agent.id,
      staleBlocks: [],
      changes: [{ index: 0, op: 'replaceText', blockIds: [terms], before: 'Payment within 30 days.', after: 'Payment within 14 days.' }],
    });

    const approval = await held(
      o.s,
      'files.docSuggestResolve',
      { suggestionId: edit.suggestionId, action: 'accept' },
      { key: o.agent.key, holdKind: 'files.signature.hold' },
    );
    expect(approval).toMatchObject({ actionClass: 'files.doc_suggest_resolve' });
    expect((await readAll(o, file.id, o.mia.key)).read.revision).toBe(1);
    const approvalId = await approved(o.s, approval, o.agent.key, o.owner.key);

    const { result: accepted, event: acceptedEvent } = await mutate(
      o.s,
      'files.docSuggestResolve',
      { suggestionId: edit.suggestionId, action: 'accept', approvalId },
      'files.suggestion.accept',
      { key: o.agent.key },
    );
    expect(accepted).toMatchObject({ revision: 2, changed: true, suggestion: { status: 'accepted', revision: 2, resolvedBy: o.agent.id } });
    expect(acceptedEvent.payload).toMatchObject({
      fileId: file.id,
      suggestionId: edit.suggestionId,
      revision: 2,
      contentSha256: accepted.contentSha256,
      approvalId,
    });
    const { doc, blocks, read } = await readAll(o, file.id, o.mia.key);
    expect(read.revision).toBe(2);
    expect(textOf(blocks[1])).toBe('Payment within 14 days.');
    expect(clientSha(doc)).toBe(accepted.contentSha256);
    expect(read.contentSha256).toBe(accepted.contentSha256);
    expect((await ok(o.s, 'files.get', { fileId: file.id }, o.mia.key)).file.sha256).toBe(accepted.contentSha256);
  });

  it('if a human edited the block first, the suggestion is stale: accept is CONFLICT and changes nothing', async () => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Price: 100.\n\nOther clause.' }, { reviewMode: true });
    const [price, other] = (await readAll(o, file.id, o.agent.key)).blocks.map((b) => b.attrs.id);
    const sug = (await write(o, o.agent.key, file.id, 1, [{ op: 'replaceText', blockId: price, find: '100', replace: '90' }])).suggestionId;
    // An edit elsewhere leaves it open; an edit of its block makes it stale.
    await write(o, o.mia.key, file.id, 1, [{ op: 'replaceText', blockId: other, find: 'Other', replace: 'Another' }]);
    expect((await suggestions(file.id, o.mia.key))[0]).toMatchObject({ status: 'open', staleBlocks: [] });
    await write(o, o.mia.key, file.id, 2, [{ op: 'replaceText', blockId: price, find: '100', replace: '120' }]);
    expect((await suggestions(file.id, o.mia.key))[0]).toMatchObject({ status: 'stale', staleBlocks: [price] });
    expect(await suggestions(file.id, o.mia.key, { status: 'open' })).toEqual([]);
    expect(await suggestions(file.id, o.mia.key, { status: 'stale' })).toHaveLength(1);

    const before = await readAll(o, file.id, o.mia.key);
    expect(await refused(o.s, 'files.docSuggestResolve', { suggestionId: sug, action: 'accept' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      new RegExp(`suggestion ${sug} is stale: ${price} changed since its base revision 1 \\(the head is 3\\); nothing was changed`),
    );
    // The agent is refused too, before any hold.
    await refused(o.s, 'files.docSuggestResolve', { suggestionId: sug, action: 'accept' }, 'CONFLICT', { key: o.agent.key });
    const after = await readAll(o, file.id, o.mia.key);
    expect(after.read.contentSha256).toBe(before.read.contentSha256);
    expect((await suggestions(file.id, o.mia.key))[0].status).toBe('stale');
    // Rejecting a stale one is fine.
    await mutate(o.s, 'files.docSuggestResolve', { suggestionId: sug, action: 'reject' }, 'files.suggestion.reject', { key: o.mia.key });
  });
});

describe('suggest mode, reviewing and misuse', () => {
  it('a commenter suggests; an editor accepts directly (no hold), merging onto a newer head', async () => {
    const file = await sharedDoc(o, o.max, 'commenter', 'One.\n\nTwo.');
    const [one, two] = (await readAll(o, file.id, o.max.key)).blocks.map((b) => b.attrs.id);
    const sug = await write(
      o,
      o.max.key,
      file.id,
      1,
      [
        { op: 'insert', afterBlockId: one, markdown: 'One and a half.' },
        { op: 'delete', blockId: two },
      ],
      'suggest',
    );
    expect(sug.results[0].blockIds).toHaveLength(1);
    const [listed] = await suggestions(file.id, o.max.key);
    expect(listed.changes).toEqual([
      { index: 0, op: 'insert', tabId: expect.any(String), blockIds: sug.results[0].blockIds, before: null, after: 'One and a half.' },
      { index: 1, op: 'delete', tabId: expect.any(String), blockIds: [two], before: 'Two.', after: null },
    ]);
    await refused(o.s, 'files.docSuggestResolve', { suggestionId: sug.suggestionId, action: 'accept' }, 'FORBIDDEN_SCOPE', { key: o.max.key });
    await write(o, o.owner.key, file.id, 1, [{ op: 'insert', markdown: 'Three.' }]);
    const { result } = await mutate(o.s, 'files.docSuggestResolve', { suggestionId: sug.suggestionId, action: 'accept' }, 'files.suggestion.accept', {
      key: o.owner.key,
    });
    expect(result).toMatchObject({ revision: 3, changed: true });
    const blocks = (await readAll(o, file.id, o.owner.key)).blocks;
    expect(blocks.map(textOf)).toEqual(['One.', 'One and a half.', 'Three.']);
    // The inserted block has the id the suggestion showed.
    expect(blocks[1].attrs.id).toBe(sug.results[0].blockIds[0]);
    // Accepting again: changed:false, a noop event; rejecting now: CONFLICT.
    const again = await mutate(o.s, 'files.docSuggestResolve', { suggestionId: sug.suggestionId, action: 'accept' }, 'files.suggestion.accept', {
      key: o.owner.key,
    });
    expect(again.result.changed).toBe(false);
    expect(again.event.payload.noop).toBe(true);
    expect(await refused(o.s, 'files.docSuggestResolve', { suggestionId: sug.suggestionId, action: 'reject' }, 'CONFLICT', { key: o.owner.key })).toMatch(
      /is accepted \(revision 3\)/,
    );
  });

  it('its author may reject it; a viewer may not suggest; unknown and foreign suggestions are NOT_FOUND', async () => {
    const file = await sharedDoc(o, o.max, 'commenter', 'Text.');
    const id = (await readAll(o, file.id, o.max.key)).blocks[0].attrs.id;
    const sug = (await write(o, o.max.key, file.id, 1, [{ op: 'replace', blockId: id, markdown: 'Better text.' }], 'suggest')).suggestionId;
    const { result, event } = await mutate(o.s, 'files.docSuggestResolve', { suggestionId: sug, action: 'reject' }, 'files.suggestion.reject', {
      key: o.max.key,
    });
    expect(result.suggestion).toMatchObject({ status: 'rejected', resolvedBy: o.max.id, revision: null });
    expect(event.payload).toMatchObject({ by: 'author', suggestionId: sug });
    const noop = await mutate(o.s, 'files.docSuggestResolve', { suggestionId: sug, action: 'reject' }, 'files.suggestion.reject', { key: o.max.key });
    expect(noop.result.changed).toBe(false);
    expect(await refused(o.s, 'files.docSuggestResolve', { suggestionId: sug, action: 'accept' }, 'CONFLICT', { key: o.owner.key })).toMatch(/is rejected/);
    expect(await suggestions(file.id, o.owner.key, { status: 'rejected' })).toHaveLength(1);

    const viewed = await sharedDoc(o, o.mia, 'viewer');
    const vid = (await readAll(o, viewed.id, o.mia.key)).blocks[0].attrs.id;
    expect(
      await refused(
        o.s,
        'files.docWriteRevision',
        { fileId: viewed.id, baseRevision: 1, mode: 'suggest', ops: [{ op: 'delete', blockId: vid }] },
        'FORBIDDEN_SCOPE',
        { key: o.mia.key },
      ),
    ).toMatch(/missing role commenter/);
    await refused(o.s, 'files.docSuggestResolve', { suggestionId: 'sug_unknown0000000', action: 'reject' }, 'NOT_FOUND', { key: o.owner.key });
    const other = await otherOrg(o.s);
    expect((await other.rpc('files.docSuggestResolve', { suggestionId: sug, action: 'reject' })).body.error.code).toBe('NOT_FOUND');
    expect((await other.rpc('files.docSuggestions', { fileId: file.id })).body.error.code).toBe('NOT_FOUND');
  });

  it('an agent on a doc not in review mode writes directly; in suggest mode it suggests; lists page by cursor', async () => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Plain.' });
    const id = (await readAll(o, file.id, o.agent.key)).blocks[0].attrs.id;
    expect((await write(o, o.agent.key, file.id, 1, [{ op: 'replace', blockId: id, markdown: 'Direct.' }])).outcome).toBe('revised');
    for (let i = 0; i < 3; i++) await write(o, o.agent.key, file.id, 2, [{ op: 'insert', markdown: `Idea ${i}.` }], 'suggest');
    const page1 = await ok(o.s, 'files.docSuggestions', { fileId: file.id, limit: 2 }, o.mia.key);
    expect(page1.suggestions).toHaveLength(2);
    const page2 = await ok(o.s, 'files.docSuggestions', { fileId: file.id, limit: 2, cursor: page1.nextCursor }, o.mia.key);
    expect(page2.suggestions).toHaveLength(1);
    expect(page2.nextCursor).toBeNull();
    expect([...page1.suggestions, ...page2.suggestions].map((s: any) => s.changes[0].after)).toEqual(['Idea 2.', 'Idea 1.', 'Idea 0.']);
  });

  it('a hold appends only files.signature.hold and changes nothing', async () => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Held.' });
    const id = (await readAll(o, file.id, o.agent.key)).blocks[0].attrs.id;
    const sug = (await write(o, o.agent.key, file.id, 1, [{ op: 'delete', blockId: id }], 'suggest')).suggestionId;
    const before = await head(o.s.client);
    await held(o.s, 'files.docSuggestResolve', { suggestionId: sug, action: 'accept' }, { key: o.agent.key, holdKind: 'files.signature.hold' });
    expect((await eventsAfter(o.s.client, before)).map((e) => e.kind)).toEqual(['files.signature.hold']);
    expect((await suggestions(file.id, o.mia.key))[0].status).toBe('open');
  });
});
