import { badRequest } from '../../protocol/errors.js';
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
export async function crmPolicy(q: Queryable, orgId: string, opts: { forUpdate?: boolean } = {}): Promise<CrmPolicy> {
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
       FROM crm_settings WHERE org_id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`,
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

/** policy.publish's settings keys for each number of the policy (crm.signOffNetCents.<currency> apart). */
const KEYS = ['maxDiscountBps', 'maxPaymentDays', 'minTermMonths', 'maxTermMonths', 'shareMaxDays', 'tokenMaxDays'] as const;
const SIGN_OFF = 'crm.signOffNetCents.';

export type CrmMove = { from: number | null; to: number };

/**
 * What publishing these settings (policy.publish's, keys `crm.*`) would change: the moves by key and the policy after
 * them, the row locked until commit. A term range left inverted by the merge is BAD_REQUEST naming the key published.
 */
export async function crmPolicyMoves(
  q: Queryable,
  orgId: string,
  settings: Readonly<Record<string, unknown>>,
): Promise<{ moves: Record<string, CrmMove>; next: CrmPolicy }> {
  // Two publishes (of different policy keys) must not both merge into the defaults when no row exists yet.
  await q.query(`SELECT pg_advisory_xact_lock(hashtext('crm_settings:' || $1))`, [orgId]);
  const current = await crmPolicy(q, orgId, { forUpdate: true });
  const next: CrmPolicy = { ...current, signOffNetCents: { ...current.signOffNetCents } };
  const moves: Record<string, CrmMove> = {};
  for (const k of KEYS) {
    const to = settings[`crm.${k}`];
    if (typeof to !== 'number' || to === current[k]) continue;
    next[k] = to;
    moves[`crm.${k}`] = { from: current[k], to };
  }
  for (const [key, to] of Object.entries(settings)) {
    if (!key.startsWith(SIGN_OFF) || typeof to !== 'number') continue;
    const cur = key.slice(SIGN_OFF.length);
    if (current.signOffNetCents[cur] === to) continue;
    next.signOffNetCents[cur] = to;
    moves[key] = { from: current.signOffNetCents[cur] ?? null, to };
  }
  if (next.minTermMonths > next.maxTermMonths) {
    const field = settings['crm.minTermMonths'] !== undefined ? 'minTermMonths' : 'maxTermMonths';
    throw badRequest(
      `settings.crm.${field}`,
      `the term range would be ${next.minTermMonths} to ${next.maxTermMonths} months (minTermMonths above maxTermMonths): publish both so that min <= max`,
    );
  }
  return { moves, next };
}

/** Store the org's CRM policy (policy.publish, in its transaction). */
export async function setCrmPolicy(q: Queryable, orgId: string, p: CrmPolicy, now: string): Promise<void> {
  await q.query(
    `INSERT INTO crm_settings (org_id, max_discount_bps, max_payment_days, min_term_months, max_term_months, sign_off_net_cents, share_max_days, token_max_days, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
     ON CONFLICT (org_id) DO UPDATE SET max_discount_bps = $2, max_payment_days = $3, min_term_months = $4, max_term_months = $5, sign_off_net_cents = $6::jsonb,
       share_max_days = $7, token_max_days = $8, updated_at = $9`,
    [orgId, p.maxDiscountBps, p.maxPaymentDays, p.minTermMonths, p.maxTermMonths, JSON.stringify(p.signOffNetCents), p.shareMaxDays, p.tokenMaxDays, now],
  );
}
