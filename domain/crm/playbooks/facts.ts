import { RISK_FLAGS, ROLES, type RiskFlag, type Stage } from '../../../protocol/methods/crm/index.js';
import type { Queryable } from '../../../db/types.js';
import { daysSince, riskSql } from '../pipeline.js';
import type { Facts } from './rules.js';

/*
 * The typed facts rules read (protocol/methods/crm/playbooks.ts FACTS), for one deal or an owner's open deals, in
 * one query at the injected clock: the risk flags through pipeline.ts riskSql (the one definition), roles, the
 * offer's discount, the last guest view. Days are whole days, as getDeal's daysInStage.
 */

const DAY_MS = 86_400_000;

export interface DealFacts {
  dealId: string;
  status: 'open' | 'won' | 'lost' | 'deleted';
  ownerId: string;
  delegateId: string | null;
  risk: RiskFlag[];
  facts: Facts;
}

interface Row extends Record<string, unknown> {
  deal_id: string;
  status: DealFacts['status'];
  owner_id: string;
  delegate_id: string | null;
  stage: Stage;
  amount_cents: string | number;
  close_date: string;
  close_date_pushes: number;
  stage_entered_at: string | Date;
  last_activity_at: string | Date;
  roles: string[] | null;
  offer_bps: number | null;
  last_view: string | Date | null;
}

export type Which = { dealId: string } | { ownerId: string; limit: number };

export async function dealFacts(q: Queryable, orgId: string, now: Date, which: Which): Promise<DealFacts[]> {
  const risk = riskSql('$2');
  const params: unknown[] = [orgId, now.toISOString()];
  const where =
    'dealId' in which
      ? `d.deal_id = $${params.push(which.dealId)}`
      : `d.owner_id = $${params.push(which.ownerId)} AND d.status = 'open' ORDER BY d.close_date, d.deal_id LIMIT $${params.push(which.limit)}`;
  const rows = await q.query<Row>(
    `SELECT d.deal_id, d.status, d.owner_id, d.delegate_id, d.stage, d.amount_cents, d.close_date::text AS close_date, d.close_date_pushes,
            d.stage_entered_at, d.last_activity_at,
            (SELECT array_agg(DISTINCT r.role ORDER BY r.role) FROM crm_deal_contacts r WHERE r.org_id = d.org_id AND r.deal_id = d.deal_id) AS roles,
            (SELECT t.discount_bps FROM crm_terms t WHERE t.org_id = d.org_id AND t.terms_id = d.offer_terms_id) AS offer_bps,
            (SELECT max(v.viewed_at) FROM crm_rooms m JOIN crm_share_views v ON v.org_id = m.org_id AND v.room_id = m.room_id
              WHERE m.org_id = d.org_id AND m.deal_id = d.deal_id) AS last_view,
            ${RISK_FLAGS.map((f) => `coalesce((${risk[f]}), false) AS "risk_${f}"`).join(', ')}
       FROM crm_deals d WHERE d.org_id = $1 AND $2::text IS NOT NULL AND ${where}`,
    params,
  );
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return rows.map((r) => {
    const roles = new Set(r.roles ?? []);
    const flags = RISK_FLAGS.filter((f) => r[`risk_${f}`] === true);
    const facts: Record<string, string | number | boolean | null> = {
      'deal.stage': r.stage,
      'deal.amountCents': Number(r.amount_cents),
      'deal.daysInStage': daysSince(r.stage_entered_at, now),
      'deal.daysSinceActivity': daysSince(r.last_activity_at, now),
      'deal.daysToClose': Math.round((Date.parse(`${r.close_date}T00:00:00Z`) - today) / DAY_MS),
      'deal.closeDatePushes': Number(r.close_date_pushes),
      'offer.discountBps': r.offer_bps === null ? null : Number(r.offer_bps),
      'room.daysSinceGuestView': r.last_view === null ? null : daysSince(r.last_view, now),
    };
    for (const role of ROLES) facts[`hasRole.${role}`] = roles.has(role);
    for (const f of RISK_FLAGS) facts[`risk.${f}`] = flags.includes(f);
    return { dealId: r.deal_id, status: r.status, ownerId: r.owner_id, delegateId: r.delegate_id, risk: flags, facts };
  });
}
