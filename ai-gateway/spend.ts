import type { Queryable } from '../db/types.js';

/*
 * Model spend the gateway did not make itself: agents' own calls, reported through a family (cost.report). The
 * gateway declares what it needs of such a source and never names its tables; a family offers one in its descriptor
 * (Family.spend), the runtime hands them to the gateway (AiDeps.spend). The one monthly budget sums the audit chain
 * and every source, so reported spend can exhaust it; GET /cost.rollup adds each source's rows to the audit's.
 */

/** Sums of one group: calls, tokens, micro-dollars. */
export interface SpendSums {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  costMicroUsd: number;
}

/** A range of UTC instants [from, to) as ISO strings, and the width of byPeriod's keys (10: day, 7: month). */
export interface SpendRange {
  from: string;
  to: string;
  periodWidth: 7 | 10;
}

export interface SpendRollup {
  totals: SpendSums;
  byModel: (SpendSums & { provider: string; model: string })[];
  byActor: (SpendSums & { actor: string })[];
  byPeriod: (SpendSums & { period: string })[];
}

export interface SpendSource {
  /** What byModel calls its rows (`report`). */
  source: string;
  /** Micro-dollars spent in the org from `since` (an ISO instant) on. */
  spentSince(q: Queryable, orgId: string, since: string): Promise<number>;
  rollup(q: Queryable, orgId: string, range: SpendRange): Promise<SpendRollup>;
}

/** What every source spent since `since`. */
export async function sourcesSpentSince(sources: readonly SpendSource[], q: Queryable, orgId: string, since: string): Promise<number> {
  let sum = 0;
  for (const s of sources) sum += await s.spentSince(q, orgId, since);
  return sum;
}
