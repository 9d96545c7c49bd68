import { z } from 'zod';
import { id, int32, text } from '../../schema.js';

/**
 * What every CRM area shares (docs/families/crm.md): money as integer minor units with an ISO 4217 code checked by
 * Intl, the one pipeline as code (stages, probabilities, forecast categories, rot days, like the books chart),
 * deal-contact roles, ids, and the shapes of terms, escalations and rooms that getDeal already returns.
 */

/** ISO 4217 codes this runtime knows (Intl); `Intl` also gives each one's minor digits. */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
export const knownCurrency = (v: string): boolean => /^[A-Z]{3}$/.test(v) && CURRENCIES.has(v);

/** Digits after the point of a currency (JPY 0, AUD 2, KWD 3). */
export const minorDigits = (currency: string): number =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

export const currency = z
  .string({ message: 'must be an ISO 4217 code such as AUD' })
  .superRefine((v, ctx) => {
    if (!knownCurrency(v)) ctx.addIssue({ code: 'custom', message: `unknown currency ${v.slice(0, 12)}` });
  })
  .describe('ISO 4217 code in capitals (AUD, USD, JPY).');

export const amountCents = (description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer number of minor units')
    .min(0, 'must be >= 0')
    .max(1e15, 'must be at most 1000000000000000')
    .describe(description);

/** A sum of money: minor units (cents for AUD, yen for JPY) and its currency. */
export const Money = z.strictObject({
  amountCents: amountCents('Minor units of the currency (cents; yen for JPY).'),
  currency,
});

export const STAGES = ['lead', 'qualified', 'proposal', 'negotiation', 'contract', 'won', 'lost'] as const;
export const OPEN_STAGES = ['lead', 'qualified', 'proposal', 'negotiation', 'contract'] as const;
export const FORECAST_CATEGORIES = ['pipeline', 'best_case', 'commit', 'closed', 'omitted'] as const;
export type Stage = (typeof STAGES)[number];
export type OpenStage = (typeof OPEN_STAGES)[number];
export type ForecastCategory = (typeof FORECAST_CATEGORIES)[number];

/** The pipeline, in order: probability (percent), forecast category, days in the stage before it rots (null: never). */
export const PIPELINE: Readonly<Record<Stage, { probability: number; forecast: ForecastCategory; rotDays: number | null }>> = {
  lead: { probability: 10, forecast: 'pipeline', rotDays: 14 },
  qualified: { probability: 25, forecast: 'pipeline', rotDays: 21 },
  proposal: { probability: 50, forecast: 'best_case', rotDays: 21 },
  negotiation: { probability: 75, forecast: 'commit', rotDays: 14 },
  contract: { probability: 90, forecast: 'commit', rotDays: 7 },
  won: { probability: 100, forecast: 'closed', rotDays: null },
  lost: { probability: 0, forecast: 'omitted', rotDays: null },
};

export const ROLES = ['champion', 'economic_buyer', 'decision_maker', 'technical', 'legal', 'procurement', 'user'] as const;
export type Role = (typeof ROLES)[number];

/** Risk flags: computed at read with the injected clock (getDeal, listDeals' risk filter, next best action). */
export const RISK_FLAGS = ['noActivity', 'stalled', 'overdue', 'closeDatePushed', 'singleThreaded', 'noPower', 'ghosted', 'roomUnviewed'] as const;
export type RiskFlag = (typeof RISK_FLAGS)[number];

export const accountId = (description: string) => id('acct', description);
export const contactId = (description: string) => id('ctc', description);
export const dealId = (description: string) => id('deal', description);
export const termsId = (description: string) => id('trm', description);
export const escalationId = (description: string) => id('desk', description);
export const roomId = (description: string) => id('room', description);
export const guestTokenId = (description: string) => id('gtk', description);
export const playbookId = (description: string) => id('pbk', description);
export const recommendationId = (description: string) => id('nbr', description);

export const changed = z.boolean().describe('false when it was already so (its event says noop).');
export const expectedVersion = int32(1, 'The version read; another: CONFLICT (read it again).').optional();
export const nextCursor = z.string().nullable().describe('Pass as cursor for the next page; null at the end.');
export const cursor = z.string().max(200, 'must be at most 200 characters').describe('The nextCursor of the previous page.').optional();
export const name = (description: string) => text({ min: 1, max: 200, description });

/** Terms (trm_): the commercial offer on a deal. */
export const Terms = z.strictObject({
  id: z.string().describe('trm_…'),
  dealId: z.string(),
  version: z.number().int(),
  status: z.enum(['offered', 'held', 'returned', 'superseded', 'accepted']),
  listCents: z.number().int(),
  discountBps: z.number().int().describe('10000 = 100%.'),
  netCents: z.number().int().describe('List less the discount, rounded half away from zero.'),
  currency: z.string(),
  paymentDays: z.number().int(),
  termMonths: z.number().int(),
  clauses: z.array(z.strictObject({ code: z.string(), text: z.string().nullable() })),
  breaches: z.array(z.string()).describe('Policy codes broken (discount, payment_days, term_months, clause, net); empty in policy.'),
  escalationId: z.string().nullable(),
  proposedBy: z.string(),
  proposedAt: z.string(),
});

/** An escalation (desk_) on the deal desk. */
export const Escalation = z.strictObject({
  id: z.string().describe('desk_…'),
  dealId: z.string(),
  kind: z.enum(['terms', 'next_step']),
  termsId: z.string().nullable(),
  version: z.number().int(),
  status: z.enum(['open', 'signed', 'returned', 'withdrawn']),
  breaches: z.array(z.string()),
  approvalId: z.string().nullable(),
  stepKind: z.enum(['send_contract', 'executive_contact', 'free_pilot', 'custom']).nullable(),
  openedBy: z.string(),
  openedAt: z.string(),
  resolvedAt: z.string().nullable(),
});

/** A deal room (room_) as its owners see it. */
export const Room = z.strictObject({
  id: z.string().describe('room_…'),
  dealId: z.string(),
  status: z.enum(['active', 'revoked', 'expired']).describe('expired: expiresAt has passed.'),
  show: z.strictObject({ offer: z.boolean(), nextSteps: z.boolean(), fileIds: z.array(z.string()), contacts: z.boolean() }),
  allowDownload: z.boolean(),
  expiresAt: z.string(),
  tokens: z.number().int().describe('Live guest tokens.'),
  lastViewedAt: z.string().nullable(),
});
