import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { onPostgres, testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { declareGovernance } from './setup.js';
import { eventsAfter, head } from '../../helpers/calls.js';
import { newTask, newWorkstream } from '../../helpers/tasks.js';

/**
 * Acts that touch several rows, fired at once through the pipeline. Every call must end in a contract
 * answer (never INTERNAL, never a deadlock), with one event per success and consistent rows.
 */

let s: TestServer;
let c: TestClient;

beforeAll(async () => {
  s = await testServer();
  c = s.client;
  await declareGovernance(c);
});
afterAll(() => s.close());

const PG = '(PostgreSQL only: skipped on PGlite)';

describe('concurrent board acts', () => {
  it.skipIf(!onPostgres)(`concurrent reorders in one column all succeed and leave a permutation ${PG}`, async () => {
    const tasks = [];
    for (let i = 0; i < 8; i++) {
      const t = await newTask(c);
      await c.ok('board.moveTask', { taskId: t.id, col: 'todo' });
      tasks.push(t);
    }
    const before = await head(c);
    const results = await Promise.all(tasks.map((t, i) => c.rpc('board.moveTask', { taskId: t.id, position: (i * 3) % 8 })));
    for (const r of results) expect(r.body.ok, r.raw).toBe(true);
    expect((await eventsAfter(c, before)).filter((e) => e.kind === 'item.moved')).toHaveLength(8);
    const rows = await s.runtime.db.query<{ position: number }>('SELECT position FROM board_tasks WHERE org_id = $1 AND col = $2', [s.org.orgId, 'todo']);
    const positions = rows.map((r) => r.position).sort((a, b) => a - b);
    expect(new Set(positions).size).toBe(positions.length);
  });

  it.skipIf(!onPostgres)(`deleting a workstream while items are created and commented into it ${PG}`, async () => {
    for (let round = 0; round < 5; round++) {
      const ws = await newWorkstream(c);
      const open = await newTask(c, { workstreamId: ws.id });
      await c.ok('board.complete', { taskId: open.id });
      const calls = [
        c.rpc('board.deleteWorkstream', { workstreamId: ws.id }),
        c.rpc('board.createTask', { title: 'late', workstreamId: ws.id }),
        c.rpc('board.comment', { workstreamId: ws.id, body: 'late' }),
        c.rpc('board.updateWorkstream', { workstreamId: ws.id, name: 'late' }),
      ];
      const [del, ...others] = await Promise.all(calls);
      for (const r of [del, ...others]) expect(['ok', 'NOT_FOUND', 'CONFLICT'], r.raw).toContain(r.body.ok ? 'ok' : r.body.error.code);
      const left = one(await s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM board_workstreams WHERE workstream_id = $1', [ws.id]));
      if (del.body.ok) {
        expect(left.n).toBe(0);
        // Whatever was created before the delete was detached or refused it; nothing points at the deleted row.
        const dangling = one(await s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM board_tasks WHERE workstream_id = $1', [ws.id]));
        expect(dangling.n).toBe(0);
      } else {
        expect(del.body.error.code).toBe('CONFLICT');
        expect(left.n).toBe(1);
      }
    }
  });

  it.skipIf(!onPostgres)(`decompose racing deleteWorkstream with moveTasksTo ${PG}`, async () => {
    for (let round = 0; round < 5; round++) {
      const ws = await newWorkstream(c);
      const target = await newWorkstream(c);
      const parent = await newTask(c, { workstreamId: ws.id });
      const [del, dec] = await Promise.all([
        c.rpc('board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: target.id }),
        c.rpc('board.decompose', { taskId: parent.id, titles: ['a', 'b'] }),
      ]);
      expect(del.body.ok, del.raw).toBe(true);
      expect(['ok', 'CONFLICT'], dec.raw).toContain(dec.body.ok ? 'ok' : dec.body.error.code);
      const rows = await s.runtime.db.query<{ workstream_id: string }>(
        'SELECT workstream_id FROM board_tasks WHERE org_id = $1 AND (task_id = $2 OR parent_id = $2)',
        [s.org.orgId, parent.id],
      );
      for (const r of rows) expect(r.workstream_id).toBe(target.id);
    }
  });

  it.skipIf(!onPostgres)(`concurrent blocks links cannot close a cycle together ${PG}`, async () => {
    const a = await newTask(c);
    const b = await newTask(c);
    const [ab, ba] = await Promise.all([
      c.rpc('board.link', { fromTaskId: a.id, toTaskId: b.id, relation: 'blocks' }),
      c.rpc('board.link', { fromTaskId: b.id, toTaskId: a.id, relation: 'blocks' }),
    ]);
    const outcomes = [ab, ba].map((r) => (r.body.ok ? 'ok' : r.body.error.code)).sort();
    expect(outcomes).toEqual(['CONFLICT', 'ok']);
  });
});
