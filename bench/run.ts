import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openPostgres } from '../db/postgres.js';
import { one, type Db } from '../db/types.js';
import { createOrgs } from './fixture.js';
import { createTaskOverHttp } from './scenarios/mutations.js';
import { printTable } from './report.js';
import { ROOT, createDatabase, databaseUrl, dropDatabase, startServer, type RunningServer } from './server.js';
import { STEPS, type BenchRun } from './steps.js';

/*
 * npm run bench: a fresh PostgreSQL database, the real server as a child process (migrations run by the
 * server itself), autocannon against it, and each figure next to a baseline measured in the same run.
 * Everything started here is stopped and the database dropped, also on failure.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Concurrent callers and baseline connections (BENCH_CONNECTIONS; the issue's figures are at 32). */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ORGS = 50;
const VERIFY_EVENTS = Number(process.env.BENCH_VERIFY_EVENTS ?? 1_000_000);
/**
 * The server's PostgreSQL pool (PG_POOL_SIZE): 8 measured best on two cores (same throughput across orgs as 32,
 * far shorter row-lock queues on the hot org). The direct-SQL baselines always run CONNECTIONS transactions on
 * CONNECTIONS connections, as the issue defines them.
 */
const SERVER_POOL = Number(process.env.BENCH_SERVER_POOL ?? 8);

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** BENCH_ONLY=mcp,coldstart runs those steps (in run order); unset runs them all. */
function selectedSteps(): string[] {
  const all = Object.keys(STEPS);
  const only = process.env.BENCH_ONLY?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!only?.length) return all;
  const unknown = only.filter((s) => !all.includes(s));
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown step ${unknown.join(', ')}; steps are ${all.join(', ')}`);
  return all.filter((s) => only.includes(s));
}

/**
 * The server's logging and profiling for a run: BENCH_SERVER_LOG_LEVEL (default warn), BENCH_SERVER_LOG_REQUESTS
 * (LOG_REQUESTS), and BENCH_CPU_PROF=<dir> for a V8 CPU profile of the server written there when it stops.
 */
function serverEnv(): Record<string, string> {
  const env: Record<string, string> = { LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? 'warn' };
  if (process.env.BENCH_SERVER_LOG_REQUESTS) env.LOG_REQUESTS = process.env.BENCH_SERVER_LOG_REQUESTS;
  if (process.env.BENCH_CPU_PROF)
    env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`.trim();
  return env;
}

async function main(): Promise<void> {
  const steps = selectedSteps();
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '_');
  const dbName = `wops_bench_${stamp.toLowerCase()}`;
  const url = databaseUrl(dbName);
  const adminKey = `wops_bench_${randomBytes(16).toString('hex')}`;
  const runId = randomBytes(4).toString('hex');
  let server: RunningServer | undefined;
  const pools: Db[] = [];

  log(`creating database ${dbName}; steps: ${steps.join(', ')}`);
  await createDatabase(dbName);
  try {
    // The first start migrates and bootstraps the empty database.
    // The vault needs a master key on PostgreSQL, and its bench step's remote MCP server listens on 127.0.0.1.
    const vault = { VAULT_MASTER_KEYS: process.env.VAULT_MASTER_KEYS ?? `bench:${randomBytes(32).toString('base64')}`, INTEGRATION_ALLOW_HOSTS: '127.0.0.1' };
    server = await startServer({
      env: { DATABASE_URL: url, BOOTSTRAP_ADMIN_KEY: adminKey, PG_POOL_SIZE: String(SERVER_POOL), KEY_CACHE_TTL_MS: '5000', ...vault, ...serverEnv() },
    });
    log(`server up in ${server.startupMs.toFixed(0)} ms (fresh database: migrations + bootstrap) at ${server.baseUrl}`);
    const db = openPostgres(url, { poolSize: CONNECTIONS });
    const smallPool = openPostgres(url, { poolSize: SERVER_POOL });
    pools.push(db, smallPool);
    const orgs = await createOrgs(server.baseUrl, db, adminKey, ORGS, `bench-${runId}`);
    log(`${ORGS} orgs created`);
    const ctx = { baseUrl: server.baseUrl, db, orgs, seconds: SECONDS, connections: CONNECTIONS, runId };
    const run: BenchRun = {
      ctx,
      ctxSmallPool: { ...ctx, db: smallPool },
      url,
      database: dbName,
      serverPid: server.pid,
      adminKey,
      serverPool: SERVER_POOL,
      verifyEvents: VERIFY_EVENTS,
      rows: [],
      raw: {},
      loads: [],
      stopServer: async () => {
        await server?.stop();
        server = undefined;
      },
    };
    if (steps.some((s) => ['mutations', 'hot', 'replay', 'mcp'].includes(s))) {
      log('warming up (3 s)');
      await createTaskOverHttp(ctx, orgs, 'warmup', 3);
    }
    // A step that fails is named and the others still run: one broken step does not lose the run's figures.
    const stepFailures: string[] = [];
    for (const step of steps) {
      try {
        await STEPS[step](run);
      } catch (err) {
        const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
        log(`step ${step} FAILED: ${message}`);
        stepFailures.push(`${step}: ${message.split('\n')[0]}`);
      }
    }

    const failed = run.loads.reduce((n, t) => n + t.failed, 0);
    run.raw.failedRequests = failed;
    const table = printTable(run.rows);
    process.stdout.write(
      `\n${table}\n\nfailed requests/transactions during load: ${failed}; ledger events appended during replay: ${run.raw.eventsAppendedDuringReplay ?? '-'}\n`,
    );
    const machine = {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memGb: +(os.totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    };
    const { v: pgVersion } = one(await db.query<{ v: string }>("SELECT current_setting('server_version') AS v"));
    const out = path.join(process.env.BENCH_RESULTS_DIR ?? path.join(ROOT, 'bench', 'results'), `${stamp}.json`);
    await mkdir(path.dirname(out), { recursive: true });
    const settings = {
      steps,
      failedSteps: stepFailures,
      seconds: SECONDS,
      connections: CONNECTIONS,
      orgs: ORGS,
      serverPoolSize: SERVER_POOL,
      verifyEvents: VERIFY_EVENTS,
    };
    await writeFile(
      out,
      `${JSON.stringify({ at: new Date().toISOString(), machine, postgres: pgVersion, settings, rows: run.rows, raw: run.raw, table }, null, 2)}\n`,
    );
    process.stdout.write(`results: ${path.relative(process.cwd(), out)}\n`);
    if (stepFailures.length) {
      process.stdout.write(`steps that failed (their rows are missing):\n${stepFailures.map((f) => `  ${f}`).join('\n')}\n`);
      process.exitCode = 1;
    }
  } finally {
    for (const pool of pools) await pool.close().catch(() => {});
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
