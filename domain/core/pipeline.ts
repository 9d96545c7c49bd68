import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../protocol/errors.js';
import { errorFrame, okFrame, type CallFrame, type HoldResult } from '../../protocol/frames.js';
import { METHODS, READS, STATIC_READS, isWellFormedMethodName, type MethodSpec } from '../../protocol/registry.js';
import { parseParams, proofFields } from '../../protocol/schema.js';
import { tierScopeNote } from '../../protocol/scopes.js';
import type { Queryable } from '../../db/types.js';
import type { AppendedEvent } from '../../ledger/append.js';
import { claimKey, findReplay, paramsHash, releaseKey, repeatOf, storeFrame, type KeyedCall, type StoredCall } from '../../ledger/idempotency.js';
import { authenticate, authenticateCached, authenticateWithReplay, type Principal } from './auth.js';
import type { KeyCache } from './key-cache.js';
import { frameAtRest, replayBody } from './secrets.js';
import { HoldSignal, type HoldKeeper } from './holds.js';
import type { Deps } from './deps.js';
import { toErrorFrame } from './errors.js';
import { AnswerOrder } from './answer-order.js';
import { RawJson, ReadAnswer, type MethodHandler, type ReadHandler } from './handler.js';
import { callContext, type CallContext, type ContextEnv } from './call-context.js';

export interface CallRequest {
  method: string;
  params: unknown;
  /** The bearer secret, as the face received it. */
  apiKey?: string;
  /**
   * The principal this same request has just authenticated (the MCP HTTP transport from apiKey, the approval
   * inbox from its session's key id with authenticateKeyId): used as is, not authenticated again. A face that
   * outlives one request and holds the key (stdio) leaves it unset, so every call re-checks the key and a
   * revoked key stops at once.
   */
  principal?: Principal;
  idempotencyKey?: string;
  /** The caller's network address (HTTP: the socket's), for the limits of pre-auth methods. */
  source?: string;
  /** How the face names idempotencyKey in its errors (default the HTTP header, `x-idempotency-key`). */
  idempotencyKeyName?: string;
  requestId?: string;
}

export interface CallOutcome {
  /** Advisory HTTP status of the frame. */
  status: number;
  frame: CallFrame;
  /** The frame as JSON text: for a replay, the stored bytes verbatim. */
  body: string;
  replayed: boolean;
  retryAfterSeconds?: number;
  /** The ledger event this call appended, if it appended one. */
  event?: AppendedEvent;
  /** A signature act refused for want of proof (PB-B1, GOVERNANCE_NOT_READY): why, and what to file, as a hold would say. */
  refusedHold?: { hold: HoldResult; reason: string };
}

export interface ReadRequest {
  path: string;
  query: unknown;
  apiKey?: string;
  /** As CallRequest.principal. */
  principal?: Principal;
  requestId?: string;
  signal?: AbortSignal;
}

export interface ReadOutcome {
  status: number;
  /** Bare payload on success, error frame otherwise, as JSON text; or a ReadAnswer's body. */
  body: string;
  payload?: unknown;
  /** A ReadAnswer's headers (its Content-Type, a redirect's Location): the body is then not JSON. */
  headers?: Readonly<Record<string, string>>;
}

export const MAX_IDEMPOTENCY_KEY = 255;

const PROOF_FIELDS = Object.keys(proofFields);

const ANONYMOUS: Principal = {
  orgId: '',
  orgSlug: '',
  keyId: '',
  id: '',
  kind: 'agent',
  name: 'anonymous',
  tier: null,
  scopes: new Set(),
  governanceReady: false,
};

/**
 * The call pipeline every face shares:
 * name -> principal -> registry -> scope -> handler -> params -> governance -> the handler's limit, if any
 * (pre-auth methods; outside any transaction) -> a committed replay, if any -> the handler's prepare, if any
 * (model calls; outside any transaction) -> one transaction (idempotency claim, handler, ledger append,
 * idempotency store, commit).
 */
export class Pipeline {
  /** An org's answers leave in seq order (domain/core/answer-order.ts). */
  private readonly order = new AnswerOrder();
  /** What every handler context borrows from this pipeline (core/call-context.ts). */
  private readonly env: ContextEnv;

  constructor(
    readonly deps: Deps,
    readonly handlers: ReadonlyMap<string, MethodHandler>,
    readonly reads: ReadonlyMap<string, ReadHandler>,
    /** Reads' key cache (core/key-cache.ts): the runtime's, which follows access changes. */
    readonly keys: KeyCache = deps.keys,
  ) {
    this.env = {
      deps,
      handlers,
      admit: (spec, principal, params) => this.admit(spec, principal, params),
      readAs: (principal, method, params, requestId) => this.readAs(principal, method, params, requestId),
      holds: () => this.holds(),
    };
  }

  async call(req: CallRequest): Promise<CallOutcome> {
    const requestId = req.requestId ?? randomUUID();
    const started = performance.now();
    try {
      return await this.run(req, requestId);
    } catch (err) {
      const { status, frame, retryAfterSeconds } = toErrorFrame(err, this.deps.log, { requestId, method: req.method });
      return { status, frame, body: JSON.stringify(frame), replayed: false, retryAfterSeconds };
    } finally {
      // A pre-auth method's floor: its answers take the same time whatever path they took (domain/pairing).
      const wait = (this.handlers.get(req.method)?.minDurationMs?.(this.deps) ?? 0) - (performance.now() - started);
      if (wait > 0) await sleep(Math.ceil(wait));
    }
  }

  /**
   * Run an R method as an already authenticated principal (books.ask's toolbox): registry, scope, deployment,
   * params and org binding exactly as call() applies them. Throws ApiError; returns the bare result.
   */
  async readAs(principal: Principal, method: string, params: unknown, requestId: string = randomUUID()): Promise<unknown> {
    const spec = METHODS.get(method);
    if (!spec) throw new ApiError('NOT_FOUND', `method ${method} not found`);
    if (!spec.readOnly) throw new ApiError('BAD_REQUEST', `method: ${method} is not a read (R) method`);
    const { handler, params: parsed } = this.admit(spec, principal, params);
    if (handler.contract.writes) throw new ApiError('BAD_REQUEST', `method: ${method} writes (an R method with a write log); it is not run as a read`);
    const prepared = await this.prepare(handler, principal, spec, parsed, requestId);
    return handler.run(this.context(this.deps.db, principal, spec, handler, requestId, []), parsed, prepared);
  }

  /** A handler's prepare step, outside any transaction: where a model is called (HandlerOptions.prepare). */
  private async prepare(handler: MethodHandler, principal: Principal, spec: MethodSpec, params: unknown, requestId: string): Promise<unknown> {
    if (!handler.prepare) return undefined;
    const readAs = (name: string, p: unknown) => this.readAs(principal, name, p, requestId);
    return handler.prepare({ db: this.deps.db, principal, orgId: principal.orgId, method: spec, requestId, deps: this.deps, readAs }, params);
  }

  /** What every call passes once its principal is known: scope, a deployed handler, valid params, the governance gate. */
  private admit(spec: MethodSpec, principal: Principal, rawParams: unknown): { handler: MethodHandler; params: unknown } {
    if (!spec.preAuth && !principal.scopes.has(spec.scope)) {
      throw new ApiError('FORBIDDEN_SCOPE', `missing scope ${spec.scope} for ${spec.name}${tierScopeNote(principal.tier)}`);
    }
    const handler = this.handlers.get(spec.name);
    if (!handler) throw new ApiError('NOT_FOUND', `method ${spec.name} is not deployed on this server`);
    const params = parseParams(handler.contract.params, rawParams ?? {});
    if (spec.governed && !principal.governanceReady) {
      throw new ApiError(
        'GOVERNANCE_NOT_READY',
        `${spec.name} is governance-gated: decision rights are not declared for this org; an admin must call governance.set_decision_rights first`,
      );
    }
    return { handler, params };
  }

  /** Resolve what a caller may call, without calling: used by faces to list tools. */
  async principalFor(apiKey: string | undefined): Promise<Principal> {
    return authenticate(this.deps.db, apiKey);
  }

  private async run(req: CallRequest, requestId: string): Promise<CallOutcome> {
    if (typeof req.method !== 'string' || !isWellFormedMethodName(req.method)) {
      throw new ApiError('BAD_REQUEST', `method: malformed method name ${JSON.stringify(String(req.method).slice(0, 80))}; expected <family>.<method>`);
    }
    const spec = METHODS.get(req.method);
    // An I method called with a usable key: the replay lookup rides on the authentication statement.
    const replayKey =
      spec &&
      !spec.preAuth &&
      !spec.readOnly &&
      spec.idempotent &&
      typeof req.idempotencyKey === 'string' &&
      req.idempotencyKey.length > 0 &&
      req.idempotencyKey.length <= MAX_IDEMPOTENCY_KEY
        ? req.idempotencyKey
        : undefined;
    let principal: Principal;
    let prefetched: { stored: StoredCall | undefined } | undefined;
    if (spec?.preAuth) principal = ANONYMOUS;
    // Already authenticated by this request: the replay lookup below runs on its own (findReplay).
    else if (req.principal) principal = req.principal;
    else if (spec && replayKey !== undefined) {
      const authed = await authenticateWithReplay(this.deps.db, req.apiKey, { method: spec.name, key: replayKey });
      principal = authed.principal;
      prefetched = authed;
    } else if (spec?.readOnly && !this.handlers.get(spec.name)?.contract.writes) principal = await authenticateCached(this.deps.db, this.keys, req.apiKey);
    else principal = await authenticate(this.deps.db, req.apiKey);
    if (!spec) throw new ApiError('NOT_FOUND', `method ${req.method} not found`);
    const { handler, params } = this.admit(spec, principal, req.params);
    if (handler.limit) await handler.limit({ db: this.deps.db, deps: this.deps, source: req.source, principal }, params);
    // An R method that writes (contract writes) goes on as a mutation keyed by its idempotencyId.
    if (spec.readOnly && !handler.contract.writes) {
      const prepared = await this.prepare(handler, principal, spec, params, requestId);
      const ctx = this.context(this.deps.db, principal, spec, handler, requestId, []);
      return this.ok(okFrame(await handler.run(ctx, params, prepared)));
    }
    const key = spec.idempotent ? req.idempotencyKey : undefined;
    const keyName = req.idempotencyKeyName ?? 'x-idempotency-key';
    if (key !== undefined && (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY)) {
      throw new ApiError('BAD_REQUEST', `${keyName}: must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`);
    }
    // The params as validated are hashed, so key order and defaults do not make a repeat look like another act.
    // A signature act's proof is not part of it: the held call retried with its proof under the same key replays
    // the hold (spec, idempotency rule 8), as the proof's payloadHash leaves the proof out too.
    const keyed: KeyedCall | undefined = handler.contract.writes
      ? writeKey(principal, spec, params)
      : key
        ? {
            orgId: principal.orgId,
            actor: principal.id,
            method: spec.name,
            key,
            paramsHash: paramsHash(params, handler.mayHold ? PROOF_FIELDS : [], handler.contract.notOverMcp ? this.deps.signingKey : undefined),
            keyName,
          }
        : undefined;
    if (keyed) {
      // A committed first attempt answers before any transaction opens: looked up with the authentication, or on its
      // own before a prepare step (a replay calls no model). A caller this request already authenticated (MCP over
      // HTTP, the inbox) leaves it to the claim in the transaction, which finds it too: a first execution, by far
      // the commoner, saves a round trip.
      const stored =
        prefetched && key === replayKey
          ? prefetched.stored && repeatOf(prefetched.stored, keyed)
          : req.principal && !handler.prepare
            ? undefined
            : await findReplay(this.deps.db, keyed);
      if (stored !== undefined) return this.replay(replayBody(stored, req.apiKey, keyed));
    }
    // After the replay lookup (a replay calls no model), before the transaction opens.
    const prepared = await this.prepare(handler, principal, spec, params, requestId);
    return this.mutate(spec, handler, principal, params, keyed, requestId, req.apiKey, prepared);
  }

  private async mutate(
    spec: MethodSpec,
    handler: MethodHandler,
    principal: Principal,
    params: unknown,
    scope: KeyedCall | undefined,
    requestId: string,
    /** The caller's API key: a secret-bearing result is stored sealed under it (domain/core/secrets.ts). */
    bearer: string | undefined,
    /** What the handler's prepare returned, before this transaction. */
    prepared: unknown,
  ): Promise<CallOutcome> {
    const committed: (() => void)[] = [];
    // Under load the call may share its transaction and COMMIT with others (group commit, per org): its answer
    // still waits for that COMMIT. A batched attempt that waited on a lock is rolled back and run again alone, so
    // each attempt starts with no after-commit work.
    const group = principal.orgId || undefined;
    const token = {};
    let orgId = principal.orgId;
    // The attempt's event: answered before its COMMIT, after the transaction's function when emit sent it with the COMMIT.
    let appending: Promise<AppendedEvent> | undefined;
    let sentWithCommit = false;
    const outcome = await this.deps.db
      .tx(
        async (q) => {
          committed.length = 0;
          appending = undefined;
          this.order.forget(orgId, token);
          if (scope) {
            const { replay } = await claimKey(q, scope);
            if (replay !== undefined) return this.replay(replayBody(replay, bearer, scope));
          }
          const ctx = callContext(this.env, { q, principal, spec, handler, requestId, committed, tail: q });
          // A change to the org's keys or members is seen by this process's next read, before the notification comes.
          committed.push(() => this.keys.dropOrg(ctx.orgId));
          if (handler.mayHold) await q.query('SAVEPOINT before_act');
          let result: unknown;
          try {
            result = await handler.run(ctx, params, prepared);
          } catch (err) {
            if (!(err instanceof HoldSignal)) throw err;
            // The act is held: undo whatever the handler did, then the keeper records the attempt and nothing else.
            if (handler.mayHold) await q.query('ROLLBACK TO SAVEPOINT before_act');
            const held = await this.holds().hold(q, { orgId: ctx.orgId, principal, method: spec.name, signal: err, deps: this.deps });
            if ('refusal' in held) {
              if (scope) await releaseKey(q, scope);
              const frame = errorFrame('GOVERNANCE_NOT_READY', held.refusal.message);
              return {
                status: 423,
                frame,
                body: JSON.stringify(frame),
                replayed: false,
                refusedHold: { hold: held.refusal.hold, reason: held.refusal.reason },
              } satisfies CallOutcome;
            }
            ctx.emitted = held.event;
            ctx.appending = Promise.resolve(held.event);
            result = held.result;
          }
          if (handler.contract.writes) {
            if (!ctx.recorded) throw new Error(`${spec.name} finished without its write record`);
          } else if (!ctx.appending && !handler.appendsOnChange) throw new Error(`${spec.name} finished without emitting its ledger event`);
          if (!ctx.appending && ctx.pendingJobs.length) throw new Error(`${spec.name} scheduled a job but emitted no event to cause it`);
          const outcome = this.ok(okFrame(result));
          orgId = ctx.orgId;
          appending = ctx.appending;
          sentWithCommit = appending !== undefined && !ctx.emitted;
          // Noted as soon as the append is answered, which is before the COMMIT's answer.
          if (ctx.emitted) this.order.note(orgId, token, ctx.emitted.seq);
          else if (appending)
            appending.then(
              (e) => this.order.note(orgId, token, e.seq),
              () => {},
            );
          // Sent with the COMMIT: one round trip for both. A result's secrets are stored only sealed.
          if (scope) {
            const atRest = frameAtRest(handler.contract, outcome.frame, outcome.body, bearer, scope);
            storeFrame(q, scope, atRest.frame, atRest.sealedFrame);
          }
          return outcome;
        },
        { group },
      )
      .catch(async (err: unknown) => {
        this.order.forget(orgId, token);
        // An append sent with the COMMIT that failed is the cause; the statements behind it fail for it.
        throw (
          (await appending?.then(
            () => undefined,
            (appendErr: unknown) => appendErr,
          )) ?? err
        );
      });
    // Settled: a hash the app disputes throws here (ledger/append.ts).
    const event = await appending?.catch((err: unknown) => {
      this.order.forget(orgId, token);
      throw err;
    });
    if (event) {
      outcome.event = event;
      // Once committed, the org's live streams in every process hear of it (domain/stream).
      committed.push(() => this.deps.stream.appended(orgId, event.seq));
      // An append answered on another connection in the same turn of the event loop is noted by then (decision
      // 0087). PGlite has one connection, answered in order: no wait, which there would let a later call's whole
      // transaction (a replay of this very call) answer first, its statements resolving without I/O.
      if (sentWithCommit && this.deps.db.kind === 'postgres') await new Promise((resolve) => setImmediate(resolve));
      await this.order.turn(orgId, token, event.seq);
    }
    for (const fn of committed) {
      try {
        fn();
      } catch (err) {
        this.deps.log.error({ err, requestId, method: spec.name }, 'after-commit hook failed');
      }
    }
    return outcome;
  }

  private context(q: Queryable, principal: Principal, spec: MethodSpec, handler: MethodHandler, requestId: string, committed: (() => void)[]): CallContext {
    return callContext(this.env, { q, principal, spec, handler, requestId, committed });
  }

  /** The family that keeps signature holds (approval); a handler that holds without one deployed is a wiring error. */
  private holds(): HoldKeeper {
    const keeper = this.deps.families.holds;
    if (!keeper) throw new Error('a signature act ran but no deployed family keeps holds (the approval family)');
    return keeper;
  }

  private ok(frame: CallFrame, event?: AppendedEvent): CallOutcome {
    return { status: 200, frame, body: JSON.stringify(frame), replayed: false, event };
  }

  private replay(stored: string): CallOutcome {
    // The stored bytes are the answer; the frame is parsed only for a face that asks for it (MCP).
    let frame: CallFrame | undefined;
    return {
      status: 200,
      get frame() {
        return (frame ??= JSON.parse(stored) as CallFrame);
      },
      body: stored,
      replayed: true,
    };
  }

  /** GET reads: principal -> registry -> scope -> query -> handler. Success is the bare payload. */
  async read(req: ReadRequest): Promise<ReadOutcome> {
    const requestId = req.requestId ?? randomUUID();
    try {
      const principal = req.principal ?? (await authenticateCached(this.deps.db, this.keys, req.apiKey));
      const spec = READS.get(req.path) ?? STATIC_READS.get(req.path);
      if (!spec) throw new ApiError('NOT_FOUND', `read /${req.path} not found`);
      if (!principal.scopes.has(spec.scope))
        throw new ApiError('FORBIDDEN_SCOPE', `missing scope ${spec.scope} for /${spec.path}${tierScopeNote(principal.tier)}`);
      const handler = this.reads.get(spec.path);
      if (!handler) throw new ApiError('NOT_FOUND', `read /${spec.path} is not deployed on this server`);
      const query = parseParams(handler.contract.query, req.query ?? {}, 'query');
      const ctx = { q: this.deps.db, principal, orgId: principal.orgId, deps: this.deps, signal: req.signal ?? new AbortController().signal };
      const payload = await handler.run(ctx, query);
      if (payload instanceof RawJson) return { status: 200, body: payload.text };
      if (payload instanceof ReadAnswer) return { status: payload.status, body: payload.body, headers: payload.headers };
      return { status: 200, body: JSON.stringify(payload), payload };
    } catch (err) {
      const { status, frame } = toErrorFrame(err, this.deps.log, { requestId, method: `GET /${req.path}` });
      return { status, body: JSON.stringify(frame) };
    }
  }
}

/** An R write's replay key: its own idempotencyId param, the same params answering the stored result, others CONFLICT. */
function writeKey(principal: Principal, spec: MethodSpec, params: unknown): KeyedCall {
  const key = (params as { idempotencyId?: unknown }).idempotencyId;
  if (typeof key !== 'string' || key.length === 0) throw new Error(`${spec.name} writes but its params carry no idempotencyId`);
  return {
    orgId: principal.orgId,
    actor: principal.id,
    method: spec.name,
    key,
    paramsHash: paramsHash(params),
    keyName: 'idempotencyId',
    mismatch: 'CONFLICT',
  };
}
