import { z } from 'zod';
import { read } from '../contract.js';
import { isoDate, limit } from '../schema.js';

/** One AI call (books.ask or another registered answerer's method) as the AI gateway audited it (ai-gateway/audit.ts AuditRecord). */
export const AuditRecord = z.strictObject({
  method: z.string().describe('The method answered (books.ask, …); absent from records written before records named it, which were all books.ask.').optional(),
  requestId: z.string().describe('The request id of the call.'),
  actor: z.string().describe('The principal who asked (usr_…/agt_…).'),
  keyId: z.string().describe('The key used.'),
  provider: z.string().describe('local or openai.'),
  modelRequested: z.string(),
  modelAnswered: z.string().describe('The model the endpoint says answered (empty when none did).'),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  tokensEstimated: z.boolean().describe('true when the endpoint reported no usage and the tokens were estimated (characters / 4).'),
  costMicroUsd: z.number().int().describe('Cost in millionths of a US dollar, rounded up.'),
  priceSource: z
    .string()
    .describe('Where the price came from: config (AI_PRICE_*), table:<model> (the built-in price table), local: no charge, or unpriced: ….'),
  latencyMs: z.number().int(),
  retries: z
    .array(z.strictObject({ reason: z.string().describe('HTTP 429, HTTP 500, timeout after … ms, connection error: …') }))
    .describe('Each retried model request, with why.'),
  reads: z.array(z.strictObject({ name: z.string(), ok: z.boolean(), error: z.string().nullable() })).describe('The typed reads the answerer ran, in order.'),
  verdict: z
    .enum(['grounded', 'ungrounded', 'cannot_answer', 'provider_error', 'timeout', 'embedded', 'generated'])
    .describe(
      'grounded: answered; ungrounded: the answer was refused by the grounding check; cannot_answer: the answerer declined; provider_error / timeout: refused; embedded: an embedding request returned its vectors; generated: an image generation returned an image.',
    ),
  reason: z.string().nullable().describe('Why the ask was refused (redacted); null when answered.'),
  promptHash: z.string().describe('SHA-256 hex of canonical_json({question, today}).'),
  answerHash: z.string().nullable().describe("SHA-256 hex of canonical_json(the answerer's draft); null when there was none."),
  bodies: z
    .strictObject({ question: z.string(), answer: z.string().nullable() })
    .nullable()
    .describe('The question and answer, redacted (e-mails, long digit runs, keys), only when the org keeps bodies; else null.'),
});

const AuditRow = z.strictObject({
  seq: z.number().int().describe("Seq in the org's AI audit chain, from 1."),
  id: z.string().describe('aud_…, quoted by the books.ask result.'),
  at: z.string().describe('ISO 8601 UTC with milliseconds, exactly as hashed.'),
  record: AuditRecord.describe('Exactly as hashed (served verbatim).'),
  prevHash: z.string().describe('rowHash of the previous record; empty for the first.'),
  rowHash: z.string().describe('SHA-256 hex of the UTF-8 canonical JSON (RFC 8785, as the ledger) of {at, id, prev, record, seq}, prev being prevHash.'),
});

/** A record of an R method that writes (contract `writes`), in its family's write log (domain/core/write-log.ts). */
export const WriteRecord = z.strictObject({
  method: z.string().describe('The method that wrote (branding.amendTemplate, …).'),
  requestId: z.string(),
  actor: z.string().describe('The principal who called (usr_…/agt_…).'),
  keyId: z.string().describe('The key used.'),
  kind: z.string().describe('What was written, <family>.<noun>.<verb> as ledger event kinds.'),
  entityId: z.string(),
  payload: z.record(z.string(), z.unknown()).nullable().describe('Ids, versions, counts, statuses and hashes; never texts or values.'),
});

const ChainRow = AuditRow.extend({
  seq: z.number().int().describe("Seq in the org's chain of this source, from 1."),
  id: z.string().describe('aud_… (ai), dsg_… (design).'),
  record: z.union([AuditRecord, WriteRecord]).describe('Exactly as hashed (served verbatim): an AI call (ai) or a write record (design).'),
});

/** The chains GET /ops serves: ai (the AI gateway's) and those families contribute (domain/ai-reads.ts OpsSource). */
export const OPS_SOURCES = ['ai', 'design', 'tools'] as const;

const cursor = z.coerce
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .min(0, 'must be >= 0')
  .default(0)
  .describe('order=desc: records before this seq (0: from the newest); order=asc: records after this seq (0: from the first). Pass the previous nextCursor.');

const Totals = {
  asks: z.number().int().describe('Calls the AI gateway made (books.ask and every registered AI method).'),
  reports: z.number().int().describe('Model calls agents reported making themselves (cost.report).'),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  costMicroUsd: z.number().int().describe('Millionths of a US dollar.'),
};

export const aiReadContracts = {
  ops: read({
    summary:
      "The AI gateway's self-audit: one record per AI call, books.ask or any family's registered AI method (method, provider, models, tokens, cost and its price source, latency, retries with reasons, grounding verdict, hashes of prompt and answer), newest first by default. source=design: the design log instead, one record per write of an R method that writes (ids, versions, hashes). Each source is a per-org hash chain of its own, served verbatim so any client can recompute every rowHash (and `npm run cli -- verify` does).",
    query: z.strictObject({
      cursor,
      limit: limit(200, 50),
      order: z.enum(['desc', 'asc']).default('desc').describe('desc: newest first (default); asc: chain order, to verify it.'),
      source: z
        .enum(OPS_SOURCES)
        .default('ai')
        .describe(
          "Which chain: ai, the AI gateway's audit (default); design, the records of branding's R methods that write (the design log); tools, the integrations' tool calls (integration.invokeTool: hashes of arguments and result, status).",
        ),
    }),
    result: z.strictObject({
      records: z.array(ChainRow),
      nextCursor: z.number().int().nullable().describe('Pass as cursor for the next page; null on the last page.'),
      head: z.strictObject({ seq: z.number().int(), rowHash: z.string() }).describe("The chain's head."),
    }),
    example: { limit: 20 },
  }),
  'cost.rollup': read({
    summary:
      "What AI cost the org, books.ask and every other registered AI method, and the model calls agents reported (cost.report) (US dollars, in micro-dollars): totals, by source, provider and model, by actor, by method, and by day or month, for from..to (default: this calendar month, UTC, to today), with the org's monthly AI budget, what is spent of it and when it resets. A spent budget makes every AI method answer RATE_LIMITED until then.",
    query: z.strictObject({
      from: isoDate('First day (UTC), default the first of this month.').optional(),
      to: isoDate('Last day (UTC, inclusive), default today.').optional(),
      groupBy: z.enum(['day', 'month']).default('day').describe('Periods of byPeriod (default day).'),
    }),
    result: z.strictObject({
      from: z.string(),
      to: z.string(),
      currency: z.literal('USD'),
      totals: z.strictObject(Totals),
      byModel: z
        .array(
          z.strictObject({
            source: z.string().describe("ask: the gateway's own calls; report: calls agents reported (cost.report)."),
            provider: z.string(),
            model: z.string(),
            ...Totals,
          }),
        )
        .describe('Costliest first.'),
      byActor: z
        .array(z.strictObject({ actor: z.string().describe('The principal who asked or reported (usr_…/agt_…).'), ...Totals }))
        .describe('Costliest first: what each principal spent, asks and reports together.'),
      byMethod: z
        .array(z.strictObject({ method: z.string().describe('books.ask, …'), ...Totals }))
        .describe('Costliest first: what each AI method (family) spent.'),
      byPeriod: z
        .array(z.strictObject({ period: z.string().describe('YYYY-MM-DD or YYYY-MM.'), ...Totals }))
        .describe('In time order; periods without asks are left out.'),
      budget: z.strictObject({
        monthlyBudgetMicroUsd: z.number().int(),
        source: z.enum(['org', 'server']).describe('org: set for this org (cli ai-settings); server: AI_MONTHLY_BUDGET_USD.'),
        spentThisMonthMicroUsd: z.number().int(),
        remainingMicroUsd: z.number().int().describe('0 once spent: books.ask and every other AI method then answer RATE_LIMITED.'),
        resetsAt: z.string().describe('Start of next month, UTC.'),
      }),
    }),
    example: { from: '2026-11-01', to: '2026-11-30', groupBy: 'day' },
  }),
};
