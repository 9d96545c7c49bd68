import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';
import { APPROVAL_SELECT, type ApprovalRow } from './service.js';
import { earliest, type InboxEntry, type WaitingSource } from '../inbox/index.js';

/**
 * The pending approvals `me` may decide now, newest first (GET /org/inbox): what approval.resolve would accept
 * from it. Only a human with approval.decide decides; never its own request; where the approval names its
 * deciders, only them; not yet expired. The rows come through approvals_by_status (org, status, requested_at).
 */
export async function approvalsAwaiting(q: Queryable, orgId: string, me: Principal, limit: number): Promise<ApprovalRow[]> {
  if (me.kind !== 'human' || !me.scopes.has('approval.decide')) return [];
  return q.query<ApprovalRow>(
    `${APPROVAL_SELECT}
      WHERE a.org_id = $1 AND a.status = 'pending' AND a.expires_at > now() AND a.requested_by <> $2
        AND (a.deciders IS NULL OR $2 = ANY(a.deciders))
      ORDER BY a.requested_at DESC, a.approval_id DESC LIMIT $3`,
    [orgId, me.id, limit],
  );
}

/** The approval family's part of GET /org/inbox: approvals the caller may decide, until they expire. */
export const approvalWaiting: WaitingSource = async ({ q, orgId, me, cap }) => {
  const rows = await approvalsAwaiting(q, orgId, me, cap);
  const items = rows.map((a): InboxEntry => ({
    kind: 'approval',
    id: a.approval_id,
    title: a.summary,
    since: a.requested_at,
    from: a.requested_by,
    link: { method: 'approval.resolve', params: { approvalId: a.approval_id } },
    actionClass: a.action_class,
    expiresAt: a.expires_at,
  }));
  return { items, nextChangeAt: earliest(rows.map((a) => a.expires_at)) };
};
