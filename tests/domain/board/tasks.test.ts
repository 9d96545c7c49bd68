import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { MISSING } from './setup.js';
import { eventsAfter, expectOk, head, mutate, otherOrg, refused } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
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

const positionOf = async (taskId: string) => (await c.get('board.context', { taskId })).body.task.position as number;

describe('board.createTask', () => {
  it('creates a task in triage and appends one item.created', async () => {
    const { result, event } = await mutate(c, 'board.createTask', { title: 'Reconcile March', priority: 'high' }, 'item.created', {
      entityId: (r) => r.id,
    });
    expect(result).toMatchObject({ title: 'Reconcile March', col: 'triage', priority: 'high', type: 'task', createdBy: me });
    expect(result.id).toMatch(/^task_[a-z0-9]{16}$/);
    expect(event.actor).toBe(me);
    expect(event.payload).toMatchObject({ type: 'task', title: 'Reconcile March', col: 'triage', priority: 'high' });
  });

  it('defaults priority to normal and description to empty', async () => {
    const t = await newTask(c);
    expect(t).toMatchObject({ priority: 'normal', description: '', workstreamId: null, claimedBy: null, completedAt: null });
  });

  it('files the task under a workstream', async () => {
    const ws = await newWorkstream(c);
    const t = await newTask(c, { workstreamId: ws.id });
    expect(t.workstreamId).toBe(ws.id);
  });

  it.each([
    ['title: required', {}],
    ['title: must be at least 1 character', { title: '' }],
    ['title: must be at most 200 characters', { title: 'x'.repeat(201) }],
    ['title: expected string, got number', { title: 7 }],
    ['priority: must be one of "low", "normal", "high", "urgent"', { title: 'ok', priority: 'critical' }],
    ['col: unknown field', { title: 'ok', col: 'todo' }],
    ['workstreamId: must be an id of the form ws_…', { title: 'ok', workstreamId: 'task_abc' }],
  ])('bad params -> BAD_REQUEST %s', async (message, params) => {
    await refused(c, 'board.createTask', params, 'BAD_REQUEST', { message });
  });

  it('a workstream that is missing or another org’s -> NOT_FOUND', async () => {
    const theirs = await other.ok('board.createWorkstream', { name: 'theirs' });
    await refused(c, 'board.createTask', { title: 'x', workstreamId: theirs.id }, 'NOT_FOUND', { message: `workstream ${theirs.id} not found` });
    await refused(c, 'board.createTask', { title: 'x', workstreamId: MISSING.ws }, 'NOT_FOUND');
  });

  it('replays with the same x-idempotency-key: identical body, idempotent-replay header, no second event', async () => {
    const first = await c.rpc('board.createTask', { title: 'once only' }, { idem: 'create-once-1' });
    expectOk('board.createTask', first);
    expect(first.headers['idempotent-replay']).toBeUndefined();
    const before = await head(c);
    const again = await c.rpc('board.createTask', { title: 'once only' }, { idem: 'create-once-1' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(again.raw).toBe(first.raw);
    expect(await head(c)).toBe(before);
    const fresh = await c.rpc('board.createTask', { title: 'once only' }, { idem: 'create-once-2' });
    expect(fresh.body.result.id).not.toBe(first.body.result.id);
    expect(await head(c)).toBe(before + 1);
  });
});

describe('board.create', () => {
  it('creates an item of any type, in triage or todo, with parent and assignee', async () => {
    const parent = await newTask(c);
    const { result, event } = await mutate(
      c,
      'board.create',
      { type: 'bug', title: 'PDF blank', col: 'todo', priority: 'urgent', parentId: parent.id, assignee: me, description: 'steps' },
      'item.created',
      { entityId: (r) => r.id },
    );
    expect(result).toMatchObject({ type: 'bug', col: 'todo', priority: 'urgent', parentId: parent.id, assignee: me, description: 'steps' });
    expect(event.payload).toMatchObject({ type: 'bug', col: 'todo', parentId: parent.id });
    const note = await c.ok('board.create', { type: 'note', title: 'remember' });
    expect(note).toMatchObject({ type: 'note', col: 'triage' });
  });

  it('is idempotent by key', async () => {
    const a = await c.rpc('board.create', { type: 'milestone', title: 'Q3 close' }, { idem: 'ms-1' });
    const b = await c.rpc('board.create', { type: 'milestone', title: 'Q3 close' }, { idem: 'ms-1' });
    expect(b.raw).toBe(a.raw);
    expect(b.headers['idempotent-replay']).toBe('true');
  });

  it('a missing type -> BAD_REQUEST naming type', async () => {
    // zod reports a missing enum as invalid_value, so the core formats it as "must be one of" (see report).
    await refused(c, 'board.create', { title: 'x' }, 'BAD_REQUEST', { message: /^type: (required|must be one of "task")/ });
  });

  it.each([
    ['type: must be one of "task", "bug", "note", "milestone"', { type: 'epic', title: 'x' }],
    ['col: must be one of "triage", "todo"', { type: 'task', title: 'x', col: 'done' }],
    ['assignee: must be a principal id usr_… or agt_…', { type: 'task', title: 'x', assignee: 'bob' }],
  ])('bad params -> BAD_REQUEST %s', async (message, params) => {
    await refused(c, 'board.create', params, 'BAD_REQUEST', { message });
  });

  it('a parent or assignee that is missing or another org’s -> NOT_FOUND', async () => {
    const theirs = await newTask(other);
    const theirPrincipal = (await other.get('org/whoami')).body.principal.id;
    await refused(c, 'board.create', { type: 'task', title: 'x', parentId: theirs.id }, 'NOT_FOUND', { message: `task ${theirs.id} not found` });
    await refused(c, 'board.create', { type: 'task', title: 'x', parentId: MISSING.task }, 'NOT_FOUND');
    await refused(c, 'board.create', { type: 'task', title: 'x', assignee: theirPrincipal }, 'NOT_FOUND', { message: `principal ${theirPrincipal} not found` });
  });
});

describe('board.updateTask', () => {
  it('changes the given fields and records which', async () => {
    const t = await newTask(c);
    const ws = await newWorkstream(c);
    const { result, event } = await mutate(
      c,
      'board.updateTask',
      { taskId: t.id, title: 'Renamed', priority: 'low', workstreamId: ws.id, description: 'more' },
      'item.updated',
      { entityId: () => t.id },
    );
    expect(result).toMatchObject({ id: t.id, title: 'Renamed', priority: 'low', workstreamId: ws.id, description: 'more', col: 'triage' });
    expect(event.payload.fields).toEqual(['title', 'description', 'priority', 'workstreamId']);
    const detached = await c.ok('board.updateTask', { taskId: t.id, workstreamId: null });
    expect(detached).toMatchObject({ workstreamId: null, title: 'Renamed' });
  });

  it('needs at least one field, and valid ones', async () => {
    const t = await newTask(c);
    await refused(c, 'board.updateTask', { taskId: t.id }, 'BAD_REQUEST', {
      message: 'params: give at least one of title, description, priority, workstreamId',
    });
    await refused(c, 'board.updateTask', { taskId: t.id, title: '' }, 'BAD_REQUEST', { message: 'title: must be at least 1 character' });
    await refused(c, 'board.updateTask', { taskId: t.id, col: 'done' }, 'BAD_REQUEST', { message: 'col: unknown field' });
    await refused(c, 'board.updateTask', { title: 'x' }, 'BAD_REQUEST', { message: 'taskId: required' });
  });

  it('a missing task, another org’s task or workstream -> NOT_FOUND', async () => {
    const t = await newTask(c);
    const theirs = await newTask(other);
    const theirWs = await other.ok('board.createWorkstream', { name: 'w' });
    await refused(c, 'board.updateTask', { taskId: MISSING.task, title: 'x' }, 'NOT_FOUND', { message: `task ${MISSING.task} not found` });
    await refused(c, 'board.updateTask', { taskId: theirs.id, title: 'x' }, 'NOT_FOUND');
    await refused(c, 'board.updateTask', { taskId: t.id, workstreamId: theirWs.id }, 'NOT_FOUND');
  });
});

describe('board.moveTask', () => {
  it('moves to another column, at the end', async () => {
    const t = await newTask(c);
    const { result, event } = await mutate(c, 'board.moveTask', { taskId: t.id, col: 'todo' }, 'item.moved', { entityId: () => t.id });
    expect(result.col).toBe('todo');
    expect(event.payload).toMatchObject({ fromCol: 'triage', col: 'todo' });
  });

  it('reorders within a column by 0-based position', async () => {
    const [a, b, d] = [await newTask(c), await newTask(c), await newTask(c)];
    for (const t of [a, b, d]) await c.ok('board.moveTask', { taskId: t.id, col: 'doing' });
    await mutate(c, 'board.moveTask', { taskId: d.id, position: 0 }, 'item.moved');
    const order = async () => {
      const pos = { a: await positionOf(a.id), b: await positionOf(b.id), d: await positionOf(d.id) };
      return Object.entries(pos)
        .sort((x, y) => x[1] - y[1])
        .map(([k]) => k)
        .join('');
    };
    expect(await order()).toBe('dab');
    await c.ok('board.moveTask', { taskId: d.id, position: 99 });
    expect(await order()).toBe('abd');
    await c.ok('board.moveTask', { taskId: a.id, position: 1 });
    const after = await order();
    expect(after.indexOf('b')).toBeLessThan(after.indexOf('a'));
  });

  it('moving out of blocked clears the reason, out of done reopens, to todo releases the claim', async () => {
    const t = await newTask(c);
    await c.ok('board.block', { taskId: t.id, reason: 'waiting' });
    const unblocked = await c.ok('board.moveTask', { taskId: t.id, col: 'todo' });
    expect(unblocked).toMatchObject({ col: 'todo', blockedReason: null });
    await c.ok('board.complete', { taskId: t.id });
    const reopened = await c.ok('board.moveTask', { taskId: t.id, col: 'doing' });
    expect(reopened).toMatchObject({ col: 'doing', completedAt: null });
    const claimed = await c.ok('board.claim', { taskId: t.id });
    expect(claimed.claimedBy).toBe(me);
    const putDown = await c.ok('board.moveTask', { taskId: t.id, col: 'todo' });
    expect(putDown).toMatchObject({ col: 'todo', claimedBy: null, claimExpiresAt: null });
  });

  it('refuses the same column without a position (CONFLICT) and columns entered by other acts (BAD_REQUEST)', async () => {
    const t = await newTask(c);
    await refused(c, 'board.moveTask', { taskId: t.id, col: 'triage' }, 'CONFLICT', { message: /already in triage/ });
    await refused(c, 'board.moveTask', { taskId: t.id, col: 'done' }, 'BAD_REQUEST', { message: 'col: must be one of "triage", "todo", "doing"' });
    await refused(c, 'board.moveTask', { taskId: t.id, col: 'blocked' }, 'BAD_REQUEST', { message: /^col: / });
    await refused(c, 'board.moveTask', { taskId: t.id }, 'BAD_REQUEST', { message: 'params: give at least one of col, position' });
    await refused(c, 'board.moveTask', { taskId: t.id, position: -1 }, 'BAD_REQUEST', { message: 'position: must be >= 0' });
  });

  it('a missing or another org’s task -> NOT_FOUND', async () => {
    const theirs = await newTask(other);
    await refused(c, 'board.moveTask', { taskId: theirs.id, col: 'todo' }, 'NOT_FOUND');
    await refused(c, 'board.moveTask', { taskId: MISSING.task, col: 'todo' }, 'NOT_FOUND');
    expect((await other.get('board.context', { taskId: theirs.id })).body.task.col).toBe('triage');
  });
});

describe('board.assignTask', () => {
  it('assigns to a principal of this org and unassigns with null', async () => {
    const t = await newTask(c);
    const agent = await c.mint({ tier: 'agent' });
    const { result, event } = await mutate(c, 'board.assignTask', { taskId: t.id, assignee: agent.principal.id }, 'item.assigned', {
      entityId: () => t.id,
    });
    expect(result.assignee).toBe(agent.principal.id);
    expect(result.claimedBy).toBeNull();
    expect(event.payload).toEqual({ assignee: agent.principal.id, previous: null });
    const { event: second } = await mutate(c, 'board.assignTask', { taskId: t.id, assignee: null }, 'item.assigned');
    expect(second.payload).toEqual({ assignee: null, previous: agent.principal.id });
  });

  it('refuses bad input, and missing or foreign rows', async () => {
    const t = await newTask(c);
    const theirs = await newTask(other);
    const theirPrincipal = (await other.get('org/whoami')).body.principal.id;
    await refused(c, 'board.assignTask', { taskId: t.id }, 'BAD_REQUEST', { message: 'assignee: required' });
    await refused(c, 'board.assignTask', { taskId: t.id, assignee: 'key_123' }, 'BAD_REQUEST', { message: 'assignee: must be a principal id usr_… or agt_…' });
    await refused(c, 'board.assignTask', { taskId: t.id, assignee: theirPrincipal }, 'NOT_FOUND');
    await refused(c, 'board.assignTask', { taskId: theirs.id, assignee: me }, 'NOT_FOUND');
    await refused(c, 'board.assignTask', { taskId: MISSING.task, assignee: me }, 'NOT_FOUND');
  });
});

describe('ledger payloads stay small', () => {
  it('item events carry ids, titles and columns, never descriptions', async () => {
    const before = await head(c);
    const t = await newTask(c, { description: 'SECRET-DESCRIPTION '.repeat(20) });
    await c.ok('board.updateTask', { taskId: t.id, description: 'ANOTHER-SECRET' });
    const events = await eventsAfter(c, before);
    expect(events).toHaveLength(2);
    expect(JSON.stringify(events)).not.toMatch(/SECRET/);
  });

  it('errors use the call frame', async () => {
    expectError(await c.rpc('board.createTask', { title: '' }), 'BAD_REQUEST');
  });
});
