import { ApiError, badRequest } from '../../protocol/errors.js';
import { canonicalJson } from '../../protocol/hashing.js';
import { METHODS, type MethodSpec } from '../../protocol/registry.js';
import { one, type Queryable } from '../../db/types.js';
import type { AppendedEvent } from '../../ledger/append.js';
import { authenticateKeyId, type Principal } from '../core/auth.js';
import type { MethodHandler } from '../core/handler.js';
import type { ReleaseEnv } from '../core/holds.js';
import { newId } from '../core/ids.js';
import { signatureKind, signaturePayloadHash, type HoldSignal, type SignatureProof, type SignatureRequest } from './signature.js';

/*
 * Release mode: the server files the approval as it holds the act, and a human's approve runs the held act in the
 * decision's own transaction, as the principal of the key that was held, with the approval as its proof and the
 * params the human amended. What ran is recorded on the approval (final params, their hash, the amended fields).
 * If the act cannot run (the state moved on, an amendment the act refuses, the requester's key revoked), the
 * decision is refused with CONFLICT and nothing is recorded: an approved release approval always means the act ran,
 * and the human can amend or reject instead.
 */

/** File the approval for a release hold, in the hold's transaction, bound as approval.request binds it. */
export async function fileReleaseApproval(
  q: Queryable,
  p: { orgId: string; principal: Principal; method: string; signal: HoldSignal; ttlMs: number },
): Promise<string> {
  const { request, payloadHash } = p.signal;
  const kind = signatureKind(request.actionClass);
  const bare = Object.fromEntries(Object.entries(request.params).filter(([k, v]) => k !== 'approvalId' && k !== 'signatureToken' && v !== undefined));
  // The same act held again while its approval is pending: one act, one decision.
  const [existing] = await q.query<{ approval_id: string }>(
    `SELECT approval_id FROM approvals WHERE org_id = $1 AND payload_hash = $2 AND action_class = $3 AND subject_id = $4 AND completion = 'release'
        AND status = 'pending' AND expires_at > now() AND requested_by = $5 AND summary = $6 LIMIT 1`,
    [p.orgId, payloadHash, request.actionClass, request.subjectId, p.principal.id, request.summary],
  );
  if (existing) return existing.approval_id;
  const approvalId = newId('apr');
  await q.query(
    `INSERT INTO approvals (org_id, approval_id, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at,
                            held_method, held_params, held_at, completion, deciders, amendable, requested_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, now() + make_interval(secs => $9::double precision / 1000),
             $10, $11::jsonb, now(), 'release', $12::text[], $13::text[], $14)`,
    [
      p.orgId,
      approvalId,
      request.actionClass,
      payloadHash,
      kind,
      request.subjectId,
      request.summary,
      p.principal.id,
      p.ttlMs,
      p.method,
      JSON.stringify(bare),
      request.deciders ?? null,
      request.amendable ?? [],
      p.principal.keyId,
    ],
  );
  return approvalId;
}

/** A release-mode approval as approval.resolve loaded it. */
export interface ReleasableApproval {
  approval_id: string;
  action_class: string;
  subject_id: string;
  payload_hash: string;
  summary: string;
  held_method: string | null;
  held_params: Record<string, unknown> | null;
  amendable: string[] | null;
  requested_key: string | null;
}

/** The held act made ready to run: as whom, with what, and what the human changed. */
export interface PreparedRelease {
  approval: ReleasableApproval;
  principal: Principal;
  spec: MethodSpec;
  handler: MethodHandler;
  params: Record<string, unknown>;
  payloadHash: string;
  amended: string[];
}

/** What approval.resolve runs a held act with, over the pipeline's ctx.releaseEnv (nothing else should use it). */
export interface HeldActRunner {
  /** Check the amendments and the requester, and parse the final params with the method's schema. */
  prepare(approval: ReleasableApproval, amendments: Record<string, unknown>): Promise<PreparedRelease>;
  /** Run the prepared act in this transaction; it appends its own event (naming approvalId). */
  run(prepared: PreparedRelease): Promise<{ event: AppendedEvent | undefined; result: unknown }>;
}

const undecided = (approvalId: string, why: string) =>
  new ApiError('CONFLICT', `approval ${approvalId} was not decided: ${why}. Nothing changed; amend it or reject it`);

export function heldActRunner(env: ReleaseEnv): HeldActRunner {
  return {
    async prepare(a, amendments) {
      const method = a.held_method ?? '';
      const spec = METHODS.get(method);
      if (!spec || !a.held_params || !a.requested_key) throw undecided(a.approval_id, `it is bound to no held act it could release`);
      const amendable = a.amendable ?? [];
      for (const field of Object.keys(amendments)) {
        if (!amendable.includes(field)) {
          throw badRequest(
            `amendments.${field}`,
            amendable.length ? `not amendable; a human may amend only ${amendable.join(', ')}` : 'not amendable; this act takes no amendments',
          );
        }
      }
      let principal: Principal;
      try {
        principal = await authenticateKeyId(env.q, env.orgId, a.requested_key);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'UNAUTHORIZED')
          throw undecided(a.approval_id, `the key ${a.requested_key} it was held under is no longer valid, so ${method} cannot run as its requester`);
        throw err;
      }
      // null clears an amendable field (an optional param left out).
      const merged: Record<string, unknown> = { ...a.held_params };
      for (const [field, value] of Object.entries(amendments)) {
        if (value === null) delete merged[field];
        else merged[field] = value;
      }
      let admitted: { handler: MethodHandler; params: unknown };
      try {
        admitted = env.admit(spec, principal, merged);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.code === 'BAD_REQUEST' && Object.keys(amendments).length > 0) throw new ApiError('BAD_REQUEST', `amendments: ${err.message}`);
        throw undecided(a.approval_id, `${principal.id} can no longer call ${method}: ${err.code}: ${err.message}`);
      }
      const params = admitted.params as Record<string, unknown>;
      const amended = [...new Set([...Object.keys(a.held_params), ...Object.keys(params)])]
        .filter((k) => canonicalJson(a.held_params?.[k] ?? null) !== canonicalJson(params[k] ?? null))
        .sort();
      return {
        approval: a,
        principal,
        spec,
        handler: admitted.handler,
        params,
        payloadHash: signaturePayloadHash(a.action_class, a.subject_id, params),
        amended,
      };
    },

    async run(r) {
      const a = r.approval;
      const ctx = env.context(r.principal, r.spec, r.handler);
      const prove = (req: SignatureRequest): SignatureProof => {
        const hash = signaturePayloadHash(req.actionClass, req.subjectId, req.params);
        const mismatch =
          req.actionClass !== a.action_class || req.subjectId !== a.subject_id
            ? `it would now sign ${req.actionClass} on ${req.subjectId}, not ${a.action_class} on ${a.subject_id}`
            : hash !== r.payloadHash
              ? `it would now run with params hashing to ${hash}, not the approved ${r.payloadHash}`
              : r.amended.length === 0 && req.summary !== a.summary
                ? `it changed since it was held: it would now run as "${req.summary}", not "${a.summary}"`
                : null;
        if (mismatch) throw new ApiError('CONFLICT', `${r.spec.name}: ${mismatch}`);
        return { approvalId: a.approval_id, payloadHash: hash };
      };
      ctx.requireSignature = async (req) => prove(req);
      ctx.verifyProof = async (req) => prove(req);
      // The act's own event names the approval that released it.
      const [emit, emitAndWait] = [ctx.emit.bind(ctx), ctx.emitAndWait.bind(ctx)];
      ctx.emit = (kind, entityId, payload) => emit(kind, entityId, { ...(payload ?? {}), approvalId: a.approval_id });
      ctx.emitAndWait = (kind, entityId, payload) => emitAndWait(kind, entityId, { ...(payload ?? {}), approvalId: a.approval_id });
      // A handler that prepares outside the transaction (a model call) cannot run inside a decision.
      if (r.handler.prepare) throw undecided(a.approval_id, `${r.spec.name} cannot be released inside a decision`);
      let result: unknown;
      try {
        result = await r.handler.run(ctx, r.params, undefined);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        throw undecided(a.approval_id, `releasing ${r.spec.name} failed: ${err.code}: ${err.message}`);
      }
      if (!ctx.emitted && !r.handler.appendsOnChange) throw new Error(`${r.spec.name} finished without emitting its ledger event`);
      return { event: ctx.emitted, result };
    },
  };
}

/**
 * A review a family files and decides itself (email's outbound mail): a release approval whose held call is the
 * content the human reads (heldParams, hashed into payloadHash), decided by the family's own methods or by
 * approval.resolve through the family's `approvalSubjects` contribution (decide.ts), never by re-running a method.
 * What is released is recorded with settleFamilyApproval in the deciding transaction.
 */
export async function fileFamilyApproval(
  q: Queryable,
  p: {
    orgId: string;
    actionClass: string;
    subjectKind: string;
    subjectId: string;
    summary: string;
    requestedBy: string;
    heldMethod: string;
    heldParams: Record<string, unknown>;
    deciders: string[];
    amendable: string[];
    ttlMs: number;
  },
): Promise<{ approvalId: string; payloadHash: string; expiresAt: string }> {
  const approvalId = newId('apr');
  const payloadHash = signaturePayloadHash(p.actionClass, p.subjectId, p.heldParams);
  const rows = await q.query<{ expires_at: string }>(
    `INSERT INTO approvals (org_id, approval_id, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at,
                            held_method, held_params, held_at, completion, deciders, amendable)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, now() + make_interval(secs => $9::double precision / 1000),
             $10, $11::jsonb, now(), 'release', $12::text[], $13::text[])
     RETURNING expires_at`,
    [
      p.orgId,
      approvalId,
      p.actionClass,
      payloadHash,
      p.subjectKind,
      p.subjectId,
      p.summary,
      p.requestedBy,
      p.ttlMs,
      p.heldMethod,
      JSON.stringify(p.heldParams),
      p.deciders,
      p.amendable,
    ],
  );
  return { approvalId, payloadHash, expiresAt: new Date(one(rows).expires_at).toISOString() };
}

/**
 * Record the decision on a family's own review (fileFamilyApproval): approved (what was released, used once),
 * rejected, or withdrawn by its requester. Only a pending approval moves; false when it had already moved.
 */
export async function settleFamilyApproval(
  q: Queryable,
  orgId: string,
  approvalId: string,
  s: {
    status: 'approved' | 'rejected' | 'withdrawn';
    decidedBy: string;
    note: string | null;
    released?: { params: Record<string, unknown>; payloadHash: string; amended: string[]; by: string };
  },
): Promise<boolean> {
  const r = s.released;
  const rows = await q.query(
    `UPDATE approvals SET status = $3, decided_by = $4, decided_at = now(), note = $5, released_params = $6::jsonb, released_hash = $7,
            amended = $8::text[], consumed_at = CASE WHEN $6::jsonb IS NULL THEN NULL ELSE now() END, consumed_by = $9
      WHERE org_id = $1 AND approval_id = $2 AND status = 'pending' RETURNING 1`,
    [orgId, approvalId, s.status, s.decidedBy, s.note, r ? JSON.stringify(r.params) : null, r?.payloadHash ?? null, r?.amended ?? null, r?.by ?? null],
  );
  return rows.length === 1;
}
