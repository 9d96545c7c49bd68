import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_URL, onPostgres } from '../helpers/harness.js';
import { TSX } from '../helpers/cli.js';

/** The steps an issue's ratios come from, each for a second: a step the code has outgrown fails here, not in a measurement. */
const STEPS = ['mutations', 'hot', 'replay', 'keycache', 'mcp'];

/** The server's admin database beside the run's (the bench creates and drops a database of its own). */
function adminUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

function run(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['bench/run.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe.skipIf(!onPostgres)('npm run bench (PostgreSQL: the bench needs a server to create its database on; the PGlite run skips it)', () => {
  it('runs the ratio steps end to end and writes every row', { timeout: 300_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'wops-bench-'));
    const { code, out } = await run({
      ...process.env,
      BENCH_ONLY: STEPS.join(','),
      BENCH_SECONDS: '1',
      // Few connections: the PostgreSQL run's other test files hold theirs (max_connections is 100 by default).
      BENCH_CONNECTIONS: '4',
      BENCH_SERVER_POOL: '2',
      BENCH_PG_ADMIN_URL: adminUrl(DATABASE_URL!),
      BENCH_RESULTS_DIR: results,
    });
    expect(out).not.toContain('steps that failed');
    expect(code, out.slice(-3000)).toBe(0);
    const [file] = readdirSync(results);
    const report = JSON.parse(readFileSync(join(results, file), 'utf8')) as { rows: { scenario: string }[]; settings: { failedSteps: string[] } };
    expect(report.settings.failedSteps).toEqual([]);
    const scenarios = new Set(report.rows.map((r) => r.scenario.split(' ')[0]));
    for (const s of ['1', '2', '3', '4b', '7']) expect(scenarios, `a row of scenario ${s}`).toContain(s);
  });
});
