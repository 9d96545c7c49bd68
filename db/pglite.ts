import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import lockfile from 'proper-lockfile';
import { PARSERS } from './normalise.js';
import type { Db } from './types.js';

/**
 * Embedded PostgreSQL (WASM). `dataDir` undefined means in memory (tests). A data dir is locked for the
 * life of the process: two PGlite instances on one directory corrupt it.
 */
export async function openPglite(dataDir?: string): Promise<Db> {
  let release: (() => Promise<void>) | undefined;
  if (dataDir) {
    const dir = resolve(dataDir);
    mkdirSync(dir, { recursive: true });
    try {
      release = await lockfile.lock(dir, { stale: 15_000, update: 5_000, realpath: false });
    } catch (err) {
      if ((err as { code?: string }).code === 'ELOCKED') {
        throw new Error(`data dir ${dir} is in use by another process (lock ${dir}.lock); stop it or set DATA_DIR`);
      }
      throw err;
    }
  }
  try {
    const pglite = await PGlite.create(dataDir ? resolve(dataDir) : undefined, { parsers: PARSERS });
    return {
      kind: 'pglite',
      query: async (sql, params) => (await pglite.query(sql, params as unknown[])).rows as never,
      tx: (fn) =>
        pglite.transaction(async (t) => {
          let last: { sql: string; params?: readonly unknown[] } | undefined;
          const value = await fn({
            query: async (sql, params) => {
              if (last) throw new Error('query after atCommit in the same transaction');
              return (await t.query(sql, params as unknown[])).rows as never;
            },
            atCommit(sql, params) {
              if (last) throw new Error('atCommit called twice in one transaction');
              last = { sql, params };
            },
          });
          if (last) await t.query(last.sql, last.params as unknown[]);
          return value;
        }),
      async close() {
        await pglite.close();
        await release?.();
      },
    };
  } catch (err) {
    await release?.();
    throw err;
  }
}
