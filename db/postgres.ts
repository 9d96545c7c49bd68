import pg from 'pg';
import { PARSERS } from './normalise.js';
import type { Db, Queryable } from './types.js';

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return (PARSERS[oid] as ((t: string) => unknown) | undefined) ?? pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export function openPostgres(url: string, opts: { poolSize?: number; lockTimeoutMs?: number } = {}): Db {
  // lock_timeout bounds every row-lock wait (a duplicate idempotency key in flight, a hot head row): a call
  // that would wait longer answers CONFLICT instead of hanging.
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 20, types, lock_timeout: opts.lockTimeoutMs ?? 5000 });
  // An idle client that loses its connection emits here; without a listener it would crash the process.
  pool.on('error', () => {});

  const run = async <T>(client: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]) =>
    (await client.query(sql, params as unknown[])).rows as T[];

  return {
    kind: 'postgres',
    query: (sql, params) => run(pool, sql, params),
    async tx(fn) {
      const client = await pool.connect();
      const q: Queryable = { query: (sql, params) => run(client, sql, params) };
      try {
        await client.query('BEGIN');
        const value = await fn(q);
        await client.query('COMMIT');
        client.release();
        return value;
      } catch (err) {
        await client.query('ROLLBACK').then(
          () => client.release(),
          (rollbackErr: Error) => client.release(rollbackErr),
        );
        throw err;
      }
    },
    close: () => pool.end(),
  };
}
