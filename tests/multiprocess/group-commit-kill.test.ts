import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, onPostgres } from '../helpers/harness.js';
import { Cluster, freshDatabase, rpc, runVerify, type Answer } from './harness.js';

/*
 * Group commit and a crash: one real server process with a small pool (two batches at a time) and a 5 ms window,
 * 48 callers racing keyed board.createTask on one org, then kill -9 while batches are in flight. Restarted: the
 * chain verifies, and every call that was answered 200 replays its bytes: an answer leaves only after its batch's
 * COMMIT. PostgreSQL only: PGlite never batches (decision 0080).
 */
const suite = onPostgres ? describe : describe.skip;
if (!onPostgres) console.info('tests/multiprocess/group-commit-kill: skipped, PostgreSQL only (PGlite has one connection and never batches)');

suite('group commit: kill -9 mid-batch', () => {
  let db: { url: string; drop(): Promise<void> };
  let cluster: Cluster;
  let sql: pg.Client;
  let adminKey: string;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!, 'wops_h5_gc');
    cluster = await Cluster.start({
      databaseUrl: db.url,
      count: 1,
      env: { PG_POOL_SIZE: '4', GROUP_COMMIT_WAIT_MS: '5', RATE_LIMIT_PER_MINUTE: '0' },
      // kill -9 must reach the server itself, also when it runs as tsx's child.
      processGroups: true,
    });
    adminKey = /Admin API key \(shown once, store it now\): (wops_\w+)/.exec(cluster.procs[0].stdout)![1];
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end().catch(() => {});
    await cluster?.stop();
    await db?.drop();
  });

  it('every answered key replays its stored frame and the chain verifies; nothing answered was lost', async () => {
    const p = cluster.procs[0];
    const done: { idem: string; params: unknown; answer: Answer }[] = [];
    let sent = 0;
    let cut = 0;
    let killed = false;
    async function worker() {
      while (!killed) {
        const n = sent++;
        const call = { idem: `gc-${n}`, params: { title: `Batch ${n}`, priority: 'low' } };
        try {
          done.push({ ...call, answer: await rpc(p, adminKey, 'board.createTask', call.params, call.idem) });
        } catch {
          cut++; // in flight when the process died
        }
      }
    }
    const load = Promise.all(Array.from({ length: 48 }, () => worker()));
    while (done.length < 300) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    await cluster.kill9();
    await load;
    expect(await cluster.answering(), 'ports still answering after kill -9').toEqual([]);
    const oks = done.filter((d) => d.answer.status === 200);
    console.info(`kill -9 mid-batch: ${sent} keyed calls sent, ${oks.length} answered 200, ${cut} cut by the kill, ${done.length - oks.length} other answers`);
    expect(oks.length).toBeGreaterThanOrEqual(300);
    expect(cut).toBeGreaterThan(0);
    // Calls shared transactions: tasks created in one batch share its start time (now()), separate ones never do.
    const shared = await sql.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT created_at FROM board_tasks GROUP BY 1 HAVING count(*) > 1) s`);
    console.info(`start times shared by two or more tasks: ${shared.rows[0].n}`);
    expect(Number(shared.rows[0].n)).toBeGreaterThan(0);

    await cluster.startAll();
    const verified = await runVerify(db.url);
    expect(verified.code, verified.out).toBe(0);
    for (const d of oks) {
      const again = await rpc(p, adminKey, 'board.createTask', d.params, d.idem);
      expect(again.status, d.idem).toBe(200);
      expect(again.headers.get('idempotent-replay'), d.idem).toBe('true');
      expect(again.text).toBe(d.answer.text);
    }
    // Each answered call's task and its one event are there.
    const ids = oks.map((d) => d.answer.json.result.id as string);
    const events = await sql.query<{ entity_id: string; n: string }>(
      `SELECT entity_id, count(*) AS n FROM events WHERE family = 'board' AND entity_id = ANY($1) GROUP BY 1`,
      [ids],
    );
    expect(events.rows.length).toBe(ids.length);
    for (const e of events.rows) expect(Number(e.n), e.entity_id).toBe(1);
  });
});
