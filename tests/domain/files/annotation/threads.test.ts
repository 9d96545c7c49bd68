import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { head, mutate, ok, otherOrg, refused, rpc } from '../../../helpers/calls.js';
import { someEvent, task } from './kit.js';

/* annotation.*: threads on a task and on a ledger event; comments, resolve, dismiss, reads, retries, misuse. */

const SECRET = 'the vault code is 0451';

describe('annotation.create', () => {
  it('starts a comment thread on a task: one event of ids, kinds and counts, never the body', async ({ annotation: o }) => {
    const t = await task(o.s);
    const { result, event } = await mutate(o.s, 'annotation.create', { targetId: t, kind: 'comment', body: SECRET }, 'annotation.thread.create', {
      key: o.mia.key,
    });
    expect(result.changed).toBe(true);
    expect(result.annotation).toMatchObject({
      id: expect.stringMatching(/^ann_[a-z0-9]{16}$/),
      targetId: t,
      targetType: 'task',
      kind: 'comment',
      selector: null,
      anchorStatus: 'anchored',
      status: 'open',
      discussion: false,
      body: SECRET,
      commentCount: 1,
      createdBy: o.mia.id,
    });
    expect(event.entity_id).toBe(result.annotation.id);
    expect(event.payload).toEqual({
      annotationId: result.annotation.id,
      targetId: t,
      targetType: 'task',
      kind: 'comment',
      selectorType: null,
      anchorStatus: 'anchored',
      status: 'open',
      replyId: expect.stringMatching(/^rpl_/),
      comments: 1,
    });
    expect(JSON.stringify(event)).not.toContain('0451');
  });

  it('flags a ledger event evt_<seq> and highlights without a body', async ({ annotation: o }) => {
    const evt = await someEvent(o.s);
    const flag = (await mutate(o.s, 'annotation.create', { targetId: evt, kind: 'flag' }, 'annotation.thread.create', { key: o.max.key })).result.annotation;
    expect(flag).toMatchObject({ targetId: evt, targetType: 'event', kind: 'flag', body: null, commentCount: 0 });
    const thread = await ok(o.s, 'annotation.getThread', { annotationId: flag.id }, o.mia.key);
    expect(thread).toEqual({ annotation: flag, comments: [], nextCursor: null });
  });

  it('a retry with the same clientMsgId returns the first thread (changed:false, event noop)', async ({ annotation: o }) => {
    const t = await task(o.s);
    const params = { targetId: t, kind: 'comment', body: 'first', clientMsgId: 'create-1' };
    const first = (await mutate(o.s, 'annotation.create', params, 'annotation.thread.create', { key: o.mia.key })).result;
    const again = await mutate(o.s, 'annotation.create', params, 'annotation.thread.create', { key: o.mia.key });
    expect(again.result).toEqual({ annotation: first.annotation, changed: false, replayed: true });
    expect(again.event.payload).toMatchObject({ annotationId: first.annotation.id, noop: true });
    // Someone else's clientMsgId is their own.
    expect((await ok(o.s, 'annotation.create', params, o.max.key)).annotation.id).not.toBe(first.annotation.id);
    // The same clientMsgId on another target names a comment elsewhere: CONFLICT naming it.
    expect(await refused(o.s, 'annotation.create', { ...params, targetId: await task(o.s) }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /clientMsgId create-1 is already your comment rpl_/,
    );
  });

  it('the header replays the frame (I)', async ({ annotation: o }) => {
    const t = await task(o.s);
    const a = await rpc(o.s, 'annotation.create', { targetId: t, kind: 'highlight' }, o.mia.key, 'ann-create-key');
    const before = await head(o.s.client);
    const b = await rpc(o.s, 'annotation.create', { targetId: t, kind: 'highlight' }, o.mia.key, 'ann-create-key');
    expect(b.body.result).toEqual(a.body.result);
    expect(await head(o.s.client)).toBe(before);
  });

  it('misuse: bad input names the field, unknown and foreign targets are NOT_FOUND, missing scopes FORBIDDEN_SCOPE', async ({ annotation: o }) => {
    const t = await task(o.s);
    expect(await refused(o.s, 'annotation.create', { targetId: t, kind: 'comment' }, 'BAD_REQUEST')).toMatch(/^body: required for kind comment/);
    expect(await refused(o.s, 'annotation.create', { targetId: t, kind: 'note' }, 'BAD_REQUEST')).toMatch(/^kind: must be one of/);
    expect(await refused(o.s, 'annotation.create', { targetId: 'not an id', kind: 'flag' }, 'BAD_REQUEST')).toMatch(/^targetId:/);
    expect(await refused(o.s, 'annotation.create', { targetId: t, kind: 'flag', extra: 1 }, 'BAD_REQUEST')).toMatch(/extra: unknown field/);
    expect(await refused(o.s, 'annotation.create', { targetId: t, kind: 'flag', clientMsgId: 'x' }, 'BAD_REQUEST')).toMatch(/^clientMsgId:/);
    expect(await refused(o.s, 'annotation.create', { targetId: t, kind: 'comment', body: '' }, 'BAD_REQUEST')).toMatch(/^body:/);
    // A wrong selector type for the target: a task takes none.
    expect(
      await refused(o.s, 'annotation.create', { targetId: t, kind: 'highlight', selector: { type: 'cell', tabId: 'tab_1', a1: 'B7' } }, 'BAD_REQUEST'),
    ).toMatch(/^selector\.type: a task \(task_\w+\) takes no selector/);
    expect(await refused(o.s, 'annotation.create', { targetId: t, kind: 'highlight', selector: { type: 'page', n: 1 } }, 'BAD_REQUEST')).toMatch(
      /^selector\.type:/,
    );
    expect(
      await refused(o.s, 'annotation.create', { targetId: t, kind: 'highlight', selector: { type: 'cell', tabId: 'tab_1', a1: 'A0' } }, 'BAD_REQUEST'),
    ).toBe('selector.a1: must be an A1 cell or range such as B7 or A1:C3');
    expect(
      await refused(o.s, 'annotation.create', { targetId: t, kind: 'highlight', selector: { type: 'time', startMs: 9, endMs: 2 } }, 'BAD_REQUEST'),
    ).toMatch(/^selector\.endMs: must be >= startMs/);

    const other = await otherOrg(o.s);
    const theirs = (await other.ok('board.createTask', { title: 'theirs' })).id;
    for (const targetId of [theirs, 'task_0123456789abcdef', 'zzz_0123456789abcdef', 'evt_999999999', 'evt_0', 'evt_abc']) {
      expect(await refused(o.s, 'annotation.create', { targetId, kind: 'flag' }, 'NOT_FOUND')).toBe(`${targetId} not found`);
    }
    expect(await refused(o.s, 'annotation.create', { targetId: t, kind: 'flag' }, 'FORBIDDEN_SCOPE', { key: o.orgOnly.key })).toMatch(/scope board\.read/);
    expect(await refused(o.s, 'annotation.create', { targetId: t, kind: 'flag' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key })).toMatch(/org\.write/);
  });
});

describe('annotation.comment, resolve, dismiss', () => {
  it('comments, resolves, reopens by comment, dismisses: one event each, statuses and counts only', async ({ annotation: o }) => {
    const t = await task(o.s);
    const a = (await ok(o.s, 'annotation.create', { targetId: t, kind: 'comment', body: 'Is the estimate right?' }, o.mia.key)).annotation;

    const c1 = await mutate(o.s, 'annotation.comment', { annotationId: a.id, body: SECRET, clientMsgId: 'c-1' }, 'annotation.comment.add', { key: o.max.key });
    expect(c1.result.comment).toMatchObject({ annotationId: a.id, seq: 2, author: o.max.id, body: SECRET, clientMsgId: 'c-1' });
    expect(c1.result.annotation).toMatchObject({ commentCount: 2, status: 'open' });
    expect(c1.event.payload).toEqual({ annotationId: a.id, targetId: t, replyId: c1.result.comment.id, seq: 2, status: 'open', reopened: false, comments: 2 });
    expect(JSON.stringify(c1.event)).not.toContain('0451');

    // Not idempotent by header: a retry with the clientMsgId returns the first comment and changes nothing.
    const retry = await mutate(o.s, 'annotation.comment', { annotationId: a.id, body: SECRET, clientMsgId: 'c-1' }, 'annotation.comment.add', {
      key: o.max.key,
    });
    expect(retry.result).toMatchObject({ changed: false, comment: c1.result.comment, annotation: { commentCount: 2 } });
    expect(retry.event.payload.noop).toBe(true);

    const resolved = await mutate(o.s, 'annotation.resolve', { annotationId: a.id }, 'annotation.thread.resolve', { key: o.mia.key });
    expect(resolved.result.annotation).toMatchObject({ status: 'resolved', resolvedBy: o.mia.id, resolvedAt: expect.any(String) });
    expect(resolved.event.payload).toEqual({ annotationId: a.id, targetId: t, from: 'open', status: 'resolved', reopened: false });
    const again = await mutate(o.s, 'annotation.resolve', { annotationId: a.id }, 'annotation.thread.resolve', { key: o.mia.key });
    expect(again.result.changed).toBe(false);
    expect(again.event.payload.noop).toBe(true);

    const reopened = await mutate(o.s, 'annotation.comment', { annotationId: a.id, body: 'Not yet.' }, 'annotation.comment.add', { key: o.max.key });
    expect(reopened.result.annotation).toMatchObject({ status: 'open', resolvedBy: null, resolvedAt: null, commentCount: 3 });
    expect(reopened.event.payload).toMatchObject({ reopened: true, status: 'open' });

    const dismissed = await mutate(o.s, 'annotation.dismiss', { annotationId: a.id }, 'annotation.thread.dismiss', { key: o.mia.key });
    expect(dismissed.result.annotation).toMatchObject({ status: 'dismissed', dismissedBy: o.mia.id });
    expect(dismissed.event.payload).toEqual({ annotationId: a.id, targetId: t, from: 'open', status: 'dismissed', byAuthor: true });
    expect((await mutate(o.s, 'annotation.dismiss', { annotationId: a.id }, 'annotation.thread.dismiss', { key: o.mia.key })).result.changed).toBe(false);

    // A dismissed thread is not resolved: reopen it first.
    expect(await refused(o.s, 'annotation.resolve', { annotationId: a.id }, 'CONFLICT', { key: o.mia.key })).toMatch(/is dismissed: reopen it first/);
    const back = await mutate(o.s, 'annotation.resolve', { annotationId: a.id, reopen: true }, 'annotation.thread.resolve', { key: o.mia.key });
    expect(back.result.annotation).toMatchObject({ status: 'open', dismissedBy: null });
    expect(back.event.payload).toMatchObject({ from: 'dismissed', status: 'open', reopened: true });

    const thread = await ok(o.s, 'annotation.getThread', { annotationId: a.id, limit: 2 });
    expect(thread.comments.map((c: any) => c.seq)).toEqual([1, 2]);
    const rest = await ok(o.s, 'annotation.getThread', { annotationId: a.id, cursor: thread.nextCursor });
    expect(rest.comments.map((c: any) => c.body)).toEqual(['Not yet.']);
    expect(rest.nextCursor).toBeNull();
  });

  it('dismiss: by the author or an editor of the target only', async ({ annotation: o }) => {
    const t = await task(o.s);
    const a = (await ok(o.s, 'annotation.create', { targetId: t, kind: 'flag' }, o.mia.key)).annotation;
    // A key without board.write edits no task.
    const noBoardWrite = (await o.s.client.mint({ scopes: ['org.read', 'org.write', 'board.read'], principalKind: 'human' }, 'reader-writer')).apiKey;
    expect(await refused(o.s, 'annotation.dismiss', { annotationId: a.id }, 'FORBIDDEN_SCOPE', { key: noBoardWrite })).toMatch(
      /only its author .* or an editor of task_/,
    );
    expect((await ok(o.s, 'annotation.dismiss', { annotationId: a.id }, o.max.key)).annotation.dismissedBy).toBe(o.max.id);
  });

  it('misuse: unknown, foreign and unreadable threads are NOT_FOUND; bad input names the field', async ({ annotation: o }) => {
    const other = await otherOrg(o.s);
    const theirTask = (await other.ok('board.createTask', { title: 'x' })).id;
    const theirs = (await other.ok('annotation.create', { targetId: theirTask, kind: 'flag' })).annotation.id;
    for (const [method, extra] of [
      ['annotation.comment', { body: 'x' }],
      ['annotation.resolve', {}],
      ['annotation.dismiss', {}],
      ['annotation.getThread', {}],
    ] as const) {
      for (const annotationId of [theirs, 'ann_0123456789abcdef']) {
        expect(await refused(o.s, method, { annotationId, ...extra }, 'NOT_FOUND')).toBe(`annotation ${annotationId} not found`);
      }
    }
    const a = (await ok(o.s, 'annotation.create', { targetId: await task(o.s), kind: 'flag' })).annotation;
    expect(await refused(o.s, 'annotation.comment', { annotationId: a.id }, 'BAD_REQUEST')).toBe('body: required');
    expect(await refused(o.s, 'annotation.comment', { annotationId: a.id, body: 'x'.repeat(10_001) }, 'BAD_REQUEST')).toMatch(/^body: must be at most 10000/);
    expect(await refused(o.s, 'annotation.comment', { annotationId: a.id, body: 'x', clientMsgId: 'has space' }, 'BAD_REQUEST')).toMatch(/^clientMsgId:/);
    expect(await refused(o.s, 'annotation.resolve', { annotationId: a.id, reopen: 'yes' }, 'BAD_REQUEST')).toMatch(/^reopen:/);
    expect(await refused(o.s, 'annotation.getThread', { annotationId: a.id, cursor: 'nope' }, 'BAD_REQUEST')).toMatch(/^cursor:/);
    expect(await refused(o.s, 'annotation.comment', { annotationId: a.id, body: 'x' }, 'FORBIDDEN_SCOPE', { key: o.orgOnly.key })).toMatch(/board\.read/);
    // A clientMsgId already used on another thread.
    const b = (await ok(o.s, 'annotation.create', { targetId: await task(o.s), kind: 'flag' })).annotation;
    await ok(o.s, 'annotation.comment', { annotationId: a.id, body: 'one', clientMsgId: 'dup-1' });
    expect(await refused(o.s, 'annotation.comment', { annotationId: b.id, body: 'two', clientMsgId: 'dup-1' }, 'CONFLICT')).toMatch(
      /already your comment rpl_\w+ on ann_/,
    );
  });
});

describe('annotation.list', () => {
  it('newest first on a target, filtered by kind and status; across targets only readable ones; reads append nothing', async ({ annotation: o }) => {
    const t = await task(o.s);
    const ids: string[] = [];
    for (const kind of ['comment', 'highlight', 'flag', 'comment']) {
      ids.push((await ok(o.s, 'annotation.create', { targetId: t, kind, ...(kind === 'comment' ? { body: 'b' } : {}) })).annotation.id);
    }
    await ok(o.s, 'annotation.resolve', { annotationId: ids[0] });
    const before = await head(o.s.client);
    const all = await ok(o.s, 'annotation.list', { targetId: t });
    expect(all.annotations.map((a: any) => a.id)).toEqual([...ids].reverse());
    expect((await ok(o.s, 'annotation.list', { targetId: t, kind: 'comment' })).annotations.map((a: any) => a.id)).toEqual([ids[3], ids[0]]);
    expect((await ok(o.s, 'annotation.list', { targetId: t, status: 'resolved' })).annotations.map((a: any) => a.id)).toEqual([ids[0]]);
    const p1 = await ok(o.s, 'annotation.list', { targetId: t, limit: 3 });
    const p2 = await ok(o.s, 'annotation.list', { targetId: t, limit: 3, cursor: p1.nextCursor });
    expect([...p1.annotations, ...p2.annotations].map((a: any) => a.id)).toEqual([...ids].reverse());
    expect(p2.nextCursor).toBeNull();
    expect(await head(o.s.client)).toBe(before);

    // Across every target: a key without board.read sees no task threads, only the event's.
    // The event of an annotation (a family org.read shows) vs a board event (hidden without board.read).
    const evt = `evt_${await head(o.s.client)}`;
    const onEvent = (await ok(o.s, 'annotation.create', { targetId: evt, kind: 'flag' })).annotation.id;
    const boardEvt = await someEvent(o.s);
    expect(await refused(o.s, 'annotation.create', { targetId: boardEvt, kind: 'flag' }, 'NOT_FOUND', { key: o.orgOnly.key })).toBe(`${boardEvt} not found`);
    const onBoardEvent = (await ok(o.s, 'annotation.create', { targetId: boardEvt, kind: 'flag' })).annotation.id;
    const seen = (await ok(o.s, 'annotation.list', { limit: 500 }, o.orgOnly.key)).annotations;
    expect(seen.map((a: any) => a.id)).toContain(onEvent);
    expect(seen.map((a: any) => a.id)).not.toContain(onBoardEvent);
    expect(seen.every((a: any) => a.targetType !== 'task')).toBe(true);
    expect(await refused(o.s, 'annotation.list', { targetId: t }, 'FORBIDDEN_SCOPE', { key: o.orgOnly.key })).toMatch(/board\.read/);
    expect(await refused(o.s, 'annotation.list', { targetId: 'task_0123456789abcdef' }, 'NOT_FOUND')).toMatch(/not found/);
    expect(await refused(o.s, 'annotation.list', { status: 'closed' }, 'BAD_REQUEST')).toMatch(/^status:/);
    expect(await refused(o.s, 'annotation.list', { limit: 501 }, 'BAD_REQUEST')).toMatch(/^limit:/);
  });
});
