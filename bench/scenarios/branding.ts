import { createOrgs, rpc } from '../fixture.js';
import { latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import type { BenchRun } from '../steps.js';

/*
 * Branding's read target (docs/families/branding.md, performance): branding.getFoundation under 20 ms p95 on
 * PostgreSQL for a realistic foundation: about 300 tokens (a 20-hue palette of 10 shades, spacing, sizes, type,
 * aliases), 20 usage pairs whose contrasts every read computes, a voice of rules and examples; with open proposals.
 */

const SAMPLES = Number(process.env.BENCH_BRANDING_SAMPLES ?? 300);
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const HUES = 20;
const SHADES = [50, 100, 200, 300, 400, 500, 600, 700, 800, 900];

/** #rrggbb of an HSL colour (s and l in 0..1). */
function hsl(h: number, s: number, l: number): string {
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/** 200 palette colours, 60 spacing and size dimensions, 20 numbers, type, 20 aliases: 306 tokens. */
export function benchFoundation() {
  const color: Record<string, unknown> = { $type: 'color', neutral: { 900: { $value: '#111111' }, 0: { $value: '#ffffff' } } };
  for (let h = 0; h < HUES; h++) {
    color[`hue${h}`] = Object.fromEntries(SHADES.map((s, i) => [s, { $value: hsl(h * 18, 0.6, 0.96 - i * 0.09) }]));
  }
  color.role = Object.fromEntries(Array.from({ length: HUES }, (_, h) => [`r${h}`, { $value: `{color.hue${h}.50}` }]));
  const dims = (prefix: string, n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { $value: { value: (i + 1) * 4, unit: 'px' } }]));
  const tokens = {
    color,
    space: { $type: 'dimension', ...dims('s', 30) },
    size: { $type: 'dimension', ...dims('z', 30) },
    ratio: { $type: 'number', ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`n${i}`, { $value: 1 + i / 10 }])) },
    font: { $type: 'fontFamily', heading: { $value: ['Fraunces', 'serif'] }, body: { $value: ['Inter', 'sans-serif'] } },
    weight: { $type: 'fontWeight', regular: { $value: 400 }, bold: { $value: 700 } },
  };
  const usage = Array.from({ length: 20 }, (_, h) => ({ fg: '{color.neutral.900}', bg: `{color.role.r${h}}`, use: 'text' }));
  const voice = {
    tone: 'Plain, warm and exact.',
    rules: Array.from({ length: 12 }, (_, i) => ({ text: `Rule ${i + 1}: say what happened, then what to do next.`, avoid: ['synergy', `word${i}`] })),
    examples: Array.from({ length: 6 }, (_, i) => ({ text: `Example ${i + 1}: your invoice is paid; the receipt is attached.`, channel: 'email' })),
  };
  return { name: 'Bench Brand', tokens, usage, voice };
}

/** 22: branding.getFoundation p95 on a realistic foundation. */
export async function brandingStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-branding`);
  const call = async (method: string, params: Record<string, unknown>) => {
    const { body } = await rpc(ctx.baseUrl, org.key, method, params);
    if (!body.ok) throw new Error(`${method}: ${JSON.stringify(body).slice(0, 300)}`);
    return body.result;
  };
  const saved = await call('branding.saveFoundation', { baseVersion: 0, patch: benchFoundation() });
  for (let i = 0; i < 5; i++)
    await call('branding.proposeChange', { baseVersion: saved.version, patch: { voice: { tone: `Tone ${i}` } }, rationale: `Bench ${i}` });
  for (let i = 0; i < 20; i++) await call('branding.getFoundation', {});
  const reads = await latencies(SAMPLES, async () => {
    const got = await call('branding.getFoundation', {});
    if (got.contrasts.length !== 20) throw new Error(`getFoundation: ${got.contrasts.length} contrasts, expected 20`);
  });
  log(`22. branding.getFoundation (306 tokens, 20 pairs, 5 open proposals): p50 ${reads.p50Ms.toFixed(1)} p95 ${reads.p95Ms.toFixed(1)} ms`);
  run.raw.branding = { getFoundation: reads };
  run.rows.push(latencyRow('22 branding.getFoundation (306 tokens, 20 pairs)', reads, 20));
}
