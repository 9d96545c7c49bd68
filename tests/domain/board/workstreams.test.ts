import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { MISSING } from './setup.js';
import { expectOk, head, mutate, otherOrg, refused } from '../../helpers/calls.js';
import { newTask, newWorkstream } from '../../helpers/tasks.js';

let s: TestServer;
let c: TestClient;
let other: TestClient;

beforeAll(async () => {
  s = await testServer();
  c = s.client;
  other = await otherOrg(s);
});
afterAll(() => s.close());

/** The org's workstream ids in display order, straight from the table. */
const order = async () =>
  (
    await s.runtime.db.query<{ workstream_id: string }>(
      'SELECT workstream_id FROM board_workstreams WHERE org_id = $1 ORDER BY position, created_at, workstream_id',
      [s.org.orgId],
    )
  ).map((r) => r.workstream_id);

describe('board.createWorkstream', () => {
  it('creates a workstream, last in order, and appends workstream.created', async () => {
    const { result, event } = await mutate(c, 'board.createWorkstream', { name: 'Close', description: 'Month end' }, 'workstream.created', {
      entityId: (r) => r.id,
    });
    expect(result).toMatchObject({ name: 'Close', description: 'Month end', owner: null });
    expect(result.id).toMatch(/^ws_[a-z0-9]{16}$/);
    expect(event.payload).toEqual({ name: 'Close', position: result.position });
    const next = await newWorkstream(c);
    expect(next.position).toBeGreaterThan(result.position);
  });

  it('is idempotent by key', async () => {
    const before = await head(c);
    const a = await c.rpc('board.createWorkstream', { name: 'Once' }, { idem: 'ws-once' });
    const b = await c.rpc('board.createWorkstream', { name: 'Once' }, { idem: 'ws-once' });
    expectOk('board.createWorkstream', a);
    expect(b.raw).toBe(a.raw);
    expect(b.headers['idempotent-replay']).toBe('true');
    expect(await head(c)).toBe(before + 1);
  });

  it.each([
    ['name: required', {}],
    ['name: must be at least 1 character', { name: '' }],
    ['description: must be at most 2000 characters', { name: 'n', description: 'd'.repeat(2001) }],
    ['owner: unknown field', { name: 'n', owner: 'usr_1' }],
    ['name: must be well-formed Unicode text without NUL characters', { name: 'bad\u0000nul' }],
  ])('bad params -> BAD_REQUEST %s', async (message, params) => {
    await refused(c, 'board.createWorkstream', params, 'BAD_REQUEST', { message });
  });
});

describe('board.updateWorkstream', () => {
  it('renames and re-describes', async () => {
    const ws = await newWorkstream(c, { description: 'old' });
    const { result, event } = await mutate(c, 'board.updateWorkstream', { workstreamId: ws.id, name: 'Renamed' }, 'workstream.updated', {
      entityId: () => ws.id,
    });
    expect(result).toMatchObject({ id: ws.id, name: 'Renamed', description: 'old' });
    expect(event.payload).toEqual({ fields: ['name'], name: 'Renamed' });
    expect(await c.ok('board.updateWorkstream', { workstreamId: ws.id, description: '' })).toMatchObject({ name: 'Renamed', description: '' });
  });

  it('bad input, missing and foreign workstreams', async () => {
    const ws = await newWorkstream(c);
    const theirs = await other.ok('board.createWorkstream', { name: 'theirs' });
    await refused(c, 'board.updateWorkstream', { workstreamId: ws.id }, 'BAD_REQUEST', { message: 'params: give at least one of name, description' });
    await refused(c, 'board.updateWorkstream', { workstreamId: ws.id, name: '' }, 'BAD_REQUEST', { message: 'name: must be at least 1 character' });
    await refused(c, 'board.updateWorkstream', { workstreamId: theirs.id, name: 'x' }, 'NOT_FOUND', { message: `workstream ${theirs.id} not found` });
    await refused(c, 'board.updateWorkstream', { workstreamId: MISSING.ws, name: 'x' }, 'NOT_FOUND');
    expect((await other.ok('board.updateWorkstream', { workstreamId: theirs.id, description: 'still theirs' })).name).toBe('theirs');
  });
});

describe('board.moveWorkstream', () => {
  it('reorders among the org’s workstreams', async () => {
    const a = await newWorkstream(c);
    const b = await newWorkstream(c);
    const { result, event } = await mutate(c, 'board.moveWorkstream', { workstreamId: b.id, position: 0 }, 'workstream.moved', {
      entityId: () => b.id,
    });
    expect(result.position).toBe(0);
    expect(event.payload).toEqual({ position: 0 });
    const ids = await order();
    expect(ids[0]).toBe(b.id);
    await c.ok('board.moveWorkstream', { workstreamId: b.id, position: 10_000 });
    const after = await order();
    expect(after[after.length - 1]).toBe(b.id);
    expect(after.indexOf(a.id)).toBeLessThan(after.indexOf(b.id));
    expect(new Set(after).size).toBe(after.length);
  });

  it('bad input, missing and foreign workstreams', async () => {
    const ws = await newWorkstream(c);
    const theirs = await other.ok('board.createWorkstream', { name: 'theirs' });
    await refused(c, 'board.moveWorkstream', { workstreamId: ws.id }, 'BAD_REQUEST', { message: 'position: required' });
    await refused(c, 'board.moveWorkstream', { workstreamId: ws.id, position: -2 }, 'BAD_REQUEST', { message: 'position: must be >= 0' });
    await refused(c, 'board.moveWorkstream', { workstreamId: theirs.id, position: 0 }, 'NOT_FOUND');
    await refused(c, 'board.moveWorkstream', { workstreamId: MISSING.ws, position: 0 }, 'NOT_FOUND');
  });
});

describe('board.deleteWorkstream', () => {
  it('deletes an empty workstream and its comments', async () => {
    const ws = await newWorkstream(c);
    await c.ok('board.comment', { workstreamId: ws.id, body: 'hello' });
    const { result, event } = await mutate(c, 'board.deleteWorkstream', { workstreamId: ws.id }, 'workstream.deleted', { entityId: () => ws.id });
    expect(result).toEqual({ workstreamId: ws.id, deleted: true, movedTasks: 0, detachedTasks: 0 });
    expect(event.payload).toEqual({ name: ws.name, movedTasks: 0, detachedTasks: 0, moveTasksTo: null });
    await refused(c, 'board.updateWorkstream', { workstreamId: ws.id, name: 'x' }, 'NOT_FOUND');
    const left = one(await s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM board_comments WHERE workstream_id = $1', [ws.id]));
    expect(left.n).toBe(0);
  });

  it('refuses while open items remain; done items are detached', async () => {
    const ws = await newWorkstream(c);
    const open = await newTask(c, { workstreamId: ws.id });
    const done = await newTask(c, { workstreamId: ws.id });
    await c.ok('board.complete', { taskId: done.id });
    await refused(c, 'board.deleteWorkstream', { workstreamId: ws.id }, 'CONFLICT', { message: /still has 1 open item; .*moveTasksTo/ });
    await c.ok('board.complete', { taskId: open.id });
    const { result } = await mutate(c, 'board.deleteWorkstream', { workstreamId: ws.id }, 'workstream.deleted');
    expect(result).toMatchObject({ movedTasks: 0, detachedTasks: 2 });
    expect((await c.get('board.context', { taskId: done.id })).body.task.workstreamId).toBeNull();
  });

  it('with moveTasksTo, moves every item there', async () => {
    const ws = await newWorkstream(c);
    const target = await newWorkstream(c);
    const t1 = await newTask(c, { workstreamId: ws.id });
    const t2 = await newTask(c, { workstreamId: ws.id });
    await c.ok('board.complete', { taskId: t2.id });
    const { result, event } = await mutate(c, 'board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: target.id }, 'workstream.deleted');
    expect(result).toEqual({ workstreamId: ws.id, deleted: true, movedTasks: 2, detachedTasks: 0 });
    expect(event.payload).toMatchObject({ movedTasks: 2, moveTasksTo: target.id });
    for (const t of [t1, t2]) expect((await c.get('board.context', { taskId: t.id })).body.task.workstreamId).toBe(target.id);
  });

  it('bad input, missing and foreign workstreams', async () => {
    const ws = await newWorkstream(c);
    const theirs = await other.ok('board.createWorkstream', { name: 'theirs' });
    await refused(c, 'board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: ws.id }, 'BAD_REQUEST', {
      message: /^moveTasksTo: must be another workstream/,
    });
    await refused(c, 'board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: theirs.id }, 'NOT_FOUND');
    await refused(c, 'board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: MISSING.ws }, 'NOT_FOUND');
    await refused(c, 'board.deleteWorkstream', { workstreamId: theirs.id }, 'NOT_FOUND');
    await refused(c, 'board.deleteWorkstream', { workstreamId: MISSING.ws }, 'NOT_FOUND');
    await refused(c, 'board.deleteWorkstream', {}, 'BAD_REQUEST', { message: 'workstreamId: required' });
    expect((await other.ok('board.updateWorkstream', { workstreamId: theirs.id, name: 'alive' })).name).toBe('alive');
  });
});
