import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { MISSING } from './setup.js';
import { mutate, otherOrg, refused } from '../../helpers/calls.js';
import { newTask } from '../../helpers/tasks.js';

let s: TestServer;
let c: TestClient;
let other: TestClient;

beforeAll(async () => {
  s = await testServer();
  c = s.client;
  other = await otherOrg(s);
});
afterAll(() => s.close());

describe('board.link', () => {
  it('links two items with a relation and appends item.linked on the from item', async () => {
    const a = await newTask(c);
    const b = await newTask(c);
    const { result, event } = await mutate(c, 'board.link', { fromTaskId: a.id, toTaskId: b.id, relation: 'blocks' }, 'item.linked', {
      entityId: () => a.id,
    });
    expect(result).toMatchObject({ fromTaskId: a.id, toTaskId: b.id, relation: 'blocks' });
    expect(result.id).toMatch(/^lnk_[a-z0-9]{16}$/);
    expect(event.payload).toEqual({ linkId: result.id, toTaskId: b.id, relation: 'blocks' });
    const ctx = await c.get('board.context', { taskId: b.id });
    expect(ctx.body.links).toEqual([expect.objectContaining({ id: result.id, direction: 'incoming', taskId: a.id, relation: 'blocks' })]);
    expect(ctx.body.openBlockers).toEqual([a.id]);
  });

  it('the same link twice -> CONFLICT; relates is symmetric; other relations between the pair are fine', async () => {
    const a = await newTask(c);
    const b = await newTask(c);
    await c.ok('board.link', { fromTaskId: a.id, toTaskId: b.id, relation: 'relates' });
    await refused(c, 'board.link', { fromTaskId: a.id, toTaskId: b.id, relation: 'relates' }, 'CONFLICT', { message: /already relates to/ });
    await refused(c, 'board.link', { fromTaskId: b.id, toTaskId: a.id, relation: 'relates' }, 'CONFLICT', { message: /already relates to/ });
    await c.ok('board.link', { fromTaskId: a.id, toTaskId: b.id, relation: 'duplicates' });
    await refused(c, 'board.link', { fromTaskId: a.id, toTaskId: b.id, relation: 'duplicates' }, 'CONFLICT', { message: /already duplicates/ });
    await c.ok('board.link', { fromTaskId: b.id, toTaskId: a.id, relation: 'duplicates' });
  });

  it('a cycle of blocks -> CONFLICT, directly or through other items', async () => {
    const [a, b, d] = [await newTask(c), await newTask(c), await newTask(c)];
    await c.ok('board.link', { fromTaskId: a.id, toTaskId: b.id, relation: 'blocks' });
    await refused(c, 'board.link', { fromTaskId: b.id, toTaskId: a.id, relation: 'blocks' }, 'CONFLICT', { message: /would close a cycle/ });
    await c.ok('board.link', { fromTaskId: b.id, toTaskId: d.id, relation: 'blocks' });
    await refused(c, 'board.link', { fromTaskId: d.id, toTaskId: a.id, relation: 'blocks' }, 'CONFLICT', { message: /would close a cycle/ });
    // Not a cycle: another path to the same item.
    await c.ok('board.link', { fromTaskId: a.id, toTaskId: d.id, relation: 'blocks' });
  });

  it.each([
    ['toTaskId: must differ from fromTaskId', { same: true }],
    ['relation: must be one of "blocks", "relates", "duplicates"', { relation: 'parent' }],
    ['relation: required', { relation: undefined }],
    ['toTaskId: must be an id of the form task_…', { toTaskId: 'ws_1' }],
  ])('bad params -> BAD_REQUEST %s', async (message, extra) => {
    const a = await newTask(c);
    const b = await newTask(c);
    const { same, ...rest } = extra as { same?: boolean };
    const params = { fromTaskId: a.id, toTaskId: same ? a.id : b.id, relation: 'relates', ...rest };
    // relation: undefined must reach the server as absent.
    await refused(c, 'board.link', JSON.parse(JSON.stringify(params)), 'BAD_REQUEST', {
      message: message.startsWith('relation: required') ? /^relation: (required|must be one of)/ : message,
    });
  });

  it('a missing or another org’s item on either side -> NOT_FOUND', async () => {
    const mine = await newTask(c);
    const theirs = await newTask(other);
    await refused(c, 'board.link', { fromTaskId: mine.id, toTaskId: theirs.id, relation: 'blocks' }, 'NOT_FOUND', { message: `task ${theirs.id} not found` });
    await refused(c, 'board.link', { fromTaskId: theirs.id, toTaskId: mine.id, relation: 'blocks' }, 'NOT_FOUND');
    await refused(c, 'board.link', { fromTaskId: mine.id, toTaskId: MISSING.task, relation: 'relates' }, 'NOT_FOUND');
  });
});
