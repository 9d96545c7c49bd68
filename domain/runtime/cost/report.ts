import { budgetState } from '../../../ai-gateway/budget.js';
import { costOf } from '../../../ai-gateway/prices.js';
import { badRequest } from '../../../protocol/errors.js';
import { COST_MAX_AGE_DAYS, cost as c } from '../../../protocol/methods/runtime/cost.js';
import { requireTasks } from '../../board/index.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';

/*
 * cost.report: model calls an agent made itself, as one INSERT of up to 200 rows (unnest), deduplicated by (actor,
 * externalId) in the insert itself (ON CONFLICT DO NOTHING), so a retry with new ids for old calls counts nothing
 * twice. Priced as given (reported), else by the gateway's price table (table), else unpriced (0). The AI budget
 * is never a reason to refuse a report: the answer says what is left of it.
 */

/** A call stamped this far past the server's clock is still taken (clocks drift); later is the future. */
const SKEW_MS = 60_000;
const DAY_MS = 86_400_000;

type Source = 'reported' | 'table' | 'unpriced';

export const report = handler(c.report, async (ctx, p) => {
  const now = (ctx.deps.ai.now ?? (() => new Date()))();
  const rows = p.entries.map((e, i) => {
    const at = Date.parse(e.occurredAt);
    if (at > now.getTime() + SKEW_MS) throw badRequest(`entries.${i}.occurredAt`, `is in the future (now is ${now.toISOString()})`);
    if (at < now.getTime() - COST_MAX_AGE_DAYS * DAY_MS) throw badRequest(`entries.${i}.occurredAt`, `is more than ${COST_MAX_AGE_DAYS} days ago`);
    let price: { cost: number; source: Source };
    if (e.costMicroUsd !== undefined) price = { cost: e.costMicroUsd, source: 'reported' };
    else {
      const priced = costOf(e.provider, {
        modelRequested: e.model,
        modelAnswered: e.model,
        promptTokens: e.inputTokens + e.cacheReadTokens,
        completionTokens: e.outputTokens,
      });
      price = { cost: priced.costMicroUsd, source: priced.priceSource.startsWith('table:') ? 'table' : 'unpriced' };
    }
    return { ...e, at: new Date(at).toISOString(), ...price };
  });
  await requireTasks(
    ctx.q,
    ctx.orgId,
    p.entries.flatMap((e, i) => (e.taskId ? [{ field: `entries.${i}.taskId`, taskId: e.taskId }] : [])),
  );
  const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
  const inserted = await ctx.q.query<{
    cost_micro_usd: number | string;
    price_source: Source;
    input_tokens: number | string;
    output_tokens: number | string;
    cache_read_tokens: number | string;
    model: string;
  }>(
    `INSERT INTO cost_entries (org_id, entry_id, actor, external_id, provider, model, operation, input_tokens, output_tokens, cache_read_tokens, cost_micro_usd,
                               price_source, task_id, occurred_at, reported_at, request_id)
     SELECT $1, e.*, now(), $15 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::bigint[],
                                          $11::bigint[], $12::text[], $13::text[], $14::text[]) AS e
     ON CONFLICT (org_id, actor, external_id) DO NOTHING
     RETURNING cost_micro_usd, price_source, input_tokens, output_tokens, cache_read_tokens, model`,
    [
      ctx.orgId,
      col(() => newId('cst')),
      col(() => ctx.principal.id),
      col((r) => r.externalId),
      col((r) => r.provider),
      col((r) => r.model),
      col((r) => r.operation),
      col((r) => r.inputTokens),
      col((r) => r.outputTokens),
      col((r) => r.cacheReadTokens),
      col((r) => r.cost),
      col((r) => r.source),
      col((r) => r.taskId ?? null),
      col((r) => r.at),
      ctx.requestId,
    ],
  );
  const bySource = { reported: 0, table: 0, unpriced: 0 };
  let costMicroUsd = 0;
  let tokens = 0;
  for (const r of inserted) {
    bySource[r.price_source] += 1;
    costMicroUsd += Number(r.cost_micro_usd);
    tokens += Number(r.input_tokens) + Number(r.output_tokens) + Number(r.cache_read_tokens);
  }
  const budget = await budgetState(ctx.q, ctx.orgId, ctx.deps.ai.config.monthlyBudgetMicroUsd, now, ctx.deps.ai.spend);
  const remaining = Math.max(0, budget.monthlyBudgetMicroUsd - budget.spentMicroUsd);
  const accepted = inserted.length;
  const duplicates = rows.length - accepted;
  await ctx.emit('cost.usage.report', '', { accepted, duplicates, tokens, costMicroUsd, models: new Set(inserted.map((r) => r.model)).size, ...bySource });
  return {
    accepted,
    duplicates,
    costMicroUsd,
    bySource,
    budget: { monthlyBudgetMicroUsd: budget.monthlyBudgetMicroUsd, remainingMicroUsd: remaining, exhausted: remaining === 0, resetsAt: budget.resetsAt },
  };
});
