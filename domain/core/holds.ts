import type { HoldResult } from '../../protocol/frames.js';
import type { MethodSpec } from '../../protocol/registry.js';
import type { Queryable } from '../../db/types.js';
import type { AppendedEvent } from '../../ledger/append.js';
import type { Principal } from './auth.js';
import type { Deps } from './deps.js';
import type { HandlerCtx, MethodHandler } from './handler.js';

/*
 * Signature holds as the pipeline sees them. A handler asks for proof (HandlerCtx.requireSignature); without one the
 * family that keeps holds (approval: its descriptor's `holds`) throws HoldSignal, the pipeline rolls the act back to
 * its savepoint and asks the keeper to record the hold and answer. What a hold means, how it is filed, decided and
 * released is the keeper's; the pipeline only owns the transaction.
 */

/** A signature act asks for proof with this. */
export interface SignatureRequest {
  /** `<family>.<snake_case_act>`, e.g. `books.payroll_sign`, `board.delete_workstream`. */
  actionClass: string;
  /** The row to be signed. */
  subjectId: string;
  /** Short human-readable description: what would happen, to what, for how much. */
  summary: string;
  /** The act's params as parsed; approvalId and signatureToken are left out of the hash. */
  params: Record<string, unknown>;
  /**
   * Without proof, refuse with GOVERNANCE_NOT_READY (this text first) instead of answering a hold frame.
   * The act is still recorded as held (no ledger event), so approval.request can be filed for it (PB-B1).
   */
  refuseWithoutProof?: string;
  /**
   * How the hold completes (default retry). retry: the caller files approval.request and retries with the proof.
   * release: the server files the approval as it holds, and a human's approve runs the act in the decision's own
   * transaction (domain/approval/release.ts); the caller only waits.
   */
  completion?: 'retry' | 'release';
  /**
   * Principal ids of the only humans who may decide it (decision rights, a reviewer); default any approver. The
   * proof is checked against them again when used: an approval decided by someone no longer among them is refused.
   */
  deciders?: string[];
  /** release only: the params a human may change before releasing (each checked by the method's schema). */
  amendable?: string[];
}

export interface SignatureProof {
  approvalId: string;
  payloadHash: string;
}

/** Thrown by requireSignature when no proof was given: the pipeline turns it into the hold frame (or the refusal). */
export class HoldSignal extends Error {
  constructor(
    readonly request: SignatureRequest,
    readonly payloadHash: string,
  ) {
    super(`signature required for ${request.actionClass}`);
  }
}

/** The caller and act a proof is checked for. */
export interface SignatureCall {
  principal: Principal;
  orgId: string;
  method: string;
  signingKey: string;
}

/** A held act's answer: its hold event appended, and the hold frame's result. */
export interface Held {
  event: AppendedEvent;
  result: HoldResult;
}

/** A signature act refused for want of proof (GOVERNANCE_NOT_READY): nothing appended, nothing cached. */
export interface Refused {
  refusal: { message: string; hold: HoldResult; reason: string };
}

export interface HoldKeeper {
  /** Returns the consumed proof, or throws HoldSignal when none was given. */
  requireSignature(q: Queryable, call: SignatureCall, req: SignatureRequest): Promise<SignatureProof>;
  /** A proof given to an act that already ran, checked without consuming it; null when none was given. */
  verifyProofIfGiven(q: Queryable, call: SignatureCall, req: SignatureRequest): Promise<SignatureProof | null>;
  /** The held act, already rolled back to its savepoint: record it and answer the hold, or refuse it. */
  hold(q: Queryable, held: { orgId: string; principal: Principal; method: string; signal: HoldSignal; deps: Deps }): Promise<Held | Refused>;
}

/** What the pipeline lends approval.resolve to run a held act in its transaction: handlers and the checks every call passes. */
export interface ReleaseEnv {
  orgId: string;
  q: Queryable;
  handlers: ReadonlyMap<string, MethodHandler>;
  admit(spec: MethodSpec, principal: Principal, params: unknown): { handler: MethodHandler; params: unknown };
  context(principal: Principal, spec: MethodSpec, handler: MethodHandler): HandlerCtx & { emitted?: AppendedEvent };
}
