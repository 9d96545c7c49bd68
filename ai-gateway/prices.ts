import type { ModelPrice } from './config.js';

/**
 * List prices of common OpenAI models, US dollars per million tokens in micro-dollars (standard tier, text,
 * as published on openai.com/api/pricing in 2025). A dated snapshot (`gpt-4o-mini-2024-07-18`) takes its
 * family's price: the longest name in the table that the model's name starts with. Any other model is
 * unpriced unless AI_PRICE_* sets its price; an unpriced call costs 0 and so cannot exhaust a budget (the
 * audit says so in priceSource).
 */
export const PRICE_TABLE: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o': { inputMicroUsdPerMTok: 2_500_000, outputMicroUsdPerMTok: 10_000_000 },
  'gpt-4o-mini': { inputMicroUsdPerMTok: 150_000, outputMicroUsdPerMTok: 600_000 },
  'gpt-4.1': { inputMicroUsdPerMTok: 2_000_000, outputMicroUsdPerMTok: 8_000_000 },
  'gpt-4.1-mini': { inputMicroUsdPerMTok: 400_000, outputMicroUsdPerMTok: 1_600_000 },
  'gpt-4.1-nano': { inputMicroUsdPerMTok: 100_000, outputMicroUsdPerMTok: 400_000 },
  'o4-mini': { inputMicroUsdPerMTok: 1_100_000, outputMicroUsdPerMTok: 4_400_000 },
  o3: { inputMicroUsdPerMTok: 2_000_000, outputMicroUsdPerMTok: 8_000_000 },
  'gpt-3.5-turbo': { inputMicroUsdPerMTok: 500_000, outputMicroUsdPerMTok: 1_500_000 },
  'text-embedding-3-small': { inputMicroUsdPerMTok: 20_000, outputMicroUsdPerMTok: 0 },
  'text-embedding-3-large': { inputMicroUsdPerMTok: 130_000, outputMicroUsdPerMTok: 0 },
};

export interface Cost {
  /** Integer micro-dollars (US), rounded up. */
  costMicroUsd: number;
  /** `config` (AI_PRICE_*), `table:<name>`, `local: no charge`, or `unpriced: …`. */
  priceSource: string;
}

function lookup(model: string): [string, ModelPrice] | undefined {
  let best: [string, ModelPrice] | undefined;
  for (const [name, price] of Object.entries(PRICE_TABLE)) {
    if ((model === name || model.startsWith(`${name}-`)) && (!best || name.length > best[0].length)) best = [name, price];
  }
  return best;
}

/** tokens * price / 1e6, in micro-dollars, rounded up so a priced call never costs 0. */
const charge = (tokens: number, microPerMTok: number) => Math.ceil((tokens * microPerMTok) / 1_000_000);

/**
 * The cost of one ask. The configured override prices the configured model (whatever name answered);
 * otherwise the table prices the model that answered, or failing that the one requested.
 */
export function costOf(
  provider: string,
  usage: { modelRequested: string; modelAnswered: string; promptTokens: number; completionTokens: number },
  override?: ModelPrice,
): Cost {
  if (provider === 'local') return { costMicroUsd: 0, priceSource: 'local: no charge' };
  const priced = (p: ModelPrice) => charge(usage.promptTokens, p.inputMicroUsdPerMTok) + charge(usage.completionTokens, p.outputMicroUsdPerMTok);
  if (override) return { costMicroUsd: priced(override), priceSource: 'config' };
  const found = lookup(usage.modelAnswered) ?? lookup(usage.modelRequested);
  if (found) return { costMicroUsd: priced(found[1]), priceSource: `table:${found[0]}` };
  return { costMicroUsd: 0, priceSource: `unpriced: ${usage.modelAnswered || usage.modelRequested} is not in the price table; set AI_PRICE_*` };
}
