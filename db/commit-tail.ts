import type { Rows } from './types.js';

type Run = (sql: string, params?: readonly unknown[]) => Promise<Rows<Record<string, unknown>>>;

interface Queued {
  sql: string;
  params?: readonly unknown[];
  resolve(rows: Rows<Record<string, unknown>>): void;
  reject(err: unknown): void;
}

/**
 * A transaction's last statements (TxQueryable.atCommit): held until the transaction's function returns, then sent
 * in order, on PostgreSQL in the same write as the COMMIT. Each caller's promise settles with its statement's answer;
 * the first failure is the transaction's, whether or not anyone awaits it.
 */
export class CommitTail {
  private readonly queued: Queued[] = [];
  private closed = false;

  /** Statements are queued: nothing may be queried after them. */
  get started(): boolean {
    return this.queued.length > 0;
  }

  add<T>(sql: string, params?: readonly unknown[]): Promise<Rows<T>> {
    if (this.closed) return Promise.reject(new Error('atCommit after the transaction began committing'));
    const answer = new Promise<Rows<Record<string, unknown>>>((resolve, reject) => this.queued.push({ sql, params, resolve, reject }));
    // A caller that only queues (an idempotency frame) leaves its promise unawaited: the transaction reports the failure.
    answer.catch(() => {});
    return answer as Promise<Rows<T>>;
  }

  /**
   * Submit every queued statement through `run`, synchronously (so a corked socket sends them in one write); resolves
   * once all are answered, to the first failure in statement order, or undefined.
   */
  send(run: Run): Promise<unknown> {
    this.closed = true;
    const answers = this.queued.map((s) => {
      const answer = run(s.sql, s.params);
      answer.then(s.resolve, s.reject);
      return answer.then(
        () => undefined,
        (err: unknown) => err ?? new Error('statement failed'),
      );
    });
    return Promise.all(answers).then((failures) => failures.find((f) => f !== undefined));
  }

  /** The transaction ended without sending them (its function threw, the connection failed): each fails with `err`. */
  abandon(err: unknown): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.queued) s.reject(err);
  }

  /** As send, each statement sent once the one before it is answered (PGlite: one statement at a time). */
  sendInTurn(run: Run): Promise<unknown> {
    let previous: Promise<unknown> = Promise.resolve();
    return this.send((sql, params) => {
      const answer = previous.then(() => run(sql, params));
      previous = answer.catch(() => {});
      return answer;
    });
  }
}
