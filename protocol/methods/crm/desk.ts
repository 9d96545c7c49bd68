import { z } from 'zod';
import { method } from '../../contract.js';
import { HoldResult } from '../../frames.js';
import { limit, proofFields, text } from '../../schema.js';
import { amountCents, changed, cursor, dealId, Escalation, escalationId, nextCursor, Terms, termsId } from './shared.js';

/**
 * The deal desk (docs/families/crm.md, The deal desk): terms beyond the org's policy (GET /policy crm) and next steps
 * an agent stops itself at wait for a human's signature. The signature act is crm.signEscalation (class
 * crm.sign_escalation, subject crm.signature desk_…); proposeTerms, updateHeldTerms and holdNextStep record its hold
 * as they open the escalation and answer its approval block, so the caller files approval.request at once.
 */

/** Standard clauses by code; `non_standard` carries its text and always waits for a signature. */
export const CLAUSE_CODES = ['msa', 'dpa', 'sla', 'auto_renewal', 'price_cap', 'non_standard'] as const;
export const STEP_KINDS = ['send_contract', 'executive_contact', 'free_pilot', 'custom'] as const;
/** Policy codes terms can break, in this order. */
export const BREACHES = ['discount', 'payment_days', 'term_months', 'clause', 'net'] as const;

const Clause = z
  .strictObject({
    code: z.enum(CLAUSE_CODES).describe(`A standard clause (${CLAUSE_CODES.filter((c) => c !== 'non_standard').join(', ')}) or non_standard.`),
    text: text({ min: 1, max: 2000, description: 'The clause’s wording: required for non_standard, not allowed for a standard clause.' }).optional(),
  })
  .describe('A clause of the terms.');

const termFields = {
  listCents: amountCents('List price in minor units of the deal’s currency (>= 0).'),
  discountBps: z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be >= 0')
    .max(10000, 'must be at most 10000')
    .describe('Discount in basis points, 0..10000 (1500 = 15%).'),
  paymentDays: z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be >= 0')
    .max(365, 'must be at most 365')
    .describe('Days to pay.'),
  termMonths: z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(120, 'must be at most 120')
    .describe('Contract term in months.'),
  clauses: z.array(Clause).max(20, 'must be at most 20 clauses').describe('Clauses (default none).'),
  rationale: text({ max: 2000, description: 'Why these terms (kept on the terms, never in an event).' }),
};

/** The approval block of signEscalation's hold, recorded as the escalation opened: file it with approval.request. */
const Approval = HoldResult.shape.approval
  .nullable()
  .describe(
    'Held: the approval to file (approval.request with these fields); a human approves it, then crm.signEscalation with the approvalId. null when offered.',
  );
const message = z.string().describe('What the server did and what to do next; relay it verbatim to the user.');

const Decision = z.strictObject({
  terms: Terms.describe('The new terms: offered (in policy) or held (beyond it).'),
  escalation: Escalation.nullable().describe('The open escalation the held terms wait in; null when offered.'),
  approval: Approval,
  message,
});

export const ApprovalState = z
  .enum(['not_filed', 'pending', 'approved', 'rejected', 'expired', 'withdrawn', 'used'])
  .describe('The approval filed for the escalation’s current hold: not_filed until approval.request; used once signed with it.');

export const DeskItem = Escalation.extend({
  approvalState: ApprovalState,
  payloadHash: z.string().nullable().describe('The hold’s payloadHash (what approval.request files).'),
  terms: Terms.nullable().describe('kind terms: the terms it is about.'),
  step: z
    .strictObject({ kind: z.enum(STEP_KINDS), title: z.string(), reason: z.string() })
    .nullable()
    .describe('kind next_step: what the agent stopped at.'),
  note: z.string().nullable().describe('The note it was returned or withdrawn with.'),
  resolvedBy: z.string().nullable(),
});

export const crmDesk = {
  proposeTerms: method({
    summary:
      'Propose terms on an open deal, replacing its current terms; net = list less the discount, rounded half away from zero. In policy (GET /policy crm): offered. Beyond it: held, an escalation opened and its approval block returned: file approval.request with it, then a human approves and crm.signEscalation offers them.',
    params: z.strictObject({
      dealId: dealId('The deal (open).'),
      ...termFields,
      clauses: termFields.clauses.default([]),
      rationale: termFields.rationale.optional(),
    }),
    result: Decision,
    events: ['crm.terms.propose'],
    example: { dealId: 'deal_0123456789abcdef', listCents: 10_000_000, discountBps: 1000, paymentDays: 30, termMonths: 12 },
  }),
  updateHeldTerms: method({
    summary:
      'Revise held or returned terms as a new version: in policy it is offered (the escalation withdrawn); beyond it a new escalation and approval block (proofs filed for the old version no longer apply: CONFLICT). The same fields again: changed:false.',
    params: z.strictObject({
      termsId: termsId('The held or returned terms.'),
      listCents: termFields.listCents.optional(),
      discountBps: termFields.discountBps.optional(),
      paymentDays: termFields.paymentDays.optional(),
      termMonths: termFields.termMonths.optional(),
      clauses: termFields.clauses.optional(),
      rationale: termFields.rationale.optional(),
    }),
    result: Decision.extend({ changed }),
    events: ['crm.terms.revise'],
    example: { termsId: 'trm_0123456789abcdef', discountBps: 1500 },
  }),
  holdNextStep: method({
    summary:
      'Stop yourself at a next step that needs a human (send the contract, contact an executive, a free pilot, or custom): an escalation opens with its approval block; file approval.request with it and wait for a human, then crm.signEscalation.',
    params: z.strictObject({
      dealId: dealId('The deal (open).'),
      kind: z.enum(STEP_KINDS).describe(`One of ${STEP_KINDS.join(', ')}.`),
      title: text({ min: 1, max: 200, description: 'The step, in a few words.' }),
      reason: text({ min: 1, max: 2000, description: 'Why it needs a human.' }),
    }),
    result: z.strictObject({ escalation: Escalation, approval: HoldResult.shape.approval, message }),
    events: ['crm.next_step.hold'],
    example: { dealId: 'deal_0123456789abcdef', kind: 'send_contract', title: 'Send the MSA', reason: 'Their legal asked for the contract today.' },
  }),
  signEscalation: method({
    hold: { completion: 'retry' },
    summary:
      'The signature act of the deal desk (crm.sign_escalation): with the approved approvalId (or signatureToken) held terms are offered or the next step approved. Without proof, whoever calls: the hold frame. Not open: CONFLICT.',
    params: z.strictObject({ escalationId: escalationId('The open escalation.'), ...proofFields }),
    result: z.strictObject({
      escalation: Escalation,
      terms: Terms.nullable().describe('kind terms: the terms now offered.'),
    }),
    events: ['crm.escalation.sign'],
    example: { escalationId: 'desk_0123456789abcdef', approvalId: 'apr_0123456789abcdef' },
  }),
  returnEscalation: method({
    summary:
      'Send an open escalation back (a reviewer: returned) or withdraw it (whoever opened it: withdrawn); grants nothing. Held terms become returned (revise them with crm.updateHeldTerms). Already returned or withdrawn: changed:false.',
    params: z.strictObject({
      escalationId: escalationId('The open escalation.'),
      note: text({ max: 2000, description: 'Why (kept on the escalation, never in an event).' }).optional(),
    }),
    result: z.strictObject({ escalation: Escalation, changed }),
    events: ['crm.escalation.return'],
    example: { escalationId: 'desk_0123456789abcdef', note: 'Keep the discount at 20% or below.' },
  }),
  listEscalations: method({
    summary: 'Escalations oldest first (default open), by kind or deal, with their breaches, terms or step, and the state of the approval filed for them.',
    params: z.strictObject({
      status: z.enum(['open', 'signed', 'returned', 'withdrawn', 'all']).default('open').describe('Default open.'),
      kind: z.enum(['terms', 'next_step']).optional().describe('Only this kind.'),
      dealId: dealId('Only this deal’s.').optional(),
      cursor,
      limit: limit(500, 50),
    }),
    result: z.strictObject({ escalations: z.array(DeskItem), nextCursor }),
    example: { status: 'open' },
  }),
};
