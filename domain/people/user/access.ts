import { conflict, notFound } from '../../../protocol/errors.js';
import type { Role } from '../../../protocol/scopes.js';
import type { Queryable } from '../../../db/types.js';

/*
 * A member's access, shared by user.* (humans: role, offboarding) and admin.* (anyone: suspend, reactivate).
 * Every act here runs under the people lock (lockPeople), so the last-admin guard cannot be raced: two admins
 * demoting or suspending each other at once serialise, and the second finds itself the last.
 */

export type Status = 'invited' | 'active' | 'suspended' | 'deactivated' | 'archived';

export interface AccessRow {
  principal_id: string;
  kind: 'human' | 'agent';
  name: string;
  status: Status;
  role: Role | null;
  manager_id: string | null;
  live_keys: number;
  status_reason: string | null;
  status_changed_at: string | Date | null;
  status_changed_by: string | null;
  version: number;
}

/** The member's access row, locked; NOT_FOUND for an unknown or another org's id. */
export async function lockAccess(q: Queryable, orgId: string, memberId: string): Promise<AccessRow> {
  const [row] = await q.query<AccessRow>(
    `SELECT p.principal_id, p.kind, p.name, p.status, p.role, p.manager_id, p.status_reason, p.status_changed_at, p.status_changed_by, p.version,
            (SELECT count(*)::int FROM api_keys k WHERE k.org_id = p.org_id AND k.principal_id = p.principal_id AND k.revoked_at IS NULL) AS live_keys
       FROM principals p WHERE p.org_id = $1 AND p.principal_id = $2 FOR UPDATE OF p`,
    [orgId, memberId],
  );
  if (!row) throw notFound(`member ${memberId}`);
  return row;
}

export const toAccess = (r: AccessRow) => ({
  id: r.principal_id,
  kind: r.kind,
  status: r.status,
  role: r.role,
  liveKeys: Number(r.live_keys),
  statusReason: r.status_reason,
  statusChangedAt: r.status_changed_at === null ? null : new Date(r.status_changed_at).toISOString(),
  statusChangedBy: r.status_changed_by,
  version: Number(r.version),
});

/** CONFLICT when the caller acts on itself: cutting your own access needs another admin. */
export function refuseSelf(row: AccessRow, callerId: string, act: string): void {
  if (row.principal_id === callerId) throw conflict(`member ${row.principal_id} is you: another admin must ${act} you`);
}

/** CONFLICT when `row` is the org's last active admin (the org would be left with nobody to administer it). */
export async function refuseLastAdmin(q: Queryable, orgId: string, row: AccessRow, act: string): Promise<void> {
  if (row.role !== 'admin' || row.status !== 'active') return;
  const [other] = await q.query('SELECT 1 FROM principals WHERE org_id = $1 AND role = $3 AND status = $4 AND principal_id <> $2 LIMIT 1', [
    orgId,
    row.principal_id,
    'admin',
    'active',
  ]);
  if (!other) throw conflict(`member ${row.principal_id} is the last active admin of the org: make another human admin first (user.updateRole), then ${act}`);
}

/** Set the status with who changed it and why (the reason stays on the row: migration 025). */
export async function setStatus(q: Queryable, orgId: string, memberId: string, status: Status, reason: string | null, by: string): Promise<void> {
  await q.query(
    `UPDATE principals SET status = $3, status_reason = $4, status_changed_at = now(), status_changed_by = $5, version = version + 1, updated_at = now()
      WHERE org_id = $1 AND principal_id = $2`,
    [orgId, memberId, status, reason, by],
  );
}
