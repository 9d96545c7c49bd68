import { z } from 'zod';
import { method } from '../../contract.js';
import { text } from '../../schema.js';

/*
 * books.ask: a natural-language question over the org's books, answered by the AI gateway for analysis.
 * The answer is a structured object the gateway checks before returning it (ai-gateway/grounding.ts): every
 * claim cites what the typed reads returned in this call, and every number is recomputed from the cited
 * records. The same shapes validate what a model returns (the Draft).
 */

export const CitationSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('record'),
    id: z.string().min(1).max(64).describe('A record id a read returned: inv_…, bill_…, jnl_…, con_…, fl_…, ast_…, …'),
  }),
  z.strictObject({ kind: z.literal('account'), code: z.string().min(1).max(10).describe('A chart account code from books.accounts or a report line.') }),
  z.strictObject({ kind: z.literal('event'), seq: z.number().int().min(1).describe('The seq of a ledger event ledger.events returned.') }),
]);

export const FigureSchema = z
  .strictObject({
    value: z.number().int().describe('The number the claim states: cents for money, else a count or days.'),
    unit: z.enum(['cents', 'count', 'days']),
    op: z
      .enum(['value', 'sum', 'min', 'max', 'count'])
      .describe('How value is recomputed from the cited records: value (one citation), sum, min, max of field; count of citations.'),
    field: z
      .string()
      .min(1)
      .max(100)
      .describe('Dot path of the number in each cited record, e.g. amountDueCents or totals.grossCents (not for count).')
      .optional(),
  })
  .describe('A number the claim states and how to recompute it from its citations.');

export const ClaimSchema = z.strictObject({
  text: z.string().min(1).max(1000).describe('One statement, in words; any number in it is the figure, written $1,234.56 for money.'),
  cites: z.array(CitationSchema).max(200).describe('The records the statement rests on.'),
  figure: FigureSchema.optional(),
});

/** What a provider (a model) hands back: an answer with claims, or why it cannot answer. */
export const DraftSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('answer'), answer: z.string().min(1).max(4000), claims: z.array(ClaimSchema).max(50) }),
  z.strictObject({ kind: z.literal('cannot_answer'), reason: z.string().min(1).max(1000) }),
]);

export const ASK_NOTICE =
  'For analysis only: this answer was written by an AI model from the typed reads named in actOnWith and checked against what they returned, but it is not a record. Before acting on anything in it, confirm the figures with those reads, and act only through the typed books methods.';

export const ask = {
  ask: method({
    summary:
      "Ask a question about the org's books in plain words (who owes what, cash, bills due or held, GST/BAS, payroll cost, largest expenses, what happened to an invoice or bill, recent activity). The AI gateway answers from the typed reads only, cites the records each claim rests on, recomputes every number from them, and refuses (status refused, with the reason) rather than return an answer it cannot ground. For analysis: confirm with the reads in actOnWith before acting. Every ask is audited (GET /ops); cost shows in GET /cost.rollup; a spent monthly AI budget answers RATE_LIMITED with the wait.",
    params: z.strictObject({
      question: text({ min: 3, max: 2000, description: 'The question, in plain words (3 to 2000 characters).' }),
    }),
    result: z.strictObject({
      status: z
        .enum(['answered', 'refused'])
        .describe('refused: the answerer could not answer, its answer was not grounded, it failed, or it ran out of time; reason says which.'),
      answer: z.string().nullable().describe('The answer text (null when refused).'),
      claims: z.array(ClaimSchema).describe('What the answer rests on, each claim with its citations and figure (empty when refused).'),
      reason: z.string().nullable().describe('Why the ask was refused (null when answered). Relay it verbatim.'),
      notice: z.string().describe('Always present: the answer is for analysis, not a record to act on.'),
      actOnWith: z
        .array(z.string())
        .describe('The typed reads to use before acting: those this answer was drawn from (e.g. books.invoices, GET /events), else the books reads.'),
      provider: z.string().describe('local or openai.'),
      model: z.string().describe('The model that answered (empty when none did).'),
      audit: z
        .strictObject({ id: z.string().describe('aud_…'), seq: z.number().int().describe("Seq in the org's AI audit chain (GET /ops).") })
        .describe('The audit record of this ask.'),
    }),
    example: { question: 'Which customers are overdue, and by how much?' },
  }),
};
