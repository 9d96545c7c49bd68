import { ApiError, notFound } from '../../protocol/errors.js';
import type { ApprovalView } from '../../protocol/methods/approval.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../auth.js';
import type { Deps } from '../deps.js';
import { signatureToken } from './signature.js';

interface ApprovalRow {
  approval_id: string;
  action_class: string;
  payload_hash: string;
  subject_kind: string;
  subject_id: string;
  summary: string;
  status: 'pending' | 'approved' | 'rejected';
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
}

export const APPROVAL_SELECT = `
  SELECT a.approval_id, a.action_class, a.payload_hash, a.subject_kind, a.subject_id, a.summary, a.status,
         a.requested_by, a.requested_at, a.expires_at, a.decided_by, a.decided_at, a.note, a.consumed_at,
         a.expires_at < now() AS expired, h.method AS held_method, h.params AS held_params
    FROM approvals a
    LEFT JOIN signature_holds h
      ON h.org_id = a.org_id AND h.payload_hash = a.payload_hash AND a.subject_kind = 'books.signature'`;

/** The signature token is derived, never stored: the requester and deciders may see it once approved. */
function mayHoldToken(p: Principal, row: ApprovalRow): boolean {
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
  const [row] = await q.query<ApprovalRow>(
    `${APPROVAL_SELECT} WHERE a.org_id = $1 AND a.approval_id = $2${forUpdate ? ' FOR UPDATE OF a' : ''}`,
    [orgId, approvalId],
  );
  if (!row) throw notFound(`approval ${approvalId}`);
  return row;
}

interface HoldRow {
  action_class: string;
  subject_id: string;
  summary: string;
  expires_at: string;
  expired: boolean;
}

/**
 * For a books.signature approval, the held act is the authority: it must exist in this org and match the
 * class and subject, and its recorded summary (not the requester's words) is what the human reads.
 */
export async function heldActFor(q: Queryable, orgId: string, p: { actionClass: string; payloadHash: string; subjectId: string }): Promise<HoldRow> {
  const [hold] = await q.query<HoldRow>(
    `SELECT action_class, subject_id, summary, expires_at, expires_at < now() AS expired
       FROM signature_holds WHERE org_id = $1 AND payload_hash = $2`,
    [orgId, p.payloadHash],
  );
  if (!hold) {
    throw notFound(`held act with payloadHash ${p.payloadHash} (call the signature act first and file exactly what its hold frame names)`);
  }
  if (hold.action_class !== p.actionClass || hold.subject_id !== p.subjectId) {
    throw new ApiError('CONFLICT', `payloadHash ${p.payloadHash} was held for ${hold.action_class} on ${hold.subject_id}, not ${p.actionClass} on ${p.subjectId}`);
  }
  if (hold.expired) {
    throw new ApiError('GOVERNANCE_NOT_READY', `the hold expired at ${hold.expires_at}; call the act again for a new hold`);
  }
  return hold;
}

/** Opaque list cursor: the sort key of the last row. */
export const encodeCursor = (requestedAt: string, approvalId: string) =>
  Buffer.from(JSON.stringify([requestedAt, approvalId])).toString('base64url');

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
