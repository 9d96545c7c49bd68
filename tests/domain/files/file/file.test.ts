import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { MAX_PINS_PER_PLACE } from '../../../../protocol/methods/file.js';
import { head, mutate, ok, otherOrg, refused } from '../../../helpers/calls.js';
import { folder, someEvent, task, team, workstream } from '../annotation/kit.js';

/* file.*: the unanchored discussion on any record, and pins to the org home, teams, workstreams and folders. */

const SECRET = 'payroll password hunter2';

describe('file.addComment and file.listComments', () => {
  it('one discussion thread per record, in the annotation store; retries by clientMsgId do not double; events carry no body', async ({ annotation: o }) => {
    const t = await task(o.s);
    expect(await ok(o.s, 'file.listComments', { targetId: t })).toEqual({ annotationId: null, comments: [], nextCursor: null });
    const first = await mutate(o.s, 'file.addComment', { targetId: t, body: SECRET, clientMsgId: 'd-1' }, 'file.comment.add', { key: o.mia.key });
    const annotationId = first.result.annotationId;
    expect(first.result).toMatchObject({ changed: true, comment: { annotationId, seq: 1, author: o.mia.id, body: SECRET, clientMsgId: 'd-1' } });
    expect(first.event.payload).toEqual({ targetId: t, targetType: 'task', annotationId, replyId: first.result.comment.id, seq: 1, comments: 1 });
    expect(JSON.stringify(first.event)).not.toContain('hunter2');

    const retry = await mutate(o.s, 'file.addComment', { targetId: t, body: SECRET, clientMsgId: 'd-1' }, 'file.comment.add', { key: o.mia.key });
    expect(retry.result).toEqual({ ...first.result, changed: false, replayed: true });
    expect(retry.event.payload.noop).toBe(true);
    const second = await mutate(o.s, 'file.addComment', { targetId: t, body: 'second' }, 'file.comment.add', { key: o.max.key });
    expect(second.result).toMatchObject({ annotationId, comment: { seq: 2 } });

    const before = await head(o.s.client);
    const page = await ok(o.s, 'file.listComments', { targetId: t, limit: 1 });
    expect(page).toMatchObject({ annotationId, comments: [{ body: SECRET }], nextCursor: expect.any(String) });
    expect((await ok(o.s, 'file.listComments', { targetId: t, cursor: page.nextCursor })).comments.map((c: any) => c.body)).toEqual(['second']);
    expect(await head(o.s.client)).toBe(before);
    // The same row in annotation.list: a discussion thread without selector.
    const listed = (await ok(o.s, 'annotation.list', { targetId: t })).annotations;
    expect(listed).toEqual([expect.objectContaining({ id: annotationId, discussion: true, selector: null, commentCount: 2, body: SECRET })]);
  });

  it('misuse: unknown and foreign targets NOT_FOUND, missing read scope FORBIDDEN_SCOPE, bad input names the field', async ({ annotation: o }) => {
    const other = await otherOrg(o.s);
    const theirs = (await other.ok('board.createTask', { title: 't' })).id;
    for (const targetId of [theirs, 'task_0123456789abcdef', 'evt_99999999']) {
      expect(await refused(o.s, 'file.addComment', { targetId, body: 'x' }, 'NOT_FOUND')).toBe(`${targetId} not found`);
      expect(await refused(o.s, 'file.listComments', { targetId }, 'NOT_FOUND')).toBe(`${targetId} not found`);
    }
    const t = await task(o.s);
    expect(await refused(o.s, 'file.addComment', { targetId: t, body: 'x' }, 'FORBIDDEN_SCOPE', { key: o.orgOnly.key })).toMatch(/board\.read/);
    expect(await refused(o.s, 'file.addComment', { targetId: t, body: 'x' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key })).toMatch(/org\.write/);
    expect(await refused(o.s, 'file.addComment', { targetId: t }, 'BAD_REQUEST')).toBe('body: required');
    expect(await refused(o.s, 'file.listComments', { targetId: t, cursor: 'x' }, 'BAD_REQUEST')).toMatch(/^cursor:/);
    // A clientMsgId already used for a thread comment elsewhere.
    const a = (await ok(o.s, 'annotation.create', { targetId: t, kind: 'comment', body: 'x', clientMsgId: 'used-1' })).annotation;
    expect(await refused(o.s, 'file.addComment', { targetId: t, body: 'y', clientMsgId: 'used-1' }, 'CONFLICT')).toContain(a.id);
  });
});

describe('file.pin, file.unpin, file.listPinned', () => {
  it('pins to the org home, a team and a workstream; pinning again is a no-op; unpin twice is a no-op', async ({ annotation: o }) => {
    const t = await task(o.s);
    const evt = await someEvent(o.s);
    const { result, event } = await mutate(o.s, 'file.pin', { targetId: t, place: 'org' }, 'file.pin.add', { key: o.mia.key });
    expect(result.pin).toMatchObject({
      id: expect.stringMatching(/^pin_/),
      place: 'org',
      placeType: 'org',
      targetId: t,
      targetType: 'task',
      pinnedBy: o.mia.id,
      removedAt: null,
    });
    expect(event.payload).toMatchObject({ pinId: result.pin.id, place: 'org', placeType: 'org', targetId: t, targetType: 'task', pins: expect.any(Number) });
    const again = await mutate(o.s, 'file.pin', { targetId: t, place: 'org' }, 'file.pin.add', { key: o.max.key });
    expect(again.result).toEqual({ pin: result.pin, changed: false });
    expect(again.event.payload.noop).toBe(true);

    const tm = await team(o.s);
    const ws = await workstream(o.s);
    await ok(o.s, 'file.pin', { targetId: evt, place: tm }, o.mia.key);
    await ok(o.s, 'file.pin', { targetId: t, place: ws }, o.mia.key);
    expect((await ok(o.s, 'file.listPinned', { place: tm })).pins.map((p: any) => p.targetId)).toEqual([evt]);
    expect((await ok(o.s, 'file.listPinned', { place: ws })).pins.map((p: any) => [p.placeType, p.targetId])).toEqual([['workstream', t]]);
    // A key that cannot read tasks sees no task pins at the org home.
    expect((await ok(o.s, 'file.listPinned', { place: 'org' }, o.orgOnly.key)).pins.map((p: any) => p.targetId)).not.toContain(t);
    expect((await ok(o.s, 'file.listPinned', { place: 'org' })).pins.map((p: any) => p.targetId)).toContain(t);

    const removed = await mutate(o.s, 'file.unpin', { pinId: result.pin.id }, 'file.pin.remove', { key: o.max.key });
    expect(removed.result.pin).toMatchObject({ id: result.pin.id, removedBy: o.max.id, removedAt: expect.any(String) });
    expect(removed.event.payload).toMatchObject({ pinId: result.pin.id, place: 'org', targetId: t });
    const twice = await mutate(o.s, 'file.unpin', { pinId: result.pin.id }, 'file.pin.remove', { key: o.max.key });
    expect(twice.result).toEqual({ pin: removed.result.pin, changed: false });
    expect(twice.event.payload.noop).toBe(true);
    expect((await ok(o.s, 'file.listPinned', { place: 'org' })).pins.map((p: any) => p.id)).not.toContain(result.pin.id);
  });

  it('a folder place needs role editor on it and must be a folder; an unreadable folder is NOT_FOUND', async ({ annotation: o }) => {
    const f = await folder(o.s, o.mia.key);
    const t = await task(o.s);
    expect((await ok(o.s, 'file.pin', { targetId: t, place: f.id }, o.max.key)).pin.placeType).toBe('folder');
    const secret = await folder(o.s, o.mia.key, { restricted: true });
    expect(await refused(o.s, 'file.pin', { targetId: t, place: secret.id }, 'NOT_FOUND', { key: o.max.key })).toBe(`place ${secret.id} not found`);
    expect(await refused(o.s, 'file.listPinned', { place: secret.id }, 'NOT_FOUND', { key: o.max.key })).toBe(`place ${secret.id} not found`);
    const inner = (await ok(o.s, 'files.create', { kind: 'folder', name: 'inner', parentId: f.id }, o.mia.key)).file;
    await ok(o.s, 'file.pin', { targetId: inner.id, place: 'org' }, o.mia.key);
    const upload = (await ok(o.s, 'files.uploadRegister', { name: 'n.txt', contentBase64: Buffer.from('hello').toString('base64') }, o.mia.key)).file;
    expect(await refused(o.s, 'file.pin', { targetId: t, place: upload.id }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^place: fil_\w+ is an upload, not a folder/,
    );
    // A private file pinned at the org home stays hidden from those who cannot read it.
    const hidden = await ok(o.s, 'file.pin', { targetId: secret.id, place: 'org' }, o.mia.key);
    expect((await ok(o.s, 'file.listPinned', { place: 'org' }, o.max.key)).pins.map((p: any) => p.id)).not.toContain(hidden.pin.id);
    expect(await refused(o.s, 'file.unpin', { pinId: hidden.pin.id }, 'NOT_FOUND', { key: o.max.key })).toBe(`pin ${hidden.pin.id} not found`);
  });

  it(`at most ${MAX_PINS_PER_PLACE} per place: the next is CONFLICT saying to unpin one`, async ({ annotation: o }) => {
    const ws = await workstream(o.s);
    const pins: string[] = [];
    for (let i = 0; i < MAX_PINS_PER_PLACE; i++) pins.push((await ok(o.s, 'file.pin', { targetId: await task(o.s), place: ws })).pin.id);
    const extra = await task(o.s);
    expect(await refused(o.s, 'file.pin', { targetId: extra, place: ws }, 'CONFLICT')).toBe(
      `${ws} already has 50 pins, the most a place holds: unpin one first (file.unpin)`,
    );
    await ok(o.s, 'file.unpin', { pinId: pins[0] });
    expect((await ok(o.s, 'file.pin', { targetId: extra, place: ws })).changed).toBe(true);
    expect((await ok(o.s, 'file.listPinned', { place: ws })).pins).toHaveLength(MAX_PINS_PER_PLACE);
  });

  it('misuse: unknown and foreign pins, targets and places are NOT_FOUND; bad input names the field', async ({ annotation: o }) => {
    const other = await otherOrg(o.s);
    const theirTask = (await other.ok('board.createTask', { title: 't' })).id;
    const theirPin = (await other.ok('file.pin', { targetId: theirTask, place: 'org' })).pin.id;
    for (const pinId of [theirPin, 'pin_0123456789abcdef']) expect(await refused(o.s, 'file.unpin', { pinId }, 'NOT_FOUND')).toBe(`pin ${pinId} not found`);
    expect(await refused(o.s, 'file.pin', { targetId: theirTask, place: 'org' }, 'NOT_FOUND')).toBe(`${theirTask} not found`);
    const t = await task(o.s);
    expect(await refused(o.s, 'file.pin', { targetId: t, place: 'team_0123456789abcdef' }, 'NOT_FOUND')).toBe('place team_0123456789abcdef not found');
    expect(await refused(o.s, 'file.pin', { targetId: t, place: 'home' }, 'BAD_REQUEST')).toMatch(/^place: must be org, a team_…/);
    expect(await refused(o.s, 'file.pin', { targetId: t, place: 'ch_0123456789abcdef' }, 'BAD_REQUEST')).toMatch(/^place:/);
    expect(await refused(o.s, 'file.unpin', { pinId: 'x' }, 'BAD_REQUEST')).toMatch(/^pinId:/);
    expect(await refused(o.s, 'file.listPinned', {}, 'BAD_REQUEST')).toBe('place: required');
    expect(await refused(o.s, 'file.pin', { targetId: t, place: 'org' }, 'FORBIDDEN_SCOPE', { key: o.orgOnly.key })).toMatch(/board\.read/);
    expect(await refused(o.s, 'file.pin', { targetId: t, place: 'org' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key })).toMatch(/org\.write/);
  });
});
