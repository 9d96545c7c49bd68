import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { MISSING, declareGovernance } from './setup.js';
import { head, mutate, otherOrg, refused } from '../../helpers/calls.js';
import { newTask, newWorkstream } from '../../helpers/tasks.js';

/** board.assign and board.decompose are governance-gated (G): they refuse until decision rights are declared. */

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

describe('before governance.set_decision_rights', () => {
  it('board.assign and board.decompose answer 423 GOVERNANCE_NOT_READY and change nothing', async () => {
    const ws = await newWorkstream(c);
    const t = await newTask(c);
    await refused(c, 'board.assign', { workstreamId: ws.id, owner: me }, 'GOVERNANCE_NOT_READY', { message: /^board\.assign is governance-gated/ });
    await refused(c, 'board.decompose', { taskId: t.id, titles: ['a'] }, 'GOVERNANCE_NOT_READY', { message: /^board\.decompose is governance-gated/ });
    const ctx = await c.get('board.context', { taskId: t.id });
    expect(ctx.body.children).toEqual([]);
  });

  it('bad params are still BAD_REQUEST first', async () => {
    await refused(c, 'board.decompose', { taskId: MISSING.task, titles: [] }, 'BAD_REQUEST', { message: 'titles: must have at least 1 title' });
  });
});

describe('after governance.set_decision_rights', () => {
  beforeAll(() => declareGovernance(c));

  describe('board.assign', () => {
    it('gives a principal ownership of a workstream, and clears it with null', async () => {
      const ws = await newWorkstream(c);
      const agent = await c.mint({ tier: 'agent' });
      const { result, event } = await mutate(c, 'board.assign', { workstreamId: ws.id, owner: agent.principal.id }, 'workstream.assigned', {
        entityId: () => ws.id,
      });
      expect(result).toMatchObject({ id: ws.id, owner: agent.principal.id });
      expect(event.payload).toEqual({ owner: agent.principal.id, previous: null });
      const { result: cleared, event: second } = await mutate(c, 'board.assign', { workstreamId: ws.id, owner: null }, 'workstream.assigned');
      expect(cleared.owner).toBeNull();
      expect(second.payload).toEqual({ owner: null, previous: agent.principal.id });
    });

    it('bad input, missing and foreign rows', async () => {
      const ws = await newWorkstream(c);
      const theirWs = await other.ok('board.createWorkstream', { name: 'w' });
      const theirPrincipal = (await other.get('org/whoami')).body.principal.id;
      await refused(c, 'board.assign', { workstreamId: ws.id }, 'BAD_REQUEST', { message: 'owner: required' });
      await refused(c, 'board.assign', { workstreamId: ws.id, owner: 'humans' }, 'BAD_REQUEST', { message: 'owner: must be a principal id usr_… or agt_…' });
      await refused(c, 'board.assign', { workstreamId: ws.id, owner: theirPrincipal }, 'NOT_FOUND', { message: `principal ${theirPrincipal} not found` });
      await refused(c, 'board.assign', { workstreamId: theirWs.id, owner: me }, 'NOT_FOUND');
      await refused(c, 'board.assign', { workstreamId: MISSING.ws, owner: me }, 'NOT_FOUND');
    });
  });

  describe('board.decompose', () => {
    it('splits an item into ordered child tasks that inherit workstream and priority', async () => {
      const ws = await newWorkstream(c);
      const parent = await newTask(c, { workstreamId: ws.id, priority: 'high' });
      const { result, event } = await mutate(c, 'board.decompose', { taskId: parent.id, titles: ['one', 'two', 'three'] }, 'item.decomposed', {
        entityId: () => parent.id,
      });
      expect(result.task.id).toBe(parent.id);
      expect(result.children.map((t: any) => t.title)).toEqual(['one', 'two', 'three']);
      for (const child of result.children) {
        expect(child).toMatchObject({ parentId: parent.id, workstreamId: ws.id, priority: 'high', col: 'triage', type: 'task' });
      }
      const positions = result.children.map((t: any) => t.position);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(event.payload).toEqual({ childIds: result.children.map((t: any) => t.id), count: 3, title: parent.title });
      const ctx = await c.get('board.context', { taskId: parent.id });
      expect(ctx.body.children.map((t: any) => t.id)).toEqual(result.children.map((t: any) => t.id));
    });

    it('takes up to 50 titles, and one event for all of them', async () => {
      const parent = await newTask(c);
      const before = await head(c);
      const res = await c.ok('board.decompose', { taskId: parent.id, titles: Array.from({ length: 50 }, (_, i) => `part ${i}`) });
      expect(res.children).toHaveLength(50);
      expect(await head(c)).toBe(before + 1);
      await refused(c, 'board.decompose', { taskId: parent.id, titles: Array.from({ length: 51 }, () => 'x') }, 'BAD_REQUEST', {
        message: 'titles: must have at most 50 titles',
      });
    });

    it('a done item -> CONFLICT', async () => {
      const t = await newTask(c);
      await c.ok('board.complete', { taskId: t.id });
      await refused(c, 'board.decompose', { taskId: t.id, titles: ['a'] }, 'CONFLICT', { message: /is done/ });
    });

    it('bad input, missing and foreign items', async () => {
      const t = await newTask(c);
      const theirs = await newTask(other);
      await refused(c, 'board.decompose', { taskId: t.id }, 'BAD_REQUEST', { message: 'titles: required' });
      await refused(c, 'board.decompose', { taskId: t.id, titles: ['ok', ''] }, 'BAD_REQUEST', { message: 'titles.1: must be at least 1 character' });
      await refused(c, 'board.decompose', { taskId: t.id, titles: 'a' }, 'BAD_REQUEST', { message: 'titles: expected array, got string' });
      await refused(c, 'board.decompose', { taskId: theirs.id, titles: ['a'] }, 'NOT_FOUND');
      await refused(c, 'board.decompose', { taskId: MISSING.task, titles: ['a'] }, 'NOT_FOUND');
    });
  });
});
