import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable, Rows } from '../../db/types.js';
import { appendEvent } from '../../ledger/append.js';
import { DATABASE_URL, onPostgres } from '../helpers/harness.js';
import { openOrgStream, type OrgStream } from '../helpers/org-stream.js';
import { Cluster, freshDatabase, getRead, ok, runVerify } from './harness.js';

/*
 * GET /api/v1/org/stream across two server processes on one fresh PostgreSQL database: an event appended through
 * one process is a frame on the other's stream (the NOTIFY sent after its commit wakes it); 1,000 events appended through both
 * while the client reconnects three times, to alternating processes, arrive exactly once each, in order; a
 * notification that never comes (dropped, or the LISTEN connection cut) delays a frame to the head poll at most.
 * PostgreSQL only: a PGlite data dir serves one process.
 */

const POLL_MS = 500;
const suite = onPostgres ? describe : describe.skip;
if (!onPostgres) console.warn('tests/multiprocess/stream: skipped, PostgreSQL only (set DATABASE_URL)');

suite('the live stream across two server processes', () => {
  let db: { url: string; drop(): Promise<void> };
  let cluster: Cluster;
  let sql: pg.Client;
  let adminKey: string;
  let orgId: string;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!, 'wops_stream');
    cluster = await Cluster.start({
      databaseUrl: db.url,
      count: 2,
      env: { RATE_LIMIT_PER_MINUTE: '0', STREAM_POLL_MS: String(POLL_MS), STREAM_HEARTBEAT_MS: '1000', APPROVAL_WAIT_POLL_MS: '30000' },
    });
    adminKey = /Admin API key \(shown once, store it now\): (wops_\w+)/.exec(cluster.procs.map((p) => p.stdout).join('\n'))![1];
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    orgId = (await sql.query<{ org_id: string }>(`SELECT org_id FROM orgs WHERE slug = 'default'`)).rows[0].org_id;
  });

  afterAll(async () => {
    await sql?.end().catch(() => {});
    await cluster?.stop();
    await db?.drop();
  });

  const head = async () => Number((await sql.query<{ seq: string }>('SELECT seq FROM ledger_heads WHERE org_id = $1', [orgId])).rows[0].seq);
  const live = (s: OrgStream) => s.until(() => s.comments.some((c) => c.startsWith('live after')), 'live');

  it("an event appended through A is a frame on B's stream, as GET /events shows it", async () => {
    const [a, b] = cluster.procs;
    const onB = await openOrgStream(b.base, adminKey);
    try {
      await live(onB);
      const start = await head();
      const task = await ok(a, adminKey, 'board.createTask', { title: 'From A', priority: 'normal' });
      const t0 = performance.now();
      await onB.until(() => onB.frames.length === 1, 'one frame');
      const ms = performance.now() - t0;
      console.log(`A's createTask answered, B's frame ${ms.toFixed(1)} ms later (notification; poll every ${POLL_MS} ms)`);
      expect(ms).toBeLessThan(POLL_MS); // woken by the NOTIFY, not the poll
      const page = await getRead(a, adminKey, 'events', { cursor: start, limit: 5 });
      expect(onB.frames[0]).toEqual({ id: start + 1, data: page.json.events[0] });
      expect(onB.frames[0].data).toMatchObject({ kind: 'item.created', entity_id: task.taskId ?? task.id ?? expect.any(String) });
    } finally {
      onB.close();
    }
  });

  it('1,000 events appended through both while the client reconnects three times, to alternating processes: each once, in order', async () => {
    const start = await head();
    const ids: number[] = [];
    let turn = 0;
    const proc = () => cluster.procs[turn++ % 2];
    let stream = await openOrgStream(proc().base, adminKey);
    let next = 0;
    const appending = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 1000) {
          next++;
          await ok(cluster.procs[next % 2], adminKey, 'board.createTask', { title: `Task ${next}`, priority: 'normal' });
        }
      }),
    );
    for (const at of [200, 450, 750]) {
      await stream.until(() => ids.length + stream.frames.length >= at, `${at} frames`, 60_000);
      stream.close();
      ids.push(...stream.frames.map((f) => f.id));
      stream = await openOrgStream(proc().base, adminKey, { lastEventId: ids[ids.length - 1] });
    }
    await appending;
    await stream.until(() => stream.lastId() === start + 1000, 'at the end', 60_000);
    stream.close();
    ids.push(...stream.frames.map((f) => f.id));
    expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => start + 1 + i));
  });

  it(`an append nobody announces (a lost notification) reaches B's stream through the head poll (every ${POLL_MS} ms)`, async () => {
    const [, b] = cluster.procs;
    const onB = await openOrgStream(b.base, adminKey);
    try {
      await live(onB);
      const start = await head();
      // An append no process announces (as from a tool outside the servers): only the head poll can find it.
      const direct: Queryable = { query: async <T>(text: string, params?: readonly unknown[]) => (await sql.query(text, params as unknown[])).rows as Rows<T> };
      await sql.query('BEGIN');
      await appendEvent(direct, orgId, { family: 'board', kind: 'item.updated', entityId: 'task_silent', actor: '', payload: { silent: true } });
      await sql.query('COMMIT');
      const t0 = performance.now();
      await onB.until(() => onB.frames.length === 1, 'the silent event', 5000);
      const ms = performance.now() - t0;
      console.log(`unannounced append: frame after ${ms.toFixed(0)} ms (poll every ${POLL_MS} ms)`);
      expect(onB.frames[0].id).toBe(start + 1);
      expect(ms).toBeLessThan(POLL_MS * 2 + 500);
    } finally {
      onB.close();
    }
  });

  it('LISTEN connections cut by the database: events appended meanwhile still arrive, once each', async () => {
    const [a, b] = cluster.procs;
    const onB = await openOrgStream(b.base, adminKey);
    try {
      await live(onB);
      const start = await head();
      const cut = await sql.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wops-listen' AND datname = current_database()`,
      );
      expect(cut.rowCount).toBe(2);
      for (let i = 0; i < 5; i++) await ok(a, adminKey, 'board.createTask', { title: `During the cut ${i}`, priority: 'normal' });
      await onB.until(() => onB.lastId() === start + 5, 'five frames', 5000);
      for (let i = 0; i < 5; i++) await ok(a, adminKey, 'board.createTask', { title: `After the cut ${i}`, priority: 'normal' });
      await onB.until(() => onB.lastId() === start + 10, 'ten frames', 5000);
      expect(onB.frames.map((f) => f.id)).toEqual(Array.from({ length: 10 }, (_, i) => start + 1 + i));
    } finally {
      onB.close();
    }
  });

  it('approval.wait on B is woken by a decision through A (the stream, not its 30 s safety poll)', async () => {
    const [a, b] = cluster.procs;
    const agentKey = (await ok(a, adminKey, 'settings.mintApiKey', { name: 'filing agent', tier: 'agent' })).apiKey;
    const deciderKey = (await ok(a, adminKey, 'settings.mintApiKey', { name: 'Sam Decider', tier: 'approver' })).apiKey;
    const filed = await ok(a, agentKey, 'approval.request', {
      actionClass: 'board.publish_plan',
      payloadHash: 'd'.repeat(64),
      subject: { kind: 'board.plan', subjectId: 'plan_w', summary: 'Publish plan w' },
    });
    const started = performance.now();
    const waiting = getRead(b, agentKey, 'approval.wait', { approvalId: filed.approvalId, timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 200));
    await ok(a, deciderKey, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' });
    const woke = await waiting;
    expect(woke.json).toMatchObject({ status: 'approved', timedOut: false });
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('the chain verifies (npm run cli -- verify exits 0)', async () => {
    const verified = await runVerify(db.url);
    expect(verified.code, verified.out).toBe(0);
  });
});
