import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../cli/config.js';
import { DATABASE_URL, onPostgres } from '../helpers/harness.js';
import { Cluster, freshDatabase, getRead, inbox, ok, openStream, rpc, runVerify, startRedis, type Answer, type Proc } from './harness.js';

/*
 * Stateless gateways behind a load balancer, for real: three server processes on one fresh PostgreSQL database,
 * requests spread round-robin. The bootstrap race (all three start at once on the empty database), inbox
 * sessions and the live stream across processes, approval.wait woken across processes by NOTIFY, one execution
 * per idempotency key sent to all three at once, rate limits shared through Redis, chain integrity after load,
 * and a kill -9 of all three under load: restart, the chains verify, every keyed 200 replays its bytes.
 * PostgreSQL only: a PGlite data dir serves one process.
 */

const RATE_LIMIT = 300;
/** approval.wait's safety poll in these processes: a wake-up well before it can only come from a notification. */
const SAFETY_POLL_MS = 30_000;
/** Whether cli/config.ts reads REDIS_URL (rate limits shared across processes). */
const redisConfigured = JSON.stringify(loadConfig({ REDIS_URL: 'redis://127.0.0.1:1' })).includes('redis://127.0.0.1:1');
const REDIS_BIN = '/usr/bin/redis-server';
const noRedis = !redisConfigured
  ? 'skipped: cli/config.ts does not read REDIS_URL'
  : !existsSync(REDIS_BIN)
    ? `skipped: ${REDIS_BIN} is missing (apt-get install redis-server)`
    : undefined;

const suite = onPostgres ? describe : describe.skip;
if (!onPostgres) console.warn('tests/multiprocess: skipped, PostgreSQL only (set DATABASE_URL): a PGlite data dir serves one process');

suite('three server processes on one PostgreSQL database, round-robin', () => {
  let db: { url: string; drop(): Promise<void> };
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let cluster: Cluster;
  let sql: pg.Client;
  let adminKey: string;
  let startMs: number;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    redis = noRedis ? undefined : await startRedis(REDIS_BIN);
    const started = performance.now();
    // All three at once on the empty database: migrations and the first-start bootstrap race.
    cluster = await Cluster.start({
      databaseUrl: db.url,
      env: {
        RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
        APPROVAL_WAIT_POLL_MS: String(SAFETY_POLL_MS),
        ...(redis ? { REDIS_URL: redis.url } : {}),
      },
      // kill -9 must reach the servers themselves, also when they run as tsx's children.
      processGroups: true,
    });
    startMs = performance.now() - started;
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end().catch(() => {});
    await cluster?.stop();
    await redis?.stop();
    await db?.drop();
  });

  const count = async (query: string, params: unknown[] = []) => Number((await sql.query<{ n: string }>(query, params)).rows[0].n);

  it('all three come up on an empty database at once: one org default, one admin key, printed by one process only', async () => {
    console.log(`three processes healthy ${Math.round(startMs)} ms after starting together on an empty database`);
    const printed = cluster.procs.filter((p) => p.stdout.includes('Admin API key (shown once, store it now): wops_'));
    expect(printed, cluster.procs.map((p) => `${p.index}: ${p.stdout}${p.stderr}`).join('\n')).toHaveLength(1);
    expect(cluster.procs.filter((p) => p.stdout.includes('Created org "default"'))).toHaveLength(1);
    adminKey = /Admin API key \(shown once, store it now\): (wops_\w+)/.exec(printed[0].stdout)![1];
    expect(await count('SELECT count(*) AS n FROM orgs')).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM orgs WHERE slug = 'default'`)).toBe(1);
    expect(await count('SELECT count(*) AS n FROM api_keys')).toBe(1);
    expect(await count('SELECT count(*) AS n FROM events')).toBe(1);
    expect(await count('SELECT count(*) AS n FROM schema_migrations')).toBe((await sql.query('SELECT DISTINCT name FROM schema_migrations')).rowCount);
    for (const p of cluster.procs) expect((await rpc(p, adminKey, 'org.whoami', {})).status, `process ${p.index}`).not.toBe(401);
  });

  let approverKey: string;
  let agentKey: string;
  let deciderKey: string;

  it('an inbox session opened on one process works on all three; signing out on another ends it everywhere', async () => {
    const p0 = cluster.next();
    approverKey = (await ok(p0, adminKey, 'settings.mintApiKey', { name: 'Dana Approver', tier: 'approver' })).apiKey;
    deciderKey = (await ok(p0, adminKey, 'settings.mintApiKey', { name: 'Sam Decider', tier: 'approver' })).apiKey;
    agentKey = (await ok(p0, adminKey, 'settings.mintApiKey', { name: 'filing agent', tier: 'agent' })).apiKey;

    const [a, b, c] = cluster.procs;
    const signIn = await inbox(a, 'POST', '/approvals/api/session', {}, { apiKey: approverKey });
    expect(signIn.status).toBe(200);
    const cookie = String(signIn.headers.get('set-cookie')).split(';')[0];
    const s = { cookie, csrf: signIn.json.result.csrfToken as string };
    for (const p of [a, b, c, a, b, c]) {
      const me = await inbox(p, 'GET', '/approvals/api/session', s);
      expect(me.status, `process ${p.index}: ${me.text}`).toBe(200);
      expect(me.headers.get('set-cookie')).toBeNull(); // not cleared by another process
      expect(me.json.result).toMatchObject({ principal: { name: 'Dana Approver' }, csrfToken: s.csrf });
      expect((await inbox(p, 'GET', '/approvals/api/approvals?view=pending', s)).status).toBe(200);
    }
    const out = await inbox(b, 'DELETE', '/approvals/api/session', s);
    expect(out.status).toBe(200);
    for (const p of [a, b, c]) expect((await inbox(p, 'GET', '/approvals/api/session', s)).status, `process ${p.index}`).toBe(401);
  });

  const file = async (p: Proc, subjectId: string) =>
    (
      await ok(p, agentKey, 'approval.request', {
        actionClass: 'board.publish_plan',
        payloadHash: 'b'.repeat(64),
        subject: { kind: 'board.plan', subjectId, summary: `Publish ${subjectId}` },
      })
    ).approvalId as string;

  it("an approval filed on B appears on A's inbox stream, and its decision made on C too", async () => {
    const [a, b, c] = cluster.procs;
    const signIn = await inbox(a, 'POST', '/approvals/api/session', {}, { apiKey: approverKey });
    const s = { cookie: String(signIn.headers.get('set-cookie')).split(';')[0], csrf: signIn.json.result.csrfToken as string };
    const stream = await openStream(a, s.cookie);
    try {
      await stream.next('ready');
      const approvalId = await file(b, 'plan_stream');
      expect(await stream.next('approval', (d) => d.approvalId === approvalId)).toEqual({ approvalId, change: 'requested' });
      const decided = await inbox(c, 'POST', `/approvals/api/approvals/${approvalId}/decision`, s, { decision: 'approve' });
      expect(decided.status, decided.text).toBe(200);
      expect(await stream.next('approval', (d) => d.approvalId === approvalId && d.change !== 'requested')).toEqual({ approvalId, change: 'approved' });
      // Signing out on B ends A's stream at once (a notification, not A's heartbeat).
      expect((await inbox(b, 'DELETE', '/approvals/api/session', s)).status).toBe(200);
      // B's sign-out notice says "signed out"; when A's own session check sees it gone first, it names every way a
      // session ends (signed out among them). Which comes first is timing.
      expect(await stream.next('end', () => true, 3000)).toEqual({ reason: expect.stringMatching(/^(signed out|the session ended \(signed out, expired)/) });
    } finally {
      stream.close();
    }
  });

  it("LISTEN connections cut by the database come back: A's stream is told to resync, and the next approval arrives", async () => {
    const [a, , c] = cluster.procs;
    const signIn = await inbox(a, 'POST', '/approvals/api/session', {}, { apiKey: approverKey });
    const stream = await openStream(a, String(signIn.headers.get('set-cookie')).split(';')[0]);
    try {
      await stream.next('ready');
      const cut = await sql.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wops-listen' AND datname = current_database()`,
      );
      expect(cut.rowCount).toBe(3); // one per process
      await stream.next('resync');
      const approvalId = await file(c, 'plan_after_cut');
      expect(await stream.next('approval', (d) => d.approvalId === approvalId)).toEqual({ approvalId, change: 'requested' });
    } finally {
      stream.close();
    }
  });

  it(`approval.wait on A is woken by a decision on C through NOTIFY, not its ${SAFETY_POLL_MS / 1000} s safety poll`, async () => {
    const [a, b, c] = cluster.procs;
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const approvalId = await file(b, `plan_wait_${i}`);
      const started = performance.now();
      const waiting = getRead(a, agentKey, 'approval.wait', { approvalId, timeoutMs: 20_000 });
      // The decision lands anywhere in the wait (a poll would answer at a random phase of its period).
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 200));
      const sent = performance.now();
      await ok(c, deciderKey, 'approval.resolve', { approvalId, decision: 'approve' });
      const woke = await waiting;
      const answered = performance.now();
      expect(woke.json).toMatchObject({ status: 'approved', timedOut: false });
      expect(answered - started).toBeLessThan(5000);
      latencies.push(answered - sent);
    }
    latencies.sort((x, y) => x - y);
    const median = (latencies[9] + latencies[10]) / 2;
    console.log(
      `approval.wait across processes: from sending approval.resolve to the wait's answer, median ${median.toFixed(1)} ms, max ${latencies[19].toFixed(1)} ms over 20 tries`,
    );
  });

  it('one idempotency key sent to all three at once executes once: one ledger event, the same bytes everywhere', async () => {
    const before = await count('SELECT count(*) AS n FROM events');
    const params = { title: 'Reconcile October', priority: 'high' };
    const answers = await Promise.all(cluster.procs.flatMap((p) => [0, 1, 2].map(() => rpc(p, adminKey, 'board.createTask', params, 'same-key-everywhere'))));
    for (const x of answers) expect(x.status, x.text).toBe(200);
    expect(new Set(answers.map((x) => x.text)).size).toBe(1);
    expect(answers.filter((x) => x.headers.get('idempotent-replay') !== 'true')).toHaveLength(1);
    expect(await count('SELECT count(*) AS n FROM events')).toBe(before + 1);
    expect(await count(`SELECT count(*) AS n FROM events WHERE family = 'board'`)).toBe(1);
  });

  it.skipIf(noRedis !== undefined)(
    `rate limits hold across the three with Redis (${RATE_LIMIT} per minute per key, counted once)${noRedis ? ` [${noRedis}]` : ''}`,
    async () => {
      const key = (await ok(cluster.next(), adminKey, 'settings.mintApiKey', { name: 'throttled reader', tier: 'reader' })).apiKey;
      const statuses: number[] = [];
      // RATE_LIMIT requests spread over the three: every one allowed; then each process refuses the next.
      for (let i = 0; i < RATE_LIMIT; i += 10) {
        const batch = await Promise.all(Array.from({ length: 10 }, () => getRead(cluster.next(), key, 'org/whoami', {})));
        statuses.push(...batch.map((x) => x.status));
      }
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      for (const p of cluster.procs) {
        const over = await getRead(p, key, 'org/whoami', {});
        expect(over.status, `process ${p.index}: ${over.text}`).toBe(429);
        expect(over.json.error.code).toBe('RATE_LIMITED');
      }
    },
  );

  it('the chains verify after the load (npm run cli -- verify exits 0)', async () => {
    const verified = await runVerify(db.url);
    expect(verified.code, verified.out).toBe(0);
    expect(verified.out).toMatch(/^ok {5}default: \d+ events verified/m);
  });

  it('kill -9 of all three under load: restarted, the chains verify and every keyed 200 replays the same bytes', async () => {
    // Several keys, so the load stays under the per-key rate limit.
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) keys.push((await ok(cluster.next(), adminKey, 'settings.mintApiKey', { name: `loader ${i}`, tier: 'agent' })).apiKey as string);
    const done: { key: string; idem: string; params: unknown; answer: Answer }[] = [];
    let cut = 0;
    let sent = 0;
    const MAX = 240;
    let killed = false;
    async function worker(w: number) {
      while (sent < MAX && !killed) {
        const n = sent++;
        const call = { key: keys[n % keys.length], idem: `load-${n}`, params: { title: `Load ${n}`, priority: 'low' } };
        try {
          const answer = await rpc(cluster.next(), call.key, 'board.createTask', call.params, call.idem);
          done.push({ ...call, answer });
        } catch {
          cut++; // the process died with the request in flight
        }
      }
      return w;
    }
    const load = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    // Kill once the load is well under way (not before some calls have committed).
    while (done.length < 60 && sent < MAX) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    await cluster.kill9();
    await load;
    // No server outlived the kill: a restart must not find the old ones still answering on its ports.
    expect(await cluster.answering(), 'ports still answering after kill -9').toEqual([]);
    const oks = done.filter((d) => d.answer.status === 200);
    console.log(`kill -9 under load: ${sent} keyed calls sent, ${oks.length} answered 200, ${cut} cut by the kill, ${done.length - oks.length} other answers`);
    expect(oks.length).toBeGreaterThanOrEqual(60);

    await cluster.startAll();
    expect(cluster.procs.filter((p) => p.stdout.includes('Admin API key'))).toHaveLength(0); // not a first start
    const verified = await runVerify(db.url);
    expect(verified.code, verified.out).toBe(0);

    for (const d of oks) {
      const again = await rpc(cluster.next(), d.key, 'board.createTask', d.params, d.idem);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replay'), d.idem).toBe('true');
      expect(again.text).toBe(d.answer.text);
    }
    // Each key that answered 200 executed exactly once.
    const titles = (
      await sql.query<{ title: string; n: string }>(
        `SELECT payload::jsonb->>'title' AS title, count(*) AS n FROM events WHERE family = 'board' AND kind = 'item.created' AND payload::jsonb->>'title' LIKE 'Load %' GROUP BY 1`,
      )
    ).rows;
    for (const t of titles) expect(Number(t.n), t.title).toBe(1);
    for (const d of oks)
      expect(
        titles.some((t) => t.title === (d.params as { title: string }).title),
        (d.params as { title: string }).title,
      ).toBe(true);
  });
});
