import { one } from '../db/types.js';
import { createOrgs, type BenchContext } from './fixture.js';
import type { Throughput } from './measure.js';
import type { Row } from './report.js';
import { buildCompiled, coldStartBaseline, coldStartPglite, coldStartPgliteRestart, coldStartPostgres } from './scenarios/coldstart.js';
import { sameCallsOverHttp, sameCallsWithFetch, taskPerOrg, toolCallsOverMcp, toolCallsWithSdkClient, type ToolCallSpec } from './scenarios/mcp.js';
import { createTaskDirectSql, createTaskOverHttp } from './scenarios/mutations.js';
import { pageEventsDirectSql, pageEventsOverHttp, seedChain, snapshotDirectSql, snapshotOverHttp } from './scenarios/reads.js';
import { replayOverHttp } from './scenarios/replay.js';
import { countRoundTrips } from './scenarios/roundtrips.js';
import { physicalBaseline, physicalRows, withCpu } from './scenarios/physical.js';
import { loggingCost, loggingRows } from './scenarios/logging.js';
import { keyCacheCost } from './scenarios/keycache.js';
import { rawSha256, verifyWithCli } from './scenarios/verify.js';
import { streamLatency, type StreamLatency } from './scenarios/stream.js';
import { startServer } from './server.js';
import { measureBlobUpload } from './scenarios/blobs.js';
import { peopleStep } from './scenarios/people.js';
import { directoryStep } from './scenarios/directory.js';
import { governanceStep } from './scenarios/governance.js';
import { messagingStep } from './scenarios/messaging.js';
import { emailStep } from './scenarios/email.js';
import { knowledgeStep } from './scenarios/knowledge.js';
import { calendarStep } from './scenarios/calendar.js';
import { crmStep } from './scenarios/crm.js';
import { brandingStep } from './scenarios/branding.js';
import { brandingOutputsStep } from './scenarios/branding-outputs.js';
import { artifactStep } from './scenarios/artifact.js';
import { runtimeStep } from './scenarios/runtime.js';
import { vaultStep } from './scenarios/vault.js';
import { filesStep } from './scenarios/files.js';
import { schedulerStep } from './scenarios/scheduler.js';

/** What every step shares: the running server and database, and where results go. */
export interface BenchRun {
  ctx: BenchContext;
  /** The same, through a pool the size of the server's (the second direct-SQL baseline). */
  ctxSmallPool: BenchContext;
  url: string;
  /** The bench database's name (its PostgreSQL backends are found by it for CPU per call). */
  database: string;
  /** The server process (CPU per call from /proc). */
  serverPid: number;
  adminKey: string;
  serverPool: number;
  verifyEvents: number;
  rows: Row[];
  raw: Record<string, unknown>;
  /** Every load measurement, so the run can report how many requests or transactions failed. */
  loads: Throughput[];
  /** Scenario 1's HTTP figures: scenario 3's first execution. */
  firstExecution?: Throughput;
  /** Stops the server: cold start runs after it, alone on the machine. */
  stopServer(): Promise<void>;
}

const EVENTS = 100_000;
const PAGE = 500;

export function throughputRows(
  scenario: string,
  product: Throughput,
  baseline: Throughput,
  baselineLabel: string,
  targets: { ratio?: number; p99Ms?: number },
): Row[] {
  const ratio = product.perSecond / baseline.perSecond;
  return [
    {
      scenario,
      metric: 'req/s',
      unit: '/s',
      product: product.perSecond,
      baseline: baseline.perSecond,
      baselineLabel,
      ratio,
      target: targets.ratio ? `>= ${targets.ratio * 100}%` : '',
      met: targets.ratio ? ratio >= targets.ratio : null,
    },
    {
      scenario,
      metric: 'p50',
      unit: 'ms',
      product: product.p50Ms,
      baseline: baseline.p50Ms,
      baselineLabel,
      ratio: product.p50Ms / baseline.p50Ms,
      target: '',
      met: null,
    },
    {
      scenario,
      metric: 'p99',
      unit: 'ms',
      product: product.p99Ms,
      baseline: baseline.p99Ms,
      baselineLabel,
      ratio: product.p99Ms / baseline.p99Ms,
      target: targets.p99Ms ? `< ${targets.p99Ms} ms` : '',
      met: targets.p99Ms ? product.p99Ms < targets.p99Ms : null,
    },
  ];
}

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** 0: statements and round trips of one keyed createTask, of its replay, and of the direct-SQL transaction. */
async function cost(run: BenchRun): Promise<void> {
  const c = await countRoundTrips(run.url, run.ctx.orgs[0], run.ctx.runId);
  run.raw.createTaskCost = c;
  for (const metric of ['roundTrips', 'statements'] as const) {
    run.rows.push({
      scenario: '0 one createTask (key)',
      metric: metric === 'roundTrips' ? 'round trips' : 'statements',
      unit: '',
      product: c.firstExecution[metric],
      baseline: c.directSql[metric],
      baselineLabel: 'direct SQL',
      ratio: c.firstExecution[metric] / c.directSql[metric],
      target: '',
      met: null,
    });
  }
  run.rows.push({
    scenario: '0 one createTask replay',
    metric: 'round trips',
    unit: '',
    product: c.replay.roundTrips,
    baseline: c.firstExecution.roundTrips,
    baselineLabel: 'first exec',
    ratio: c.replay.roundTrips / c.firstExecution.roundTrips,
    target: '',
    met: null,
  });
  log(`  first execution: ${c.firstExecution.trace.join(' ; ')}`);
  log(`  direct SQL:      ${c.directSql.trace.join(' ; ')}`);
}

/** 1 and 2: createTask over HTTP against the same transaction in direct SQL, across 50 orgs and on one hot org. */
async function mutations(run: BenchRun, which: 'across' | 'hot'): Promise<void> {
  const { ctx, ctxSmallPool } = run;
  const orgs = which === 'across' ? ctx.orgs : [ctx.orgs[0]];
  const scenario = which === 'across' ? `1 createTask, ${ctx.orgs.length} orgs` : '2 createTask, 1 hot org';
  log(`${scenario}: HTTP, then direct SQL (${ctx.connections} and ${run.serverPool} connections)`);
  const http = await withCpu(run.serverPid, run.database, () => createTaskOverHttp(ctx, orgs, which === 'across' ? 's1' : 's2'));
  const direct = await createTaskDirectSql(ctx, orgs, which === 'across' ? 'b1' : 'b2');
  // The same callers through a pool the size of the server's: the floor for the server's configuration.
  const directSmall = await createTaskDirectSql(ctxSmallPool, orgs, which === 'across' ? 'b1p' : 'b2p');
  // PostgreSQL's own pgbench with the statements the server sends (skipped, saying why, without pgbench).
  const physical = await physicalBaseline(ctx, { url: run.url, database: run.database, orgs });
  if (physical.skipped) log(`${scenario}: pgbench baseline skipped: ${physical.skipped}`);
  run.loads.push(http, direct, directSmall);
  run.raw[which === 'across' ? 'mutationsAcrossOrgs' : 'mutationsHotOrg'] = { http, directSql: direct, directSqlServerPool: directSmall, pgbench: physical };
  if (physical.result) run.rows.push(...physicalRows(scenario, http, physical.result, which === 'across' ? 0.5 : undefined));
  const small = `direct SQL, ${run.serverPool} conns`;
  if (which === 'across') {
    run.firstExecution = http;
    run.rows.push(...throughputRows(scenario, http, direct, 'direct SQL', { ratio: 0.5, p99Ms: 25 }));
    run.rows.push(...throughputRows(scenario, http, directSmall, small, {}).filter((r) => r.metric === 'req/s'));
  } else {
    run.rows.push(...throughputRows(scenario, http, direct, 'direct SQL', { ratio: 0.6 }));
    run.rows.push(...throughputRows(scenario, http, directSmall, small, {}).filter((r) => r.metric !== 'p50'));
  }
}

/** 1b: server CPU per createTask by request-log mode (LOG_LEVEL=info), each mode a server of its own, interleaved. */
async function logging(run: BenchRun): Promise<void> {
  log('1b. createTask at LOG_LEVEL=info with LOG_REQUESTS full, line and off (a server each, twice over)');
  const results = await loggingCost(run.ctx, { url: run.url, database: run.database, pool: run.serverPool });
  run.raw.logging = results;
  run.rows.push(...loggingRows(results));
}

/** 3: replay of stored keys against a first execution (scenario 1's, or measured here when 1 was not run). */
async function replay(run: BenchRun): Promise<void> {
  log('3. idempotent replay of stored keys');
  const first = run.firstExecution ?? (await createTaskOverHttp(run.ctx, run.ctx.orgs, 's3first'));
  const r = await replayOverHttp(run.ctx);
  run.loads.push(r);
  run.raw.replay = { replay: r, firstExecution: first };
  run.raw.eventsAppendedDuringReplay = r.eventsAppendedDuringReplay;
  run.rows.push(...throughputRows('3 replay vs first exec', r, first, 'first exec (1)', { ratio: 3 }).filter((row) => row.metric !== 'p50'));
}

/** 4: paging GET /events through a seeded chain, and GET /snapshot, against direct SQL. */
async function reads(run: BenchRun): Promise<void> {
  const { ctx } = run;
  log(`4. seeding a ${EVENTS}-event chain`);
  const [readOrg] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-reads`);
  const seeded = await seedChain(ctx, readOrg, EVENTS);
  log(`4. seeded in ${seeded.seedMs.toFixed(0)} ms, verified in ${seeded.verifyMs?.toFixed(0)} ms; paging GET /events`);
  const http = await pageEventsOverHttp(ctx, readOrg, PAGE, 3);
  const direct = await pageEventsDirectSql(ctx, readOrg, PAGE, 3);
  run.raw.eventsPaging = { http, directSql: direct, pageSize: PAGE, seed: seeded };
  run.rows.push({
    scenario: `4 GET /events, ${http.events} ev`,
    metric: 'events/s',
    unit: '/s',
    product: http.eventsPerSecond,
    baseline: direct.eventsPerSecond,
    baselineLabel: 'direct SQL',
    ratio: http.eventsPerSecond / direct.eventsPerSecond,
    target: '',
    met: null,
  });
  log('4. GET /snapshot: HTTP, then direct SQL');
  const snapshot = await snapshotOverHttp(ctx);
  const snapshotDirect = await snapshotDirectSql(ctx);
  run.loads.push(snapshot, snapshotDirect);
  run.raw.snapshot = { http: snapshot, directSql: snapshotDirect };
  run.rows.push(...throughputRows('4 GET /snapshot', snapshot, snapshotDirect, 'direct SQL', {}));
}

/** 4b: GET /snapshot with the key cache against a server without it (KEY_CACHE_TTL_MS=0), and direct SQL. */
async function keycache(run: BenchRun): Promise<void> {
  log('4b. GET /snapshot: a server with the key cache and one without (twice, in turn), then direct SQL');
  const r = await keyCacheCost(run.ctx, { url: run.url, database: run.database, pool: run.serverPool, serverPid: run.serverPid });
  run.loads.push(...r.cached, ...r.uncached, r.directSql);
  run.raw.keyCache = r;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const avg = (ts: KeyCacheRunItem[]): Throughput => ({
    perSecond: mean(ts.map((t) => t.perSecond)),
    p50Ms: mean(ts.map((t) => t.p50Ms)),
    p99Ms: mean(ts.map((t) => t.p99Ms)),
    total: ts.reduce((n, t) => n + t.total, 0),
    failed: 0,
  });
  const cached = avg(r.cached);
  const uncached = avg(r.uncached);
  run.rows.push(...throughputRows('4b GET /snapshot, key cache', cached, uncached, 'no key cache', {}).filter((row) => row.metric !== 'p50'));
  run.rows.push(...throughputRows('4b GET /snapshot, key cache', cached, r.directSql, 'direct SQL', {}).filter((row) => row.metric === 'req/s'));
  const cpu = (ts: KeyCacheRunItem[]) => mean(ts.map((t) => t.serverUsPerCall ?? NaN));
  const [c, u] = [cpu(r.cached), cpu(r.uncached)];
  if (Number.isFinite(c) && Number.isFinite(u))
    run.rows.push({
      scenario: '4b GET /snapshot, key cache',
      metric: 'server CPU/call',
      unit: 'µs',
      product: c,
      baseline: u,
      baselineLabel: 'no key cache',
      ratio: c / u,
      target: '',
      met: null,
    });
}

type KeyCacheRunItem = Throughput & { serverUsPerCall: number | null };

/** 7: MCP tools/call over Streamable HTTP against the same calls over plain HTTP; then the SDK client against fetch. */
async function mcp(run: BenchRun): Promise<void> {
  const { ctx } = run;
  log('7. MCP Streamable HTTP tool calls against the same calls over plain HTTP');
  const tasks = await taskPerOrg(ctx, ctx.orgs);
  const read: ToolCallSpec = { tool: 'board_taskComments', method: 'board.taskComments', args: (_i, org) => ({ taskId: tasks.get(org.orgId) }) };
  const write = (tag: string): ToolCallSpec => ({
    tool: 'board_createTask',
    method: 'board.createTask',
    args: (i) => ({ title: `Bench task ${i}`, priority: 'normal', idempotencyKey: `${ctx.runId}-${tag}-${i}` }),
  });
  const headSum = async () => Number(one(await ctx.db.query<{ n: string }>('SELECT sum(seq)::text AS n FROM ledger_heads')).n);
  const mcpRead = await toolCallsOverMcp(ctx, ctx.orgs, read);
  const httpRead = await sameCallsOverHttp(ctx, ctx.orgs, read);
  const before = await headSum();
  const mcpWrite = await toolCallsOverMcp(ctx, ctx.orgs, write('s7w'));
  const appended = (await headSum()) - before;
  const httpWrite = await sameCallsOverHttp(ctx, ctx.orgs, write('b7w'));
  // Every answered MCP mutation appended its one event (a few more may have been in flight when the clock stopped).
  if (appended < mcpWrite.total) throw new Error(`MCP mutations: ${mcpWrite.total} answered but only ${appended} ledger events appended`);
  log('7. the same with the MCP SDK client, against fetch');
  const sdkRead = await toolCallsWithSdkClient(ctx, ctx.orgs, read);
  const fetchRead = await sameCallsWithFetch(ctx, ctx.orgs, read);
  const sdkWrite = await toolCallsWithSdkClient(ctx, ctx.orgs, write('s7ws'));
  const fetchWrite = await sameCallsWithFetch(ctx, ctx.orgs, write('b7ws'));
  run.loads.push(mcpRead, httpRead, mcpWrite, httpWrite, sdkRead, fetchRead, sdkWrite, fetchWrite);
  run.raw.mcp = {
    autocannon: { read: { mcp: mcpRead, http: httpRead }, mutation: { mcp: mcpWrite, http: httpWrite, ledgerEventsDuringMcpRun: appended } },
    sdkClient: { read: { mcp: sdkRead, fetch: fetchRead }, mutation: { mcp: sdkWrite, fetch: fetchWrite } },
  };
  run.rows.push(
    ...throughputRows('7 MCP read tool (taskComments)', mcpRead, httpRead, 'plain HTTP', {}).filter((r) => r.metric !== 'p50'),
    ...throughputRows('7 MCP createTask tool', mcpWrite, httpWrite, 'plain HTTP', {}).filter((r) => r.metric !== 'p50'),
    ...throughputRows('7 SDK client, read tool', sdkRead, fetchRead, 'fetch HTTP', {}).filter((r) => r.metric === 'req/s'),
    ...throughputRows('7 SDK client, createTask', sdkWrite, fetchWrite, 'fetch HTTP', {}).filter((r) => r.metric === 'req/s'),
  );
}

/** 5: the verify CLI on a long chain, a quarter-length one and an empty one (memory must not grow with length). */
async function verify(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const short = Math.round(run.verifyEvents / 4);
  log(`5. seeding chains of ${short} and ${run.verifyEvents} events, then npm run cli -- verify on each (and on an empty chain)`);
  const [emptyOrg, shortOrg, longOrg] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 3, `bench-${ctx.runId}-verify`);
  await seedChain(ctx, shortOrg, short, { verify: false });
  const chain = await seedChain(ctx, longOrg, run.verifyEvents, { verify: false });
  const v0 = await verifyWithCli(run.url, emptyOrg);
  const vS = await verifyWithCli(run.url, shortOrg);
  const vL = await verifyWithCli(run.url, longOrg);
  const sha = rawSha256(longOrg, chain, run.verifyEvents);
  run.raw.verify = { cli: { empty: v0, short: vS, long: vL }, rawSha256: sha, seedMs: chain.seedMs };
  run.rows.push(
    {
      scenario: `5 verify ${vL.events} ev (CLI)`,
      metric: 'events/s',
      unit: '/s',
      product: vL.eventsPerSecond,
      baseline: sha.eventsPerSecond,
      baselineLabel: 'raw SHA-256',
      ratio: vL.eventsPerSecond / sha.eventsPerSecond,
      target: '>= 300000/s',
      met: vL.eventsPerSecond >= 300_000,
    },
    {
      scenario: `5 verify ${vL.events} ev (CLI)`,
      metric: 'peak RSS',
      unit: 'MB',
      product: vL.peakRssMb,
      baseline: vS.peakRssMb,
      baselineLabel: `${vS.events} ev`,
      ratio: vL.peakRssMb / vS.peakRssMb,
      target: 'flat',
      met: vL.peakRssMb <= vS.peakRssMb * 1.15,
    },
    {
      scenario: `5 verify ${vS.events} ev (CLI)`,
      metric: 'peak RSS',
      unit: 'MB',
      product: vS.peakRssMb,
      baseline: v0.peakRssMb,
      baselineLabel: `${v0.events} ev`,
      ratio: vS.peakRssMb / v0.peakRssMb,
      target: '',
      met: null,
    },
  );
}

/**
 * 6: spawn to first 200, after the server is stopped: PGlite new data dir (template, and without), restart, PostgreSQL;
 * the compiled server (npm start) against bare node:http, and the tsx path (npm run dev) against the compiled one.
 */
async function coldStart(run: BenchRun): Promise<void> {
  await run.stopServer();
  buildCompiled();
  log(
    '6. cold start (3 starts each), compiled (node dist/cli/main.js) and tsx: baseline, PGlite (new data dir from the template, without it, restarts), PostgreSQL',
  );
  const bare = await coldStartBaseline(3);
  const fresh = await coldStartPglite(3);
  const initdb = await coldStartPglite(3, { template: false });
  const restart = await coldStartPgliteRestart(3);
  const postgres = await coldStartPostgres(3, run.url);
  const tsx = {
    baseline: await coldStartBaseline(3, 'tsx'),
    pglite: await coldStartPglite(3, { runner: 'tsx' }),
    pgliteRestart: await coldStartPgliteRestart(3, 'tsx'),
    postgres: await coldStartPostgres(3, run.url, 'tsx'),
  };
  run.raw.coldStart = { baseline: bare, pglite: fresh, pgliteWithoutTemplate: initdb, pgliteRestart: restart, postgres, tsx };
  const row = (scenario: string, ms: number, target: boolean): Row => ({
    scenario,
    metric: 'to 1st 200',
    unit: 'ms',
    product: ms,
    baseline: bare.medianMs,
    baselineLabel: 'bare node:http',
    ratio: ms / bare.medianMs,
    target: target ? '< 3000 ms' : '',
    met: target ? ms < 3000 : null,
  });
  const tsxRow = (scenario: string, ms: number, compiledMs: number): Row => ({
    scenario,
    metric: 'to 1st 200',
    unit: 'ms',
    product: ms,
    baseline: compiledMs,
    baselineLabel: 'compiled',
    ratio: ms / compiledMs,
    target: '',
    met: null,
  });
  run.rows.push(
    row('6 cold start, PGlite new dir', fresh.medianMs, true),
    row('6 PGlite new dir, no template', initdb.medianMs, false),
    row('6 cold start, PGlite restart', restart.medianMs, true),
    row('6 cold start, PostgreSQL', postgres.medianMs, false),
    tsxRow('6 tsx: bare node:http', tsx.baseline.medianMs, bare.medianMs),
    tsxRow('6 tsx: PGlite new dir', tsx.pglite.medianMs, fresh.medianMs),
    tsxRow('6 tsx: PGlite restart', tsx.pgliteRestart.medianMs, restart.medianMs),
    tsxRow('6 tsx: PostgreSQL', tsx.postgres.medianMs, postgres.medianMs),
  );
}

/**
 * 8: GET /api/v1/org/stream, commit-to-frame latency (from the event's `at`, stamped in the append statement, to
 * the frame at the client): the append through the streams' own process, and through a second server process on
 * the same database (NOTIFY across processes), with 1 and 1,000 open streams of the org.
 */
async function stream(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const org = ctx.orgs[0];
  log('8. live stream: starting a second server process on the same database');
  const second = await startServer({ env: { DATABASE_URL: run.url, PG_POOL_SIZE: String(run.serverPool) } });
  const results: Record<string, StreamLatency> = {};
  try {
    for (const streams of [1, 1000]) {
      const events = streams === 1 ? 200 : 50;
      for (const [where, appendUrl] of [
        ['same process', ctx.baseUrl],
        ['across processes', second.baseUrl],
      ] as const) {
        log(`8. ${streams} stream(s), ${events} appends, ${where}`);
        results[`${where}, ${streams}`] = await streamLatency({
          appendUrl,
          streamUrl: ctx.baseUrl,
          org,
          streams,
          events,
          tag: `${ctx.runId}-s8-${streams}-${where.split(' ')[0]}`,
        });
      }
    }
  } finally {
    await second.stop();
  }
  run.raw.stream = results;
  const base = results['same process, 1'];
  for (const [label, r] of Object.entries(results)) {
    const lost = r.frames !== r.streams * r.events;
    if (lost) throw new Error(`stream ${label}: ${r.frames} frames, expected ${r.streams * r.events}`);
    for (const metric of ['p50', 'p99'] as const) {
      const product = metric === 'p50' ? r.p50Ms : r.p99Ms;
      const baseline = metric === 'p50' ? base.p50Ms : base.p99Ms;
      run.rows.push({
        scenario: `8 stream ${label}`,
        metric: `${metric} commit-to-frame`,
        unit: 'ms',
        product,
        baseline,
        baselineLabel: 'same process, 1',
        ratio: product / baseline,
        target: '',
        met: null,
      });
    }
  }
}

/** 9: PUT /api/v1/blobs streamed to disk: peak RSS of a 200 MB upload against a 20 MB one (each in a fresh process). */
async function blobs(run: BenchRun): Promise<void> {
  log('9. blob upload, 20 MB then 200 MB, each in a fresh server process on the bench database');
  const small = measureBlobUpload(20 * 1024 * 1024, run.url);
  const large = measureBlobUpload(200 * 1024 * 1024, run.url);
  run.raw.blobs = { small, large };
  const growth = (m: typeof small) => m.peakRssMb - m.rssBeforeMb;
  run.rows.push(
    {
      scenario: '9 blob PUT 200 MB',
      metric: 'peak RSS',
      unit: 'MB',
      product: large.peakRssMb,
      baseline: small.peakRssMb,
      baselineLabel: '20 MB',
      ratio: large.peakRssMb / small.peakRssMb,
      target: 'flat',
      met: growth(large) <= growth(small) + 32,
    },
    {
      scenario: '9 blob PUT 200 MB',
      metric: 'MB/s',
      unit: '/s',
      product: large.mbPerSecond,
      baseline: small.mbPerSecond,
      baselineLabel: '20 MB',
      ratio: large.mbPerSecond / small.mbPerSecond,
      target: '',
      met: null,
    },
  );
}

/** The steps in run order; BENCH_ONLY picks some by these names. Cold start stops the server, so it runs last. */
export const STEPS: Record<string, (run: BenchRun) => Promise<void>> = {
  cost,
  mutations: (run) => mutations(run, 'across'),
  hot: (run) => mutations(run, 'hot'),
  logging,
  replay,
  reads,
  keycache,
  mcp,
  verify,
  stream,
  blobs,
  people: peopleStep,
  directory: directoryStep,
  governance: governanceStep,
  messaging: messagingStep,
  email: emailStep,
  files: filesStep,
  knowledge: knowledgeStep,
  calendar: calendarStep,
  crm: crmStep,
  branding: brandingStep,
  'branding-outputs': brandingOutputsStep,
  artifact: artifactStep,
  runtime: runtimeStep,
  vault: vaultStep,
  scheduler: schedulerStep,
  coldstart: coldStart,
};
