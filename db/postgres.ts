import pg from 'pg';
import { PARSERS } from './normalise.js';
import type { Db, TxQueryable } from './types.js';

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return (PARSERS[oid] as ((t: string) => unknown) | undefined) ?? pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export function openPostgres(url: string, opts: { poolSize?: number; lockTimeoutMs?: number } = {}): Db {
  // lock_timeout bounds every row-lock wait (a duplicate idempotency key in flight, a hot head row): a call
  // that would wait longer answers CONFLICT instead of hanging.
  // pipeline: a statement is sent without waiting for the answer to the one before it on the connection
  // (node-postgres pipeline mode); answers still arrive in order, one per statement. tx uses it to send BEGIN
  // with the first statement and COMMIT with the last, so neither costs a round trip of its own.
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 20, types, lock_timeout: opts.lockTimeoutMs ?? 5000, pipeline: true });
  // An idle client that loses its connection emits here; without a listener it would crash the process.
  pool.on('error', () => {});

  const run = async <T>(client: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]) =>
    (await client.query(sql, params as unknown[])).rows as T[];

  return {
    kind: 'postgres',
    query: (sql, params) => run(pool, sql, params),
    async tx(fn) {
      const client = await pool.connect();
      let last: { sql: string; params?: readonly unknown[] } | undefined;
      const q: TxQueryable = {
        query: (sql, params) => (last ? Promise.reject(new Error('query after atCommit in the same transaction')) : run(client, sql, params)),
        atCommit(sql, params) {
          if (last) throw new Error('atCommit called twice in one transaction');
          last = { sql, params };
        },
      };
      try {
        // Not awaited: BEGIN rides the same round trip as the transaction's first statement. It can only fail
        // with the connection itself, and then every statement queued behind it fails too.
        const begin = client.query('BEGIN');
        begin.catch(() => {});
        const value = await fn(q);
        await begin;
        const lastDone = last ? client.query(last.sql, last.params as unknown[]) : undefined;
        lastDone?.catch(() => {});
        const commit = client.query('COMMIT');
        commit.catch(() => {});
        // A failed last statement aborts the transaction, and the COMMIT behind it then rolls back.
        if (lastDone) await lastDone;
        const done = await commit;
        // COMMIT of an aborted transaction answers ROLLBACK (a statement failed and the error was swallowed).
        if (done.command !== 'COMMIT') throw new Error(`transaction rolled back at commit (${done.command})`);
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
