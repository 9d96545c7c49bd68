import type { z } from 'zod';
import type { MethodContract, ReadContract } from '../../protocol/contract.js';
import type { MethodSpec } from '../../protocol/registry.js';
import type { Queryable } from '../../db/types.js';
import type { AppendedEvent } from '../../ledger/append.js';
import type { Principal } from './auth.js';
import type { Deps } from './deps.js';
import type { ReleaseEnv, SignatureProof, SignatureRequest } from './holds.js';
import type { JobData, ScheduleOptions } from '../jobs/define.js';
import type { AppendedRecord } from '../../ledger/record-chain.js';
import type { WriteLog } from './write-log.js';

/** What a method handler sees: its transaction, its caller, and the two acts the pipeline owns. */
export interface HandlerCtx {
  /** The call's transaction. Closed for further queries once the event is emitted. */
  readonly q: Queryable;
  readonly principal: Principal;
  readonly orgId: string;
  readonly method: MethodSpec;
  readonly requestId: string;
  readonly deps: Deps;
  /**
   * Append this call's one ledger event. Call it last: nothing may be queried after it. The append is sent with the
   * COMMIT, so the org's head lock is held only inside PostgreSQL, never across this process's turn.
   */
  emit(kind: string, entityId: string, payload: Record<string, unknown> | null): Promise<void>;
  /**
   * As emit, but sent now and answered with the event (its seq and hash), for a result that quotes them
   * (`ledger #<ledgerId>`). The head lock is then held from here to the COMMIT: prefer emit.
   */
  emitAndWait(kind: string, entityId: string, payload: Record<string, unknown> | null): Promise<AppendedEvent>;
  /** An R write (contract `writes`) only: append this call's one record to its write log (body-like fields dropped). */
  record(kind: string, entityId: string, payload: Record<string, unknown> | null): Promise<AppendedRecord>;
  /** A signature act: returns the consumed proof, or ends the call with the hold frame. */
  requireSignature(req: SignatureRequest): Promise<SignatureProof>;
  /** A signature act that already ran (a no-op replay): checks a proof given anyway, without consuming it. */
  verifyProof(req: SignatureRequest): Promise<SignatureProof | null>;
  /** Pre-auth (P) methods only: the org the call turned out to concern. */
  bindOrg(orgId: string): void;
  /** Run fn once the call's transaction has committed (notifications; never for rolled-back calls). */
  afterCommit(fn: () => void): void;
  /**
   * Schedule a job (domain/jobs) to run after commit: enqueued in this call's transaction when it emits, so a
   * rolled-back or held call leaves none, and the job's effect names the call's seq. Call it before emit.
   */
  schedule(name: string, data: JobData, opts?: ScheduleOptions): void;
  /** Run another R method as this caller (scope, deployment and params checked as for a call): books.ask's reads. */
  readAs(method: string, params: unknown): Promise<unknown>;
  /** approval.resolve only: what it runs a release-mode approval's held act with, in this transaction. */
  readonly releaseEnv: ReleaseEnv;
}

/** What a handler's `limit` sees: the database outside any transaction, and where the call came from. */
export interface LimitCtx {
  readonly db: Queryable;
  readonly deps: Deps;
  /** The caller's network address as the face saw it (HTTP: the socket's); undefined for stdio and in-process. */
  readonly source: string | undefined;
  /** The caller (anonymous for pre-auth methods): per-caller limits count by its id. */
  readonly principal: Principal;
}

/**
 * What a handler's `prepare` sees: the caller and the database outside any transaction. It is where a model
 * is called (the AI gateway, ai-gateway/gateway.ts ask), so a transaction never waits on a model; PGlite
 * has one connection, so a transaction open across a model call would stall every other call.
 */
export interface PrepareCtx {
  readonly db: Queryable;
  readonly principal: Principal;
  readonly orgId: string;
  readonly method: MethodSpec;
  readonly requestId: string;
  readonly deps: Deps;
  /** Run an R method as this caller, outside the transaction (an answerer's toolbox). */
  readAs(method: string, params: unknown): Promise<unknown>;
}

/** Options of a handler beyond its contract; limit, appendsOnChange and minDurationMs are for pre-auth methods. */
export interface HandlerOptions<C extends MethodContract = MethodContract, P = undefined> {
  /** Redundant with the contract's hold, from which it follows; if given, it must agree (checked at load). */
  mayHold?: boolean;
  /**
   * Runs after params are valid and before the call's transaction, outside it, so that what it counts stays
   * counted when the call then fails; throws (RATE_LIMITED) to refuse the call.
   */
  limit?: (ctx: LimitCtx, params: z.output<C['params']>) => Promise<void>;
  /**
   * Runs after admission (and, for an I method, after a committed replay has answered) and before the call's
   * transaction opens; run receives what it returns. A throw ends the call with nothing written by the
   * pipeline. What it writes itself (an AI audit record) stays written, like limit's counts.
   */
  prepare?: (ctx: PrepareCtx, params: z.output<C['params']>) => Promise<P>;
  /** The handler appends an event only when it changes something (a poll): finishing without one is allowed. */
  appendsOnChange?: boolean;
  /** Every answer, success or error, leaves no sooner than this many ms after the call arrived (timing tells nothing). */
  minDurationMs?: (deps: Deps) => number;
  /** Where an R write (contract `writes`) records: required by such a contract, refused without one. */
  writeLog?: WriteLog;
}

export interface MethodHandler<C extends MethodContract = MethodContract, P = unknown> extends Omit<HandlerOptions<C, P>, 'mayHold'> {
  contract: C;
  /** The handler may end in a signature hold: the pipeline marks a savepoint so the hold changes nothing. */
  mayHold: boolean;
  /** `prepared` is what prepare returned (undefined without one). */
  run(ctx: HandlerCtx, params: z.output<C['params']>, prepared: P): Promise<unknown>;
}

export function handler<C extends MethodContract, P = undefined>(
  contract: C,
  run: (ctx: HandlerCtx, params: z.output<C['params']>, prepared: P) => Promise<unknown>,
  opts: HandlerOptions<C, P> = {},
): MethodHandler<C, P> {
  // A signature act is declared once, in its contract (hold): the handler's mayHold follows from it.
  const mayHold = contract.hold !== undefined;
  if (Boolean(contract.writes) !== Boolean(opts.writeLog)) {
    throw new Error(contract.writes ? 'a contract that writes needs a handler with a writeLog' : 'a writeLog is for a contract that writes (writes: true)');
  }
  if (opts.mayHold !== undefined && opts.mayHold !== mayHold) {
    throw new Error(
      `a handler marked mayHold: ${opts.mayHold} for a contract ${mayHold ? 'declaring' : 'without'} hold: declare the hold in the method's contract (hold) instead`,
    );
  }
  return { ...opts, contract, run, mayHold };
}

/** What a GET read sees: the database outside any transaction (long-polls must not hold one). */
export interface ReadCtx {
  readonly q: Queryable;
  readonly principal: Principal;
  readonly orgId: string;
  readonly deps: Deps;
  readonly signal: AbortSignal;
}

/** A read payload already serialised (the events page splices stored canonical payloads verbatim). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A read's answer that is not a JSON payload (contract `media`): bytes of a type, or a redirect (status 302, Location). */
export class ReadAnswer {
  constructor(
    readonly body: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly status: 200 | 302 = 200,
  ) {}
}

export interface ReadHandler<C extends ReadContract = ReadContract> {
  contract: C;
  run(ctx: ReadCtx, query: z.output<C['query']>): Promise<unknown>;
}

export function readHandler<C extends ReadContract>(contract: C, run: (ctx: ReadCtx, query: z.output<C['query']>) => Promise<unknown>): ReadHandler<C> {
  return { contract, run };
}
