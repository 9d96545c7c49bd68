import { z } from 'zod';
import { method } from '../../contract.js';
import { isoDate, limit, text } from '../../schema.js';
import { memberId } from '../member.js';
import {
  accountId,
  amountCents,
  changed,
  currency,
  cursor,
  dealId,
  Escalation,
  expectedVersion,
  FORECAST_CATEGORIES,
  name,
  nextCursor,
  OPEN_STAGES,
  RISK_FLAGS,
  ROLES,
  Room,
  STAGES,
  Terms,
} from './shared.js';

/**
 * Deals on the one pipeline (docs/families/crm.md): a history row per change of stage, amount or close date, pushed
 * close dates counted, rot computed at read with the server's clock, per-currency totals (never converted).
 */

export const Deal = z.strictObject({
  id: z.string().describe('deal_…'),
  name: z.string(),
  accountId: z.string(),
  ownerId: z.string().describe('Has the credit (targets count it).'),
  delegateId: z.string().nullable().describe('Works the deal for the owner.'),
  stage: z.enum(STAGES),
  status: z.enum(['open', 'won', 'lost', 'deleted']),
  amountCents: z.number().int(),
  currency: z.string(),
  closeDate: z.string(),
  probability: z.number().int().describe("The stage's probability, percent."),
  weightedCents: z.number().int().describe('amountCents × probability, rounded half away from zero.'),
  forecastCategory: z.enum(FORECAST_CATEGORIES).describe('Set on the deal, else the stage’s.'),
  nextStep: z.string().nullable(),
  offerTermsId: z.string().nullable().describe('The terms in force (trm_…), offered or accepted.'),
  lostReason: z.string().nullable(),
  closedOn: z.string().nullable(),
  closeDatePushes: z.number().int().describe('Times the close date moved later.'),
  daysInStage: z.number().int(),
  rotting: z.boolean().describe('Open and in its stage longer than the stage’s rot days.'),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const HistoryRow = z.strictObject({
  id: z.string().describe('dsh_…'),
  stage: z.enum(STAGES),
  amountCents: z.number().int(),
  currency: z.string(),
  closeDate: z.string(),
  changed: z.array(z.enum(['stage', 'amount', 'closeDate'])),
  push: z.boolean().describe('The close date moved later.'),
  by: z.string(),
  at: z.string(),
});

const Totals = z
  .array(
    z.strictObject({
      currency: z.string(),
      count: z.number().int(),
      amountCents: z.number().int(),
      weightedCents: z.number().int().describe('Σ amount × stage probability.'),
    }),
  )
  .describe('Per currency over every deal the filters match (not only this page); never converted.');

const closeFields = {
  name: name('The deal’s name.'),
  amountCents: amountCents('Expected value in minor units (>= 0).'),
  closeDate: isoDate('Expected close date.'),
};
const dealOnly = z.strictObject({ dealId: dealId('The deal.') });

export const crmDeals = {
  createDeal: method({
    summary: 'Open a deal on an account (never deduplicated: possibleDuplicates lists open deals of the same account with similar names).',
    params: z.strictObject({
      ...closeFields,
      accountId: accountId('The account.'),
      currency,
      stage: z.enum(OPEN_STAGES).default('lead').describe('An open stage (default lead).'),
      ownerId: memberId('Who has the credit (default the caller).').optional(),
      nextStep: text({ max: 500, description: 'What happens next.' }).optional(),
    }),
    result: z.strictObject({ deal: Deal, possibleDuplicates: z.array(z.strictObject({ dealId: z.string(), name: z.string() })) }),
    events: ['crm.deal.create'],
    example: { name: 'Acme renewal 2026', accountId: 'acct_0123456789abcdef', amountCents: 4_800_000, currency: 'AUD', closeDate: '2026-09-30' },
  }),
  updateDeal: method({
    summary:
      'Change name, amount, close date (a later one counts as a push), owner, forecast category or next step; a history row records amount and close-date changes. stage: use crm.moveStage. Nothing new: changed:false.',
    params: z.strictObject({
      dealId: dealId('The deal.'),
      name: closeFields.name.optional(),
      amountCents: closeFields.amountCents.optional(),
      closeDate: closeFields.closeDate.optional(),
      ownerId: memberId('New owner (the credit moves).').optional(),
      forecastCategory: z.enum(FORECAST_CATEGORIES).nullable().describe('null: the stage’s.').optional(),
      nextStep: text({ max: 500, description: 'What happens next; empty clears it.' }).optional(),
      stage: z.unknown().describe('Not here: crm.moveStage.').optional(),
      expectedVersion,
    }),
    result: z.strictObject({ deal: Deal, changed }),
    events: ['crm.deal.update'],
    example: { dealId: 'deal_0123456789abcdef', amountCents: 5_200_000, closeDate: '2026-10-31' },
  }),
  moveStage: method({
    summary: 'Move an open deal to another open stage (skipping or going back is allowed), or reopen a won or lost deal. Won/lost: crm.closeDeal.',
    params: z.strictObject({ dealId: dealId('The deal.'), stage: z.enum(OPEN_STAGES).describe(`One of ${OPEN_STAGES.join(', ')}.`), expectedVersion }),
    result: z.strictObject({ deal: Deal, changed }),
    events: ['crm.deal.move'],
    example: { dealId: 'deal_0123456789abcdef', stage: 'proposal' },
  }),
  closeDeal: method({
    summary:
      'Close a deal won or lost (lostReason required for lost); amountCents defaults to the offered net. An open escalation, or closed already the other way: CONFLICT. The same outcome again: changed:false.',
    params: z.strictObject({
      dealId: dealId('The deal.'),
      outcome: z.enum(['won', 'lost']).describe('won or lost.'),
      lostReason: text({ min: 1, max: 500, description: 'Why it was lost (required when lost).' }).optional(),
      closedOn: isoDate('The day it closed (default today).').optional(),
      amountCents: amountCents('The final value (default the offer’s net, else the deal’s amount).').optional(),
      expectedVersion,
    }),
    result: z.strictObject({ deal: Deal, changed }),
    events: ['crm.deal.close'],
    example: { dealId: 'deal_0123456789abcdef', outcome: 'won' },
  }),
  delegate: method({
    summary: 'Who works the deal (a member, or null: the owner again); the owner keeps the credit.',
    params: z.strictObject({ dealId: dealId('The deal.'), to: memberId('The member who works it.').nullable().describe('null: nobody but the owner.') }),
    result: z.strictObject({ deal: Deal, changed }),
    events: ['crm.deal.delegate'],
    example: { dealId: 'deal_0123456789abcdef', to: 'agt_0123456789abcdef' },
  }),
  deleteDeal: method({
    summary: 'Delete a deal that is not won (its rooms are revoked, its history kept). Won: CONFLICT (reopen it first). Deleted already: changed:false.',
    params: dealOnly,
    result: z.strictObject({ deal: Deal, changed, roomsRevoked: z.number().int() }),
    events: ['crm.deal.delete'],
    example: { dealId: 'deal_0123456789abcdef' },
  }),
  getDeal: method({
    summary: 'A deal with its account, contact roles, offer, open escalation, stage history, rooms, risk flags and follow-up tasks.',
    params: dealOnly,
    result: z.strictObject({
      deal: Deal,
      account: z.strictObject({ id: z.string(), name: z.string(), partyId: z.string() }),
      roles: z.array(z.strictObject({ contactId: z.string(), personId: z.string(), name: z.string(), role: z.enum(ROLES) })),
      offer: Terms.nullable().describe('The terms in force (offered or accepted); held terms are in escalation.'),
      escalation: Escalation.nullable().describe('The open escalation, if any (closeDeal waits for it).'),
      history: z.array(HistoryRow).describe('Oldest first.'),
      rooms: z.array(Room),
      risk: z.array(z.enum(RISK_FLAGS)).describe('Flags at the server’s clock.'),
      tasks: z.array(z.strictObject({ taskId: z.string(), recommendationId: z.string().nullable(), createdAt: z.string() })),
    }),
    example: { dealId: 'deal_0123456789abcdef' },
  }),
  listDeals: method({
    summary: 'Deals by close date, filtered by stage, status, owner, account, close range, risk flag or name words (q); with per-currency (weighted) totals.',
    params: z.strictObject({
      stage: z.enum(STAGES).optional().describe('Only this stage.'),
      status: z.enum(['open', 'won', 'lost', 'deleted', 'all']).default('open').describe('Default open; all: every status but deleted.'),
      ownerId: memberId('Only this owner’s deals.').optional(),
      accountId: accountId('Only this account’s deals.').optional(),
      closeFrom: isoDate('Close date on or after.').optional(),
      closeTo: isoDate('Close date on or before.').optional(),
      risk: z.enum(RISK_FLAGS).optional().describe('Only deals with this risk flag now.'),
      q: text({ min: 1, max: 256, description: 'Words of the deal’s name.' }).optional(),
      cursor,
      limit: limit(500, 50),
    }),
    result: z.strictObject({ deals: z.array(Deal), totals: Totals, nextCursor }),
    example: { status: 'open', ownerId: 'usr_0123456789abcdef', closeTo: '2026-12-31' },
  }),
};
