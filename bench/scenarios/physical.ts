import { measureCpu, perCallUs, type CpuUse } from '../cpu.js';
import type { BenchContext, BenchOrg } from '../fixture.js';
import type { Throughput } from '../measure.js';
import type { Row } from '../report.js';
import { pgbenchMissing, pgbenchScript, runPgbench, type PgbenchResult } from './pgbench.js';
import { countRoundTrips, type SentStatement } from './roundtrips.js';

/**
 * Scenario 1 and 2's physical baseline (issue 36): pgbench replaying the statements the server sent for one keyed
 * board.createTask, and the CPU per call of the server and of PostgreSQL from /proc, for the HTTP load and for
 * pgbench. Two scripts: the call's transaction (BEGIN, idempotency claim, task insert, head advance with the hashed
 * event insert, frame store, COMMIT) and the whole call (the same after the authentication statement, which also
 * looks the key up for a replay).
 */
export interface PhysicalResult {
  transaction: PgbenchResult & { cpu: CpuUse };
  wholeCall: PgbenchResult & { cpu: CpuUse };
  statements: string[];
}

interface Captured {
  call: SentStatement[];
  taskId: string;
  key: string;
}

/** The statements of one keyed createTask as the server's pipeline sends them (a fresh key, in this process). */
async function capture(url: string, org: BenchOrg, runId: string): Promise<Captured> {
  const { firstExecution } = await countRoundTrips(url, org, `${runId}-pgbench`);
  const call = firstExecution.sent;
  const taskInsert = call.find((s) => /^\s*INSERT INTO board_tasks/.test(s.text));
  const claim = call.find((s) => /^\s*INSERT INTO idempotency/.test(s.text));
  if (!taskInsert || !claim) throw new Error(`pgbench: could not find the task insert and idempotency claim in ${firstExecution.trace.join(' ; ')}`);
  const taskId = taskInsert.values[1];
  const key = claim.values.find((v) => typeof v === 'string' && v.startsWith(`${runId}-pgbench`));
  if (typeof taskId !== 'string' || typeof key !== 'string') throw new Error('pgbench: no task id or idempotency key among the captured values');
  return { call, taskId, key };
}

let captures = 0;

/** Run pgbench for both scripts over `orgs`, measuring CPU; undefined (and why) when pgbench is missing. */
export async function physicalBaseline(
  ctx: BenchContext,
  opts: { url: string; database: string; orgs: BenchOrg[] },
): Promise<{ result?: PhysicalResult; skipped?: string }> {
  const missing = await pgbenchMissing();
  if (missing) return { skipped: missing };
  // A key of its own per capture: scenarios 1 and 2 both capture in one run, and a repeated key would replay.
  const captured = await capture(opts.url, ctx.orgs[0], `${ctx.runId}-${++captures}`);
  const begin = captured.call.findIndex((s) => s.text.trim() === 'BEGIN');
  if (begin < 0) throw new Error('pgbench: the captured call has no BEGIN');
  const scripts = (sent: SentStatement[]) => opts.orgs.map((org) => pgbenchScript(sent, { org: ctx.orgs[0], ...captured }, org));
  const measured = async (sent: SentStatement[]) => {
    const meter = measureCpu({ database: opts.database });
    try {
      const result = await runPgbench(opts.url, scripts(sent), { clients: ctx.connections, seconds: ctx.seconds });
      return { ...result, cpu: meter.stop() };
    } finally {
      meter.stop();
    }
  };
  const transaction = await measured(captured.call.slice(begin));
  const wholeCall = await measured(captured.call);
  return { result: { transaction, wholeCall, statements: captured.call.map((s) => s.text.trim().replace(/\s+/g, ' ').slice(0, 60)) } };
}

/** The HTTP load with its CPU per call. */
export async function withCpu<T extends Throughput>(serverPid: number, database: string, load: () => Promise<T>): Promise<T & { cpu: CpuUse }> {
  const meter = measureCpu({ serverPid, database });
  try {
    const result = await load();
    return { ...result, cpu: meter.stop() };
  } finally {
    meter.stop();
  }
}

/** The table's rows: the server against pgbench, and CPU per call of each side. */
export function physicalRows(scenario: string, http: Throughput & { cpu: CpuUse }, p: PhysicalResult, target?: number): Row[] {
  const tx = p.transaction;
  const rows: Row[] = [
    {
      scenario,
      metric: 'req/s',
      unit: '/s',
      product: http.perSecond,
      baseline: tx.tps,
      baselineLabel: `pgbench, the tx (${tx.statementsPerTransaction} st)`,
      ratio: http.perSecond / tx.tps,
      target: target ? `>= ${target * 100}%` : '',
      met: target ? http.perSecond / tx.tps >= target : null,
    },
    {
      scenario,
      metric: 'req/s',
      unit: '/s',
      product: http.perSecond,
      baseline: p.wholeCall.tps,
      baselineLabel: `pgbench, + auth (${p.wholeCall.statementsPerTransaction} st)`,
      ratio: http.perSecond / p.wholeCall.tps,
      target: '',
      met: null,
    },
  ];
  const pgHttp = perCallUs(http.cpu.postgresMs, http.total);
  const pgBench = perCallUs(tx.cpu.postgresMs, tx.transactions);
  const server = perCallUs(http.cpu.serverMs, http.total);
  if (pgHttp !== null && pgBench !== null)
    rows.push({
      scenario,
      metric: 'PG CPU/call',
      unit: 'µs',
      product: pgHttp,
      baseline: pgBench,
      baselineLabel: 'pgbench, the tx',
      ratio: pgHttp / pgBench,
      target: '',
      met: null,
    });
  if (server !== null && pgHttp !== null)
    rows.push({
      scenario,
      metric: 'server CPU/call',
      unit: 'µs',
      product: server,
      baseline: pgHttp,
      baselineLabel: 'PG CPU, same calls',
      ratio: server / pgHttp,
      target: '',
      met: null,
    });
  return rows;
}
