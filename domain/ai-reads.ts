import { aiReadContracts as c } from '../protocol/reads/ai.js';
import { badRequest } from '../protocol/errors.js';
import { auditHead, readAudit } from '../ai-gateway/audit.js';
import { budgetState } from '../ai-gateway/budget.js';
import type { SpendSums } from '../ai-gateway/spend.js';
import type { Queryable } from '../db/types.js';
import type { ChainVerdict } from '../protocol/hashing.js';
import { reads, type Family } from './core/family.js';
import { RawJson, readHandler, type ReadCtx } from './core/handler.js';

const nowOf = (ctx: ReadCtx) => (ctx.deps.ai.now ?? (() => new Date()))();

/** A chain GET /ops serves besides the AI audit: a family contributes it under `opsSources` (its write log, say). */
export interface OpsSource {
  /** The `source` query value (protocol/reads/ai.ts OPS_SOURCES). */
  source: string;
  chain: { page(q: Queryable, orgId: string, p: { cursor: number; limit: number; order: 'asc' | 'desc' }): Promise<string> };
  /** What `npm run cli -- verify` checks (cli/verify.ts). */
  verify(q: Queryable, orgId: string): Promise<ChainVerdict>;
  /** How verify's line names it (`design log`). */
  label: string;
}

declare module './core/family.js' {
  interface Contributions {
    opsSources: OpsSource;
  }
}

/** GET /ops: the org's AI audit records (or a contributed chain's), verbatim as hashed (like GET /events), with the chain head. */
export const ops = readHandler(c.ops, async (ctx, query) => {
  if (query.source !== 'ai') {
    const found = ctx.deps.families.contributions('opsSources').find((c) => c.value.source === query.source);
    if (!found) throw badRequest('source', `${query.source} is not served here (no deployed family keeps it); use source=ai`);
    return new RawJson(await found.value.chain.page(ctx.q, ctx.orgId, query));
  }
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
type Totals = { asks: number; reports: number; promptTokens: number; completionTokens: number; costMicroUsd: number };
const asked = (r: TotalsRow | undefined): Totals => ({
  asks: Number(r?.asks ?? 0),
  reports: 0,
  promptTokens: Number(r?.prompt_tokens ?? 0),
  completionTokens: Number(r?.completion_tokens ?? 0),
  costMicroUsd: Number(r?.cost ?? 0),
});
const reported = (s: SpendSums): Totals => ({
  asks: 0,
  reports: s.calls,
  promptTokens: s.promptTokens,
  completionTokens: s.completionTokens,
  costMicroUsd: s.costMicroUsd,
});
const plus = (a: Totals, b: Totals): Totals => ({
  asks: a.asks + b.asks,
  reports: a.reports + b.reports,
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  costMicroUsd: a.costMicroUsd + b.costMicroUsd,
});

/** Rows of the audit and of every spend source summed by key, in the order `order` gives. */
function merged<R extends Totals>(rows: R[], keyOf: (r: R) => string, order: (a: R, b: R) => number): R[] {
  const out = new Map<string, R>();
  for (const r of rows) {
    const k = keyOf(r);
    const had = out.get(k);
    out.set(k, had ? { ...had, ...plus(had, r) } : r);
  }
  return [...out.values()].sort(order);
}
const costliest =
  <T extends Totals>(key: (r: T) => string) =>
  (a: T, b: T) =>
    b.costMicroUsd - a.costMicroUsd || key(a).localeCompare(key(b));

const SUMS = `count(*)::bigint AS asks, coalesce(sum(prompt_tokens), 0)::bigint AS prompt_tokens,
  coalesce(sum(completion_tokens), 0)::bigint AS completion_tokens, coalesce(sum(cost_micro_usd), 0)::bigint AS cost`;

/** GET /cost.rollup: AI cost from the audit records (their at is UTC) and every spend source (reported calls), with the budget state. */
export const costRollup = readHandler(c['cost.rollup'], async (ctx, query) => {
  const now = nowOf(ctx);
  const today = now.toISOString().slice(0, 10);
  const from = query.from ?? `${today.slice(0, 7)}-01`;
  const to = query.to ?? today;
  if (from > to) throw badRequest('from', `must be on or before to (${to})`);
  const end = new Date(Date.parse(`${to}T00:00:00.000Z`) + 86_400_000).toISOString();
  const range = [ctx.orgId, `${from}T00:00:00.000Z`, end];
  const where = 'org_id = $1 AND at >= $2 AND at < $3';
  const group = (cols: string) =>
    ctx.q.query<TotalsRow & Record<string, string>>(`SELECT ${cols}, ${SUMS} FROM ai_audit WHERE ${where} GROUP BY ${cols}`, range);
  const [all] = await ctx.q.query<TotalsRow>(`SELECT ${SUMS} FROM ai_audit WHERE ${where}`, range);
  const width = query.groupBy === 'day' ? 10 : 7;
  const byModel = (await group('provider, model')).map((r) => ({ source: 'ask', provider: r.provider, model: r.model, ...asked(r) }));
  const byActor = (await group('actor')).map((r) => ({ actor: r.actor, ...asked(r) }));
  const byPeriod = (
    await ctx.q.query<TotalsRow & { period: string }>(`SELECT substr(at, 1, ${width}) AS period, ${SUMS} FROM ai_audit WHERE ${where} GROUP BY 1`, range)
  ).map((r) => ({ period: r.period, ...asked(r) }));
  let totals = asked(all);
  for (const source of ctx.deps.ai.spend) {
    const r = await source.rollup(ctx.q, ctx.orgId, { from: range[1], to: end, periodWidth: width });
    totals = plus(totals, reported(r.totals));
    byModel.push(...r.byModel.map((m) => ({ source: source.source, provider: m.provider, model: m.model, ...reported(m) })));
    byActor.push(...r.byActor.map((a) => ({ actor: a.actor, ...reported(a) })));
    byPeriod.push(...r.byPeriod.map((p) => ({ period: p.period, ...reported(p) })));
  }
  const byMethod = await ctx.q.query<TotalsRow & { method: string }>(
    `SELECT method, ${SUMS} FROM ai_audit WHERE ${where} GROUP BY method ORDER BY cost DESC, method`,
    range,
  );
  const budget = await budgetState(ctx.q, ctx.orgId, ctx.deps.ai.config.monthlyBudgetMicroUsd, now, ctx.deps.ai.spend);
  return {
    from,
    to,
    currency: 'USD' as const,
    totals,
    byModel: merged(
      byModel,
      (r) => `${r.source}\n${r.provider}\n${r.model}`,
      costliest((r) => `${r.source} ${r.provider} ${r.model}`),
    ),
    byActor: merged(
      byActor,
      (r) => r.actor,
      costliest((r) => r.actor),
    ),
    byMethod: byMethod.map((r) => ({ method: r.method, ...asked(r) })),
    byPeriod: merged(
      byPeriod,
      (r) => r.period,
      (a, b) => a.period.localeCompare(b.period),
    ),
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
