import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import type { Db } from './types.js';

export type { Db, Queryable } from './types.js';

export interface OpenDbOptions {
  /** PostgreSQL connection string; when absent, embedded PGlite is used. */
  databaseUrl?: string;
  /** PGlite data directory; `memory` (or undefined with inMemory) keeps everything in RAM. */
  dataDir?: string;
  inMemory?: boolean;
  poolSize?: number;
  /** PostgreSQL lock_timeout in ms (default 5000). */
  lockTimeoutMs?: number;
}

/** Open the configured database and bring its schema up to date. */
export async function openDb(opts: OpenDbOptions): Promise<Db> {
  const db = opts.databaseUrl
    ? openPostgres(opts.databaseUrl, { poolSize: opts.poolSize, lockTimeoutMs: opts.lockTimeoutMs })
    : await openPglite(opts.inMemory || opts.dataDir === 'memory' ? undefined : (opts.dataDir ?? './.data'));
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
