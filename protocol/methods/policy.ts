import { z } from 'zod';
import { method } from '../contract.js';
import { isoDate, proofFields, text } from '../schema.js';

/**
 * Policies: the org's published rules by key, each publish a version (retire included). A policy may carry
 * settings the books read, applied at publish in the same transaction: books.materialityFloorCents (raising it
 * needs a second human, whoever calls) and books.promiseGraceDays. An agent's publish always holds for a human.
 */

export const PolicyKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'must be 1 to 63 lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit')
  .describe('The policy’s key (one policy per key).');

export const Settings = z.strictObject({
  'books.materialityFloorCents': z
    .number({ message: 'must be an integer' })
    .int('must be an integer number of cents')
    .min(0, 'must be >= 0')
    .max(100_000_000_000, 'must be at most 100000000000')
    .describe('Matches and bills above it need a human.')
    .optional(),
  'books.promiseGraceDays': z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be >= 0')
    .max(90, 'must be at most 90')
    .describe('Days past a promised date before it is broken.')
    .optional(),
});

export const POLICY_STATUSES = ['published', 'retired'] as const;

export const PolicySummary = z.strictObject({
  id: z.string().describe('pol_…'),
  key: z.string(),
  title: z.string(),
  status: z.enum(POLICY_STATUSES),
  version: z.number().int(),
  effectiveFrom: z.string().describe('The date it applies from.'),
  settings: z.record(z.string(), z.number()).nullable().describe('The settings this version applied at publish, if any.'),
  contentHash: z.string(),
  publishedBy: z.string(),
  publishedAt: z.string(),
});

export const Policy = PolicySummary.extend({ body: z.string() });

export const policy = {
  publish: method({
    hold: { completion: 'retry', when: 'an agent publishes, or a caller raises the materiality floor (a human other than the caller decides)' },
    summary:
      'Publish a policy version by key, or retire it. settings apply to the books at publish (so not with a future effectiveFrom). An agent’s publish holds for a human; raising the floor holds for a human other than the caller. Unchanged: changed:false.',
    params: z.strictObject({
      key: PolicyKey,
      title: text({ min: 1, max: 200, description: 'Required when new; default the current.' }).optional(),
      body: text({ min: 1, max: 100_000, description: 'Markdown; required when new; default the current.' }).optional(),
      effectiveFrom: isoDate('Default the current version’s, else today.').optional(),
      settings: Settings.describe('Applied to the books at publish.').optional(),
      retire: z.boolean().describe('Retire it (sets nothing).').optional(),
      baseVersion: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .describe('The version replaced (0: new); else CONFLICT.')
        .optional(),
      ...proofFields,
    }),
    result: z.strictObject({ policy: Policy, changed: z.boolean().describe('false when it was already so (its event says noop).') }),
    events: ['policy.version.publish'],
    example: {
      key: 'books.floor',
      title: 'Materiality floor',
      body: 'Matches above $2,500 wait for a human.',
      settings: { 'books.materialityFloorCents': 250_000 },
    },
  }),
};
