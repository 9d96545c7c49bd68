import { createRuntime, type Runtime } from '../domain/deployed.js';
import type { ServerConfig } from './config.js';
import { seedDemo } from './demo.js';

/** Print the demo company's keys and what to try: the keys are shown once (they are stored hashed). */
export async function seedAndReport(runtime: Runtime, slug: string, out: (line: string) => void): Promise<void> {
  const started = performance.now();
  const demo = await seedDemo(runtime, { slug, progress: (line) => out(`  ${line}…`) });
  out(`Seeded ${demo.slug} (${demo.orgId}) with ${demo.calls} API calls in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  out(`Keys (shown once):`);
  out(`  admin (Grace Lin, every scope):                ${demo.keys.admin}`);
  out(`  agent (bookkeeping agent, not admin/decide):   ${demo.keys.agent}`);
  out(`  approver (Priya Nair, approval.decide, reads): ${demo.keys.approver}`);
  for (const line of demo.summary) out(line);
}

export async function demoCommand(config: ServerConfig, slug: string, out: (line: string) => void): Promise<void> {
  const runtime = await createRuntime({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteTemplateDir: config.pgliteTemplateDir,
    poolSize: 4,
    config: { publicUrl: config.publicUrl, holdTtlMs: config.holdTtlMs, vault: config.vault },
  });
  try {
    out(`Seeding the demo company into org ${slug}:`);
    await seedAndReport(runtime, slug, out);
  } finally {
    await runtime.close();
  }
}
