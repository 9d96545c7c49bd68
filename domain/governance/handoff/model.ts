import type { z } from 'zod';
import { notFound } from '../../../protocol/errors.js';
import type { Handoff } from '../../../protocol/methods/handoff.js';
import type { Queryable } from '../../../db/types.js';

/* Handoff rows (migration 037) and how they show: an offer past expires_at reads as expired (the clock decides). */

export type SubjectKind = z.output<typeof Handoff>['subject']['kind'];

export interface HandoffRow {
  handoff_id: string;
  subject_kind: SubjectKind;
  subject_id: string;
  area: string | null;
  from_principal: string;
  to_principal: string;
  holder_at_offer: string | null;
  brief: string;
  status: 'offered' | 'accepted' | 'declined' | 'cancelled' | 'expired';
  offered_at: string;
  expires_at: string;
  override: boolean;
  approval_id: string | null;
  closed_by: string | null;
  closed_at: string | null;
  reason: string | null;
}

export const HANDOFF_COLUMNS = `handoff_id, subject_kind, subject_id, area, from_principal, to_principal, holder_at_offer, brief, status,
  offered_at, expires_at, override, approval_id, closed_by, closed_at, reason`;

/** Offered and past its expiry as of `now`. */
export const isExpired = (r: HandoffRow, now: Date): boolean => r.status === 'offered' && new Date(r.expires_at).getTime() <= now.getTime();

export const statusAt = (r: HandoffRow, now: Date): HandoffRow['status'] => (isExpired(r, now) ? 'expired' : r.status);

export function toHandoff(r: HandoffRow, now: Date): z.output<typeof Handoff> {
  return {
    id: r.handoff_id,
    subject: { kind: r.subject_kind, id: r.subject_id },
    area: r.area,
    from: r.from_principal,
    to: r.to_principal,
    holderAtOffer: r.holder_at_offer,
    brief: r.brief,
    status: statusAt(r, now),
    offeredAt: r.offered_at,
    expiresAt: r.expires_at,
    override: Boolean(r.override),
    approvalId: r.approval_id,
    closedBy: r.closed_by,
    closedAt: r.closed_at,
    reason: r.reason,
  };
}

/** The offer, or NOT_FOUND (another org's id looks exactly like one that never existed). */
export async function getHandoff(q: Queryable, orgId: string, id: string, lock: '' | 'FOR UPDATE' = ''): Promise<HandoffRow> {
  const [row] = await q.query<HandoffRow>(`SELECT ${HANDOFF_COLUMNS} FROM handoffs WHERE org_id = $1 AND handoff_id = $2 ${lock}`, [orgId, id]);
  if (!row) throw notFound(`handoff ${id}`);
  return row;
}

/** The subject's offer still open as of `now` (offered, not expired), if any. */
export async function openOfferFor(q: Queryable, orgId: string, kind: SubjectKind, subjectId: string, now: Date): Promise<HandoffRow | undefined> {
  const [row] = await q.query<HandoffRow>(
    `SELECT ${HANDOFF_COLUMNS} FROM handoffs
      WHERE org_id = $1 AND subject_kind = $2 AND subject_id = $3 AND status = 'offered' AND expires_at > $4`,
    [orgId, kind, subjectId, now.toISOString()],
  );
  return row;
}

/** For other families' reads (GET /board.context): the subject's open offer as shown, or null. */
export async function pendingOffer(q: Queryable, orgId: string, kind: SubjectKind, subjectId: string, now: Date): Promise<z.output<typeof Handoff> | null> {
  const row = await openOfferFor(q, orgId, kind, subjectId, now);
  return row ? toHandoff(row, now) : null;
}

/**
 * The offers made to `principalId` still open as of `now` (offered, not expired), newest first: what waits on it
 * to accept or decline (GET /org/inbox). Offered rows are few per org (one per subject at most).
 */
export async function offersTo(q: Queryable, orgId: string, principalId: string, now: Date, limit: number): Promise<HandoffRow[]> {
  return q.query<HandoffRow>(
    `SELECT ${HANDOFF_COLUMNS} FROM handoffs
      WHERE org_id = $1 AND to_principal = $2 AND status = 'offered' AND expires_at > $3
      ORDER BY offered_at DESC, handoff_id DESC LIMIT $4`,
    [orgId, principalId, now.toISOString(), limit],
  );
}
