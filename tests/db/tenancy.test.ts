import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../db/index.js';
import type { Db } from '../../db/types.js';

/*
 * Every tenant table keys by org_id first (its primary key and every unique index), so the step past one
 * PostgreSQL is distributing by org_id (Citus), not a home-made shard router. The few global tables and the
 * global lookups are named here: adding one is a decision, made in this list.
 */
const GLOBAL_TABLES = new Set([
  'orgs', // the tenants themselves (org_id is its key; slug is the one lookup by name)
  'schema_migrations',
  'instance_secrets',
  'pairing_limits', // anonymous callers' counters: HMACs of addresses and slugs, not of any org
  'books_payg_schedules', // the ATO's PAYG schedules: the law for every employer, loaded once for all orgs
]);
/*
 * Whole schemas left out: pgboss (migration 019) holds the job scheduler's own tables (pg-boss's queues, job
 * partitions, archive), infrastructure shared by every org like schema_migrations; a job names its org in its data.
 */
const GLOBAL_SCHEMAS = new Set(['pgboss']);
/** Unique indexes that are global lookups: a credential names no org until it is looked up. */
const GLOBAL_LOOKUPS = new Set(['orgs_slug_key', 'api_keys_key_hash_key', 'inbox_sessions_id_hash_key']);

let db: Db;
beforeAll(async () => {
  db = await openDb({ inMemory: true });
});
afterAll(() => db?.close());

describe('tenancy: org_id first', () => {
  it('every primary key and unique index of a tenant table starts with org_id', async () => {
    const rows = await db.query<{ table_name: string; index_name: string; first_column: string; is_primary: boolean }>(
      `SELECT t.relname AS table_name, i.relname AS index_name, a.attname AS first_column, x.indisprimary AS is_primary
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname <> ALL($1::text[])
          AND (x.indisunique OR x.indisprimary)`,
      [[...GLOBAL_SCHEMAS]],
    );
    expect(rows.length).toBeGreaterThan(20);
    const tenantTables = new Set(rows.filter((r) => !GLOBAL_TABLES.has(r.table_name)).map((r) => r.table_name));
    const offenders = rows
      .filter((r) => !GLOBAL_TABLES.has(r.table_name) && !GLOBAL_LOOKUPS.has(r.index_name) && r.first_column !== 'org_id')
      .map((r) => `${r.table_name}.${r.index_name} starts with ${r.first_column}`);
    expect(offenders).toEqual([]);
    // Every tenant table has a primary key (Citus distributes by it).
    const withPk = new Set(rows.filter((r) => r.is_primary).map((r) => r.table_name));
    expect([...tenantTables].filter((t) => !withPk.has(t))).toEqual([]);
  });
});
