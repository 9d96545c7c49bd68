import { ApiError } from '../protocol/errors.js';
import type { Queryable } from '../db/types.js';
import { orgAiSettings, spentSince } from './audit.js';
import { sourcesSpentSince, type SpendSource } from './spend.js';

/** `$1.50`, `$0.00015`: micro-dollars as dollars, at least two decimals, no trailing zeros beyond them. */
export function formatMicroUsd(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  const frac = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0{1,4}$/, '');
  return `${sign}$${Math.floor(abs / 1_000_000).toLocaleString('en-AU')}.${frac.padEnd(2, '0')}`;
}

/** Budget periods are calendar months in UTC. */
export const monthStart = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
export const nextMonthStart = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

export interface BudgetState {
  monthlyBudgetMicroUsd: number;
  spentMicroUsd: number;
  periodStart: string;
  resetsAt: string;
  /** org: the org set its own budget; server: AI_MONTHLY_BUDGET_USD. */
  source: 'org' | 'server';
  storeBodies: boolean;
}

/** The month's budget and spend: the audit chain's asks and what every spend source (reported agent calls) adds. */
export async function budgetState(
  q: Queryable,
  orgId: string,
  defaultBudgetMicroUsd: number,
  now: Date,
  sources: readonly SpendSource[] = [],
): Promise<BudgetState> {
  const settings = await orgAiSettings(q, orgId, defaultBudgetMicroUsd);
  const start = monthStart(now).toISOString();
  return {
    monthlyBudgetMicroUsd: settings.monthlyBudgetMicroUsd,
    spentMicroUsd: (await spentSince(q, orgId, start)) + (await sourcesSpentSince(sources, q, orgId, start)),
    periodStart: start,
    resetsAt: nextMonthStart(now).toISOString(),
    source: settings.budgetIsOrgs ? 'org' : 'server',
    storeBodies: settings.storeBodies,
  };
}

/**
 * Fail closed: once the month's spend reaches the budget, every ask is RATE_LIMITED until the month ends
 * (Retry-After: the seconds to the reset). One budget for every answerer of the org: a budget of 0 turns AI
 * off for all of them. The check runs before the model is called, so asks already in flight may overshoot
 * the budget by their own cost. `method` is the call refused (`books.ask`), named in the message.
 */
export function enforceBudget(state: BudgetState, now: Date, method: string): void {
  if (state.spentMicroUsd < state.monthlyBudgetMicroUsd) return;
  const wait = Math.max(1, Math.ceil((Date.parse(state.resetsAt) - now.getTime()) / 1000));
  const what =
    state.monthlyBudgetMicroUsd === 0
      ? `${method} is off for this org (its monthly AI budget is $0)`
      : `the org's monthly AI budget of ${formatMicroUsd(state.monthlyBudgetMicroUsd)} is spent (${formatMicroUsd(state.spentMicroUsd)} since ${state.periodStart.slice(0, 10)})`;
  throw new ApiError('RATE_LIMITED', `${what}; it resets at ${state.resetsAt}: retry in ${wait} seconds, or use the typed ${method.split('.')[0]} reads`, {
    retryAfterSeconds: wait,
  });
}
