import pg from 'pg';
import { CommitTail } from './commit-tail.js';
import { PARSERS } from './normalise.js';
import { DEFAULT_GROUP_COMMIT_WAIT_MS, GroupCommit, type BatchSession } from './group-commit.js';
import { PgListener, type PgListenerOptions } from './pg-listen.js';
import type { Db, Rows, TxQueryable } from './types.js';

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return (PARSERS[oid] as ((t: string) => unknown) | undefined) ?? pg.types.getTypeParser(oid, format);
  },
};

/**
 * Statements run often are prepared: named, so each connection parses one once and, after a few runs,
 * PostgreSQL reuses a generic plan for it instead of parsing and planning every call (about half the
 * database CPU of a ledgered mutation, measured with npm run bench). A parameterised statement is named on
 * its second run; at most MAX_PREPARED texts are named per pool, so one-off and dynamically built statements
 * never fill the connections' statement caches.
 */
const MAX_PREPARED = 200;
const MAX_COUNTED = 5000;

function preparedStatements(): (sql: string, params?: readonly unknown[]) => pg.QueryConfig {
  const names = new Map<string, string>();
  const seen = new Set<string>();
  return (text, params) => {
    const values = params as unknown[] | undefined;
    if (!values?.length) return { text, values };
    let name = names.get(text);
    if (name === undefined && names.size < MAX_PREPARED) {
      if (seen.has(text)) {
        seen.delete(text);
        names.set(text, (name = `wops_${names.size}`));
      } else {
        if (seen.size >= MAX_COUNTED) seen.clear();
        seen.add(text);
      }
    }
    return { name, text, values };
  };
}

/**
 * Run fn with the connection's socket corked: the statements it submits synchronously (pipelined) leave in
 * one write instead of one write each.
 */
function inOneWrite<T>(client: pg.PoolClient, fn: () => T): T {
  const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection?.stream;
  stream?.cork?.();
  try {
    return fn();
  } finally {
    stream?.uncork?.();
  }
}

export interface PostgresOptions extends PgListenerOptions {
  poolSize?: number;
  lockTimeoutMs?: number;
  /** Group commit's window in ms (default DEFAULT_GROUP_COMMIT_WAIT_MS); 0 gives every tx a transaction of its own. */
  groupCommitWaitMs?: number;
}

export function openPostgres(url: string, opts: PostgresOptions = {}): Db {
  // lock_timeout bounds every row-lock wait (a duplicate idempotency key in flight, a hot head row): a call
  // that would wait longer answers CONFLICT instead of hanging.
  // pipeline: a statement is sent without waiting for the answer to the one before it on the connection
  // (node-postgres pipeline mode); answers still arrive in order, one per statement. tx uses it to send BEGIN
  // with the first statement and COMMIT with the last, so neither costs a round trip of its own.
  const poolSize = opts.poolSize ?? 20;
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types, lock_timeout: opts.lockTimeoutMs ?? 5000, pipeline: true });
  // An idle client that loses its connection emits here; without a listener it would crash the process.
  pool.on('error', () => {});

  const statement = preparedStatements();
  // LISTEN needs a connection of its own; opened by the first listen() (most CLI commands never listen).
  let listener: PgListener | undefined;
  const run = async <T>(client: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]) =>
    (await client.query(statement(sql, params))).rows as Rows<T>;

  /** One pooled connection as group commit drives it. */
  const session = async (): Promise<BatchSession> => {
    const client = await pool.connect();
    return {
      query: async (sql, params) => {
        const r = await client.query(statement(sql, params));
        return { rows: r.rows as Rows<Record<string, unknown>>, command: r.command };
      },
      corked: (fn) => inOneWrite(client, fn),
      status: () => client.getTransactionStatus() ?? '',
      release: (err) => client.release(err),
    };
  };

  async function tx<T>(fn: (q: TxQueryable) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    const tail = new CommitTail();
    const q: TxQueryable = {
      query: (sql, params) => (tail.started ? Promise.reject(new Error('query after atCommit in the same transaction')) : run(client, sql, params)),
      atCommit: (sql, params) => tail.add(sql, params),
    };
    try {
      // Not awaited: BEGIN rides the same round trip (and the same write) as the transaction's first
      // statement, which fn sends before its first await. BEGIN can only fail with the connection itself,
      // and then every statement queued behind it fails too.
      let begin: Promise<unknown> | undefined;
      const value = await inOneWrite(client, () => {
        begin = client.query('BEGIN');
        begin.catch(() => {});
        return fn(q);
      });
      await begin;
      const [tailDone, commit] = inOneWrite(client, () => [tail.send((sql, params) => run(client, sql, params)), client.query('COMMIT')] as const);
      commit.catch(() => {});
      // A failed last statement aborts the transaction, and the COMMIT behind it then rolls back.
      const failed = await tailDone;
      if (failed !== undefined) throw failed;
      const done = await commit;
      // COMMIT of an aborted transaction answers ROLLBACK (a statement failed and the error was swallowed).
      if (done.command !== 'COMMIT') throw new Error(`transaction rolled back at commit (${done.command})`);
      client.release();
      return value;
    } catch (err) {
      tail.abandon(err);
      await client.query('ROLLBACK').then(
        () => client.release(),
        (rollbackErr: Error) => client.release(rollbackErr),
      );
      throw err;
    }
  }

  // Half the pool at most in batches: the rest serves authentication, reads and transactions of their own.
  const waitMs = opts.groupCommitWaitMs ?? DEFAULT_GROUP_COMMIT_WAIT_MS;
  const groups = waitMs > 0 ? new GroupCommit(session, tx, { waitMs, lanes: Math.max(1, Math.floor(poolSize / 2)) }) : undefined;

  return {
    kind: 'postgres',
    query: (sql, params) => run(pool, sql, params),
    tx: (fn, txOpts) => (groups && txOpts?.group ? groups.run(txOpts.group, fn) : tx(fn)),
    groupCommit: groups?.stats,
    listen: (channel, handlers) => (listener ??= new PgListener(url, opts)).listen(channel, handlers),
    async close() {
      await listener?.close();
      await pool.end();
    },
  };
}
