import { CommitTail } from './commit-tail.js';
import { isSqlError, SQLSTATE, type Rows, type TxQueryable } from './types.js';

/*
 * Group commit (PostgreSQL): under load, calls share one transaction and one COMMIT. A batch is one pooled
 * connection running its calls one after another, each after a savepoint of its own (the first needs none: if it
 * fails, the whole transaction is rolled back, with nothing else in it), and commits once its queue is empty. Every
 * call's promise settles only after its batch's COMMIT answered, so nothing is answered that a crash could lose.
 *
 * Who batches: a call opens a batch of its own while fewer than `lanes` batches are open (a quiet server commits
 * each call at once, as before); beyond that it joins the open batch with the shortest queue. A batch takes calls
 * until `waitMs` after its first call finished (and at most `maxCalls`); calls still queued then go elsewhere, so a
 * finished call waits for its COMMIT at most that window plus the call running at its end. Calls of one group (an
 * org) go to the batch that already runs one of its calls, or wait for it to commit: two batches never wait on
 * each other for an org's ledger head. Any other lock a batched call waits on is bounded by the batch's
 * lock_timeout; past it the call is rolled back to its savepoint and run again in a transaction of its own, so
 * two batches never deadlock. A call waiting for a batch runs alone once that batch is stuck on one step longer
 * than the same bound.
 */

/**
 * GROUP_COMMIT_WAIT_MS's default: off. Measured on a 2-core machine short of CPU, batching did not beat a
 * transaction per call (docs/performance.md); 2 is the window to try where COMMIT waits on a slow disk or replica.
 */
export const DEFAULT_GROUP_COMMIT_WAIT_MS = 0;

/** The statements group commit sends on one pooled connection (db/postgres.ts makes it). */
export interface BatchSession {
  query(sql: string, params?: readonly unknown[]): Promise<{ rows: Rows<Record<string, unknown>>; command: string }>;
  /** Run fn with the socket corked: what fn submits synchronously leaves in one write. */
  corked<T>(fn: () => T): T;
  /** The transaction status of the last answer: I idle, T in a transaction, E in a failed one. */
  status(): string;
  release(err?: Error): void;
}

/** What group commit did since the pool opened (tests, and a look at a live server). */
export interface GroupCommitStats {
  /** Transactions that committed calls. */
  commits: number;
  /** Calls committed in them. */
  committedCalls: number;
  /** The most calls one COMMIT carried. */
  largest: number;
  /** Calls rolled back to their savepoint with others committed in the same transaction. */
  rolledBackAlongside: number;
  /** Calls run in a transaction of their own after a lock wait or a wait for a batch. */
  ranAlone: number;
}

export interface GroupCommitOptions {
  /** How long a batch takes new calls after it opens, in ms. */
  waitMs: number;
  /** Batches open at once before new calls join them instead of opening more. */
  lanes: number;
  /** Most calls in one batch: PostgreSQL keeps 64 subtransactions of a transaction in shared memory. */
  maxCalls?: number;
}

type TxFn = (q: TxQueryable) => Promise<unknown>;

interface Call {
  group: string;
  fn: TxFn;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  /** While the call waits for a batch to settle: past lockWaitMs (from its first wait) it runs alone instead. */
  timer?: NodeJS.Timeout;
  waitingSince?: number;
  /** It left to run alone: whatever queue still lists it skips it. */
  gone?: boolean;
  started?: boolean;
}

interface Batch {
  queue: Call[];
  /** Calls run and waiting for the COMMIT, in run order. */
  finished: { call: Call; value: unknown }[];
  groups: Set<string>;
  accepting: boolean;
  admitted: number;
  /** When the call running now (or the COMMIT) started. */
  stepStartedAt: number;
  /** Still waiting for a pooled connection: not stuck, as a transaction of its own would wait for one too. */
  connecting: boolean;
  /** Calls rolled back to their savepoint (not the first of the transaction). */
  rolledBack: number;
  /** Calls of this batch's groups that arrived once it stopped taking calls: dispatched again when it settles. */
  waiters: Set<Call>;
  timer?: NodeJS.Timeout;
}

const SAVEPOINT = 'wops_group_call';
/** A statement that failed for a lock it could not get in time: run the call alone instead. */
const lockWait = (err: unknown) => isSqlError(err, SQLSTATE.lockNotAvailable) || isSqlError(err, SQLSTATE.deadlockDetected);

export class GroupCommit {
  private readonly batches = new Set<Batch>();
  private readonly owners = new Map<string, Batch>();
  private readonly pending = new Set<Call>();
  readonly stats: GroupCommitStats = { commits: 0, committedCalls: 0, largest: 0, rolledBackAlongside: 0, ranAlone: 0 };
  private readonly maxCalls: number;
  /** lock_timeout inside a batch, in ms. */
  readonly lockWaitMs: number;
  /** How long a waiting call bears a batch stuck on one step before it runs alone, in ms. */
  readonly stuckMs: number;

  constructor(
    private readonly connect: () => Promise<BatchSession>,
    /** A plain transaction of its own: a call that waited on a lock in a batch runs again here. */
    private readonly alone: <T>(fn: (q: TxQueryable) => Promise<T>) => Promise<T>,
    private readonly opts: GroupCommitOptions,
  ) {
    this.maxCalls = opts.maxCalls ?? 32;
    this.lockWaitMs = Math.max(5, 2 * opts.waitMs);
    this.stuckMs = Math.max(50, 10 * opts.waitMs);
  }

  /** Run fn in a transaction, maybe shared with other calls; settles once that transaction committed. */
  run<T>(group: string, fn: (q: TxQueryable) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.dispatch({ group, fn, resolve, reject }));
  }

  /** Batches open now (tests). */
  get openBatches(): number {
    return this.batches.size;
  }

  private dispatch(call: Call): void {
    if (call.gone) return;
    const owner = this.owners.get(call.group);
    if (owner) {
      if (owner.accepting) this.join(owner, call);
      else this.park(owner.waiters, call, owner);
      return;
    }
    if (this.batches.size < this.opts.lanes) return this.open(call);
    let best: Batch | undefined;
    for (const b of this.batches) if (b.accepting && (!best || b.queue.length < best.queue.length)) best = b;
    if (best) this.join(best, call);
    else this.park(this.pending, call);
  }

  private open(call: Call): void {
    const b: Batch = {
      queue: [call],
      finished: [],
      groups: new Set([call.group]),
      accepting: true,
      admitted: 1,
      stepStartedAt: performance.now(),
      connecting: true,
      rolledBack: 0,
      waiters: new Set(),
    };
    this.batches.add(b);
    this.owners.set(call.group, b);
    void this.drive(b);
  }

  private join(b: Batch, call: Call): void {
    b.queue.push(call);
    if (++b.admitted >= this.maxCalls) b.accepting = false;
    this.watch(call, b);
  }

  private park(set: Set<Call>, call: Call, owner?: Batch): void {
    set.add(call);
    this.watch(call, owner);
  }

  /**
   * A call waiting its turn in a batch, or for one to settle (its group's, as a lock wait would; or any, when every
   * lane is taken), runs in a transaction of its own instead once that batch is stuck on one step (a call, or the
   * COMMIT) for stuckMs, or (any batch) once it has waited that long: a slow call holds up no one much longer.
   */
  private watch(call: Call, batch?: Batch): void {
    clearTimeout(call.timer);
    call.waitingSince ??= performance.now();
    const check = () => {
      if (call.gone || call.started) return;
      if (batch?.connecting) return void (call.timer = setTimeout(check, this.stuckMs));
      const left = (batch ? batch.stepStartedAt : (call.waitingSince ?? 0)) + this.stuckMs - performance.now();
      if (left > 0) call.timer = setTimeout(check, left);
      else {
        call.gone = true;
        this.fail(call, RUN_ALONE);
      }
    };
    call.timer = setTimeout(check, this.stuckMs);
  }

  /** The window closed: take no more calls, and let those still queued find another batch. */
  private expire(b: Batch): void {
    b.accepting = false;
    for (const call of b.queue.splice(0)) this.dispatch(call);
  }

  private async drive(b: Batch): Promise<void> {
    let session: BatchSession | undefined;
    let running: Call | undefined;
    // The last call's closing statements (its ledger append, its idempotency frame), when it ran alone: sent with the COMMIT.
    let deferred: { call: Call; tail: CommitTail } | undefined;
    try {
      session = await this.connect();
      b.connecting = false;
      let inTx = false;
      for (;;) {
        const call = b.queue.shift();
        if (!call) break;
        if (call.gone) continue;
        const owner = this.owners.get(call.group);
        if (owner && owner !== b) {
          // Another batch started a call of this group meanwhile: it goes there (or waits for its commit).
          this.dispatch(call);
          continue;
        }
        this.owners.set(call.group, b);
        b.groups.add(call.group);
        running = call;
        call.started = true;
        clearTimeout(call.timer);
        b.stepStartedAt = performance.now();
        const r = await this.attempt(session, call, inTx);
        if (r.outcome === 'ok') {
          inTx = true;
          if (r.tail.started) {
            if (b.finished.length === 0 && b.queue.length === 0) deferred = { call, tail: r.tail };
            else {
              // Run now, inside the call's savepoint: if one fails, only this call rolls back.
              const open = session;
              const failed = await open.corked(() => r.tail.send(rowsOf(open)));
              if (failed !== undefined) {
                await this.rollBack(session, b, b.finished.length === 0);
                inTx = b.finished.length > 0;
                running = undefined;
                this.fail(call, lockWait(failed) ? RUN_ALONE : failed);
                continue;
              }
            }
          }
          b.finished.push({ call, value: r.value });
          // The window opens when the first call is done: from then on it waits for the COMMIT.
          b.timer ??= setTimeout(() => this.expire(b), this.opts.waitMs);
        } else {
          await this.rollBack(session, b, !inTx);
          this.fail(call, r.err);
        }
        running = undefined;
      }
      // The queue is empty: this batch commits (nothing may join from here on, and nothing awaited before this).
      b.accepting = false;
      b.stepStartedAt = performance.now();
      if (b.finished.length) await this.commit(session, b, deferred);
      session.release();
      session = undefined;
      for (const { call, value } of b.finished) call.resolve(value);
    } catch (err) {
      // The connection or the COMMIT failed: nothing of this batch committed.
      b.accepting = false;
      deferred?.tail.abandon(err);
      session?.release(err as Error);
      if (running) running.reject(err);
      // No connection to be had: the calls queued here fail as a transaction of their own would.
      if (b.connecting) {
        for (const call of b.queue.splice(0)) {
          if (call.gone) continue;
          call.gone = true;
          clearTimeout(call.timer);
          call.reject(err);
        }
      }
      for (const { call } of b.finished) call.reject(err);
    } finally {
      this.settle(b);
    }
  }

  /**
   * One call's turn: BEGIN (the first in the transaction) or a savepoint rides in the same write as its first
   * statement. A call that waited for a lock too long, or left the transaction failed, reports so.
   */
  private async attempt(
    session: BatchSession,
    call: Call,
    inTx: boolean,
  ): Promise<{ outcome: 'ok'; value: unknown; tail: CommitTail } | { outcome: 'failed'; err: unknown }> {
    const state = { done: false, lockWaited: false };
    const tail = new CommitTail();
    const q: TxQueryable = {
      query: (sql, params) => {
        if (state.done) return Promise.reject(new Error('query after its transaction ended'));
        if (tail.started) return Promise.reject(new Error('query after atCommit in the same transaction'));
        return session.query(sql, params).then(
          (r) => r.rows as never,
          (err: unknown) => {
            if (lockWait(err)) state.lockWaited = true;
            throw err;
          },
        );
      },
      atCommit: (sql, params) => tail.add(sql, params),
    };
    let opening: Promise<unknown> | undefined;
    let value: unknown;
    let err: unknown;
    let ok = false;
    try {
      value = await session.corked(() => {
        opening = session.query(inTx ? `SAVEPOINT ${SAVEPOINT}` : `BEGIN; SET LOCAL lock_timeout = ${this.lockWaitMs}`);
        opening.catch(() => {});
        return call.fn(q);
      });
      ok = true;
    } catch (e) {
      err = e;
    }
    state.done = true;
    // BEGIN or SAVEPOINT fail only with the connection: the whole batch stops.
    await opening?.catch((e: unknown) => {
      tail.abandon(e);
      throw e;
    });
    let failure: unknown = err;
    // Waited on a lock another transaction holds: rolled back here, run again in a transaction of its own.
    if (state.lockWaited) failure = RUN_ALONE;
    // A statement failed and its error was swallowed: the transaction would roll back at COMMIT, as tx says.
    else if (ok && session.status() === 'E') failure = new Error('transaction rolled back at commit (ROLLBACK)');
    if (!ok || failure !== undefined) {
      tail.abandon(failure);
      return { outcome: 'failed', err: failure };
    }
    return { outcome: 'ok', value, tail };
  }

  private async rollBack(session: BatchSession, b: Batch, whole: boolean): Promise<void> {
    await session.query(whole ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    if (!whole) b.rolledBack++;
  }

  /** A call rolled back to its savepoint: it answers its error now, or runs again alone after a lock wait. */
  private fail(call: Call, err: unknown): void {
    if (err !== RUN_ALONE) return call.reject(err);
    this.stats.ranAlone++;
    this.alone(call.fn).then(call.resolve, call.reject);
  }

  private async commit(session: BatchSession, b: Batch, deferred: { call: Call; tail: CommitTail } | undefined): Promise<void> {
    const [tailDone, commit] = session.corked(() => [deferred?.tail.send(rowsOf(session)), session.query('COMMIT')] as const);
    commit.catch(() => {});
    if (deferred && tailDone) {
      // The lone call's last statements failed: the COMMIT behind them rolled back that call, and only it.
      const failed = await tailDone;
      if (failed !== undefined) {
        await commit.catch(() => {});
        b.finished.length = 0;
        this.fail(deferred.call, lockWait(failed) ? RUN_ALONE : failed);
        return;
      }
    }
    const done = await commit;
    if (done.command !== 'COMMIT') throw new Error(`transaction rolled back at commit (${done.command})`);
    this.stats.commits++;
    this.stats.committedCalls += b.finished.length;
    this.stats.largest = Math.max(this.stats.largest, b.finished.length);
    this.stats.rolledBackAlongside += b.rolledBack;
  }

  /** The batch is done: its groups are free; calls it did not run, and those waiting, are dispatched again. */
  private settle(b: Batch): void {
    clearTimeout(b.timer);
    this.batches.delete(b);
    for (const g of b.groups) if (this.owners.get(g) === b) this.owners.delete(g);
    const again = [...b.queue.splice(0), ...b.waiters, ...this.pending];
    b.waiters.clear();
    this.pending.clear();
    for (const call of again) this.dispatch(call);
  }
}

const RUN_ALONE = Symbol('run alone');

/** A session's statements as a commit tail sends them. */
const rowsOf =
  (session: BatchSession) =>
  (sql: string, params?: readonly unknown[]): Promise<Rows<Record<string, unknown>>> =>
    session.query(sql, params).then((r) => r.rows);
