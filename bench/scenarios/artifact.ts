import { createOrgs, rpc } from '../fixture.js';
import { latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import type { BenchRun } from '../steps.js';

/*
 * Artifact targets (docs/families/artifact.md): a page of 50 artifacts (artifact.list limit 50, 200 posted in a
 * channel) under 20 ms p95, and a human's response reaching the author's long-poll (artifact.get waitMs) under 1 s.
 */

const SAMPLES = Number(process.env.BENCH_ARTIFACT_SAMPLES ?? 200);
const RESPONSES = Number(process.env.BENCH_ARTIFACT_RESPONSES ?? 30);
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

const FORM = [
  { id: 'root', type: 'Card', title: 'Approve', children: ['amount', 'go'] },
  { id: 'amount', type: 'NumberInput', name: 'amount', label: 'Amount', min: 1 },
  { id: 'go', type: 'Button', actionId: 'go', label: 'Approve' },
];

/** 23: artifact.list page of 50 p95; response to the creator's long-poll p95. */
export async function artifactStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-artifact`);
  const call = async (method: string, params: Record<string, unknown>, key = org.key) => {
    const { body } = await rpc(ctx.baseUrl, key, method, params);
    if (!body.ok) throw new Error(`${method}: ${JSON.stringify(body).slice(0, 300)}`);
    return body.result;
  };
  const { channel } = await call('channel.create', { name: `bench-art-${ctx.runId}` });
  const post = async (i: number) => {
    const { artifact } = await call('artifact.create', {
      idempotencyId: `a-${i}`,
      title: `Form ${i}`,
      components: FORM,
      actions: [{ actionId: 'go', label: 'Go', inputs: ['amount'] }],
      fallbackText: 'x',
    });
    await call('messaging.send', { channelId: channel.id, idempotencyId: `s-${i}`, text: `form ${i}`, artifactIds: [artifact.id] });
    return artifact.id as string;
  };
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) ids.push(await post(i));
  for (let i = 0; i < 20; i++) await call('artifact.list', { channelId: channel.id, limit: 50 });
  const page = await latencies(SAMPLES, async () => {
    const got = await call('artifact.list', { channelId: channel.id, limit: 50 });
    if (got.artifacts.length !== 50) throw new Error(`artifact.list: ${got.artifacts.length} artifacts, expected 50`);
  });
  const toCreator = await latencies(RESPONSES, async (i) => {
    const id = ids[i];
    const waiting = call('artifact.get', { artifactId: id, responsesAfter: 0, waitMs: 10_000 });
    await new Promise((r) => setTimeout(r, 50));
    await call('artifact.act', { artifactId: id, actionId: 'go', revision: 1, values: { amount: 1 }, idempotencyId: `r-${i}` });
    const got = await waiting;
    if (got.responses.length !== 1) throw new Error('artifact.get: the long-poll ended without the response');
  });
  log(`23. artifact.list page of 50: p50 ${page.p50Ms.toFixed(1)} p95 ${page.p95Ms.toFixed(1)} ms; response to creator p95 ${toCreator.p95Ms.toFixed(1)} ms`);
  run.raw.artifact = { page, toCreator };
  run.rows.push(latencyRow('23 artifact.list page of 50', page, 20));
  run.rows.push(latencyRow('23 artifact response to the creator (long-poll; includes 50 ms before submit)', toCreator, 1000));
}
