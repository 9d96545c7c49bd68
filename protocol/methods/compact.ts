import { z } from 'zod';
import { method } from '../contract.js';
import { int32, proofFields, text } from '../schema.js';

/**
 * Compacts: an agent's agreement with its sponsoring human (scope agt_…), or the org's, which every agent falls
 * back on (scope org): commitments both ways and limits. A human writes terms under the decision rights
 * (compact, *; default: humans and the sponsor); an agent's terms always hold for the sponsor. The agent
 * acknowledges each version on its own side.
 */

const commitments = (whose: string) =>
  z
    .array(text({ min: 1, max: 1_000, description: 'One commitment.' }))
    .max(50, 'must list at most 50 commitments')
    .describe(`What ${whose} commits to.`);

const limit = (description: string, max: number) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be >= 0')
    .max(max, `must be at most ${max}`)
    .nullable()
    .describe(description)
    .optional();

export const Limits = z.strictObject({
  monthlySpendCents: limit('Spend per calendar month, cents (null: none; omitted: the org’s).', 1e12),
  maxOpenHandoffs: limit('Handoffs offered and unanswered at once (null: none; omitted: the org’s).', 10_000),
  escalationResponseMinutes: limit('Minutes within which the sponsor answers escalations (null: none; omitted: the org’s).', 525_600),
});

export const Terms = z.strictObject({
  commitments: z.strictObject({ agent: commitments('the agent'), sponsor: commitments('the sponsor') }).describe('Commitments both ways.'),
  limits: Limits.describe('The agent’s limits.'),
});

export const Compact = z.strictObject({
  id: z.string().describe('cpt_…'),
  scope: z.string().describe('org, or the agent (agt_…).'),
  sponsorId: z.string().nullable().describe('The sponsoring human.'),
  terms: z.strictObject({
    commitments: z.strictObject({ agent: z.array(z.string()), sponsor: z.array(z.string()) }),
    limits: z.strictObject({
      monthlySpendCents: z.number().int().nullable().optional(),
      maxOpenHandoffs: z.number().int().nullable().optional(),
      escalationResponseMinutes: z.number().int().nullable().optional(),
    }),
  }),
  termsHash: z.string().describe('SHA-256 of the canonical JSON of the terms and sponsor.'),
  version: z.number().int(),
  acknowledgedVersion: z.number().int().nullable().describe('The version the agent acknowledged (agent compacts).'),
  acknowledgedAt: z.string().nullable(),
  updatedBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const compact = {
  upsert: method({
    hold: { completion: 'retry', when: "an agent writes terms (its sponsor decides), or the caller's decision rights do not cover them" },
    summary:
      'Write a compact’s terms (version + 1), or with acknowledgeVersion acknowledge your own (agent) compact’s current version. Terms run for a human who decides (rights compact, *: humans); an agent’s hold for the sponsor. Same terms: changed:false.',
    params: z.strictObject({
      scope: z
        .string()
        .max(64, 'must be at most 64 characters')
        .regex(/^(org|agt_[A-Za-z0-9]+)$/, 'must be org or an agent id (agt_…)')
        .describe('org (every agent’s default) or an agent.'),
      sponsorId: z
        .string()
        .max(64, 'must be at most 64 characters')
        .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id')
        .describe('The sponsoring human; default the compact’s, else the agent’s sponsor.')
        .optional(),
      terms: Terms.describe('The new terms.').optional(),
      baseVersion: int32(0, 'The version replaced (0: none); else CONFLICT.').optional(),
      acknowledgeVersion: int32(1, 'Acknowledge this (current) version of your own compact.').optional(),
      ...proofFields,
    }),
    result: z.strictObject({ compact: Compact, changed: z.boolean().describe('false when it was already so (its event says noop).') }),
    events: ['compact.terms.upsert'],
    example: {
      scope: 'agt_0123456789abcdef',
      terms: {
        commitments: { agent: ['Escalate anything outside my rights within the hour.'], sponsor: ['Answer escalations within a working day.'] },
        limits: { monthlySpendCents: 50_000, maxOpenHandoffs: 5, escalationResponseMinutes: 480 },
      },
    },
  }),
};
