import type { Queryable } from '../../db/types.js';

/*
 * The CRM policy (docs/families/crm.md, Policy): what terms an agent may offer without a human's signature, and how
 * long rooms and guest tokens may live. GET /policy shows it under crm; no crm_settings row: these defaults.
 */

export interface CrmPolicy {
  /** Discounts above it hold for a signature (1500 = 15%). */
  maxDiscountBps: number;
  maxPaymentDays: number;
  minTermMonths: number;
  maxTermMonths: number;
  /** Non-standard clauses always hold (none is allowed without a signature). */
  nonStandardClauses: false;
  /** Per currency: terms whose net is above it hold; a currency not listed has no limit. */
  signOffNetCents: Record<string, number>;
  shareMaxDays: number;
  tokenMaxDays: number;
}

export const DEFAULT_CRM_POLICY: CrmPolicy = {
  maxDiscountBps: 1500,
  maxPaymentDays: 30,
  minTermMonths: 12,
  maxTermMonths: 36,
  nonStandardClauses: false,
  signOffNetCents: {},
  shareMaxDays: 90,
  tokenMaxDays: 30,
};

/** The org's CRM policy (the defaults where nothing was published). */
export async function crmPolicy(q: Queryable, orgId: string): Promise<CrmPolicy> {
  const [row] = await q.query<{
    max_discount_bps: number;
    max_payment_days: number;
    min_term_months: number;
    max_term_months: number;
    sign_off_net_cents: Record<string, number | string>;
    share_max_days: number;
    token_max_days: number;
  }>(
    `SELECT max_discount_bps, max_payment_days, min_term_months, max_term_months, sign_off_net_cents, share_max_days, token_max_days
       FROM crm_settings WHERE org_id = $1`,
    [orgId],
  );
  if (!row) return { ...DEFAULT_CRM_POLICY, signOffNetCents: {} };
  return {
    maxDiscountBps: Number(row.max_discount_bps),
    maxPaymentDays: Number(row.max_payment_days),
    minTermMonths: Number(row.min_term_months),
    maxTermMonths: Number(row.max_term_months),
    nonStandardClauses: false,
    signOffNetCents: Object.fromEntries(Object.entries(row.sign_off_net_cents).map(([k, v]) => [k, Number(v)])),
    shareMaxDays: Number(row.share_max_days),
    tokenMaxDays: Number(row.token_max_days),
  };
}
