import type { AnswererRegistry } from './answerer.js';
import type { AiConfig } from './config.js';
import { localProvider } from './local/index.js';
import type { SpendSource } from './spend.js';
import type { Provider } from './types.js';

/**
 * The provider configuration selects: `local` (the default, offline) or `openai` (AI_BASE_URL, AI_MODEL,
 * AI_API_KEY). The openai client is imported only when chosen: loading it is about 0.2 s of every start.
 */
export async function createProvider(config: AiConfig): Promise<Provider> {
  if (config.provider === 'local') return localProvider();
  if (!config.openai) throw new Error('AI_PROVIDER=openai needs AI_BASE_URL, AI_MODEL and AI_API_KEY');
  const { openAiProvider } = await import('./openai/index.js');
  return openAiProvider({ ...config.openai, maxSteps: config.maxSteps });
}

/** What handlers reach through Deps.ai (with Deps.db, the gateway's GatewayEnv: `{ db, ...deps.ai }`). */
export interface AiDeps {
  config: AiConfig;
  provider: Provider;
  /** Every family's registered answerer, by method (domain/answerers.ts). */
  answerers: AnswererRegistry;
  /** Wall-clock time for the audit and budget periods (default: the system clock). */
  now?: () => Date;
  /** Spend the families report besides the gateway's asks (Family.spend): the budget and /cost.rollup count it. */
  spend: readonly SpendSource[];
}
