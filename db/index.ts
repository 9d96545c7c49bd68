import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { DEFAULT_TEMPLATE_DIR, ensureTemplate } from './pglite-template.js';
import { openPostgres } from './postgres.js';
import type { Db } from './types.js';

export type { Db, Queryable } from './types.js';

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
  /** Told about slow one-off work (building the PGlite template) and what went wrong in it. */
  notice?: (message: string) => void;
  poolSize?: number;
  /** PostgreSQL lock_timeout in ms (default 5000). */
  lockTimeoutMs?: number;
  /** Told when the LISTEN connection (PostgreSQL) is lost or fails to come back; it keeps retrying. */
  onListenError?: (err: Error, what: string) => void;
}

/** Open the configured database and bring its schema up to date. */
export async function openDb(opts: OpenDbOptions): Promise<Db> {
  const db = opts.databaseUrl ? openPostgres(opts.databaseUrl, { poolSize: opts.poolSize, lockTimeoutMs: opts.lockTimeoutMs, onError: opts.onListenError }) : await openEmbedded(opts);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

function openEmbedded(opts: OpenDbOptions): Promise<Db> {
  const dataDir = opts.inMemory || opts.dataDir === 'memory' ? undefined : (opts.dataDir ?? './.data');
  const templateDir = opts.pgliteTemplateDir === undefined ? DEFAULT_TEMPLATE_DIR : opts.pgliteTemplateDir;
  const notice = opts.notice ?? (() => {});
  return openPglite(dataDir, { template: templateDir === null ? undefined : () => ensureTemplate(templateDir, notice), notice });
}
