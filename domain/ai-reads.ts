import { aiReadContracts as c } from '../protocol/reads/ai.js';
import { badRequest } from '../protocol/errors.js';
import { auditHead, readAudit } from '../ai-gateway/audit.js';
import { budgetState } from '../ai-gateway/budget.js';
import { reads, type Family } from './core/family.js';
import { RawJson, readHandler, type ReadCtx } from './core/handler.js';

const nowOf = (ctx: ReadCtx) => (ctx.deps.ai.now ?? (() => new Date()))();

/** GET /ops: the org's AI audit records, verbatim as hashed (like GET /events), with the chain head. */
export const ops = readHandler(c.ops, async (ctx, query) => {
  const rows = await readAudit(ctx.q, ctx.orgId, query);
  const head = await auditHead(ctx.q, ctx.orgId);
  const s = JSON.stringify;
  const records = rows.map(
    (r) => `{"seq":${r.seq},"id":${s(r.audit_id)},"at":${s(r.at)},"record":${r.record},"prevHash":${s(r.prev_hash)},"rowHash":${s(r.row_hash)}}`,
  );
  const last = rows[rows.length - 1];
  const more = rows.length === query.limit && last !== undefined && (query.order === 'asc' ? last.seq < head.seq : last.seq > 1);
  return new RawJson(`{"records":[${records.join(',')}],"nextCursor":${more ? last.seq : 'null'},"head":{"seq":${head.seq},"rowHash":${s(head.rowHash)}}}`);
});

interface TotalsRow {
  asks: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
}
const totals = (r: TotalsRow | undefined) => ({
  asks: Number(r?.asks ?? 0),
  promptTokens: Number(r?.prompt_tokens ?? 0),
  completionTokens: Number(r?.completion_tokens ?? 0),
  costMicroUsd: Number(r?.cost ?? 0),
});
const SUMS = `count(*)::bigint AS asks, coalesce(sum(prompt_tokens), 0)::bigint AS prompt_tokens,
  coalesce(sum(completion_tokens), 0)::bigint AS completion_tokens, coalesce(sum(cost_micro_usd), 0)::bigint AS cost`;

/** GET /cost.rollup: AI cost from the audit records (their at is UTC), with the budget state. */
export const costRollup = readHandler(c['cost.rollup'], async (ctx, query) => {
  const now = nowOf(ctx);
  const today = now.toISOString().slice(0, 10);
  const from = query.from ?? `${today.slice(0, 7)}-01`;
  const to = query.to ?? today;
  if (from > to) throw badRequest('from', `must be on or before to (${to})`);
  const end = new Date(Date.parse(`${to}T00:00:00.000Z`) + 86_400_000).toISOString();
  const range = [ctx.orgId, `${from}T00:00:00.000Z`, end];
  const where = 'org_id = $1 AND at >= $2 AND at < $3';
  const [all] = await ctx.q.query<TotalsRow>(`SELECT ${SUMS} FROM ai_audit WHERE ${where}`, range);
  const byModel = await ctx.q.query<TotalsRow & { provider: string; model: string }>(
    `SELECT provider, model, ${SUMS} FROM ai_audit WHERE ${where} GROUP BY provider, model ORDER BY cost DESC, provider, model`,
    range,
  );
  const byMethod = await ctx.q.query<TotalsRow & { method: string }>(
    `SELECT method, ${SUMS} FROM ai_audit WHERE ${where} GROUP BY method ORDER BY cost DESC, method`,
    range,
  );
  const width = query.groupBy === 'day' ? 10 : 7;
  const byPeriod = await ctx.q.query<TotalsRow & { period: string }>(
    `SELECT substr(at, 1, ${width}) AS period, ${SUMS} FROM ai_audit WHERE ${where} GROUP BY 1 ORDER BY 1`,
    range,
  );
  const budget = await budgetState(ctx.q, ctx.orgId, ctx.deps.ai.config.monthlyBudgetMicroUsd, now);
  return {
    from,
    to,
    currency: 'USD' as const,
    totals: totals(all),
    byModel: byModel.map((r) => ({ provider: r.provider, model: r.model, ...totals(r) })),
    byMethod: byMethod.map((r) => ({ method: r.method, ...totals(r) })),
    byPeriod: byPeriod.map((r) => ({ period: r.period, ...totals(r) })),
    budget: {
      monthlyBudgetMicroUsd: budget.monthlyBudgetMicroUsd,
      source: budget.source,
      spentThisMonthMicroUsd: budget.spentMicroUsd,
      remainingMicroUsd: Math.max(0, budget.monthlyBudgetMicroUsd - budget.spentMicroUsd),
      resetsAt: budget.resetsAt,
    },
  };
});

export const aiReads = reads({ ops, 'cost.rollup': costRollup });

/** The AI gateway's reads (usage, audit), deployed like a family's (domain/deployed.ts lists it). */
export const aiReadsFamily: Family = { name: 'ai', reads: aiReads };
