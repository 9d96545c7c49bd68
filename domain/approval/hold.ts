import type { HoldResult } from '../../protocol/frames.js';
import type { Queryable } from '../../db/types.js';
import type { AppendedEvent } from '../../ledger/append.js';
import type { Deps } from '../core/deps.js';
import { signatureKind, type HoldSignal } from './signature.js';

/** The event of a held act: `<family>.signature.hold` (books: exactly the spec's `books.signature.hold`). */
export const holdEventKind = (signal: HoldSignal): string => `${signatureKind(signal.request.actionClass)}.hold`;

/** The family the hold event is filed under: the action class's. */
export const holdFamily = (signal: HoldSignal): string => signal.request.actionClass.split('.')[0];

/**
 * Event payload of `<family>.signature.hold`: what was attempted, never executed. A release hold also names the
 * approval the server filed; deciders are principal ids. Ids and hashes only: the summary (names, amounts in
 * words) stays on the hold's row, since a ledger event can never be erased (docs/security.md, Free text stays out of
 * the ledger).
 */
export function holdEventPayload(signal: HoldSignal, method: string, filedApprovalId: string | null = null) {
  const { request } = signal;
  return {
    method,
    actionClass: request.actionClass,
    subjectId: request.subjectId,
    payloadHash: signal.payloadHash,
    ...(request.completion === 'release' ? { completion: 'release', approvalId: filedApprovalId } : {}),
    ...(request.deciders ? { deciders: request.deciders } : {}),
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
    `INSERT INTO signature_holds (org_id, payload_hash, action_class, subject_id, summary, method, params, held_by, expires_at, seq,
                                  completion, deciders, amendable)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9::double precision / 1000), $10, $11, $12::text[], $13::text[])
     ON CONFLICT (org_id, payload_hash) DO UPDATE SET
       held_by = EXCLUDED.held_by, held_at = now(), expires_at = EXCLUDED.expires_at, seq = EXCLUDED.seq, summary = EXCLUDED.summary,
       completion = EXCLUDED.completion, deciders = EXCLUDED.deciders, amendable = EXCLUDED.amendable`,
    [
      p.orgId,
      payloadHash,
      request.actionClass,
      request.subjectId,
      request.summary,
      p.method,
      JSON.stringify(bare),
      p.heldBy,
      p.ttlMs,
      p.event?.seq ?? null,
      request.completion ?? 'retry',
      request.deciders ?? null,
      request.completion === 'release' ? (request.amendable ?? []) : null,
    ],
  );
}

/** The held act's event, once appended (the keeper records the hold first, then appends: see keeper.ts). */
export async function setHoldSeq(q: Queryable, orgId: string, payloadHash: string, seq: number): Promise<void> {
  await q.query('UPDATE signature_holds SET seq = $3 WHERE org_id = $1 AND payload_hash = $2', [orgId, payloadHash, seq]);
}

/** Who may decide, in words, for a message. */
const decidedBy = (signal: HoldSignal): string => (signal.request.deciders ? `one of ${signal.request.deciders.join(', ')}` : 'a human');

/** The GOVERNANCE_NOT_READY message of a refused act (PB-B1): why, then exactly what to file. */
export function refusalMessage(signal: HoldSignal, deps: Deps): string {
  const { actionClass, subjectId, summary } = signal.request;
  const subject = JSON.stringify({ kind: signatureKind(actionClass), subjectId, summary });
  return (
    `${signal.request.refuseWithoutProof} A human signature must back it: file approval.request with actionClass ${actionClass}, ` +
    `payloadHash ${signal.payloadHash} and subject ${subject}; ${decidedBy(signal)} approves it at ` +
    `${deps.config.publicUrl}/approvals; then retry the same call with approvalId (or signatureToken) and a fresh x-idempotency-key.`
  );
}

/**
 * A refused act (PB-B1) as a hold: the complete approval block approval.request accepts, and the refusal as its
 * message. Not the HTTP answer (that is the GOVERNANCE_NOT_READY frame); faces that file approvals for their
 * caller (MCP) present it exactly like a hold.
 */
export function refusedHold(signal: HoldSignal, deps: Deps): HoldResult {
  const { actionClass, subjectId, summary } = signal.request;
  return {
    status: 'approval_required',
    approval: {
      actionClass,
      payloadHash: signal.payloadHash,
      subject: { kind: signatureKind(actionClass), subjectId, summary },
      expiresInMs: deps.config.holdTtlMs,
      completion: 'retry',
    },
    subjectId,
    message: refusalMessage(signal, deps),
  };
}

export function holdResult(signal: HoldSignal, deps: Deps, event: AppendedEvent, filedApprovalId: string | null = null): HoldResult {
  const { actionClass, subjectId, summary, completion = 'retry', deciders, amendable } = signal.request;
  const approval: HoldResult['approval'] = {
    actionClass,
    payloadHash: signal.payloadHash,
    subject: { kind: signatureKind(actionClass), subjectId, summary },
    expiresInMs: deps.config.holdTtlMs,
    completion,
  };
  if (deciders) approval.deciders = deciders;
  if (completion === 'release' && filedApprovalId) {
    approval.approvalId = filedApprovalId;
    approval.amendable = amendable ?? [];
    return {
      status: 'approval_required',
      approval,
      subjectId,
      message:
        `Held, not executed: ${summary} needs a human decision (ledger #${event.ledgerId}). The server filed approval ${filedApprovalId}; ` +
        `${decidedBy(signal)} decides it at ${deps.config.publicUrl}/approvals/${filedApprovalId}, and approving it runs the act then, ` +
        `in that decision${approval.amendable.length > 0 ? ` (the human may amend ${approval.amendable.join(', ')})` : ''}. Do not retry the call: ` +
        `wait for the decision (GET /api/v1/approval.wait?approvalId=${filedApprovalId}).`,
    };
  }
  return {
    status: 'approval_required',
    approval,
    subjectId,
    message:
      `Held, not executed: ${summary} needs a human signature (ledger #${event.ledgerId}). ` +
      `File approval.request with actionClass ${actionClass}, payloadHash ${signal.payloadHash} and this subject; ` +
      `${decidedBy(signal)} approves it at ${deps.config.publicUrl}/approvals; then retry the same call with approvalId ` +
      `(or signatureToken) and a fresh x-idempotency-key.`,
  };
}
