import type { z } from 'zod';
import { notFound } from '../../../protocol/errors.js';
import type { Lease } from '../../../protocol/methods/runtime/lease.js';
import type { Queryable } from '../../../db/types.js';

/*
 * Leases as rows of lease_state: the table with held-past-expiry, or held under a registration that reads stopped,
 * shown as lapsed, on the database's clock.
 */

export interface LeaseRow {
  lease_id: string;
  name: string;
  holder_id: string;
  holder_instance: string;
  registration_id: string | null;
  fencing_token: number | string;
  ttl_seconds: number;
  state: 'held' | 'released' | 'lapsed';
  acquired_at: string | Date;
  expires_at: string | Date;
  released_at: string | Date | null;
  /** Held, but its registration reads stopped: it lapsed with it, before its expiry. */
  registration_stopped: boolean;
}

export const LEASE_COLUMNS =
  'lease_id, name, holder_id, holder_instance, registration_id, fencing_token, ttl_seconds, state, acquired_at, expires_at, released_at, registration_stopped';

const iso = (t: string | Date) => new Date(t).toISOString();

export const toLease = (r: LeaseRow): z.output<typeof Lease> => ({
  id: r.lease_id,
  name: r.name,
  holderId: r.holder_id,
  holderInstance: r.holder_instance,
  registrationId: r.registration_id,
  fencingToken: Number(r.fencing_token),
  status: r.state,
  ttlSeconds: Number(r.ttl_seconds),
  acquiredAt: iso(r.acquired_at),
  expiresAt: iso(r.expires_at),
  releasedAt: r.released_at ? iso(r.released_at) : null,
});

/** A lease of the org as it is now; `lock` takes its row first (the state is read after the lock). */
export async function loadLease(q: Queryable, orgId: string, leaseId: string, lock = false): Promise<LeaseRow> {
  if (lock) await q.query('SELECT 1 FROM leases WHERE org_id = $1 AND lease_id = $2 FOR UPDATE', [orgId, leaseId]);
  const [row] = await q.query<LeaseRow>(`SELECT ${LEASE_COLUMNS} FROM lease_state WHERE org_id = $1 AND lease_id = $2`, [orgId, leaseId]);
  if (!row) throw notFound(`lease ${leaseId}`);
  return row;
}

/** Release the unexpired leases claimed under a registration (its stopped beat): how many. */
export async function releaseLeasesOf(q: Queryable, orgId: string, registrationId: string, by: string): Promise<number> {
  const rows = await q.query(
    `UPDATE leases SET status = 'released', released_at = clock_timestamp(), released_by = $3
      WHERE org_id = $1 AND registration_id = $2 AND status = 'held' AND expires_at > clock_timestamp() RETURNING lease_id`,
    [orgId, registrationId, by],
  );
  return rows.length;
}
