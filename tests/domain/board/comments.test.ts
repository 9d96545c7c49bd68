import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { MISSING } from './setup.js';
import { expectOk, head, mutate, otherOrg, refused } from '../../helpers/calls.js';
import { newTask, newWorkstream } from '../../helpers/tasks.js';

let s: TestServer;
let c: TestClient;
let other: TestClient;
let me: string;

beforeAll(async () => {
  s = await testServer();
  c = s.client;
  other = await otherOrg(s);
  me = (await c.get('org/whoami')).body.principal.id;
});
afterAll(() => s.close());

const SECRET = 'the door code is 4711';

describe('board.addTaskComment', () => {
  it('comments on an item; the ledger records id and length, never the text', async () => {
    const t = await newTask(c);
    const { result, event } = await mutate(c, 'board.addTaskComment', { taskId: t.id, body: SECRET }, 'item.commented', {
      entityId: () => t.id,
    });
    expect(result).toMatchObject({ taskId: t.id, workstreamId: null, body: SECRET, author: me });
    expect(result.id).toMatch(/^cmt_[a-z0-9]{16}$/);
    expect(event.payload).toEqual({ commentId: result.id, length: SECRET.length });
    expect(JSON.stringify(event)).not.toContain('4711');
  });

  it('bad input, missing and foreign items', async () => {
    const t = await newTask(c);
    const theirs = await newTask(other);
    await refused(c, 'board.addTaskComment', { taskId: t.id }, 'BAD_REQUEST', { message: 'body: required' });
    await refused(c, 'board.addTaskComment', { taskId: t.id, body: '' }, 'BAD_REQUEST', { message: 'body: must be at least 1 character' });
    await refused(c, 'board.addTaskComment', { taskId: t.id, body: 'x'.repeat(10_001) }, 'BAD_REQUEST', { message: 'body: must be at most 10000 characters' });
    await refused(c, 'board.addTaskComment', { taskId: t.id, body: 'hi', workstreamId: 'ws_1' }, 'BAD_REQUEST', { message: 'workstreamId: unknown field' });
    await refused(c, 'board.addTaskComment', { taskId: theirs.id, body: 'hi' }, 'NOT_FOUND', { message: `task ${theirs.id} not found` });
    await refused(c, 'board.addTaskComment', { taskId: MISSING.task, body: 'hi' }, 'NOT_FOUND');
  });
});

describe('board.comment', () => {
  it('comments on an item (item.commented) or a workstream (workstream.commented)', async () => {
    const t = await newTask(c);
    const ws = await newWorkstream(c);
    const onTask = await mutate(c, 'board.comment', { taskId: t.id, body: 'on the task' }, 'item.commented', { entityId: () => t.id });
    expect(onTask.result).toMatchObject({ taskId: t.id, workstreamId: null });
    const onWs = await mutate(c, 'board.comment', { workstreamId: ws.id, body: SECRET }, 'workstream.commented', { entityId: () => ws.id });
    expect(onWs.result).toMatchObject({ taskId: null, workstreamId: ws.id, body: SECRET });
    expect(onWs.event.payload).toEqual({ commentId: onWs.result.id, length: SECRET.length });
  });

  it('needs exactly one of taskId and workstreamId', async () => {
    const t = await newTask(c);
    const ws = await newWorkstream(c);
    await refused(c, 'board.comment', { body: 'x' }, 'BAD_REQUEST', { message: 'taskId: give exactly one of taskId and workstreamId' });
    await refused(c, 'board.comment', { taskId: t.id, workstreamId: ws.id, body: 'x' }, 'BAD_REQUEST', {
      message: 'taskId: give exactly one of taskId and workstreamId',
    });
    await refused(c, 'board.comment', { taskId: t.id }, 'BAD_REQUEST', { message: 'body: required' });
  });

  it('missing and foreign targets -> NOT_FOUND', async () => {
    const theirWs = await other.ok('board.createWorkstream', { name: 'w' });
    const theirTask = await newTask(other);
    await refused(c, 'board.comment', { workstreamId: theirWs.id, body: 'x' }, 'NOT_FOUND', { message: `workstream ${theirWs.id} not found` });
    await refused(c, 'board.comment', { taskId: theirTask.id, body: 'x' }, 'NOT_FOUND');
    await refused(c, 'board.comment', { workstreamId: MISSING.ws, body: 'x' }, 'NOT_FOUND');
  });
});

describe('board.taskComments', () => {
  it('pages an item’s comments oldest first, appending no event', async () => {
    const t = await newTask(c);
    const bodies = Array.from({ length: 5 }, (_, i) => `comment ${i}`);
    // Both ways of commenting on an item land in the same thread.
    for (const [n, body] of bodies.entries()) await c.ok(n % 2 ? 'board.comment' : 'board.addTaskComment', { taskId: t.id, body });
    await c.ok('board.addTaskComment', { taskId: (await newTask(c)).id, body: 'elsewhere' });

    const before = await head(c);
    const seen: string[] = [];
    let cursor = 0;
    let pages = 0;
    for (;;) {
      const res = await c.rpc('board.taskComments', { taskId: t.id, cursor, limit: 2 });
      const page = expectOk('board.taskComments', res);
      pages++;
      expect(page.comments.length).toBeLessThanOrEqual(2);
      seen.push(...page.comments.map((x: any) => x.body));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(bodies);
    expect(pages).toBe(3);
    expect(await head(c)).toBe(before);

    const all = expectOk('board.taskComments', await c.rpc('board.taskComments', { taskId: t.id }));
    expect(all.comments).toHaveLength(5);
    expect(all.nextCursor).toBeNull();
  });

  it('an item without comments has an empty last page', async () => {
    const t = await newTask(c);
    expect(await c.ok('board.taskComments', { taskId: t.id })).toEqual({ comments: [], nextCursor: null });
  });

  it('bad input, missing and foreign items', async () => {
    const t = await newTask(c);
    const theirs = await newTask(other);
    await other.ok('board.addTaskComment', { taskId: theirs.id, body: 'private' });
    await refused(c, 'board.taskComments', { taskId: theirs.id }, 'NOT_FOUND');
    await refused(c, 'board.taskComments', { taskId: MISSING.task }, 'NOT_FOUND');
    await refused(c, 'board.taskComments', { taskId: t.id, limit: 0 }, 'BAD_REQUEST', { message: 'limit: must be >= 1' });
    await refused(c, 'board.taskComments', { taskId: t.id, limit: 101 }, 'BAD_REQUEST', { message: 'limit: must be at most 100' });
    await refused(c, 'board.taskComments', { taskId: t.id, cursor: -1 }, 'BAD_REQUEST', { message: 'cursor: must be >= 0' });
  });
});
