import { z } from 'zod';
import { read } from '../contract.js';
import { limit, text } from '../schema.js';
import { Decision, DECISION_STATUSES, decisionId, Signature } from '../methods/decision.js';

/** One line of the decision log. */
export const DecisionSummary = Decision.pick({
  id: true,
  number: true,
  title: true,
  area: true,
  status: true,
  version: true,
  contentHash: true,
  driver: true,
  reviewOn: true,
  supersedes: true,
  supersededBy: true,
  createdAt: true,
  updatedAt: true,
});

export const Requirements = z.strictObject({
  right: z.string().nullable().describe('The area of the declared right that governs it; null: none matched (humans decide).'),
  decider: z.strictObject({
    decidedBy: z.string(),
    escalateTo: z.string().nullable(),
    humans: z.array(z.string()).nullable().describe('The active humans who decide it (approve a hold); null: any human.'),
  }),
  agree: z.array(z.string()).describe('The right’s agree selectors.'),
  missingSigners: z.array(z.string()).describe('agree selectors with no signature on the current version (owner shown as the driver’s id).'),
  openAdjustments: z.number().int(),
  ready: z.boolean().describe('Open, every agree signature in, no open adjustment: adopt may run for a caller who decides.'),
});

export const decisionReadContracts = {
  'decision.list': read({
    summary:
      'The decision log, newest first: filter by status (or open), area, full-text q (title, decision, context, consequences), awaiting=me (open decisions waiting on your signature, or ready for you to decide). With id: the full record, its signatures, versions and requirements {decider, missingSigners}.',
    query: z.strictObject({
      id: decisionId('One decision: the full record.').optional(),
      status: z
        .enum([...DECISION_STATUSES, 'open'])
        .describe('Only this status; open is proposed or adjustment_requested.')
        .optional(),
      area: text({ min: 1, max: 100, description: 'Only this area (exactly).' }).optional(),
      q: text({ max: 256, description: 'Search words (websearch syntax); ranked, at most 100 per page.' }).optional(),
      awaiting: z.enum(['me']).describe('me: open decisions waiting on the caller.').optional(),
      cursor: text({ max: 200, description: 'The nextCursor of the previous page.' }).optional(),
      limit: limit(500, 50),
    }),
    result: z.strictObject({
      decisions: z.array(DecisionSummary).optional().describe('Without id: this page.'),
      nextCursor: z.string().nullable().optional(),
      decision: Decision.optional().describe('With id: the record.'),
      signatures: z.array(Signature).optional().describe('With id: every signature, newest version first.'),
      versions: z
        .array(z.strictObject({ version: z.number().int(), contentHash: z.string(), proposedBy: z.string(), proposedAt: z.string() }))
        .optional()
        .describe('With id: every version, oldest first.'),
      requirements: Requirements.optional().describe('With id: what adoption of the current version needs.'),
    }),
    example: { status: 'open', limit: 20 },
  }),
};
