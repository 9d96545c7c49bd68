import type { GroupCommitStats } from './group-commit.js';

/** One small interface over both drivers: every caller speaks plain parameterised SQL. */
/**
 * A query's rows, typed so that a row read by index or destructuring may be missing: `const [row] = rows` is
 * `T | undefined` until checked. Array methods (map, filter, length) work as on `T[]`.
 */
export type Rows<T> = [] | [T, ...T[]];

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Rows<T>>;
}

/**
 * The row a statement always returns (INSERT … RETURNING, an aggregate, a row this transaction holds locked): its
 * absence is a bug, thrown as one. A row that may be missing is read as `const [row] = rows` and checked.
 */
export function one<T>(rows: Rows<T>, what = 'the statement'): T {
  const [row] = rows;
  if (row === undefined) throw new Error(`expected a row from ${what}, got none`);
  return row;
}

/** A transaction's connection. */
export interface TxQueryable extends Queryable {
  /**
   * Send `sql` at the end of the transaction, after every statement before it, in the same write as the COMMIT on
   * PostgreSQL (no round trip of its own, and no turn of this process between it and the COMMIT). Resolves to its
   * rows once answered; if it fails, the transaction rolls back and tx rejects with its error, awaited or not.
   * Several run in the order queued; nothing may be queried after the first. It is sent only once the
   * transaction's function has returned: awaiting it inside that function never settles.
   */
  atCommit<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Rows<T>>;
}

/** What Db.listen delivers: a channel's NOTIFY payloads, and a call after a lost connection came back. */
export interface ListenHandlers {
  notify(payload: string): void;
  /** Notifications may have been missed while the connection was down: re-read what matters. */
  resync(): void;
}

export interface TxOptions {
  /**
   * Group commit (PostgreSQL, db/group-commit.ts): under load, fn may share a transaction and its COMMIT with calls
   * of other groups (orgs), in a savepoint of its own, and those of its own group. fn may then run again after a
   * rolled-back attempt that waited on a lock, so it must start from scratch each time. Unset: a transaction of
   * its own.
   */
  group?: string;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Run fn in one transaction: commit when it resolves, roll back when it throws; settles after the COMMIT. */
  tx<T>(fn: (q: TxQueryable) => Promise<T>, opts?: TxOptions): Promise<T>;
  /**
   * LISTEN on `channel` (a lowercase identifier): NOTIFYs (pg_notify) of committed transactions, from any process
   * on the database, reach `handlers.notify`. Resolves once listening; the function it resolves to stops.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** What group commit did, where it runs (PostgreSQL with GROUP_COMMIT_WAIT_MS above 0). */
  readonly groupCommit?: GroupCommitStats;
}

/** PostgreSQL error fields we branch on (both drivers expose SQLSTATE as `code`). */
export interface SqlError extends Error {
  code?: string;
  constraint?: string;
}

export const isSqlError = (e: unknown, code: string): e is SqlError => typeof e === 'object' && e !== null && (e as SqlError).code === code;

export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  notNullViolation: '23502',
  lockNotAvailable: '55P03',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
} as const;
