import type { PgBoss, Db as BossDb, JobInsert, JobResult, JobWithMetadata } from 'pg-boss';
import { splitStatements } from '../../db/migrate.js';
import { isSqlError, SQLSTATE, type Db, type Queryable, type SqlError } from '../../db/types.js';
import { appendEvent, type AppendedEvent } from '../../ledger/append.js';
import type { Deps, Logger } from '../core/deps.js';
import { checkSchedule, type JobCtx, type JobData, type JobDefinition, type ScheduleOptions } from './define.js';

/**
 * The job scheduler: pg-boss 12 (its tables in schema pgboss, installed by migration 019) over our Db, so the
 * same code runs on PostgreSQL (any number of processes; SKIP LOCKED hands a job to one) and on PGlite (one
 * connection: pg-boss's statements queue behind our transactions like any other query).
 */

export const BOSS_SCHEMA = 'pgboss';

/** What a job row's data holds: the org and the causing call's seq, beside the family's own data. */
export interface StoredJobData {
  orgId: string;
  causeSeq: number;
  data: JobData;
}

/** A job a handler scheduled, inserted when its call emits (the causing seq is known only then). */
export interface PendingJob {
  name: string;
  data: JobData;
  opts: ScheduleOptions;
}

export interface WorkerOptions {
  /** How often an idle worker looks for due jobs (default 2 s; at least 0.5). */
  pollingIntervalSeconds?: number;
  /**
   * Effects this process runs at once, across every job name (default 4): each holds one pool connection for its
   * transaction, so keep it well under the pool size (the server caps it at half of PG_POOL_SIZE).
   */
  concurrency?: number;
  /** Jobs one fetch takes (default 2 x concurrency); a full batch fetches again at once, not at the next poll. */
  batchSize?: number;
  /** How often expired jobs (held by a process that died) are failed into a retry, and old ones deleted (default 60 s). */
  maintenanceIntervalSeconds?: number;
  /** How long close() waits for running jobs before failing them into a retry (default 5 s, within the server's 10 s grace). */
  stopTimeoutMs?: number;
}

export interface Jobs {
  readonly definitions: ReadonlyMap<string, JobDefinition>;
  /** Validate a job to schedule (throws naming the field): a handler's mistake surfaces in its call. */
  check(name: string, data: JobData, opts?: ScheduleOptions): PendingJob;
  /** Insert jobs in q's transaction (one statement), caused by event `causeSeq` of `orgId`. */
  enqueue(q: Queryable, orgId: string, causeSeq: number, jobs: readonly PendingJob[]): Promise<void>;
  /** After commit: this process's idle workers of these jobs look now instead of at their next poll. */
  wake(names: Iterable<string>): void;
  /** Run workers in this process (the server does; tests and CLI commands only when they ask). */
  startWorkers(opts?: WorkerOptions): Promise<void>;
  readonly working: boolean;
  /** Stop the workers (running jobs get stopTimeoutMs to finish) and wait for pg-boss's last statements. */
  close(): Promise<void>;
}

/**
 * pg-boss's db adapter over a Queryable. A text of several statements (pg-boss's locked maintenance scripts,
 * BEGIN; ...; COMMIT;) runs statement by statement, since PGlite's extended protocol refuses several in one
 * query, as one transaction of ours (or inside q's when q is one); like node-postgres for such a text, it answers
 * the rows of every statement in order (pg-boss 12 reads its advisory lock's row beside a later RETURNING).
 */
function adapter(q: Queryable, db: Db | undefined, inFlight: Set<Promise<unknown>>, log?: Logger): BossDb {
  const run = async (text: string, values?: unknown[]): Promise<{ rows: any[] }> => {
    if (values?.length) return { rows: await q.query(text, values) };
    const script = /^\s*BEGIN;/.exec(text);
    const body = script ? text.slice(script[0].length).replace(/COMMIT;\s*$/, '') : text;
    const statements = splitStatements(body).filter((st) => st.trim() !== '');
    if (statements.length === 1 && !script) return { rows: await q.query(statements[0]) };
    const all = async (t: Queryable) => {
      const rows: any[] = [];
      for (const statement of statements) rows.push(...(await t.query(statement)));
      return { rows };
    };
    return db ? db.tx(all) : all(q);
  };
  return {
    executeSql(text, values) {
      // Tracked so close() can wait: pg-boss completes a job without awaiting it.
      const p = run(text, values);
      inFlight.add(p);
      void p
        .finally(() => inFlight.delete(p))
        .catch((err: SqlError) => {
          // pg-boss swallows a failed fetch (it expects only unique violations there): say what else failed.
          if (log && !isSqlError(err, SQLSTATE.uniqueViolation)) log.warn({ err }, `job scheduler statement failed: ${text.trim().split('\n')[0]}`);
        });
      return p;
    },
  };
}

/** Opens the scheduler; pg-boss (a quarter of a second to load) is imported here, with the runtime, not with the server's code. */
export async function openJobs(db: Db, definitions: readonly JobDefinition<any>[], deps: () => Deps, log: Logger): Promise<Jobs> {
  const { PgBoss } = await import('pg-boss');
  const defs = new Map<string, JobDefinition>();
  for (const def of definitions) {
    if (defs.has(def.name)) throw new Error(`job ${def.name} is defined twice`);
    defs.set(def.name, def as JobDefinition);
  }
  const inFlight = new Set<Promise<unknown>>();
  const shared = adapter(db, db, inFlight, log);
  let boss: PgBoss | undefined;
  const workerIds = new Map<string, string>();
  const alarms = dueAlarms((name) => jobs.wake([name]));
  let stopTimeoutMs = 5000;
  const newBoss = (opts: WorkerOptions) => {
    const b = new PgBoss({
      db: shared,
      backend: db.kind, // 'pglite' or 'postgres': pg-boss runs the same SQL on both (no compatibility flags)
      schema: BOSS_SCHEMA,
      migrate: false, // migration 019 installs the schema
      createSchema: false,
      schedule: false, // no cron: families schedule one-off jobs
      supervise: true,
      // pg-boss 12 fails expired jobs in its monitor pass (supervise timer, gated by monitorIntervalSeconds) and
      // deletes old ones in its maintenance pass: our one interval drives all three.
      superviseIntervalSeconds: opts.maintenanceIntervalSeconds ?? 60,
      monitorIntervalSeconds: opts.maintenanceIntervalSeconds ?? 60,
      maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds ?? 60,
      openTelemetry: { enabled: false }, // no trace context stored on jobs; nothing here registers an SDK
    });
    b.on('error', (err) => log.warn({ err }, 'job scheduler error'));
    // pg-boss 12's own health checks (slow query, backlog, clock skew, vacuum): an operator's signal.
    b.on('warning', (w) => log.warn({ warning: w.data }, `job scheduler warning: ${w.message}`));
    return b;
  };
  // Sending needs no running pg-boss, only its queues (one per job name), created here once.
  const idle = newBoss({});
  await ensureQueues(idle, defs);

  const jobs: Jobs = {
    definitions: defs,
    check(name, data, opts = {}) {
      if (!defs.has(name)) throw new Error(`job ${name} is not defined`);
      checkSchedule(name, data, opts);
      return { name, data, opts };
    },
    async enqueue(q, orgId, causeSeq, pending) {
      if (pending.length === 0) return;
      // pg-boss 12 inserts one queue's jobs per statement: one statement per job name.
      const byName = new Map<string, PendingJob[]>();
      for (const j of pending) byName.set(j.name, [...(byName.get(j.name) ?? []), j]);
      const db = adapter(q, undefined, inFlight);
      for (const [name, jobs] of byName)
        await idle.insert(
          name,
          jobs.map((j) => insertRow(orgId, causeSeq, j)),
          { db },
        );
      // This process's workers look when each comes due rather than at their next poll (a rolled-back call's
      // alarm costs one empty fetch); other processes find them by polling.
      const now = Date.now();
      for (const j of pending) {
        const at = j.opts.startAfter?.getTime() ?? (j.opts.delaySeconds ? now + j.opts.delaySeconds * 1000 : undefined);
        if (at !== undefined) alarms.set(j.name, at);
      }
    },
    wake(names) {
      for (const name of names) {
        const id = workerIds.get(name);
        if (id) boss?.notifyWorker(id);
      }
    },
    get working() {
      return boss !== undefined;
    },
    async startWorkers(opts = {}) {
      if (boss || defs.size === 0) return;
      const concurrency = wholeAtLeastOne('concurrency', opts.concurrency ?? 4);
      const batchSize = wholeAtLeastOne('batchSize', opts.batchSize ?? 2 * concurrency);
      const b = newBoss(opts);
      stopTimeoutMs = opts.stopTimeoutMs ?? 5000;
      await b.start();
      boss = b;
      const slot = slots(concurrency);
      for (const def of defs.values()) {
        const id = await b.work(
          def.name,
          // A batch's jobs run side by side (within the process's slots), each in its own transaction that
          // completes it, fenced to its attempt; pg-boss settles each by the result: a completion it finds already
          // done (or an attempt no longer active) changes nothing, a failure goes to a retry.
          { pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2, batchSize, burstWhenBatchFull: true, includeMetadata: true, perJobResults: true },
          (batch: JobWithMetadata<StoredJobData>[]) =>
            Promise.all(
              batch.map(async (job): Promise<JobResult> => {
                try {
                  const appended = await slot(() => runJob(db, def, job, deps(), b));
                  return { id: job.id, status: 'completed', output: { appended } };
                } catch (err) {
                  // pg-boss records the failure on the job only: an operator (and a test waiting on the job) needs
                  // the line. Name, code and message only: a database error's detail can quote row values.
                  const { name, message, code } = err as SqlError;
                  const left = job.retryLimit - job.retryCount;
                  log.warn(
                    { job: def.name, jobId: job.id, attempt: job.retryCount, err: { name, code, message } },
                    `job ${def.name} attempt ${job.retryCount} failed: ${left > 0 ? `retried (${left} left)` : 'no retries left'}`,
                  );
                  return { id: job.id, status: 'failed', output: err };
                }
              }),
            ),
        );
        workerIds.set(def.name, id);
      }
    },
    async close() {
      const b = boss;
      boss = undefined;
      workerIds.clear();
      alarms.clear();
      // pg-boss 12's stop waits for running handlers (up to timeout), then fails what is left into a retry.
      await b?.stop({ close: false, graceful: true, timeout: stopTimeoutMs });
      await Promise.allSettled([...inFlight]);
    },
  };
  return jobs;
}

/** Alarms further ahead are not kept (polling finds those jobs); nor more than this many distinct instants. */
const ALARM_HORIZON_MS = 24 * 3600_000;
const MAX_ALARMS = 1000;

/**
 * Wake-ups at the instants jobs come due, per job name: one timer per name, at its earliest instant (rounded up
 * to 100 ms, so 1,000 messages for 9:00 are one alarm). Best effort: what it drops, the poll still finds.
 */
function dueAlarms(wake: (name: string) => void) {
  const instants = new Map<string, number[]>();
  const timers = new Map<string, NodeJS.Timeout>();
  const arm = (name: string) => {
    clearTimeout(timers.get(name));
    timers.delete(name);
    const list = instants.get(name);
    if (!list?.length) return;
    const timer = setTimeout(
      () => {
        timers.delete(name);
        const now = Date.now();
        instants.set(
          name,
          list.filter((at) => at > now),
        );
        wake(name);
        arm(name);
      },
      Math.max(0, list[0] - Date.now()),
    );
    timer.unref();
    timers.set(name, timer);
  };
  return {
    set(name: string, at: number) {
      const instant = Math.ceil(at / 100) * 100;
      if (instant - Date.now() > ALARM_HORIZON_MS) return;
      const list = instants.get(name) ?? [];
      if (list.includes(instant) || list.length >= MAX_ALARMS) return;
      list.push(instant);
      list.sort((a, b) => a - b);
      instants.set(name, list);
      if (list[0] === instant) arm(name);
    },
    clear() {
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      instants.clear();
    },
  };
}

function wholeAtLeastOne(field: string, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`workers.${field}: a whole number, 1 or more (got ${n})`);
  return n;
}

/** At most `n` calls of fn at once; the rest wait in order. */
function slots(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let free = n;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

function insertRow(orgId: string, causeSeq: number, j: PendingJob): JobInsert<StoredJobData> {
  return {
    data: { orgId, causeSeq, data: j.data },
    startAfter: j.opts.startAfter ?? (j.opts.delaySeconds ? j.opts.delaySeconds : undefined),
    singletonKey: j.opts.singletonKey,
    retryLimit: j.opts.retryLimit,
    retryDelay: j.opts.retryDelaySeconds,
    retryBackoff: j.opts.retryBackoff,
    expireInSeconds: j.opts.expireInSeconds,
  };
}

async function ensureQueues(boss: PgBoss, defs: ReadonlyMap<string, JobDefinition>): Promise<void> {
  if (defs.size === 0) return;
  const existing = new Map((await boss.getQueues()).map((q) => [q.name, q]));
  for (const def of defs.values()) {
    const options = {
      name: def.name,
      policy: def.policy ?? 'standard',
      retryLimit: def.retryLimit,
      retryDelay: def.retryDelaySeconds,
      retryBackoff: def.retryBackoff,
      expireInSeconds: def.expireInSeconds,
    } as const;
    const had = existing.get(def.name);
    if (!had) await boss.createQueue(def.name, options);
    // A definition changed since the queue was made: new jobs follow it (jobs already queued keep theirs).
    else if ((['policy', 'retryLimit', 'retryDelay', 'retryBackoff', 'expireInSeconds'] as const).some((k) => (had[k] ?? null) !== (options[k] ?? null))) {
      await boss.updateQueue(def.name, options);
    }
    // pg-boss caches a queue's row the first time it inserts into it, reading it on its own connection. Inside a
    // call's transaction on PGlite (one connection) that read waits for the transaction: the first job sent after
    // reopening a database whose queues exist hung forever. An empty insert now, outside any transaction, caches
    // it (createQueue caches a new one).
    else await boss.insert(def.name, []);
  }
}

/**
 * One run of a job: the family's effect in one transaction, completing the job in that same transaction, so an
 * effect that commits is never run again for that attempt. A throw fails the attempt: pg-boss retries it.
 */
async function runJob(db: Db, def: JobDefinition, job: JobWithMetadata<StoredJobData>, deps: Deps, boss: PgBoss): Promise<boolean> {
  const { orgId, causeSeq, data } = job.data;
  const family = def.name.slice(0, def.name.indexOf('.'));
  let emitted: AppendedEvent | undefined;
  const prepared: unknown = def.prepare ? await def.prepare(deps, orgId, data) : undefined;
  await db.tx(async (q) => {
    // Fenced to this attempt ({ id, retryCount }): if it expired meanwhile (and was retried), nothing completes
    // and the effect rolls back, so the retry is the one run that commits.
    const complete = async (appended: boolean) => {
      const res = (await boss.complete(def.name, { id: job.id, retryCount: job.retryCount }, { appended }, { db: adapter(q, undefined, new Set()) })) as {
        affected?: number;
      };
      if (res.affected !== 1) throw new Error(`job ${def.name} ${job.id}: attempt ${job.retryCount} is no longer active (expired?): its effect rolls back`);
    };
    const ctx: JobCtx = {
      q: {
        query: (sql: string, params?: readonly unknown[]) =>
          emitted ? Promise.reject(new Error(`job ${def.name} queried after emitting its event`)) : q.query(sql, params),
      },
      orgId,
      causeSeq,
      jobId: job.id,
      retryCount: job.retryCount,
      deps,
      async emit(kind, entityId, payload) {
        if (emitted) throw new Error(`job ${def.name} emitted a second event`);
        if (!def.events.includes(kind)) throw new Error(`job ${def.name} emitted ${kind}, which its definition's events do not declare`);
        // Completing first: the event is the last statement, as in a call (it holds the org's head lock to commit).
        await complete(true);
        emitted = await appendEvent(q, orgId, { family, kind, entityId, actor: '', payload: { ...payload, causeSeq } });
        return emitted;
      },
    };
    await def.run(ctx, data, prepared);
    // Nothing to do (the row moved on): the job completes without an event.
    if (!emitted) await complete(false);
  });
  // Committed: live streams see the effect now, not at their next poll.
  if (emitted) deps.stream.appended(orgId, emitted.seq);
  return emitted !== undefined;
}
