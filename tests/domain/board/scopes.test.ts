import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '../../../protocol/registry.js';
import { METHOD_HANDLERS } from '../../../domain/deployed.js';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { expectError } from '../../helpers/frames.js';
import { head } from '../../helpers/calls.js';
import { newTask } from '../../helpers/tasks.js';

let s: TestServer;
let c: TestClient;
let reader: string;
let writerOnly: string;
let workerOnly: string;
let task: any;

const BOARD = [...METHODS.values()].filter((m) => m.family === 'board');

beforeAll(async () => {
  s = await testServer();
  c = s.client;
  reader = (await c.mint({ tier: 'reader' })).apiKey;
  writerOnly = (await c.mint({ scopes: ['org.read', 'board.write'] })).apiKey;
  workerOnly = (await c.mint({ scopes: ['org.read', 'board.work'] })).apiKey;
  task = await newTask(c);
});
afterAll(() => s.close());

describe('board scopes', () => {
  it('covers the 23 registry methods with the registry’s scopes', () => {
    expect(BOARD).toHaveLength(23);
    for (const m of BOARD) expect(METHOD_HANDLERS.has(m.name), `${m.name} deployed`).toBe(true);
    expect(new Set(BOARD.map((m) => m.scope))).toEqual(new Set(['board.read', 'board.write', 'board.work']));
  });

  it.each(BOARD.filter((m) => m.scope !== 'board.read').map((m) => [m.name, m.scope] as const))(
    'a reader-tier key gets 403 FORBIDDEN_SCOPE on %s',
    async (name, scope) => {
      const before = await head(c);
      // The example params are valid, so only the scope can refuse the call.
      const example = METHOD_HANDLERS.get(name)!.contract.example;
      expectError(await c.rpc(name, example, { key: reader }), 'FORBIDDEN_SCOPE', `missing scope ${scope} for ${name}`);
      expect(await head(c)).toBe(before);
    },
  );

  it('a reader-tier key may read: taskComments, taskAttachments, /board.context, /board.ready', async () => {
    expect((await c.rpc('board.taskComments', { taskId: task.id }, { key: reader })).body).toEqual({ ok: true, result: { comments: [], nextCursor: null } });
    expect((await c.rpc('board.taskAttachments', { taskId: task.id }, { key: reader })).body.ok).toBe(true);
    expect((await c.get('board.context', { taskId: task.id }, { key: reader })).status).toBe(200);
    expect((await c.get('board.ready', {}, { key: reader })).status).toBe(200);
  });

  it('board.write does not include board.work, nor the reverse', async () => {
    expectError(await c.rpc('board.claim', { taskId: task.id }, { key: writerOnly }), 'FORBIDDEN_SCOPE', 'missing scope board.work for board.claim');
    expectError(await c.rpc('board.createTask', { title: 'x' }, { key: workerOnly }), 'FORBIDDEN_SCOPE', 'missing scope board.write for board.createTask');
    expectError(await c.get('board.ready', {}, { key: workerOnly }), 'FORBIDDEN_SCOPE', 'missing scope board.read for /board.ready');
    expect((await c.rpc('board.createTask', { title: 'x' }, { key: writerOnly })).body.ok).toBe(true);
    expect((await c.rpc('board.claim', { taskId: task.id }, { key: workerOnly })).body.ok).toBe(true);
  });

  it('no credential -> 401 UNAUTHORIZED', async () => {
    expectError(await c.rpc('board.createTask', { title: 'x' }, { key: 'wops_not_a_real_key' }), 'UNAUTHORIZED');
    expectError(await c.get('board.ready', {}, { key: 'wops_not_a_real_key' }), 'UNAUTHORIZED');
  });
});
