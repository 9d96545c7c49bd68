import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { annOrg, folder, type AnnOrg } from './annotation/kit.js';

/*
 * files.comments, commentAdd, commentResolve and pin: views of the annotation store and pins under files.read /
 * files.write and the file's roles (viewers read, commenters comment and resolve; a folder place needs editor).
 */

let o: AnnOrg;
beforeAll(async () => {
  o = await annOrg();
});
afterAll(() => o.s.close());

const SECRET = 'merger codename Bluebird';

async function doc(key: string, markdown: string, extra: Record<string, unknown> = {}): Promise<any> {
  return (await ok(o.s, 'files.create', { kind: 'doc', name: 'Plan', content: { markdown }, ...extra }, key)).file;
}

/** The doc's blocks as text, in order: {id, tabId, text}. */
async function blocksOf(fileId: string, key = o.s.org.adminKey): Promise<{ id: string; tabId: string; text: string }[]> {
  return (await ok(o.s, 'files.docRead', { fileId, format: 'text' }, key)).blocks;
}

describe('files.commentAdd, files.comments, files.commentResolve', () => {
  it('a comment on a doc range captures its quote; replies reopen; the same rows as annotation.list; events carry no text', async () => {
    const d = await doc(o.mia.key, '# Plan\n\nThe budget is 100k this year.\n');
    const [, para] = await blocksOf(d.id);
    const selector = { type: 'block', tabId: para.tabId, blockId: para.id, start: 4, end: 10 };
    const { result, event } = await mutate(o.s, 'files.commentAdd', { fileId: d.id, body: SECRET, selector }, 'files.comment.add', { key: o.max.key });
    const a = result.annotation;
    expect(a).toMatchObject({ targetId: d.id, targetType: 'file', kind: 'comment', status: 'open', body: SECRET, commentCount: 1 });
    expect(a.selector).toEqual({ ...selector, quote: { exact: 'budget', prefix: 'The ', suffix: ' is 100k this year.' } });
    expect(event.entity_id).toBe(d.id);
    expect(event.payload).toEqual({
      fileId: d.id,
      annotationId: a.id,
      replyId: result.comment.id,
      seq: 1,
      newThread: true,
      selectorType: 'block',
      status: 'open',
      reopened: false,
      comments: 1,
    });
    expect(JSON.stringify(event)).not.toMatch(/Bluebird|budget/);

    const resolved = await mutate(o.s, 'files.commentResolve', { fileId: d.id, annotationId: a.id, resolved: true }, 'files.comment.resolve', {
      key: o.mia.key,
    });
    expect(resolved.result.annotation).toMatchObject({ status: 'resolved', resolvedBy: o.mia.id });
    expect(resolved.event.payload).toEqual({ fileId: d.id, annotationId: a.id, from: 'open', status: 'resolved' });
    const again = await mutate(o.s, 'files.commentResolve', { fileId: d.id, annotationId: a.id, resolved: true }, 'files.comment.resolve', { key: o.mia.key });
    expect([again.result.changed, again.event.payload.noop]).toEqual([false, true]);

    const reply = await mutate(o.s, 'files.commentAdd', { fileId: d.id, body: 'Reopening', annotationId: a.id, clientMsgId: 'r-1' }, 'files.comment.add', {
      key: o.mia.key,
    });
    expect(reply.result).toMatchObject({ changed: true, annotation: { status: 'open', commentCount: 2 }, comment: { seq: 2, clientMsgId: 'r-1' } });
    expect(reply.event.payload).toMatchObject({ newThread: false, reopened: true });
    const retry = await mutate(o.s, 'files.commentAdd', { fileId: d.id, body: 'Reopening', annotationId: a.id, clientMsgId: 'r-1' }, 'files.comment.add', {
      key: o.mia.key,
    });
    expect(retry.result).toMatchObject({ changed: false, comment: reply.result.comment });

    const before = await head(o.s.client);
    const viaFiles = (await ok(o.s, 'files.comments', { fileId: d.id })).comments;
    const viaAnnotations = (await ok(o.s, 'annotation.list', { targetId: d.id })).annotations;
    expect(viaFiles).toEqual(viaAnnotations);
    expect(viaFiles.find((x: any) => x.id === a.id)).toEqual(reply.result.annotation);
    expect((await ok(o.s, 'files.comments', { fileId: d.id, status: 'resolved' })).comments).toEqual([]);
    expect(await head(o.s.client)).toBe(before);
  });

  it('roles: a viewer reads comments but commenting or resolving is FORBIDDEN_SCOPE naming commenter; no role at all is NOT_FOUND', async () => {
    const f = await folder(o.s, o.mia.key, { restricted: true });
    const d = await doc(o.mia.key, 'Secret plans.', { parentId: f.id });
    const a = (await ok(o.s, 'files.commentAdd', { fileId: d.id, body: 'mine' }, o.mia.key)).annotation;
    expect(await refused(o.s, 'files.comments', { fileId: d.id }, 'NOT_FOUND', { key: o.max.key })).toBe(`file ${d.id} not found`);
    expect(await refused(o.s, 'files.commentAdd', { fileId: d.id, body: 'x' }, 'NOT_FOUND', { key: o.max.key })).toBe(`file ${d.id} not found`);
    expect(await refused(o.s, 'annotation.getThread', { annotationId: a.id }, 'NOT_FOUND', { key: o.max.key })).toBe(`annotation ${a.id} not found`);

    await ok(o.s, 'files.shareGrant', { fileId: f.id, grantee: { principalId: o.max.id }, role: 'viewer' }, o.mia.key);
    expect((await ok(o.s, 'files.comments', { fileId: d.id }, o.max.key)).comments.map((x: any) => x.id)).toEqual([a.id]);
    expect(await refused(o.s, 'files.commentAdd', { fileId: d.id, body: 'x' }, 'FORBIDDEN_SCOPE', { key: o.max.key })).toMatch(
      `missing role commenter on ${d.id} (you are viewer)`,
    );
    expect(await refused(o.s, 'files.commentResolve', { fileId: d.id, annotationId: a.id, resolved: true }, 'FORBIDDEN_SCOPE', { key: o.max.key })).toMatch(
      /missing role commenter/,
    );
    expect(await refused(o.s, 'annotation.comment', { annotationId: a.id, body: 'x' }, 'FORBIDDEN_SCOPE', { key: o.max.key })).toMatch(
      /missing role commenter/,
    );
    // A viewer cannot dismiss someone else's thread (not its author, not an editor).
    expect(await refused(o.s, 'annotation.dismiss', { annotationId: a.id }, 'FORBIDDEN_SCOPE', { key: o.max.key })).toMatch(/only its author/);

    await ok(o.s, 'files.shareGrant', { fileId: f.id, grantee: { principalId: o.max.id }, role: 'commenter' }, o.mia.key);
    const mine = (await ok(o.s, 'files.commentAdd', { fileId: d.id, body: 'now I may' }, o.max.key)).annotation;
    expect((await ok(o.s, 'files.commentResolve', { fileId: d.id, annotationId: a.id, resolved: true }, o.max.key)).changed).toBe(true);
    // Its author dismisses their own; an editor (mia, the creator) dismisses anyone's.
    expect((await ok(o.s, 'annotation.dismiss', { annotationId: mine.id }, o.max.key)).changed).toBe(true);
    expect((await ok(o.s, 'annotation.dismiss', { annotationId: a.id }, o.mia.key)).annotation.status).toBe('dismissed');
    // A trashed file takes no new comments.
    await ok(o.s, 'files.delete', { fileId: d.id }, o.mia.key);
    expect(await refused(o.s, 'files.commentAdd', { fileId: d.id, body: 'x' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /is in the trash: recover it first \(files\.recover\)/,
    );
  });

  it('misuse: bad selectors and fields are BAD_REQUEST naming them; a thread of another file, unknown or foreign ids NOT_FOUND', async () => {
    const d = await doc(o.mia.key, 'One line.');
    const [b] = await blocksOf(d.id);
    const base = { fileId: d.id, body: 'x' };
    expect(await refused(o.s, 'files.commentAdd', { ...base, selector: { type: 'cell', tabId: b.tabId, a1: 'A1' } }, 'BAD_REQUEST')).toMatch(
      /^selector\.type: a doc \(fil_\w+\) takes block selectors, not cell/,
    );
    expect(
      await refused(
        o.s,
        'files.commentAdd',
        { ...base, selector: { type: 'block', tabId: b.tabId, blockId: 'blk_0123456789abcdef', start: 0, end: 1 } },
        'BAD_REQUEST',
      ),
    ).toMatch(/^selector\.blockId: no block blk_0123456789abcdef in tab tab_/);
    expect(
      await refused(
        o.s,
        'files.commentAdd',
        { ...base, selector: { type: 'block', tabId: 'tab_0123456789abcdef', blockId: b.id, start: 0, end: 1 } },
        'BAD_REQUEST',
      ),
    ).toMatch(/^selector\.tabId: no tab tab_0123456789abcdef in fil_/);
    expect(
      await refused(o.s, 'files.commentAdd', { ...base, selector: { type: 'block', tabId: b.tabId, blockId: b.id, start: 0, end: 99 } }, 'BAD_REQUEST'),
    ).toMatch(/^selector\.end: must be at most 9/);
    expect(
      await refused(o.s, 'files.commentAdd', { ...base, selector: { type: 'block', tabId: b.tabId, blockId: b.id, start: 3, end: 1 } }, 'BAD_REQUEST'),
    ).toMatch(/^selector\.end: must be >= start/);
    expect(
      await refused(
        o.s,
        'files.commentAdd',
        { ...base, selector: { type: 'block', tabId: b.tabId, blockId: b.id, start: 0, end: 3, quote: { exact: 'absent' } } },
        'BAD_REQUEST',
      ),
    ).toMatch(/^selector\.quote\.exact: not found in block/);
    // A quote sent with stale offsets is found in the block.
    const q = (
      await ok(o.s, 'files.commentAdd', { ...base, selector: { type: 'block', tabId: b.tabId, blockId: b.id, start: 0, end: 4, quote: { exact: 'line' } } })
    ).annotation;
    expect(q.selector).toMatchObject({ start: 4, end: 8 });
    expect(
      await refused(
        o.s,
        'files.commentAdd',
        { ...base, annotationId: q.id, selector: { type: 'block', tabId: b.tabId, blockId: b.id, start: 0, end: 1 } },
        'BAD_REQUEST',
      ),
    ).toMatch(/^selector: a reply takes the thread's anchor/);
    expect(await refused(o.s, 'files.commentAdd', { fileId: d.id }, 'BAD_REQUEST')).toBe('body: required');
    expect(await refused(o.s, 'files.commentResolve', { fileId: d.id, annotationId: q.id }, 'BAD_REQUEST')).toBe('resolved: required');
    expect(await refused(o.s, 'files.comments', { fileId: d.id, status: 'done' }, 'BAD_REQUEST')).toMatch(/^status:/);

    const d2 = await doc(o.mia.key, 'Other.');
    expect(await refused(o.s, 'files.commentResolve', { fileId: d2.id, annotationId: q.id, resolved: true }, 'NOT_FOUND')).toBe(
      `annotation ${q.id} on ${d2.id} not found`,
    );
    expect(await refused(o.s, 'files.commentAdd', { fileId: d2.id, body: 'x', annotationId: q.id }, 'NOT_FOUND')).toBe(
      `annotation ${q.id} on ${d2.id} not found`,
    );
    const other = await otherOrg(o.s);
    const theirs = (await other.ok('files.create', { kind: 'folder', name: 'theirs' })).file.id;
    for (const fileId of [theirs, 'fil_0123456789abcdef']) {
      expect(await refused(o.s, 'files.comments', { fileId }, 'NOT_FOUND')).toBe(`file ${fileId} not found`);
      expect(await refused(o.s, 'files.pin', { fileId, pinned: true }, 'NOT_FOUND')).toBe(`file ${fileId} not found`);
    }
    const filesReadOnly = (await o.s.client.mint({ scopes: ['org.read', 'files.read'], principalKind: 'human' }, 'files reader')).apiKey;
    expect(await refused(o.s, 'files.commentAdd', base, 'FORBIDDEN_SCOPE', { key: filesReadOnly })).toMatch(/files\.write/);
    expect(await refused(o.s, 'files.comments', { fileId: d.id }, 'FORBIDDEN_SCOPE', { key: o.orgOnly.key })).toMatch(/files\.read/);
  });
});

describe('files.pin', () => {
  it('pins a file in its folder by default (org home at the root), unpins it; a folder place needs editor', async () => {
    const f = await folder(o.s, o.mia.key);
    const d = await doc(o.mia.key, 'Pinned.', { parentId: f.id });
    const { result, event } = await mutate(o.s, 'files.pin', { fileId: d.id, pinned: true }, 'files.pin.set', { key: o.max.key });
    expect(result).toMatchObject({ changed: true, pin: { place: f.id, placeType: 'folder', targetId: d.id, targetType: 'file' } });
    expect(event.payload).toEqual({ fileId: d.id, pinId: result.pin.id, place: f.id, placeType: 'folder', pinned: true, pins: 1 });
    // The same pin through file.*.
    expect((await ok(o.s, 'file.listPinned', { place: f.id })).pins).toEqual([result.pin]);
    const again = await mutate(o.s, 'files.pin', { fileId: d.id, pinned: true }, 'files.pin.set', { key: o.max.key });
    expect([again.result.changed, again.event.payload.noop]).toEqual([false, true]);
    const off = await mutate(o.s, 'files.pin', { fileId: d.id, pinned: false }, 'files.pin.set', { key: o.max.key });
    expect(off.result).toMatchObject({ changed: true, pin: { id: result.pin.id, removedBy: o.max.id } });
    expect(off.event.payload).toMatchObject({ pinned: false, pins: 0 });
    const offAgain = await mutate(o.s, 'files.pin', { fileId: d.id, pinned: false }, 'files.pin.set', { key: o.max.key });
    expect([offAgain.result.changed, offAgain.event.payload.noop]).toEqual([false, true]);

    const atRoot = await doc(o.mia.key, 'Root.');
    expect((await ok(o.s, 'files.pin', { fileId: atRoot.id, pinned: true }, o.mia.key)).pin.place).toBe('org');
    expect(await refused(o.s, 'files.pin', { fileId: atRoot.id, pinned: false, place: 'team_0123456789abcdef' }, 'NOT_FOUND', { key: o.mia.key })).toBe(
      'place team_0123456789abcdef not found',
    );

    const locked = await folder(o.s, o.mia.key, { restricted: true });
    await ok(o.s, 'files.shareGrant', { fileId: locked.id, grantee: { principalId: o.max.id }, role: 'viewer' }, o.mia.key);
    const inside = await doc(o.mia.key, 'Inside.', { parentId: locked.id });
    expect(await refused(o.s, 'files.pin', { fileId: inside.id, pinned: true }, 'FORBIDDEN_SCOPE', { key: o.max.key })).toMatch(
      `missing role editor on ${locked.id}`,
    );
    expect((await ok(o.s, 'files.pin', { fileId: inside.id, pinned: true, place: 'org' }, o.max.key)).pin.place).toBe('org');
    expect(await refused(o.s, 'files.pin', { fileId: inside.id, pinned: 'yes' }, 'BAD_REQUEST')).toMatch(/^pinned:/);
  });
});
