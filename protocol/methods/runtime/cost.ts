import { z } from 'zod';
import { method } from '../../contract.js';
import { text } from '../../schema.js';
import { instant, taskRef } from './shared.js';

/**
 * Agents report what their own model calls cost, so the org's one monthly AI budget and GET /cost.rollup see every
 * model spend, not only the server's asks. A reported cost is kept as given; else the built-in price table prices
 * it; else it is unpriced (0). Never refused for the budget: the answer says what is left.
 */

export const MAX_COST_ENTRIES = 200;
/** occurredAt at most this many days back. */
export const COST_MAX_AGE_DAYS = 35;
export const PRICE_SOURCES = ['reported', 'table', 'unpriced'] as const;

const tokens = (what: string) => z.number().int('must be an integer').min(0, 'must be >= 0').max(1e12, 'must be at most 1e12').default(0).describe(what);

const Entry = z.strictObject({
  provider: text({ min: 1, max: 50, description: 'Who served the call (openai, anthropic, …).' }),
  model: text({ min: 1, max: 100, description: 'The model that answered (gpt-4o-mini-2024-07-18).' }),
  operation: text({ min: 1, max: 50, description: 'What kind of call (chat, embeddings, …).' }).default('chat'),
  inputTokens: tokens('Input tokens not read from a cache.'),
  outputTokens: tokens('Output tokens.'),
  cacheReadTokens: tokens('Input tokens read from a prompt cache (priced at the input price when the table prices it).'),
  costMicroUsd: z
    .number()
    .int('must be an integer')
    .min(0, 'must be >= 0')
    .max(1e12, 'must be at most 1e12')
    .describe('What it cost, in millionths of a US dollar, if you know (priceSource reported).')
    .optional(),
  occurredAt: instant(`When the call was made: at most ${COST_MAX_AGE_DAYS} days back, not in the future.`),
  externalId: text({
    min: 1,
    max: 200,
    description: 'Your id of the call (the provider’s response id): the same one again from you is a duplicate, not counted twice.',
  }),
  taskId: taskRef.optional(),
});

export const cost = {
  report: method({
    summary: `Report 1–${MAX_COST_ENTRIES} model calls you made yourself: each counts towards the org's monthly AI budget and GET /cost.rollup (byActor). Never refused for budget: budget says what is left; once exhausted, AI methods answer RATE_LIMITED.`,
    params: z.strictObject({
      entries: z
        .array(Entry)
        .min(1, 'must have at least 1 entry')
        .max(MAX_COST_ENTRIES, `must be at most ${MAX_COST_ENTRIES} entries`)
        .describe('The calls, one each.'),
    }),
    result: z.strictObject({
      accepted: z.number().int().describe('Entries recorded now.'),
      duplicates: z.number().int().describe('Entries whose externalId you reported before (or twice here): not counted again.'),
      costMicroUsd: z.number().int().describe('What the accepted entries cost.'),
      bySource: z
        .strictObject({ reported: z.number().int(), table: z.number().int(), unpriced: z.number().int() })
        .describe('Accepted entries by price source.'),
      budget: z
        .strictObject({
          monthlyBudgetMicroUsd: z.number().int(),
          remainingMicroUsd: z.number().int(),
          exhausted: z.boolean().describe('true: the month’s budget is spent; AI methods answer RATE_LIMITED until resetsAt.'),
          resetsAt: z.string(),
        })
        .describe('The org’s one monthly AI budget after this report.'),
    }),
    events: ['cost.usage.report'],
    example: {
      entries: [
        {
          provider: 'openai',
          model: 'gpt-4o-mini',
          operation: 'chat',
          inputTokens: 1200,
          outputTokens: 300,
          occurredAt: '2026-11-30T08:00:00Z',
          externalId: 'chatcmpl-9xYz',
          taskId: 'task_0123456789abcdef',
        },
      ],
    },
  }),
};
