import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../db/index.js';
import type { Db } from '../../db/types.js';
import { bootstrapIfEmpty } from '../../domain/system.js';
import { DATABASE_URL, onPostgres } from '../helpers/harness.js';
import { freshDatabase } from '../multiprocess/harness.js';

/*
 * First start of several processes at once on one empty database (tests/multiprocess runs the real thing): each
 * migrates and bootstraps concurrently; exactly one creates org default and its admin key, the others find it.
 * On PostgreSQL three pools on a fresh database stand for three processes; on PGlite the calls interleave on
 * one instance.
 */

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function emptyDatabases(n: number): Promise<Db[]> {
  if (!onPostgres) {
    const db = await openDb({ inMemory: true });
    cleanup.push(() => db.close());
    return Array.from({ length: n }, () => db);
  }
  const fresh = await freshDatabase(DATABASE_URL!, 'wops_boot');
  cleanup.push(() => fresh.drop());
  // Opened at once: the migrations race too (an advisory lock makes them take turns).
  const dbs = await Promise.all(Array.from({ length: n }, () => openDb({ databaseUrl: fresh.url, poolSize: 2 })));
  for (const db of dbs) cleanup.push(() => db.close());
  return dbs;
}

describe('bootstrap on an empty database', () => {
  it('three at once: exactly one creates org default and its key, the others find it', async () => {
    const dbs = await emptyDatabases(3);
    const outcomes = await Promise.allSettled(dbs.map((db) => bootstrapIfEmpty(db)));
    const failed = outcomes.filter((o) => o.status === 'rejected').map((o) => String(o.reason));
    expect(failed).toEqual([]);
    const created = outcomes.map((o) => (o as PromiseFulfilledResult<Awaited<ReturnType<typeof bootstrapIfEmpty>>>).value).filter(Boolean);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ slug: 'default', generatedKey: true });
    const [counts] = await dbs[0].query<{ orgs: number; keys: number; events: number }>(
      'SELECT (SELECT count(*)::int FROM orgs) AS orgs, (SELECT count(*)::int FROM api_keys) AS keys, (SELECT count(*)::int FROM events) AS events',
    );
    expect(counts).toEqual({ orgs: 1, keys: 1, events: 1 });
    expect(await bootstrapIfEmpty(dbs[1])).toBeUndefined();
  });
});
