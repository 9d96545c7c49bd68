import { createOrgs, rpc } from '../fixture.js';
import { latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import type { BenchRun } from '../steps.js';

/*
 * The runtime's targets (docs/families/runtime.md, performance): lease.claim under 20 ms p95 on PostgreSQL, each
 * sample a new name (the full path: name row, lock, insert, token, event), one request at a time against the real
 * server; and a 200-entry cost.report, which is one INSERT of its rows.
 */

const SAMPLES = Number(process.env.BENCH_RUNTIME_SAMPLES ?? 300);
const REPORTS = Number(process.env.BENCH_RUNTIME_REPORTS ?? 30);
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** 20: lease.claim p95 and a 200-entry cost.report. */
export async function runtimeStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-runtime`);
  const claim = async (name: string) => {
    const { body } = await rpc(ctx.baseUrl, org.key, 'lease.claim', { name, ttlSeconds: 60 });
    if (!body.ok) throw new Error(`lease.claim: ${JSON.stringify(body)}`);
  };
  for (let i = 0; i < 20; i++) await claim(`warm:${i}`);
  const claims = await latencies(SAMPLES, (i) => claim(`bench:${i}`));
  log(`20. lease.claim: p50 ${claims.p50Ms.toFixed(1)} p95 ${claims.p95Ms.toFixed(1)} ms`);
  const at = new Date(Date.now() - 60_000).toISOString();
  const reports = await latencies(REPORTS, async (r) => {
    const entries = Array.from({ length: 200 }, (_, i) => ({
      provider: 'openai',
      model: 'gpt-4o-mini',
      inputTokens: 900,
      outputTokens: 120,
      occurredAt: at,
      externalId: `b${r}-${i}`,
    }));
    const { body } = await rpc(ctx.baseUrl, org.key, 'cost.report', { entries });
    if (!body.ok || body.result.accepted !== 200) throw new Error(`cost.report: ${JSON.stringify(body).slice(0, 300)}`);
  });
  log(`20. cost.report of 200 entries: p50 ${reports.p50Ms.toFixed(1)} p95 ${reports.p95Ms.toFixed(1)} ms`);
  run.raw.runtime = { claims, reports };
  run.rows.push(latencyRow('20 lease.claim (a new name each)', claims, 20));
  run.rows.push(latencyRow('20 cost.report, 200 entries (one INSERT)', reports, null));
}
