import type { Db } from '../db/types.js';
import { usdToMicro } from '../ai-gateway/config.js';
import { formatMicroUsd } from '../ai-gateway/budget.js';
import { setAiSettings, type AiSettingsChange } from '../domain/ai-settings.js';

/** `ai-settings --org <slug> [--budget-usd <dollars>|default] [--store-bodies on|off]`: returns what to print. */
export async function aiSettingsCommand(db: Db, slug: string, opts: { budgetUsd?: string; storeBodies?: string }): Promise<string> {
  const change: AiSettingsChange = {};
  if (opts.budgetUsd !== undefined) change.monthlyBudgetMicroUsd = opts.budgetUsd === 'default' ? null : usdToMicro('--budget-usd', opts.budgetUsd);
  if (opts.storeBodies !== undefined) {
    if (opts.storeBodies !== 'on' && opts.storeBodies !== 'off') throw new Error(`--store-bodies: must be on or off, got ${JSON.stringify(opts.storeBodies)}`);
    change.storeBodies = opts.storeBodies === 'on';
  }
  if (change.monthlyBudgetMicroUsd === undefined && change.storeBodies === undefined) throw new Error('ai-settings: give --budget-usd and/or --store-bodies');
  const set = await setAiSettings(db, slug, change);
  const budget = set.monthlyBudgetMicroUsd === null ? 'the server default (AI_MONTHLY_BUDGET_USD)' : `${formatMicroUsd(set.monthlyBudgetMicroUsd)} a month`;
  return `AI settings of ${slug}: budget ${budget}; audit bodies ${set.storeBodies ? 'kept (redacted)' : 'not kept'}.`;
}
