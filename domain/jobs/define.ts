import type { Queryable } from '../../db/types.js';
import type { AppendedEvent } from '../../ledger/append.js';
import type { Deps } from '../core/deps.js';

/**
 * Scheduled work (domain/jobs): a family defines a job by name; a handler schedules it in its call's transaction
 * (HandlerCtx.schedule), so a rolled-back call leaves no job; a worker runs it after commit, at least once.
 */

/** Job data: ids and short codes only. It sits in pg-boss's tables, which the ledger's erasure cannot reach. */
export type JobData = Readonly<Record<string, string | number | boolean | null>>;

/** What a job's effect sees: its own transaction, the org, the call that caused it, and one event to append. */
export interface JobCtx {
  /** The effect's transaction: lock the row it acts on first, and do nothing if the row moved on. */
  readonly q: Queryable;
  readonly orgId: string;
  /** Ledger seq of the call that scheduled the job: every event the effect appends names it. */
  readonly causeSeq: number;
  readonly jobId: string;
  /** 0 on the first run, then 1, 2, ... on retries (after a failure or an expiry). */
  readonly retryCount: number;
  readonly deps: Deps;
  /**
   * Append the effect's one ledger event (actor "", payload with causeSeq), in its family (the job name's
   * prefix). Call it last; an effect that changes nothing appends nothing.
   */
  emit(kind: string, entityId: string, payload: Record<string, unknown> | null): Promise<AppendedEvent>;
}

export interface JobDefinition<D extends JobData = JobData, P = any> {
  /** `<family>.<what>`, e.g. `email.release`: the family owns the job and its events. */
  name: string;
  /**
   * pg-boss queue policy: `standard` (default); `short` keeps at most one waiting job per singletonKey (a
   * later one scheduled meanwhile is dropped); `singleton` runs at most one per key at a time; `stately` both.
   */
  policy?: 'standard' | 'short' | 'singleton' | 'stately';
  /** Defaults of every job of this name; ScheduleOptions override them per job. */
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  /** A run taking longer is failed (and retried): also how long a job held by a dead process waits. */
  expireInSeconds?: number;
  /** The ledger event kinds its effect may append (protocol/events.ts): emitting another is refused. */
  events: readonly string[];
  /**
   * Runs before the effect's transaction, outside it: where a model is called (an embedding), so no transaction
   * waits on the network (PGlite has one connection). run receives what it returns; a throw fails the attempt.
   */
  prepare?: (deps: Deps, orgId: string, data: D) => Promise<P>;
  run(ctx: JobCtx, data: D, prepared: P): Promise<void>;
}

export interface ScheduleOptions {
  /** Run no sooner than this moment... */
  startAfter?: Date;
  /** ...or this many seconds after commit. */
  delaySeconds?: number;
  /** With policy short/singleton/stately: the key at most one job holds. */
  singletonKey?: string;
  /** Retries after the first failure (default: the job's, else 2). */
  retryLimit?: number;
  /** Seconds before a retry; with retryBackoff it doubles each time (pg-boss's exponential backoff). */
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  expireInSeconds?: number;
}

export function defineJob<D extends JobData, P = void>(def: JobDefinition<D, P>): JobDefinition<D, P> {
  if (!JOB_NAME.test(def.name)) throw new Error(`job name: ${JSON.stringify(def.name)} is not <family>.<what>`);
  return def;
}

export const JOB_NAME = /^[a-z][a-z0-9]*\.[a-zA-Z][a-zA-Z0-9_.-]{0,99}$/;
/** Ids and short codes only: a longer string is refused as free text. */
const MAX_VALUE_CHARS = 200;
const MAX_KEYS = 32;

/** Throws, naming the field, on job data or options that may not be stored. */
export function checkSchedule(name: string, data: JobData, opts: ScheduleOptions): void {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error(`${name}: data must be an object of ids and short codes`);
  const keys = Object.keys(data);
  if (keys.length > MAX_KEYS) throw new Error(`${name}: data has ${keys.length} fields, more than ${MAX_KEYS}`);
  for (const key of keys) {
    const value = data[key];
    const ok =
      value === null ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value)) ||
      (typeof value === 'string' && value.length <= MAX_VALUE_CHARS);
    if (!ok) throw new Error(`data.${key}: job data carries ids and short codes only (strings up to ${MAX_VALUE_CHARS} characters, finite numbers, booleans)`);
  }
  if (opts.startAfter !== undefined && opts.delaySeconds !== undefined) throw new Error(`${name}: startAfter and delaySeconds are exclusive`);
  if (opts.startAfter !== undefined && Number.isNaN(opts.startAfter.getTime())) throw new Error(`${name}: startAfter is not a valid date`);
  for (const field of ['delaySeconds', 'retryLimit', 'retryDelaySeconds', 'expireInSeconds'] as const) {
    const v = opts[field];
    if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw new Error(`${field}: a whole number of seconds (or retries), 0 or more`);
  }
  if (opts.expireInSeconds === 0) throw new Error('expireInSeconds: at least 1');
  if (opts.singletonKey !== undefined && (typeof opts.singletonKey !== 'string' || opts.singletonKey.length > MAX_VALUE_CHARS)) {
    throw new Error(`singletonKey: an id or short code of up to ${MAX_VALUE_CHARS} characters`);
  }
}
