import { z } from 'zod';
import { method } from '../../contract.js';
import { amountCents, changed, currency } from './shared.js';

/**
 * Targets (quotas): per owner or the whole org, per period and currency; nobody sets their own. Attainment counts
 * won deals closed in the period in the target's currency; other currencies are counted, never priced (no FX).
 */

export const period = z
  .string()
  .regex(/^[0-9]{4}(-Q[1-4]|-(0[1-9]|1[0-2]))?$/, 'must be a year (2026), a quarter (2026-Q3) or a month (2026-07)')
  .refine((p) => p >= '1900', 'must be from 1900 on')
  .describe('A year (2026), quarter (2026-Q3) or month (2026-07).');

const ownerRef = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(/^((usr|agt)_[A-Za-z0-9]+|org)$/, 'must be a member id (usr_…, agt_…) or org')
  .describe('A member (usr_…, agt_…) or org (the whole org’s target).');

export const Target = z.strictObject({
  id: z.string().describe('tgt_…'),
  ownerId: z.string().describe('A member id, or org.'),
  period: z.string(),
  currency: z.string(),
  amountCents: z.number().int(),
  version: z.number().int(),
  setBy: z.string(),
  setAt: z.string(),
});

const Attainment = z.strictObject({
  target: Target,
  wonCents: z.number().int().describe('Won deals closed in the period, in the target’s currency.'),
  attainmentBps: z.number().int().describe('won / target in basis points (10000 = 100%); 0 for a zero target.'),
  openCents: z.number().int().describe('Open deals closing in the period.'),
  weightedCents: z.number().int().describe('Open × stage probability.'),
  commitCents: z.number().int().describe('Open deals forecast commit.'),
  bestCaseCents: z.number().int().describe('Open deals forecast best_case or commit.'),
  gapCents: z.number().int().describe('target − won, at least 0.'),
});

export const crmTargets = {
  setTarget: method({
    summary: 'Set the target of a member (or org) for a period and currency; setting one’s own is FORBIDDEN_SCOPE. The same amount again: changed:false.',
    params: z.strictObject({ ownerId: ownerRef, period, currency, amountCents: amountCents('The target in minor units.') }),
    result: z.strictObject({ target: Target, changed }),
    events: ['crm.target.set'],
    example: { ownerId: 'usr_0123456789abcdef', period: '2026-Q3', currency: 'AUD', amountCents: 10_000_000 },
  }),
  getTargets: method({
    summary:
      'Targets of a period (all, or one owner’s) with won, attainment, open, weighted, commit, best case and gap; deals in currencies without a target are counted in uncounted, not priced.',
    params: z.strictObject({ period, ownerId: ownerRef.optional() }),
    result: z.strictObject({
      period: z.string(),
      from: z.string().describe('First day of the period.'),
      to: z.string().describe('Last day of the period.'),
      targets: z.array(Attainment),
      uncounted: z
        .array(z.strictObject({ ownerId: z.string(), currency: z.string(), won: z.number().int(), open: z.number().int() }))
        .describe('Deals of the period in a currency the owner (or org) has no target in: counts only.'),
    }),
    example: { period: '2026-Q3' },
  }),
};
