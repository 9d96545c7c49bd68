import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';
import { HoldSignal, type SignatureProof, type SignatureRequest } from '../core/holds.js';

export { HoldSignal, type SignatureProof, type SignatureRequest } from '../core/holds.js';

const PROOF_FIELDS = new Set(['approvalId', 'signatureToken']);

/** The subject kind of a signature approval: `<family of the action class>.signature`, e.g. `books.signature`. */
export const signatureKind = (actionClass: string): string => `${actionClass.split('.')[0]}.signature`;

import { actionClassOf } from '../../protocol/contract.js';

export { actionClassOf, methodOfClass } from '../../protocol/contract.js';

/** SHA-256 of the canonical JSON of {actionClass, subjectId, params} without the proof fields. */
export function signaturePayloadHash(actionClass: string, subjectId: string, params: Record<string, unknown>): string {
  const bare = Object.fromEntries(Object.entries(params).filter(([k, v]) => !PROOF_FIELDS.has(k) && v !== undefined));
  return sha256Hex(canonicalJson({ actionClass, subjectId, params: bare }));
}

/** signatureToken = `<approvalId>.<HMAC-SHA256 over org, class, subject, payload hash, approval id>`. */
export function signatureToken(
  signingKey: string,
  p: { orgId: string; actionClass: string; subjectId: string; payloadHash: string; approvalId: string },
): string {
  const mac = createHmac('sha256', signingKey).update([p.orgId, p.actionClass, p.subjectId, p.payloadHash, p.approvalId].join('\n')).digest('hex');
  return `${p.approvalId}.${mac}`;
}

interface ApprovalProofRow {
  approval_id: string;
  action_class: string;
  subject_id: string;
  subject_kind: string;
  payload_hash: string;
  summary: string;
  held_method: string | null;
  held_params: Record<string, unknown> | null;
  completion: 'retry' | 'release';
  status: 'pending' | 'approved' | 'rejected';
  decided_by: string | null;
  expires_at: string;
  consumed_at: string | null;
  consumed_by: string | null;
  expired: boolean;
}

/**
 * Check and consume a proof in the act's own transaction (so a rolled-back act does not burn it).
 * A proof is only ever an approval bound to a hold the server recorded (approval.request copies the held call onto
 * it): unbound, or bound to another method, class, subject or payload: CONFLICT. Pending, rejected, expired or used:
 * refused. And what runs must be what the human read: the act's summary, recomputed from the rows now, must equal
 * the summary the approval showed, or the act is refused (CONFLICT naming both).
 */
export async function requireSignature(
  q: Queryable,
  env: { principal: Principal; orgId: string; method: string; signingKey: string },
  req: SignatureRequest,
): Promise<SignatureProof> {
  assertClassOfMethod(env.method, req);
  const payloadHash = signaturePayloadHash(req.actionClass, req.subjectId, req.params);
  if (!hasProof(req.params)) throw new HoldSignal(req, payloadHash);
  return checkProof(q, env, req, payloadHash, true);
}

/**
 * For an act that has already run (a no-op replay): a proof given anyway is checked like requireSignature checks
 * it (another subject or payload: CONFLICT; used, rejected, expired: refused) but not consumed; none given, null.
 */
export async function verifyProofIfGiven(
  q: Queryable,
  env: { principal: Principal; orgId: string; method: string; signingKey: string },
  req: SignatureRequest,
): Promise<SignatureProof | null> {
  assertClassOfMethod(env.method, req);
  if (!hasProof(req.params)) return null;
  return checkProof(q, env, req, signaturePayloadHash(req.actionClass, req.subjectId, req.params), false);
}

/** A programming error, not a caller's: an act that signs under another method's class. */
function assertClassOfMethod(method: string, req: SignatureRequest): void {
  if (req.actionClass !== actionClassOf(method)) throw new Error(`${method} asks for a signature as ${req.actionClass}; its class is ${actionClassOf(method)}`);
}

const hasProof = (params: Record<string, unknown>): boolean => typeof params.approvalId === 'string' || typeof params.signatureToken === 'string';

async function checkProof(
  q: Queryable,
  env: { principal: Principal; orgId: string; method: string; signingKey: string },
  req: SignatureRequest,
  payloadHash: string,
  consume: boolean,
): Promise<SignatureProof> {
  const givenId = typeof req.params.approvalId === 'string' ? req.params.approvalId : undefined;
  const token = typeof req.params.signatureToken === 'string' ? req.params.signatureToken : undefined;
  const tokenId = token?.split('.')[0];
  if (givenId && tokenId && givenId !== tokenId) {
    throw new ApiError('CONFLICT', `signatureToken belongs to approval ${tokenId}, not to approvalId ${givenId}`);
  }
  const approvalId = (givenId ?? tokenId) as string;
  const [row] = await q.query<ApprovalProofRow>(
    `SELECT approval_id, action_class, subject_id, subject_kind, payload_hash, summary, held_method, held_params, completion, status,
            decided_by, expires_at, consumed_at, consumed_by, expires_at < now() AS expired
       FROM approvals WHERE org_id = $1 AND approval_id = $2 FOR UPDATE`,
    [env.orgId, approvalId],
  );
  if (!row) throw new ApiError('CONFLICT', `approval ${approvalId} is not a proof in this org`);
  if (token) {
    const expected = signatureToken(env.signingKey, { orgId: env.orgId, actionClass: req.actionClass, subjectId: req.subjectId, payloadHash, approvalId });
    const a = Buffer.from(token);
    const b = Buffer.from(expected);
    if (a.length !== b.length || !timingSafeEqual(a, b)) {
      throw new ApiError('CONFLICT', `signatureToken does not match this act (org, ${req.actionClass}, ${req.subjectId}, payloadHash ${payloadHash})`);
    }
  }
  if (row.held_method === null || row.held_params === null) {
    throw new ApiError(
      'CONFLICT',
      `approval ${approvalId} is not bound to a held act (filed as subject.kind "${row.subject_kind}" for no hold the server recorded): it can never release an act. ` +
        `Call ${env.method} without proof to hold it, and file exactly what the hold frame names`,
    );
  }
  const mismatch =
    row.held_method !== env.method
      ? `a hold of ${row.held_method}, not ${env.method}`
      : row.action_class !== req.actionClass
        ? `actionClass ${row.action_class}, not ${req.actionClass}`
        : row.subject_id !== req.subjectId
          ? `subject ${row.subject_id}, not ${req.subjectId}`
          : row.payload_hash !== payloadHash
            ? `payloadHash ${row.payload_hash}, not ${payloadHash} (the params differ from the held act)`
            : null;
  if (mismatch) throw new ApiError('CONFLICT', `approval ${approvalId} was filed for ${mismatch}`);
  if (row.completion === 'release') {
    throw new ApiError(
      'CONFLICT',
      `approval ${approvalId} releases its act itself: a human's approve runs ${row.held_method} in that decision, so it is no proof for a retry; wait for it (GET /api/v1/approval.wait?approvalId=${approvalId})`,
    );
  }
  // The held call the human was shown must itself be the one hashed (a damaged record proves nothing).
  if (signaturePayloadHash(row.action_class, row.subject_id, row.held_params) !== row.payload_hash) {
    throw new ApiError('CONFLICT', `approval ${approvalId}: the held call it shows does not hash to its payloadHash ${row.payload_hash}; it proves nothing`);
  }
  if (row.consumed_at) {
    throw new ApiError(
      'GOVERNANCE_NOT_READY',
      `approval ${approvalId} was already used at ${row.consumed_at} by ${row.consumed_by}: the act it approved has run; a proof is single-use (hold the act again and file a new approval for another act)`,
    );
  }
  if (row.status === 'rejected') {
    throw new ApiError('GOVERNANCE_NOT_READY', `approval ${approvalId} was rejected by ${row.decided_by}; the act cannot run on it`);
  }
  if (row.expired) {
    throw new ApiError('GOVERNANCE_NOT_READY', `approval ${approvalId} expired at ${row.expires_at}; hold the act again and file a new approval`);
  }
  if (row.status === 'pending') {
    throw new ApiError(
      'GOVERNANCE_NOT_READY',
      `approval ${approvalId} is still pending a human decision; wait for it (GET /api/v1/approval.wait?approvalId=${approvalId})`,
    );
  }
  // Who may decide is asked again now (decision rights may have changed since the hold): the decider must still be one.
  if (req.deciders && row.decided_by && !req.deciders.includes(row.decided_by)) {
    throw new ApiError(
      'CONFLICT',
      `approval ${approvalId} was decided by ${row.decided_by}, who is not among those who decide this act now (${req.deciders.join(', ')}): ` +
        `call ${env.method} without proof for a new hold`,
    );
  }
  if (!consume) return { approvalId, payloadHash };
  if (req.summary !== row.summary) {
    throw new ApiError(
      'CONFLICT',
      `approval ${approvalId} showed the human "${row.summary}", but ${env.method} on ${req.subjectId} would now run as "${req.summary}": ` +
        `it changed since it was held; call it without proof for a new hold and file a new approval`,
    );
  }
  await q.query('UPDATE approvals SET consumed_at = now(), consumed_by = $3 WHERE org_id = $1 AND approval_id = $2', [
    env.orgId,
    approvalId,
    `${env.method} by ${env.principal.id}`,
  ]);
  return { approvalId, payloadHash };
}
