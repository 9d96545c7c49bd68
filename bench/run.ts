import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openPostgres } from '../db/postgres.js';
import type { Db } from '../db/types.js';
import { createOrgs, type BenchContext } from './fixture.js';
import type { Throughput } from './measure.js';
import { printTable, type Row } from './report.js';
import { ROOT, createDatabase, databaseUrl, dropDatabase, startServer, type RunningServer } from './server.js';
import { coldStartBaseline, coldStartPglite, coldStartPostgres } from './scenarios/coldstart.js';
import { createTaskDirectSql, createTaskOverHttp } from './scenarios/mutations.js';
import { pageEventsDirectSql, pageEventsOverHttp, seedChain, snapshotDirectSql, snapshotOverHttp } from './scenarios/reads.js';
import { replayOverHttp } from './scenarios/replay.js';
import { rawSha256, verifyStreamed } from './scenarios/verify.js';

/*
 * npm run bench: a fresh PostgreSQL database, the real server as a child process (migrations run by the
 * server itself), autocannon against it, and each figure next to a baseline measured in the same run.
 * Everything started here is stopped and the database dropped, also on failure.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 32;
const ORGS = 50;
const EVENTS = 100_000;
const PAGE = 500;
const VERIFY_EVENTS = Number(process.env.BENCH_VERIFY_EVENTS ?? 1_000_000);

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

function throughputRows(scenario: string, product: Throughput, baseline: Throughput, baselineLabel: string, targets: { ratio?: number; p99Ms?: number }): Row[] {
  const ratio = product.perSecond / baseline.perSecond;
  return [
    {
      scenario, metric: 'req/s', unit: '/s', product: product.perSecond, baseline: baseline.perSecond, baselineLabel, ratio,
      target: targets.ratio ? `>= ${targets.ratio * 100}%` : '', met: targets.ratio ? ratio >= targets.ratio : null,
    },
    { scenario, metric: 'p50', unit: 'ms', product: product.p50Ms, baseline: baseline.p50Ms, baselineLabel, ratio: product.p50Ms / baseline.p50Ms, target: '', met: null },
    {
      scenario, metric: 'p99', unit: 'ms', product: product.p99Ms, baseline: baseline.p99Ms, baselineLabel, ratio: product.p99Ms / baseline.p99Ms,
      target: targets.p99Ms ? `< ${targets.p99Ms} ms` : '', met: targets.p99Ms ? product.p99Ms < targets.p99Ms : null,
    },
  ];
}

async function main(): Promise<void> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '_');
  const dbName = `wops_bench_${stamp.toLowerCase()}`;
  const url = databaseUrl(dbName);
  const adminKey = `wops_bench_${randomBytes(16).toString('hex')}`;
  const runId = randomBytes(4).toString('hex');
  const rows: Row[] = [];
  const raw: Record<string, unknown> = {};
  let server: RunningServer | undefined;
  let db: Db | undefined;

  log(`creating database ${dbName}`);
  await createDatabase(dbName);
  try {
    // The first start migrates and bootstraps the empty database.
    server = await startServer({ env: { DATABASE_URL: url, BOOTSTRAP_ADMIN_KEY: adminKey, PG_POOL_SIZE: String(CONNECTIONS) } });
    log(`server up in ${server.startupMs.toFixed(0)} ms (fresh database: migrations + bootstrap) at ${server.baseUrl}`);
    db = openPostgres(url, { poolSize: CONNECTIONS });
    const orgs = await createOrgs(server.baseUrl, db, adminKey, ORGS, `bench-${runId}`);
    const ctx: BenchContext = { baseUrl: server.baseUrl, db, orgs, seconds: SECONDS, connections: CONNECTIONS, runId };
    log(`${ORGS} orgs created; warming up (3 s)`);
    await createTaskOverHttp(ctx, orgs, 'warmup', 3);

    log('1. createTask across 50 orgs: HTTP');
    const s1 = await createTaskOverHttp(ctx, orgs, 's1');
    log('1. createTask across 50 orgs: direct SQL');
    const b1 = await createTaskDirectSql(ctx, orgs, 'b1');
    raw.mutationsAcrossOrgs = { http: s1, directSql: b1 };
    rows.push(...throughputRows('1 createTask, 50 orgs', s1, b1, 'direct SQL', { ratio: 0.5, p99Ms: 25 }));

    log('2. createTask on one hot org: HTTP');
    const hot = [orgs[0]];
    const s2 = await createTaskOverHttp(ctx, hot, 's2');
    log('2. createTask on one hot org: direct SQL');
    const b2 = await createTaskDirectSql(ctx, hot, 'b2');
    raw.mutationsHotOrg = { http: s2, directSql: b2 };
    rows.push(...throughputRows('2 createTask, 1 hot org', s2, b2, 'direct SQL', { ratio: 0.6 }));

    log('3. idempotent replay of stored keys');
    const s3 = await replayOverHttp(ctx);
    raw.replay = { replay: s3, firstExecution: 'the scenario 1 HTTP figures' };
    rows.push(...throughputRows('3 replay vs first exec', s3, s1, 'first exec (1)', { ratio: 3 }).filter((r) => r.metric !== 'p50'));

    log(`4. seeding a ${EVENTS}-event chain`);
    const [readOrg] = await createOrgs(server.baseUrl, db, adminKey, 1, `bench-${runId}-reads`);
    const seeded = await seedChain(ctx, readOrg, EVENTS);
    log(`4. seeded in ${seeded.seedMs.toFixed(0)} ms, verified in ${seeded.verifyMs?.toFixed(0)} ms; paging GET /events`);
    const s4 = await pageEventsOverHttp(ctx, readOrg, PAGE, 3);
    const b4 = await pageEventsDirectSql(ctx, readOrg, PAGE, 3);
    raw.eventsPaging = { http: s4, directSql: b4, pageSize: PAGE, seed: seeded };
    rows.push({
      scenario: `4 GET /events, ${s4.events} ev`, metric: 'events/s', unit: '/s', product: s4.eventsPerSecond, baseline: b4.eventsPerSecond,
      baselineLabel: 'direct SQL', ratio: s4.eventsPerSecond / b4.eventsPerSecond, target: '', met: null,
    });
    log('4. GET /snapshot: HTTP, then direct SQL');
    const s4b = await snapshotOverHttp(ctx);
    const b4b = await snapshotDirectSql(ctx);
    raw.snapshot = { http: s4b, directSql: b4b };
    rows.push(...throughputRows('4 GET /snapshot', s4b, b4b, 'direct SQL', {}));

    log(`5. seeding a ${VERIFY_EVENTS}-event chain, then verify streamed from PostgreSQL`);
    const [verifyOrg] = await createOrgs(server.baseUrl, db, adminKey, 1, `bench-${runId}-verify`);
    const chain = await seedChain(ctx, verifyOrg, VERIFY_EVENTS, { verify: false });
    const s5 = await verifyStreamed(ctx, verifyOrg);
    const b5 = rawSha256(verifyOrg, chain, VERIFY_EVENTS);
    raw.verify = { streamed: s5, rawSha256: b5, seedMs: chain.seedMs };
    rows.push(
      {
        scenario: `5 verify ${s5.events} ev, streamed`, metric: 'events/s', unit: '/s', product: s5.eventsPerSecond, baseline: b5.eventsPerSecond,
        baselineLabel: 'raw SHA-256', ratio: s5.eventsPerSecond / b5.eventsPerSecond, target: '>= 300000/s', met: s5.eventsPerSecond >= 300_000,
      },
      {
        scenario: `5 verify ${s5.events} ev, streamed`, metric: 'peak RSS', unit: 'MB', product: s5.rssPeakMb, baseline: s5.rssStartMb,
        baselineLabel: 'RSS before', ratio: s5.rssPeakMb / s5.rssStartMb, target: 'flat', met: null,
      },
    );

    const failed = [s1, b1, s2, b2, s3, s4b, b4b].reduce((n, t) => n + t.failed, 0);
    raw.failedRequests = failed;
    raw.eventsAppendedDuringReplay = s3.eventsAppendedDuringReplay;

    await db.close();
    db = undefined;
    await server.stop();
    server = undefined;

    log('6. cold start (3 starts each): baseline, PGlite (new data dir), PostgreSQL');
    const c0 = await coldStartBaseline(3);
    const c1 = await coldStartPglite(3);
    const c2 = await coldStartPostgres(3, url);
    raw.coldStart = { baseline: c0, pglite: c1, postgres: c2 };
    rows.push(
      { scenario: '6 cold start, PGlite', metric: 'to 1st 200', unit: 'ms', product: c1.medianMs, baseline: c0.medianMs, baselineLabel: 'bare node:http', ratio: c1.medianMs / c0.medianMs, target: '< 3000 ms', met: c1.medianMs < 3000 },
      { scenario: '6 cold start, PostgreSQL', metric: 'to 1st 200', unit: 'ms', product: c2.medianMs, baseline: c0.medianMs, baselineLabel: 'bare node:http', ratio: c2.medianMs / c0.medianMs, target: '', met: null },
    );

    const table = printTable(rows);
    process.stdout.write(`\n${table}\n\nfailed requests/transactions during load: ${failed}; ledger events appended during replay: ${s3.eventsAppendedDuringReplay}\n`);
    const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memGb: +(os.totalmem() / 2 ** 30).toFixed(1), node: process.version, platform: `${os.platform()} ${os.release()}` };
    const pgVersion = await (async () => {
      const d = openPostgres(url, { poolSize: 1 });
      try {
        return (await d.query<{ v: string }>('SHOW server_version'))[0].v;
      } finally {
        await d.close();
      }
    })();
    const out = path.join(ROOT, 'bench', 'results', `${stamp}.json`);
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(
      out,
      `${JSON.stringify({ at: new Date().toISOString(), machine, postgres: pgVersion, settings: { seconds: SECONDS, connections: CONNECTIONS, orgs: ORGS, serverPoolSize: CONNECTIONS, events: EVENTS, pageSize: PAGE }, rows, raw, table }, null, 2)}\n`,
    );
    process.stdout.write(`results: ${path.relative(process.cwd(), out)}\n`);
  } finally {
    if (db) await db.close().catch(() => {});
    if (server) await server.stop().catch(() => {});
    await dropDatabase(dbName).then(
      () => log(`dropped ${dbName}`),
      (err: Error) => log(`could not drop ${dbName}: ${err.message}`),
    );
  }
}

main().catch((err: Error) => {
  process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
