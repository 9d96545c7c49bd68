import { conflict } from '../../../protocol/errors.js';
import { one, type Queryable } from '../../../db/types.js';

/*
 * Seats (docs/families/people.md, Billing): a human seat is an active human with a live key or a pending, unexpired
 * invitation; an agent seat is an active agent with a live key. Suspended, deactivated, archived and directory-only
 * members (no key) are free. An org without a subscription row has no limits.
 */

export interface SubscriptionRow {
  plan: string;
  cycle: 'monthly' | 'annual';
  seats: number;
  agent_seats: number;
  contact: string | null;
  tax_id: string | null;
  version: number;
  updated_at: string | Date;
}

export interface Usage {
  seats: number;
  agentSeats: number;
  pendingInvitations: number;
}

/**
 * Seat counting and seat changes serialise on one per-org lock (to commit), so two concurrent invitations or key
 * mints cannot both take the last seat, and billing.update cannot lower seats under a grant in flight.
 */
export async function lockSeats(q: Queryable, orgId: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtext('seats:' || $1))`, [orgId]);
}

export async function subscriptionOf(q: Queryable, orgId: string, lock = ''): Promise<SubscriptionRow | undefined> {
  const [row] = await q.query<SubscriptionRow>(
    `SELECT plan, cycle, seats, agent_seats, contact, tax_id, version, updated_at FROM billing_subscriptions WHERE org_id = $1 ${lock}`,
    [orgId],
  );
  return row;
}

export async function seatUsage(q: Queryable, orgId: string): Promise<Usage> {
  const row = one(
    await q.query<{ humans: number; agents: number; pending: number }>(
      `SELECT count(*) FILTER (WHERE p.kind = 'human')::int AS humans, count(*) FILTER (WHERE p.kind = 'agent')::int AS agents,
            (SELECT count(*)::int FROM invitations i WHERE i.org_id = $1 AND i.status = 'pending' AND i.expires_at > now()) AS pending
       FROM principals p
      WHERE p.org_id = $1 AND p.status = 'active'
        AND EXISTS (SELECT 1 FROM api_keys k WHERE k.org_id = p.org_id AND k.principal_id = p.principal_id AND k.revoked_at IS NULL)`,
      [orgId],
    ),
  );
  return { seats: Number(row.humans) + Number(row.pending), agentSeats: Number(row.agents), pendingInvitations: Number(row.pending) };
}

/**
 * CONFLICT unless the org has a free seat of this kind for one more member with access (no subscription: always).
 * Takes the seat lock, held to commit: call it in the transaction that then takes the seat. `field` names what
 * asked for the seat, first in the message like every field error.
 */
export async function requireSeat(q: Queryable, orgId: string, kind: 'human' | 'agent', field: string): Promise<void> {
  await lockSeats(q, orgId);
  const sub = await subscriptionOf(q, orgId);
  if (!sub) return;
  const usage = await seatUsage(q, orgId);
  const [used, limit, name] = kind === 'human' ? [usage.seats, sub.seats, 'seats'] : [usage.agentSeats, sub.agent_seats, 'agentSeats'];
  if (used >= limit) {
    const what = kind === 'human' ? 'seats' : 'agent seats';
    throw conflict(`${field}: ${what} full: ${used} of ${limit} used; raise ${name} with billing.update or free one`);
  }
}
