import type { MethodSpec } from '../../protocol/registry.js';
import type { Queryable, TxQueryable } from '../../db/types.js';
import { appendEvent, type AppendedEvent } from '../../ledger/append.js';
import type { AppendedRecord } from '../../ledger/record-chain.js';
import { stripBodies } from '../../ledger/redact.js';
import { kindProblem } from '../../protocol/events.js';
import type { PendingJob } from '../jobs/scheduler.js';
import type { Principal } from './auth.js';
import type { HoldKeeper } from './holds.js';
import type { Deps } from './deps.js';
import type { HandlerCtx, MethodHandler } from './handler.js';

/** A handler's context as the pipeline keeps it: what the call emitted, recorded and scheduled. */
export type CallContext = HandlerCtx & {
  /** The call's event, once its append is answered. */
  emitted?: AppendedEvent;
  /** Set when the call emits: its event, answered before the COMMIT (after it returns, when emit sent it with the COMMIT). */
  appending?: Promise<AppendedEvent>;
  recorded?: AppendedRecord;
  pendingJobs: PendingJob[];
};

/** What the pipeline lends every context it builds. */
export interface ContextEnv {
  deps: Deps;
  handlers: ReadonlyMap<string, MethodHandler>;
  admit(spec: MethodSpec, principal: Principal, params: unknown): { handler: MethodHandler; params: unknown };
  readAs(principal: Principal, method: string, params: unknown, requestId: string): Promise<unknown>;
  /** The family that keeps signature holds (approval). */
  holds(): HoldKeeper;
}

export interface CallSite {
  q: Queryable;
  principal: Principal;
  spec: MethodSpec;
  handler: MethodHandler;
  requestId: string;
  /** Work run once the call's transaction has committed. */
  committed: (() => void)[];
  /**
   * The call's own transaction, when emit may send the append with its COMMIT (TxQueryable.atCommit). Unset (a
   * released act inside approval.resolve, whose handler goes on after it), emit sends the append at once.
   */
  tail?: TxQueryable;
}

/**
 * The context one handler runs with: its queries refused once the event is appended (the head lock is held to
 * commit), one event or one write record, jobs inserted with the event, holds through the keeper.
 */
export function callContext(env: ContextEnv, site: CallSite): CallContext {
  const { deps } = env;
  const { q, principal, spec, handler, requestId, committed, tail } = site;
  let orgId = principal.orgId;
  /** The org the call's one event goes to; throws if this emit is not allowed. */
  const checkEmit = (kind: string): string => {
    if (spec.readOnly) throw new Error(`${spec.name} is read-only and may not emit events`);
    if (ctx.appending) throw new Error(`${spec.name} emitted a second event`);
    if (!orgId) throw new Error(`${spec.name} emitted before its org was known`);
    if (!handler.contract.events?.includes(kind)) throw new Error(`${spec.name} emitted ${kind}, which its contract's events do not declare`);
    return orgId;
  };
  /** Start the call's one append through `via` (the transaction now, or its COMMIT's write). */
  const startAppend = (via: Queryable, kind: string, entityId: string, payload: Record<string, unknown> | null): Promise<AppendedEvent> =>
    (ctx.appending = appendEvent(via, checkEmit(kind), { family: spec.family, kind, entityId, actor: principal.id, payload }));
  const appendNow = async (kind: string, entityId: string, payload: Record<string, unknown> | null): Promise<AppendedEvent> => {
    const emitted = (ctx.emitted = await startAppend(q, kind, entityId, payload));
    if (ctx.pendingJobs.length) {
      // One statement after the append (the head lock is held to commit anyway); only calls that schedule pay it.
      await deps.jobs.enqueue(q, orgId, emitted.seq, ctx.pendingJobs);
      const names = ctx.pendingJobs.map((j) => j.name);
      committed.push(() => deps.jobs.wake(names));
    }
    return emitted;
  };
  const ctx: CallContext = {
    // Jobs scheduled by the handler, inserted at emit: the causing seq is known only then.
    pendingJobs: [],
    // Once the event is appended the head lock is held until commit: no more work may queue behind it.
    q: {
      query: (sql, args) => {
        if (ctx.appending) return Promise.reject(new Error(`${spec.name} queried after emitting its event`));
        return q.query(sql, args);
      },
    },
    principal,
    get orgId() {
      return orgId;
    },
    method: spec,
    requestId,
    deps,
    async emit(kind, entityId, payload) {
      // A job's row names the call's seq, known only once the append is answered: such a call waits for it.
      if (!tail || ctx.pendingJobs.length) return void (await appendNow(kind, entityId, payload));
      // Sent with the COMMIT: no statement and no turn of this process between the append and the COMMIT.
      const atCommit: Queryable = { query: (sql, args) => tail.atCommit(sql, args) };
      startAppend(atCommit, kind, entityId, payload).then(
        (e) => (ctx.emitted = e),
        () => {},
      );
    },
    emitAndWait: (kind, entityId, payload) => appendNow(kind, entityId, payload),
    async record(kind, entityId, payload) {
      const log = handler.contract.writes ? handler.writeLog : undefined;
      if (!log) throw new Error(`${spec.name} does not write (contract writes) and may not record`);
      if (ctx.recorded) throw new Error(`${spec.name} recorded a second write`);
      const problem = kindProblem(spec.family, kind);
      if (problem) throw new Error(`${spec.name} recorded ${problem}`);
      const redacted = stripBodies(payload) as Record<string, unknown> | null;
      const record = { method: spec.name, requestId, actor: principal.id, keyId: principal.keyId, kind, entityId, payload: redacted };
      ctx.recorded = await log.append(q, orgId, record, deps.clock.now().toISOString());
      return ctx.recorded;
    },
    requireSignature(req) {
      // Without the savepoint a hold could not undo the handler's writes.
      if (!handler.mayHold) return Promise.reject(new Error(`${spec.name} asks for a signature but its contract declares no hold`));
      // What describe_method and the tool listing say of the hold is generated from the declaration: it must be true.
      const declared = handler.contract.hold?.completion;
      if ((req.completion ?? 'retry') !== declared) {
        return Promise.reject(new Error(`${spec.name} holds in ${req.completion ?? 'retry'} mode but its contract declares ${declared}`));
      }
      return env.holds().requireSignature(ctx.q, { principal, orgId, method: spec.name, signingKey: deps.signingKey }, req);
    },
    verifyProof(req) {
      if (!handler.mayHold) return Promise.reject(new Error(`${spec.name} verifies a proof but its contract declares no hold`));
      return env.holds().verifyProofIfGiven(ctx.q, { principal, orgId, method: spec.name, signingKey: deps.signingKey }, req);
    },
    afterCommit(fn) {
      committed.push(fn);
    },
    schedule(name, data, opts) {
      if (spec.readOnly) throw new Error(`${spec.name} is read-only and may not schedule jobs`);
      if (ctx.appending) throw new Error(`${spec.name} scheduled a job after emitting its event`);
      ctx.pendingJobs.push(deps.jobs.check(name, data, opts));
    },
    readAs: (name, params) => env.readAs(principal, name, params, requestId),
    // approval.resolve's release of a held act, in this transaction (core/holds.ts ReleaseEnv).
    releaseEnv: {
      get orgId() {
        return orgId;
      },
      q,
      handlers: env.handlers,
      admit: (s, p, raw) => env.admit(s, p, raw),
      context: (p, s, h) => callContext(env, { q, principal: p, spec: s, handler: h, requestId, committed }),
    },
    bindOrg(id) {
      if (!spec.preAuth) throw new Error('only pre-auth methods bind their org');
      orgId = id;
    },
  };
  return ctx;
}
