import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { CommitTail } from './commit-tail.js';
import { PARSERS } from './normalise.js';
import { lockDataDir } from './pglite-lock.js';
import type { Db } from './types.js';

/** The contrib extensions the migrations create (017_search.sql): every PGlite open, and the template, loads them. */
export const PGLITE_EXTENSIONS = { btree_gin, pg_trgm, unaccent };
/** Every database this module opens: the app's type parsers and those extensions. */
const OPEN_OPTIONS = { parsers: PARSERS, extensions: PGLITE_EXTENSIONS as Record<string, Extension> };
type OpenOptions = typeof OPEN_OPTIONS;

/** The open options with pgvector (its bundle ships in the npm package: nothing is downloaded). */
async function withVectors(): Promise<OpenOptions> {
  const { vector } = await import('@electric-sql/pglite-pgvector');
  return { ...OPEN_OPTIONS, extensions: { ...PGLITE_EXTENSIONS, vector } };
}

/** A migrated empty database (db/pglite-template.ts), kept both ways it can be copied. */
export interface PgliteTemplate {
  /** A closed data dir: a new data dir is a copy of it. */
  dataDir: string;
  /** The same database as a tar, for an in-memory database. */
  tarFile: string;
}

export interface PgliteOptions {
  /** The template to start a new database from; asked for only when the data dir is empty or in memory. */
  template?: () => Promise<PgliteTemplate | undefined>;
  /** Told when a template fails to load (the database is then created without it) and when a stale lock is taken over. */
  notice?: (message: string) => void;
  /** Load pgvector too (hybrid knowledge search): imported only then, as the extension bundle is loaded at open. */
  vectors?: boolean;
}

/**
 * Embedded PostgreSQL (WASM). `dataDir` undefined means in memory (tests). A data dir is locked for the
 * life of the process (db/pglite-lock.ts): two PGlite instances on one directory corrupt it.
 */
export async function openPglite(dataDir?: string, opts: PgliteOptions = {}): Promise<Db> {
  let release: (() => Promise<void>) | undefined;
  const dir = dataDir === undefined ? undefined : path.resolve(dataDir);
  if (dir) {
    mkdirSync(dir, { recursive: true });
    const lock = await lockDataDir(dir, opts.notice);
    release = async () => lock.release();
  }
  try {
    const template = opts.template && (!dir || readdirSync(dir).length === 0) ? await opts.template() : undefined;
    const options = opts.vectors ? await withVectors() : OPEN_OPTIONS;
    return wrapPglite(await createFrom(dir, template, options, opts.notice), release);
  } catch (err) {
    await release?.();
    throw err;
  }
}

/** PGlite on `dir` (or in memory), a copy of `template` when given; a template that fails to load is skipped. */
async function createFrom(
  dir: string | undefined,
  template: PgliteTemplate | undefined,
  options: OpenOptions,
  notice?: (message: string) => void,
): Promise<PGlite> {
  if (template) {
    try {
      if (!dir) return await PGlite.create({ ...options, loadDataDir: new Blob([await readFile(template.tarFile)]) });
      cpSync(template.dataDir, dir, { recursive: true }); // sync: one native copy loop, 3-5x faster than fs.promises.cp here
      return await PGlite.create(dir, options);
    } catch (err) {
      notice?.(`the PGlite template did not load (${(err as Error).message}); creating the database with initdb`);
      // The directory was empty before the load: clear what the failed load wrote and create the database anew.
      if (dir) for (const name of readdirSync(dir)) await rm(path.join(dir, name), { recursive: true, force: true });
    }
  }
  return PGlite.create(dir, options);
}

/** The Db interface over one PGlite instance; `release` (the data dir's lock) is freed on close. */
export function wrapPglite(pglite: PGlite, release?: () => Promise<void>): Db {
  return {
    kind: 'pglite',
    query: async (sql, params) => (await pglite.query(sql, params as unknown[])).rows as never,
    tx: (fn) =>
      pglite.transaction(async (t) => {
        const tail = new CommitTail();
        const value = await fn({
          query: async (sql, params) => {
            if (tail.started) throw new Error('query after atCommit in the same transaction');
            return (await t.query(sql, params as unknown[])).rows as never;
          },
          atCommit: (sql, params) => tail.add(sql, params),
        }).catch((err: unknown) => {
          tail.abandon(err);
          throw err;
        });
        const failed = await tail.sendInTurn(async (sql, params) => (await t.query(sql, params as unknown[])).rows as never);
        if (failed !== undefined) throw failed;
        return value;
      }),
    // One process, one connection that never drops: resync is never needed.
    listen: async (channel, handlers) => {
      const unlisten = await pglite.listen(channel, (payload) => handlers.notify(payload));
      return () => unlisten();
    },
    async close() {
      await pglite.close();
      await release?.();
    },
  };
}
