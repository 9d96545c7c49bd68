import { z } from 'zod';
import { method } from '../contract.js';
import { proofFields, text } from '../schema.js';

/** Billing: the org's plan and seats. No payment provider in v1: this is the subscription's record and its limits. */

export const Billing = z.strictObject({
  plan: z.string(),
  cycle: z.enum(['monthly', 'annual']),
  seats: z.number().int().describe('Human seats.'),
  agentSeats: z.number().int(),
  contact: z.string().nullable().describe('Billing contact email.'),
  taxId: z.string().nullable(),
  version: z.number().int(),
  updatedAt: z.string(),
});

export const Usage = z.strictObject({
  seats: z.number().int().describe('Human seats in use: active humans with a live key plus pending (unexpired) invitations.'),
  agentSeats: z.number().int().describe('Agent seats in use: active agents with a live key.'),
  pendingInvitations: z.number().int().describe('Of seats, those held by pending invitations.'),
});

export const billing = {
  update: method({
    hold: { completion: 'retry', when: 'an agent calls it' },
    summary:
      'Set the subscription: plan (one the operator configured), cycle, seats, agentSeats, billing contact, tax id; fields left out keep their value (the first call must give plan, seats and agentSeats). Seats below what is in use -> BAD_REQUEST. Suspended, deactivated and directory-only members use no seat. From an agent it is a signature act (retry mode, action class billing.update).',
    params: z.strictObject({
      plan: z.string().min(1).max(64).describe('A plan name the operator configured (BILLING_PLANS).').optional(),
      cycle: z.enum(['monthly', 'annual']).describe('Billing cycle (default monthly).').optional(),
      seats: z.number().int().min(0).max(1_000_000).describe('Human seats; at least the seats in use.').optional(),
      agentSeats: z.number().int().min(0).max(1_000_000).describe('Agent seats; at least the agent seats in use.').optional(),
      contact: z
        .string()
        .max(254)
        .pipe(z.email({ message: 'must be an email address' }))
        .nullable()
        .describe('Billing contact email; null clears it.')
        .optional(),
      taxId: text({ max: 64, description: 'Tax or VAT id on invoices; null clears it.' }).nullable().optional(),
      ...proofFields,
    }),
    result: z.strictObject({
      billing: Billing,
      usage: Usage,
      changed: z.boolean().describe('false when the subscription was already so (its event says noop).'),
    }),
    events: ['billing.subscription.update'],
    example: { plan: 'team', cycle: 'annual', seats: 25, agentSeats: 10, contact: 'billing@example.com' },
  }),
};
