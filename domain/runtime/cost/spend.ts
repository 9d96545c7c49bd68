import type { SpendRollup, SpendSource, SpendSums } from '../../../ai-gateway/spend.js';

/*
 * The cost entries as the AI gateway's spend source (ai-gateway/spend.ts): the one monthly budget and GET
 * /cost.rollup count them beside the gateway's own asks. occurred_at is a UTC ISO string, as ai_audit.at.
 */

interface SumRow {
  calls: number | string;
  prompt_tokens: number | string;
  completion_tokens: number | string;
  cost: number | string;
}
const SUMS = `count(*)::bigint AS calls, coalesce(sum(input_tokens + cache_read_tokens), 0)::bigint AS prompt_tokens,
  coalesce(sum(output_tokens), 0)::bigint AS completion_tokens, coalesce(sum(cost_micro_usd), 0)::bigint AS cost`;
const sums = (r: SumRow | undefined): SpendSums => ({
  calls: Number(r?.calls ?? 0),
  promptTokens: Number(r?.prompt_tokens ?? 0),
  completionTokens: Number(r?.completion_tokens ?? 0),
  costMicroUsd: Number(r?.cost ?? 0),
});

export const reportedSpend: SpendSource = {
  source: 'report',
  async spentSince(q, orgId, since) {
    const [row] = await q.query<SumRow>(`SELECT ${SUMS} FROM cost_entries WHERE org_id = $1 AND occurred_at >= $2`, [orgId, since]);
    return sums(row).costMicroUsd;
  },
  async rollup(q, orgId, range): Promise<SpendRollup> {
    const where = 'org_id = $1 AND occurred_at >= $2 AND occurred_at < $3';
    const args = [orgId, range.from, range.to];
    const [all] = await q.query<SumRow>(`SELECT ${SUMS} FROM cost_entries WHERE ${where}`, args);
    const byModel = await q.query<SumRow & { provider: string; model: string }>(
      `SELECT provider, model, ${SUMS} FROM cost_entries WHERE ${where} GROUP BY 1, 2`,
      args,
    );
    const byActor = await q.query<SumRow & { actor: string }>(`SELECT actor, ${SUMS} FROM cost_entries WHERE ${where} GROUP BY 1`, args);
    const byPeriod = await q.query<SumRow & { period: string }>(
      `SELECT substr(occurred_at, 1, ${range.periodWidth}) AS period, ${SUMS} FROM cost_entries WHERE ${where} GROUP BY 1`,
      args,
    );
    return {
      totals: sums(all),
      byModel: byModel.map((r) => ({ provider: r.provider, model: r.model, ...sums(r) })),
      byActor: byActor.map((r) => ({ actor: r.actor, ...sums(r) })),
      byPeriod: byPeriod.map((r) => ({ period: r.period, ...sums(r) })),
    };
  },
};
