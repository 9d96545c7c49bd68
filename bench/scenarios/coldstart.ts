import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_TEMPLATE_DIR, ensureTemplate } from '../../db/pglite-template.js';
import { COMPILED_SERVE, ROOT, startServer, TSX_SERVE, type Launch } from '../server.js';

export interface ColdStart {
  /** Each start's time to the first 200 of GET /healthz, in ms. */
  runsMs: number[];
  medianMs: number;
}

/** The two ways the server runs: compiled (npm start: node dist/cli/main.js) and from the sources (npm run dev: tsx). */
export type Runner = 'compiled' | 'tsx';
const SERVE: Record<Runner, Launch> = { compiled: COMPILED_SERVE, tsx: TSX_SERVE };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(times: number, start: (i: number) => Promise<number>): Promise<ColdStart> {
  const runsMs: number[] = [];
  for (let i = 0; i < times; i++) runsMs.push(await start(i));
  return { runsMs, medianMs: median(runsMs) };
}

async function once(env: Record<string, string>, launch: Launch): Promise<number> {
  const server = await startServer({ env, launch });
  await server.stop();
  return server.startupMs;
}

/** Build dist/ if it is stale (what npm start's prestart does), so that no measured start includes a build. */
export function buildCompiled(): void {
  const res = spawnSync(process.execPath, ['bin/build.js', '--if-stale'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0) throw new Error('node bin/build.js --if-stale failed: the compiled server cannot be measured');
}

/**
 * PGlite, each start on a new empty data dir: creates the database, migrates, bootstraps, serves. With the
 * template (as npm install leaves it) the database is a copy of a migrated one; without, PGlite runs initdb and
 * the server every migration.
 */
export async function coldStartPglite(times: number, opts: { template?: boolean; runner?: Runner } = {}): Promise<ColdStart> {
  const template = opts.template ?? true;
  if (template) await ensureTemplate(DEFAULT_TEMPLATE_DIR);
  const env = { DATABASE_URL: '', BOOTSTRAP_ADMIN_KEY: '', PGLITE_TEMPLATE_DIR: template ? '' : 'off' };
  return measure(times, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wops-bench-pglite-'));
    try {
      return await once({ ...env, DATA_DIR: dir }, SERVE[opts.runner ?? 'compiled']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

/** PGlite, restarts over one existing data dir (created, migrated and bootstrapped by a first start not counted). */
export async function coldStartPgliteRestart(times: number, runner: Runner = 'compiled'): Promise<ColdStart> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wops-bench-pglite-'));
  const env = { DATA_DIR: dir, DATABASE_URL: '', BOOTSTRAP_ADMIN_KEY: '' };
  try {
    await once(env, SERVE[runner]);
    return await measure(times, () => once(env, SERVE[runner]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** PostgreSQL, on the bench database (already migrated and bootstrapped by the first start). */
export async function coldStartPostgres(times: number, databaseUrl: string, runner: Runner = 'compiled'): Promise<ColdStart> {
  return measure(times, () => once({ DATABASE_URL: databaseUrl }, SERVE[runner]));
}

/** Baseline: node:http answering /healthz, no framework, no database; under plain node, or under tsx. */
export async function coldStartBaseline(times: number, runner: Runner = 'compiled'): Promise<ColdStart> {
  const script = path.join(ROOT, 'bench', 'baseline-server.js');
  const launch = runner === 'compiled' ? { file: process.execPath, args: [script] } : { file: TSX_SERVE.file, args: [script] };
  return measure(times, () => once({}, launch));
}
