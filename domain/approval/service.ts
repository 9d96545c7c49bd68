import { ApiError, notFound } from '../../protocol/errors.js';
import type { ApprovalView } from '../../protocol/methods/approval.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';
import type { Deps } from '../core/deps.js';
import { signatureToken } from './signature.js';

export interface ApprovalRow {
  approval_id: string;
  action_class: string;
  payload_hash: string;
  subject_kind: string;
  subject_id: string;
  summary: string;
  status: 'pending' | 'approved' | 'rejected' | 'withdrawn';
  requested_by: string;
  requested_at: string;
  expires_at: string;
  decided_by: string | null;
  decided_at: string | null;
  note: string | null;
  consumed_at: string | null;
  expired: boolean;
  held_method: string | null;
  held_params: Record<string, unknown> | null;
  completion: 'retry' | 'release';
  deciders: string[] | null;
  amendable: string[] | null;
  requested_key: string | null;
  released_params: Record<string, unknown> | null;
  released_hash: string | null;
  amended: string[] | null;
}

/** The held call is the approval's own copy (bound at filing), not the hold row, which a later hold may rewrite. */
export const APPROVAL_SELECT = `
  SELECT a.approval_id, a.action_class, a.payload_hash, a.subject_kind, a.subject_id, a.summary, a.status,
         a.requested_by, a.requested_at, a.expires_at, a.decided_by, a.decided_at, a.note, a.consumed_at,
         a.expires_at < now() AS expired, a.held_method, a.held_params, a.completion, a.deciders, a.amendable, a.requested_key,
         a.released_params, a.released_hash, a.amended
    FROM approvals a`;

/**
 * The signature token is derived, never stored: the requester and deciders may see it once approved. An approval
 * bound to no hold gets none: it can never be a proof; nor does a release one: its decision ran the act.
 */
function mayHoldToken(p: Principal, row: ApprovalRow): boolean {
  if (row.held_method === null || row.completion === 'release') return false;
  return row.requested_by === p.id || (p.kind === 'human' && p.scopes.has('approval.decide'));
}

export function approvalView(row: ApprovalRow, ctx: { principal: Principal; orgId: string; deps: Deps }): ApprovalView {
  const status = row.status === 'pending' && row.expired ? 'expired' : row.status;
  const view: ApprovalView = {
    approvalId: row.approval_id,
    status,
    actionClass: row.action_class,
    payloadHash: row.payload_hash,
    subject: { kind: row.subject_kind, subjectId: row.subject_id, summary: row.summary },
    heldAct: row.held_method ? { method: row.held_method, params: row.held_params ?? {} } : null,
    completion: row.completion,
    deciders: row.deciders,
    amendable: row.completion === 'release' ? (row.amendable ?? []) : null,
    released: row.released_params && row.released_hash ? { params: row.released_params, payloadHash: row.released_hash, amended: row.amended ?? [] } : null,
    requestedBy: row.requested_by,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    note: row.note,
    used: row.consumed_at !== null,
    usedAt: row.consumed_at,
    url: `${ctx.deps.config.publicUrl}/approvals/${row.approval_id}`,
  };
  if (status === 'approved' && mayHoldToken(ctx.principal, row)) {
    view.signatureToken = signatureToken(ctx.deps.signingKey, {
      orgId: ctx.orgId,
      actionClass: row.action_class,
      subjectId: row.subject_id,
      payloadHash: row.payload_hash,
      approvalId: row.approval_id,
    });
  }
  return view;
}

export async function loadApproval(q: Queryable, orgId: string, approvalId: string, forUpdate = false): Promise<ApprovalRow> {
  const [row] = await q.query<ApprovalRow>(`${APPROVAL_SELECT} WHERE a.org_id = $1 AND a.approval_id = $2${forUpdate ? ' FOR UPDATE OF a' : ''}`, [
    orgId,
    approvalId,
  ]);
  if (!row) throw notFound(`approval ${approvalId}`);
  return row;
}

/**
 * approval.request's lock on one payload, to commit: two filings of one act queue, and the second finds the
 * first's approval instead of filing another. Taken before the held act's row is share-locked (binding.ts), so it
 * never waits while holding that row.
 */
export async function lockPayload(q: Queryable, orgId: string, payloadHash: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtextextended('approval.request:' || $1 || ':' || $2, 0))`, [orgId, payloadHash]);
}

/** Opaque list cursor: the sort key of the last row. */
export const encodeCursor = (requestedAt: string, approvalId: string) => Buffer.from(JSON.stringify([requestedAt, approvalId])).toString('base64url');

export function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string') && !Number.isNaN(Date.parse(value[0]))) {
      return value as [string, string];
    }
  } catch {
    // fall through
  }
  throw new ApiError('BAD_REQUEST', 'cursor: not a cursor returned by approval.list');
}
