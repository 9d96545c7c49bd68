import { migrate } from './migrate.js';
import type { Db } from './types.js';

export type { Db, Queryable, Rows } from './types.js';
export { one } from './types.js';

export interface OpenDbOptions {
  /** PostgreSQL connection string; when absent, embedded PGlite is used. */
  databaseUrl?: string;
  /** PGlite data directory; `memory` (or undefined with inMemory) keeps everything in RAM. */
  dataDir?: string;
  inMemory?: boolean;
  /**
   * Where the PGlite template (a migrated empty database that new databases are copied from) is kept; built
   * there on first need. `null` creates every new database with PGlite's initdb instead. Default:
   * node_modules/.cache/workspace-ops.
   */
  pgliteTemplateDir?: string | null;
  /** PGlite: load the pgvector extension (hybrid knowledge search, when an embedding model is configured). */
  vectors?: boolean;
  /** Told about slow one-off work (building the PGlite template) and what went wrong in it. */
  notice?: (message: string) => void;
  poolSize?: number;
  /** PostgreSQL lock_timeout in ms (default 5000). */
  lockTimeoutMs?: number;
  /**
   * PostgreSQL group commit's window in ms (GROUP_COMMIT_WAIT_MS, default 0: off; db/group-commit.ts).
   * PGlite has one connection and never batches.
   */
  groupCommitWaitMs?: number;
  /** Told when the LISTEN connection (PostgreSQL) is lost or fails to come back; it keeps retrying. */
  onListenError?: (err: Error, what: string) => void;
}

/**
 * Open the configured database and bring its schema up to date. Its driver (pg, or PGlite's WASM PostgreSQL) is
 * imported here, so a process loads only the one it opens.
 */
export async function openDb(opts: OpenDbOptions): Promise<Db> {
  const db = opts.databaseUrl ? await openServer(opts.databaseUrl, opts) : await openEmbedded(opts);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

async function openServer(url: string, opts: OpenDbOptions): Promise<Db> {
  const { openPostgres } = await import('./postgres.js');
  return openPostgres(url, {
    poolSize: opts.poolSize,
    lockTimeoutMs: opts.lockTimeoutMs,
    groupCommitWaitMs: opts.groupCommitWaitMs,
    onError: opts.onListenError,
  });
}

async function openEmbedded(opts: OpenDbOptions): Promise<Db> {
  const [{ openPglite }, { DEFAULT_TEMPLATE_DIR, ensureTemplate }] = await Promise.all([import('./pglite.js'), import('./pglite-template.js')]);
  const dataDir = opts.inMemory || opts.dataDir === 'memory' ? undefined : (opts.dataDir ?? './.data');
  const templateDir = opts.pgliteTemplateDir === undefined ? DEFAULT_TEMPLATE_DIR : opts.pgliteTemplateDir;
  const notice = opts.notice ?? (() => {});
  return openPglite(dataDir, { template: templateDir === null ? undefined : () => ensureTemplate(templateDir, notice), notice, vectors: opts.vectors });
}
