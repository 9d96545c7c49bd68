import { one } from '../../../db/types.js';
import { badRequest } from '../../../protocol/errors.js';
import { billing as c } from '../../../protocol/methods/billing.js';
import { orgReadContracts } from '../../../protocol/reads/org.js';
import { family, reads, type Family } from '../../core/family.js';
import { handler, readHandler } from '../../core/handler.js';
import { laneHold } from '../member/lane.js';
import { lockSeats, seatUsage, subscriptionOf, type SubscriptionRow } from './seats.js';
import { DEFAULT_BILLING_PLANS } from './config.js';

export { requireSeat, seatUsage } from './seats.js';
export { DEFAULT_BILLING_PLANS } from './config.js';

/*
 * billing.update and GET /api/v1/org/billing. No payment provider in v1 (docs/families/people.md, Billing): the
 * subscription is the org's record of what it pays for, and its seats are the limits every access grant checks
 * (requireSeat). Events carry the plan, cycle and seat counts (the org's own figures) and the NAMES of contact and
 * taxId when they change, never their values.
 */

const toBilling = (r: SubscriptionRow) => ({
  plan: r.plan,
  cycle: r.cycle,
  seats: Number(r.seats),
  agentSeats: Number(r.agent_seats),
  contact: r.contact,
  taxId: r.tax_id,
  version: Number(r.version),
  updatedAt: new Date(r.updated_at).toISOString(),
});

const FIELDS = ['plan', 'cycle', 'seats', 'agentSeats', 'contact', 'taxId'] as const;
const COLUMN = { plan: 'plan', cycle: 'cycle', seats: 'seats', agentSeats: 'agent_seats', contact: 'contact', taxId: 'tax_id' } as const;

export const update = handler(c.update, async (ctx, p) => {
  const plans = ctx.deps.config.billingPlans;
  if (p.plan !== undefined && !plans.includes(p.plan)) throw badRequest('plan', `must be one of the plans this server offers: ${plans.join(', ')}`);
  await lockSeats(ctx.q, ctx.orgId);
  const before = await subscriptionOf(ctx.q, ctx.orgId, 'FOR UPDATE');
  if (!before) {
    for (const f of ['seats', 'agentSeats'] as const) {
      if (p[f] === undefined) throw badRequest(`${f}`, 'required: the org has no subscription yet');
    }
  }
  const next = {
    plan: p.plan ?? before?.plan ?? plans[0],
    cycle: p.cycle ?? before?.cycle ?? 'monthly',
    seats: p.seats ?? Number(before!.seats),
    agentSeats: p.agentSeats ?? Number(before!.agent_seats),
    contact: p.contact === undefined ? (before?.contact ?? null) : p.contact,
    taxId: p.taxId === undefined ? (before?.tax_id ?? null) : p.taxId,
  };
  const usage = await seatUsage(ctx.q, ctx.orgId);
  if (next.seats < usage.seats) {
    throw badRequest(
      'seats',
      `${next.seats} is below the ${usage.seats} seats in use (${usage.pendingInvitations} by pending invitations); free seats first (revoke invitations, deactivate users) or keep at least ${usage.seats}`,
    );
  }
  if (next.agentSeats < usage.agentSeats) {
    throw badRequest(
      'agentSeats',
      `${next.agentSeats} is below the ${usage.agentSeats} agent seats in use; deactivate agents first or keep at least ${usage.agentSeats}`,
    );
  }
  const fields = before ? FIELDS.filter((f) => next[f] !== (f === 'seats' || f === 'agentSeats' ? Number(before[COLUMN[f]]) : before[COLUMN[f]])) : [...FIELDS];
  const figures = { plan: next.plan, cycle: next.cycle, seats: next.seats, agentSeats: next.agentSeats };
  // An agent commits money only with a human's approval (docs/families/people.md); asked once the act is known valid.
  const signature = {
    actionClass: 'billing.update',
    subjectId: ctx.orgId,
    summary: `Set the subscription to plan ${next.plan} (${next.cycle}), ${next.seats} seats and ${next.agentSeats} agent seats${fields.some((f) => f === 'contact' || f === 'taxId') ? ', with new billing details' : ''}`,
    params: p,
  };
  if (before && fields.length === 0) {
    // Nothing to do; a proof given anyway is still checked (a used or foreign one is refused).
    const shown = laneHold(ctx.principal, 'billing.update') ? await ctx.verifyProof(signature) : null;
    await ctx.emit('billing.subscription.update', ctx.orgId, {
      ...figures,
      fields: [],
      version: Number(before.version),
      noop: true,
      ...(shown ? { approvalId: shown.approvalId } : {}),
    });
    return { billing: toBilling(before), usage, changed: false };
  }
  const proof = laneHold(ctx.principal, 'billing.update') ? await ctx.requireSignature(signature) : null;
  const row = one(
    await ctx.q.query<SubscriptionRow>(
      `INSERT INTO billing_subscriptions AS b (org_id, plan, cycle, seats, agent_seats, contact, tax_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (org_id) DO UPDATE SET plan = $2, cycle = $3, seats = $4, agent_seats = $5, contact = $6, tax_id = $7,
              version = b.version + 1, updated_at = now()
       RETURNING plan, cycle, seats, agent_seats, contact, tax_id, version, updated_at`,
      [ctx.orgId, next.plan, next.cycle, next.seats, next.agentSeats, next.contact, next.taxId],
    ),
  );
  await ctx.emit('billing.subscription.update', ctx.orgId, {
    ...figures,
    fields,
    version: Number(row.version),
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return { billing: toBilling(row), usage, changed: true };
});

/** GET /api/v1/org/billing: the subscription (null: no limits) and the seats in use. */
export const billingRead = readHandler(orgReadContracts['org/billing'], async (ctx) => {
  const sub = await subscriptionOf(ctx.q, ctx.orgId);
  return { billing: sub ? toBilling(sub) : null, usage: await seatUsage(ctx.q, ctx.orgId) };
});

export const billingHandlers = family('billing', { update });
export const billingReads = reads({ 'org/billing': billingRead });

/** The billing family, as domain/deployed.ts lists it. */
export const billingFamily: Family = { name: 'billing', methods: billingHandlers, reads: billingReads, config: { billingPlans: DEFAULT_BILLING_PLANS } };
