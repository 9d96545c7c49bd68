import type { HoldResult } from '../../protocol/frames.js';
import type { Queryable } from '../../db/types.js';
import type { AppendedEvent } from '../../ledger/append.js';
import type { Deps } from '../deps.js';
import type { HoldSignal } from './signature.js';

/** Event payload of `books.signature.hold`: what was attempted, never executed. */
export function holdEventPayload(signal: HoldSignal, method: string) {
  return {
    method,
    actionClass: signal.request.actionClass,
    subjectId: signal.request.subjectId,
    payloadHash: signal.payloadHash,
    summary: signal.request.summary,
  };
}

/** Remember the held act (params included) so approvals and the inbox can show exactly what would run. */
export async function recordHold(
  q: Queryable,
  p: { orgId: string; method: string; heldBy: string; ttlMs: number; signal: HoldSignal; event: AppendedEvent | null },
): Promise<void> {
  const { request, payloadHash } = p.signal;
  const bare = Object.fromEntries(Object.entries(request.params).filter(([k]) => k !== 'approvalId' && k !== 'signatureToken'));
  await q.query(
    `INSERT INTO signature_holds (org_id, payload_hash, action_class, subject_id, summary, method, params, held_by, expires_at, seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9::double precision / 1000), $10)
     ON CONFLICT (org_id, payload_hash) DO UPDATE SET
       held_by = EXCLUDED.held_by, held_at = now(), expires_at = EXCLUDED.expires_at, seq = EXCLUDED.seq, summary = EXCLUDED.summary`,
    [p.orgId, payloadHash, request.actionClass, request.subjectId, request.summary, p.method, JSON.stringify(bare), p.heldBy, p.ttlMs, p.event?.seq ?? null],
  );
}

/** The GOVERNANCE_NOT_READY message of a refused act (PB-B1): why, then exactly what to file. */
export function refusalMessage(signal: HoldSignal, deps: Deps): string {
  const { actionClass, subjectId } = signal.request;
  return (
    `${signal.request.refuseWithoutProof} A human signature must back it: file approval.request with actionClass ${actionClass}, ` +
    `payloadHash ${signal.payloadHash} and subject {kind: "books.signature", subjectId: "${subjectId}"}; a human approves it at ` +
    `${deps.config.publicUrl}/approvals; then retry the same call with approvalId (or signatureToken) and a fresh x-idempotency-key.`
  );
}

export function holdResult(signal: HoldSignal, deps: Deps, event: AppendedEvent): HoldResult {
  const { actionClass, subjectId, summary } = signal.request;
  return {
    status: 'approval_required',
    approval: {
      actionClass,
      payloadHash: signal.payloadHash,
      subject: { kind: 'books.signature', subjectId, summary },
      expiresInMs: deps.config.holdTtlMs,
    },
    subjectId,
    message:
      `Held, not executed: ${summary} needs a human signature (ledger #${event.ledgerId}). ` +
      `File approval.request with actionClass ${actionClass}, payloadHash ${signal.payloadHash} and this subject; ` +
      `a human approves it at ${deps.config.publicUrl}/approvals; then retry the same call with approvalId ` +
      `(or signatureToken) and a fresh x-idempotency-key.`,
  };
}
