import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { one, type Db } from '../../db/types.js';
import { createOrg } from '../../domain/people/org/service.js';
import { createRuntime } from '../../domain/deployed.js';
import { createOrgs, rpc } from '../fixture.js';
import { percentile } from '../measure.js';
import type { BenchRun } from '../steps.js';

/*
 * Scheduled work at one instant: N messages (messaging.schedule, N jobs of messaging.postScheduled) due at the
 * same postAt, posted by the workers the server runs with its defaults. Lateness of one message is posted_at -
 * post_at (both stamped by the server: the job stamps posted_at when it posts); drain time is the last one's
 * lateness. On PostgreSQL through the real server over HTTP; on PGlite in this process (createRuntime, workers on,
 * the same defaults), calls through the pipeline.
 */

const JOBS = Number(process.env.BENCH_SCHEDULER_JOBS ?? 1000);
/** postAt is this far ahead of the first schedule call: every call must land at least 10 s before it. */
const LEAD_S = Number(process.env.BENCH_SCHEDULER_LEAD_S ?? 120);
/** Give up waiting for the drain after this long past postAt. */
const TIMEOUT_S = Number(process.env.BENCH_SCHEDULER_TIMEOUT_S ?? 3000);
/** messaging.schedule allows 100 pending per author: one author per hundred messages. */
const PER_AUTHOR = 100;
const CALLERS = 8;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

export interface Lateness {
  jobs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** From postAt to the last message posted (= maxMs), and how long the scheduling calls took before it. */
  drainMs: number;
  scheduleMs: number;
}

type Call = (method: string, params: unknown, key: string) => Promise<any>;

/** Authors with keys, a channel holding them, N scheduled messages at one postAt; then wait for every one to post. */
async function measure(db: Db, orgId: string, adminKey: string, call: Call, tag: string): Promise<Lateness> {
  const authors: { id: string; key: string }[] = [];
  for (let i = 0; i < Math.ceil(JOBS / PER_AUTHOR); i++) {
    const minted = await call('settings.mintApiKey', { name: `bench scheduler ${i}`, tier: 'member' }, adminKey);
    authors.push({ id: minted.principal.id, key: minted.apiKey });
  }
  const channel = (await call('channel.create', { name: `sched-${tag}`.toLowerCase().slice(0, 60), memberIds: authors.map((a) => a.id) }, adminKey)).channel
    .id as string;
  const started = Date.now();
  const postAt = new Date(Math.ceil((started + LEAD_S * 1000) / 1000) * 1000).toISOString();
  const ids: string[] = new Array(JOBS);
  let next = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      for (let i = next++; i < JOBS; i = next++) {
        const author = authors[Math.floor(i / PER_AUTHOR)];
        const out = await call('messaging.schedule', { channelId: channel, idempotencyId: `${tag}-${i}`, text: `Standup note ${i}`, postAt }, author.key);
        ids[i] = out.message.id;
      }
    }),
  );
  const scheduleMs = Date.now() - started;
  log(`scheduler: ${JOBS} messages scheduled in ${scheduleMs} ms, all for ${postAt}`);
  if (Date.now() > new Date(postAt).getTime()) throw new Error(`scheduling took longer than BENCH_SCHEDULER_LEAD_S (${LEAD_S} s): raise it`);
  const deadline = new Date(postAt).getTime() + TIMEOUT_S * 1000;
  for (let reported = 0; ;) {
    const { n } = one(
      await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE org_id = $1 AND message_id = ANY($2::text[]) AND status = 'posted'`, [
        orgId,
        ids,
      ]),
    );
    if (Number(n) === JOBS) break;
    if (Date.now() > deadline) throw new Error(`scheduler: ${n} of ${JOBS} posted ${TIMEOUT_S} s after postAt`);
    if (Date.now() - reported > 30_000 && Date.now() > new Date(postAt).getTime()) {
      log(`scheduler: ${n} of ${JOBS} posted, ${((Date.now() - new Date(postAt).getTime()) / 1000).toFixed(0)} s after postAt`);
      reported = Date.now();
    }
    await sleep(200);
  }
  const rows = await db.query<{ ms: number }>(
    `SELECT (extract(epoch FROM posted_at - post_at) * 1000)::float8 AS ms FROM messages WHERE org_id = $1 AND message_id = ANY($2::text[])`,
    [orgId, ids],
  );
  const late = rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
  const max = late[late.length - 1];
  return { jobs: JOBS, p50Ms: percentile(late, 50), p95Ms: percentile(late, 95), maxMs: max, drainMs: max, scheduleMs };
}

async function onPostgres(run: BenchRun): Promise<Lateness> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-scheduler`);
  const call: Call = async (method, params, key) => (await rpc(ctx.baseUrl, key, method, params)).body.result;
  return measure(ctx.db, org.orgId, org.key, call, `${ctx.runId}-pg`);
}

async function onPglite(runId: string): Promise<Lateness> {
  const dir = await mkdtemp(join(tmpdir(), 'wops-bench-scheduler-'));
  // The server's worker defaults (workers: true), mail to a folder of its own.
  const runtime = await createRuntime({ inMemory: true, workers: true, mail: { outboxDir: join(dir, 'outbox') } });
  try {
    const created = await runtime.db.tx((q) =>
      createOrg(q, { slug: 'bench-scheduler-pglite', name: 'Bench scheduler (PGlite)', parentOrgId: null, createdBy: '' }),
    );
    const call: Call = async (method, params, apiKey) => {
      const out = await runtime.pipeline.call({ method, params, apiKey });
      if (out.status !== 200 || !out.frame.ok) throw new Error(`PGlite ${method}: ${out.body.slice(0, 300)}`);
      return out.frame.result;
    };
    return await measure(runtime.db, created.orgId, created.admin.apiKey, call, `${runId}-pglite`);
  } finally {
    await runtime.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** 15: lateness of N jobs due at one instant, on PostgreSQL (the server) and on PGlite (in this process). */
export async function schedulerStep(run: BenchRun): Promise<void> {
  const which = (process.env.BENCH_SCHEDULER_DB ?? 'postgres,pglite').split(',');
  const results: Record<string, Lateness> = {};
  if (which.includes('postgres')) {
    log(`15. scheduler, PostgreSQL: ${JOBS} messages due at one instant (the server's workers)`);
    results.postgres = await onPostgres(run);
  }
  if (which.includes('pglite')) {
    log(`15. scheduler, PGlite: ${JOBS} messages due at one instant (workers in this process)`);
    results.pglite = await onPglite(run.ctx.runId);
  }
  run.raw.scheduler = results;
  for (const [db, r] of Object.entries(results)) {
    log(`15. ${db}: lateness p50 ${r.p50Ms.toFixed(0)} p95 ${r.p95Ms.toFixed(0)} max ${r.maxMs.toFixed(0)} ms (drain ${(r.drainMs / 1000).toFixed(1)} s)`);
    for (const [metric, product] of [
      ['p50 lateness', r.p50Ms],
      ['p95 lateness', r.p95Ms],
      ['max lateness (drain)', r.maxMs],
    ] as const) {
      run.rows.push({
        scenario: `15 ${r.jobs} jobs at one instant, ${db}`,
        metric,
        unit: 'ms',
        product,
        baseline: null,
        baselineLabel: '',
        ratio: null,
        target: '',
        met: null,
      });
    }
  }
}
