import { createOrgs, rpc } from '../fixture.js';
import { latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import type { BenchRun } from '../steps.js';
import { benchFoundation } from './branding.js';

/*
 * Branding's outputs (docs/families/branding.md, performance): a 1080×1080 PNG render of the social-square starter,
 * cold (new values each time: satori, resvg, the blob store, the insert) under 400 ms p95 and cached (the same
 * inputs again: changed:false) under 20 ms p95; and the export kit of the whole library (tokens in every format,
 * the six starters, fonts, guidelines.pdf), under 10 s.
 */

const SAMPLES = Number(process.env.BENCH_BRANDING_RENDERS ?? 60);
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

export async function brandingOutputsStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-brand-out`);
  const call = async (method: string, params: Record<string, unknown>) => {
    const { body } = await rpc(ctx.baseUrl, org.key, method, params);
    if (!body.ok) throw new Error(`${method}: ${JSON.stringify(body).slice(0, 300)}`);
    return body.result;
  };
  await call('branding.saveFoundation', { baseVersion: 0, patch: benchFoundation() });
  const { templates } = await call('branding.regenerateTemplates', { idempotencyId: 'bench-starters' });
  const templateId = templates.find((t: { recipe: string }) => t.recipe === 'social-square').templateId as string;
  const render = (headline: string) => call('branding.renderTemplate', { templateId, values: { headline, subline: 'Bench render' }, format: 'png' });
  // The first render loads satori, resvg and the fonts: measured apart.
  const t0 = performance.now();
  await render('warm-up');
  const firstMs = performance.now() - t0;
  const cold = await latencies(SAMPLES, async (i) => {
    if (!(await render(`Headline number ${i}`)).changed) throw new Error('a new render answered changed:false');
  });
  const cached = await latencies(SAMPLES * 3, async () => {
    if ((await render('Headline number 0')).changed) throw new Error('the same inputs rendered again');
  });
  const kits = await latencies(5, async () => {
    const kit = await call('branding.exportKit', {});
    if (kit.entries.length < 20) throw new Error(`exportKit: ${kit.entries.length} entries`);
  });
  log(`23. branding.renderTemplate 1080² PNG: first ${firstMs.toFixed(0)} ms; cold p50 ${cold.p50Ms.toFixed(1)} p95 ${cold.p95Ms.toFixed(1)} ms`);
  log(`23. branding.renderTemplate cached: p50 ${cached.p50Ms.toFixed(1)} p95 ${cached.p95Ms.toFixed(1)} ms; exportKit p50 ${kits.p50Ms.toFixed(0)} ms`);
  run.raw.brandingOutputs = { firstRenderMs: firstMs, cold, cached, exportKit: kits };
  run.rows.push(latencyRow('23 branding.renderTemplate 1080² PNG (cold)', cold, 400));
  run.rows.push(latencyRow('23 branding.renderTemplate (cached)', cached, 20));
  run.rows.push(latencyRow('23 branding.exportKit (6 starters, all formats)', kits, 10_000));
}
