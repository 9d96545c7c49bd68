import { z } from 'zod';
import { method } from '../contract.js';
import { int32, isoDate, proofFields, text } from '../schema.js';
import { knownCurrency } from './crm/shared.js';

/**
 * Policies: the org's published rules by key, each publish a version (retire included). A policy may carry
 * settings the books read, applied at publish in the same transaction: books.materialityFloorCents (raising it
 * needs a second human, whoever calls) and books.promiseGraceDays; and the CRM deal desk's thresholds (crm.*). An agent's
 * publish always holds for a human.
 */

export const PolicyKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'must be 1 to 63 lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit')
  .describe('The policy’s key (one policy per key).');

const int = (min: number, max: number, description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(min, `must be >= ${min}`)
    .max(max, `must be at most ${max}`)
    .describe(description)
    .optional();

/** `crm.signOffNetCents.<currency>`: one key per currency (numbers only, as every setting). */
const SIGN_OFF_KEY = /^crm\.signOffNetCents\.(.*)$/;

const SETTINGS = {
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
  'crm.maxDiscountBps': int(0, 10_000, 'Deal desk: discounts above it hold for a signature (1500 = 15%).'),
  'crm.maxPaymentDays': int(0, 365, 'Deal desk: payment days above it hold.'),
  'crm.minTermMonths': int(1, 120, 'Deal desk: shorter terms hold.'),
  'crm.maxTermMonths': int(1, 120, 'Deal desk: longer terms hold.'),
  'crm.shareMaxDays': int(1, 365, 'Deal rooms live at most this many days.'),
  'crm.tokenMaxDays': int(1, 365, 'Guest links live at most this many days.'),
};

const SIGN_OFF_CENTS = z
  .number({ message: 'must be an integer' })
  .int('must be an integer number of minor units')
  .min(0, 'must be >= 0')
  .max(1e15, 'must be at most 1000000000000000');

export const Settings = z
  .strictObject(SETTINGS)
  // crm.signOffNetCents.AUD etc.: terms whose net is above it hold. The currency is in the key, so those keys are
  // checked here; any other key is an unknown field, as the strict object says.
  .catchall(z.unknown())
  .superRefine((settings, ctx) => {
    for (const [key, value] of Object.entries(settings)) {
      if (key in SETTINGS) continue;
      const m = SIGN_OFF_KEY.exec(key);
      if (!m) ctx.addIssue({ code: 'custom', path: [key], message: 'unknown field' });
      else if (!knownCurrency(m[1])) ctx.addIssue({ code: 'custom', path: [key], message: `unknown currency ${m[1].slice(0, 12)}` });
      else {
        const checked = SIGN_OFF_CENTS.safeParse(value);
        if (!checked.success) ctx.addIssue({ code: 'custom', path: [key], message: checked.error.issues[0].message });
      }
    }
  })
  .describe('Numbers the books and the CRM deal desk read, applied at publish.');

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
      'Publish a policy version by key, or retire it. settings apply to the books and the CRM deal desk at publish (so not with a future effectiveFrom). An agent’s publish holds for a human; raising the floor holds for a human other than the caller. Unchanged: changed:false.',
    params: z.strictObject({
      key: PolicyKey,
      title: text({ min: 1, max: 200, description: 'Required when new; default the current.' }).optional(),
      body: text({ min: 1, max: 100_000, description: 'Markdown; required when new; default the current.' }).optional(),
      effectiveFrom: isoDate('Default the current version’s, else today.').optional(),
      settings: Settings.describe(
        'Applied to the books and the CRM at publish; also crm.signOffNetCents.<ISO 4217 code> per currency (net above it holds).',
      ).optional(),
      retire: z.boolean().describe('Retire it (sets nothing).').optional(),
      baseVersion: int32(0, 'The version replaced (0: new); else CONFLICT.').optional(),
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
