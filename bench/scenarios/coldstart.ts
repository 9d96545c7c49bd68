import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_TEMPLATE_DIR, ensureTemplate } from '../../db/pglite-template.js';
import { ROOT, startServer } from '../server.js';

export interface ColdStart {
  /** Each start's time to the first 200 of GET /healthz, in ms. */
  runsMs: number[];
  medianMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(times: number, start: (i: number) => Promise<number>): Promise<ColdStart> {
  const runsMs: number[] = [];
  for (let i = 0; i < times; i++) runsMs.push(await start(i));
  return { runsMs, medianMs: median(runsMs) };
}

async function once(env: Record<string, string>, script?: string): Promise<number> {
  const server = await startServer({ env, script });
  await server.stop();
  return server.startupMs;
}

/**
 * PGlite, each start on a new empty data dir: creates the database, migrates, bootstraps, serves. With the
 * template (as npm install leaves it) the database is a copy of a migrated one; without, PGlite runs initdb and
 * the server every migration.
 */
export async function coldStartPglite(times: number, opts: { template: boolean } = { template: true }): Promise<ColdStart> {
  if (opts.template) await ensureTemplate(DEFAULT_TEMPLATE_DIR);
  const env = { DATABASE_URL: '', BOOTSTRAP_ADMIN_KEY: '', PGLITE_TEMPLATE_DIR: opts.template ? '' : 'off' };
  return measure(times, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wops-bench-pglite-'));
    try {
      return await once({ ...env, DATA_DIR: dir });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

/** PGlite, restarts over one existing data dir (created, migrated and bootstrapped by a first start not counted). */
export async function coldStartPgliteRestart(times: number): Promise<ColdStart> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wops-bench-pglite-'));
  try {
    await once({ DATA_DIR: dir, DATABASE_URL: '', BOOTSTRAP_ADMIN_KEY: '' });
    return await measure(times, () => once({ DATA_DIR: dir, DATABASE_URL: '', BOOTSTRAP_ADMIN_KEY: '' }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** PostgreSQL, on the bench database (already migrated and bootstrapped by the first start). */
export async function coldStartPostgres(times: number, databaseUrl: string): Promise<ColdStart> {
  return measure(times, () => once({ DATABASE_URL: databaseUrl }));
}

/** Baseline: tsx + node:http answering /healthz, no framework, no database. */
export async function coldStartBaseline(times: number): Promise<ColdStart> {
  return measure(times, () => once({}, path.join(ROOT, 'bench', 'baseline-server.ts')));
}
