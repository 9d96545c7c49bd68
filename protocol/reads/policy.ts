import { z } from 'zod';
import { read } from '../contract.js';
import { Compact } from '../methods/compact.js';
import { DecisionRight } from '../methods/governance.js';
import { Policy, PolicyKey, PolicySummary } from '../methods/policy.js';

/** The dated rules of the books (domain/books/rates/rules.ts holds their rows). */
export const RULE_NAMES = ['super.guaranteeRate', 'super.maxContributionBase', 'assets.instantWriteOffThreshold', 'payg.schedule'] as const;

const PolicyVersion = z.strictObject({
  version: z.number().int(),
  title: z.string(),
  status: z.enum(['published', 'retired']),
  effectiveFrom: z.string(),
  settings: z.record(z.string(), z.number()).nullable(),
  contentHash: z.string(),
  approvalId: z.string().nullable().describe('The approval of the human who decided, when the publisher did not.'),
  publishedBy: z.string(),
  publishedAt: z.string(),
});

export const policyReadContracts = {
  policy: read({
    summary:
      "The rules in force: the books' policy (materiality floor: matches above it are held, bills above it need a human signature; GST and superannuation rates, the promise grace days, the tax-invoice threshold and the period lock date set by the last lodged BAS), the decision rights, the published policies (without bodies) and the compacts (the org's, and the calling agent's or agentId's). With key: that policy's body and version history.",
    query: z.strictObject({
      key: PolicyKey.describe('Also return this policy with its body and version history (unknown: NOT_FOUND).').optional(),
      agentId: z
        .string()
        .max(64, 'must be at most 64 characters')
        .regex(/^agt_[A-Za-z0-9]+$/, 'must be an agent id (agt_…)')
        .describe("Show this agent's compact (default: the calling agent's own).")
        .optional(),
    }),
    result: z.strictObject({
      books: z.strictObject({
        materialityFloorCents: z.number().int().describe('"Above the floor" means strictly greater than this.'),
        lockDate: z.string().nullable().describe('Journals dated on or before it are refused; null when nothing is locked.'),
        gstRateBasisPoints: z.number().int().describe('1000 = 10%.'),
        superGuaranteeBasisPoints: z
          .number()
          .int()
          .describe(
            'In force today: 1200 = 12% of ordinary time earnings (11.5% in 2024-25, 12% from 1 July 2025), up to the maximum contribution base (rules). Each pay run uses the rate of its pay date.',
          ),
        promiseGraceDays: z.number().int(),
        taxInvoiceThresholdCents: z.number().int().describe('Purchases above it need a tax invoice to claim GST credits.'),
        state: z
          .enum(['ACT', 'NSW', 'NT', 'QLD', 'SA', 'TAS', 'VIC', 'WA'])
          .describe(
            "The org's state (default NSW; an operator sets it): its public holidays and the national ones are not business days for Payday Super due dates.",
          ),
        paygSchedules: z
          .array(
            z.strictObject({
              name: z.string().describe('How payslips name it: "ATO Schedule 1 2024-25 (from 2024-07-01)".'),
              year: z.string().describe('The income year it was issued for.'),
              from: z.string().describe('First pay date it applies to.'),
              to: z.string().describe('Last pay date it applies to.'),
              source: z.string().describe('The ATO page the coefficients were taken from.'),
              published: z.string().describe("The ATO's publication date."),
              samples: z.number().int().describe('ATO sample rows it was checked against when loaded.'),
            }),
          )
          .describe(
            'PAYG withholding schedules loaded, oldest first; a pay run dated outside all of them is refused (load the next with npm run cli -- payg-import).',
          ),
        rules: z
          .array(
            z.strictObject({
              rule: z.enum(RULE_NAMES).describe('super.guaranteeRate, super.maxContributionBase, assets.instantWriteOffThreshold or payg.schedule.'),
              from: z.string().describe('First date it applies to (a pay date; for the write-off, the day an asset is first used or installed).'),
              to: z.string().nullable().describe('Last date, or null while no end is set.'),
              value: z.union([z.number().int(), z.string()]).describe("In unit: basis points (1200 = 12%), cents, or the schedule's name."),
              unit: z.enum(['basisPoints', 'cents', 'schedule']),
              per: z
                .enum(['QUARTER', 'FINANCIAL_YEAR', 'ASSET'])
                .nullable()
                .describe("What the value counts over: a quarter's or a financial year's earnings, one asset's cost; null when not a limit."),
              law: z.string().describe('The Act or instrument and provision, or where it was announced when it is not law.'),
              source: z.string().describe('Where the figure was read (https).'),
              status: z
                .enum(['LAW', 'NOT_LAW'])
                .describe('Only LAW rows are applied; NOT_LAW rows (announced, not enacted) are listed so nobody mistakes them for law.'),
            }),
          )
          .describe('Every dated rule the books apply or report, by rule then date, each with its law and source (docs/books.md "Rules in force by date").'),
      }),
      crm: z
        .strictObject({
          maxDiscountBps: z.number().int().describe('Terms with a larger discount wait for a human signature (1500 = 15%).'),
          maxPaymentDays: z.number().int().describe('Longer payment terms wait for a signature.'),
          minTermMonths: z.number().int(),
          maxTermMonths: z.number().int().describe('A term outside minTermMonths..maxTermMonths waits for a signature.'),
          nonStandardClauses: z.literal(false).describe('A non-standard clause always waits for a signature.'),
          signOffNetCents: z
            .record(z.string(), z.number().int())
            .describe('Per currency: terms with a larger net wait for a signature; a currency absent has no limit.'),
          shareMaxDays: z.number().int().describe('Longest life of a deal room.'),
          tokenMaxDays: z.number().int().describe('Longest life of a guest token.'),
        })
        .describe('The CRM deal desk policy (crm.proposeTerms holds terms beyond it for a human).'),
      decisionRights: z.strictObject({
        declared: z.boolean().describe('Whether decision rights are declared (governance.set_decision_rights).'),
        rights: z.array(DecisionRight),
      }),
      policies: z.array(PolicySummary).describe('Every policy by key, published or retired, without bodies.'),
      compacts: z.strictObject({
        org: Compact.nullable().describe('The org compact every agent falls back on.'),
        agent: Compact.nullable().describe("The calling agent's own compact, or agentId's."),
      }),
      policy: Policy.extend({ history: z.array(PolicyVersion).describe('Every version, newest first, without bodies.') })
        .optional()
        .describe('With key: that policy, its body and history.'),
    }),
    example: {},
  }),
};
