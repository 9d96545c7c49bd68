import type { HoldResult } from '../../protocol/frames.js';
import type { Queryable } from '../../db/types.js';
import type { Deps } from '../core/deps.js';
import { recordHold } from './hold.js';
import { HoldSignal, signatureKind, signaturePayloadHash, type SignatureRequest } from './signature.js';

/*
 * A signature act's hold recorded ahead of the act, by another call of its family that opens what is to be signed
 * (crm.proposeTerms beyond policy records crm.signEscalation's hold): the approval block is answered at once, so the
 * caller files approval.request without first calling the act bare. Nothing is appended here: the opening call's own
 * event is the call's one event; a later bare call of the act holds as usual (same params, same payloadHash).
 */

export interface PendingSignature {
  approval: HoldResult['approval'];
  payloadHash: string;
}

/** Record `method`'s hold for `request` (retry completion) and return the approval block its hold frame would carry. */
export async function recordPendingSignature(
  q: Queryable,
  p: { orgId: string; method: string; heldBy: string; deps: Deps; request: SignatureRequest },
): Promise<PendingSignature> {
  const request: SignatureRequest = { ...p.request, completion: 'retry' };
  const payloadHash = signaturePayloadHash(request.actionClass, request.subjectId, request.params);
  await recordHold(q, {
    orgId: p.orgId,
    method: p.method,
    heldBy: p.heldBy,
    ttlMs: p.deps.config.holdTtlMs,
    signal: new HoldSignal(request, payloadHash),
    event: null,
  });
  const approval: HoldResult['approval'] = {
    actionClass: request.actionClass,
    payloadHash,
    subject: { kind: signatureKind(request.actionClass), subjectId: request.subjectId, summary: request.summary },
    expiresInMs: p.deps.config.holdTtlMs,
    completion: 'retry',
  };
  if (request.deciders) approval.deciders = request.deciders;
  return { approval, payloadHash };
}

/** Where the approval filed for a signature hold stands: the newest approval of each (subject, payloadHash) asked. */
export type SignatureApprovalState = 'pending' | 'approved' | 'rejected' | 'expired' | 'withdrawn' | 'used';

export async function signatureApprovalStates(
  q: Queryable,
  orgId: string,
  actionClass: string,
  holds: readonly { subjectId: string; payloadHash: string }[],
): Promise<Map<string, { approvalId: string; state: SignatureApprovalState }>> {
  if (holds.length === 0) return new Map();
  const rows = await q.query<{ subject_id: string; payload_hash: string; approval_id: string; status: string; expired: boolean; used: boolean }>(
    `SELECT DISTINCT ON (subject_id, payload_hash) subject_id, payload_hash, approval_id, status, expires_at < now() AS expired, consumed_at IS NOT NULL AS used
       FROM approvals WHERE org_id = $1 AND action_class = $2 AND subject_id = ANY($3::text[]) AND payload_hash = ANY($4::text[])
      ORDER BY subject_id, payload_hash, requested_at DESC, approval_id DESC`,
    [orgId, actionClass, holds.map((h) => h.subjectId), holds.map((h) => h.payloadHash)],
  );
  const state = (r: (typeof rows)[number]): SignatureApprovalState =>
    r.used ? 'used' : r.status === 'pending' && r.expired ? 'expired' : (r.status as SignatureApprovalState);
  return new Map(rows.map((r) => [`${r.subject_id}\n${r.payload_hash}`, { approvalId: r.approval_id, state: state(r) }]));
}

/**
 * Close the approvals still pending for subjects their family took back (withdrawn, superseded, sent back), so no
 * human decides a dead item: `withdrawn` when the requester's side took it back, `rejected` when a reviewer sent it
 * back. Decided by `by`, with the note saying why. Only pending approvals move; their ids.
 */
export async function closePendingApprovals(
  q: Queryable,
  orgId: string,
  p: { actionClasses: readonly string[]; subjectIds: readonly string[]; status: 'withdrawn' | 'rejected'; by: string; note: string },
): Promise<string[]> {
  if (p.subjectIds.length === 0) return [];
  const rows = await q.query<{ approval_id: string }>(
    `UPDATE approvals SET status = $4, decided_by = $5, decided_at = now(), note = $6
      WHERE org_id = $1 AND action_class = ANY($2::text[]) AND subject_id = ANY($3::text[]) AND status = 'pending' RETURNING approval_id`,
    [orgId, p.actionClasses, p.subjectIds, p.status, p.by, p.note],
  );
  return rows.map((r) => r.approval_id).sort();
}
