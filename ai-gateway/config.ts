/**
 * Configuration of the AI gateway, read once from the environment by the CLI and passed down explicitly
 * (runtime options -> Deps.ai). Nothing in ai-gateway/ reads process.env itself, and the openai client is
 * given its key and base URL explicitly, so OPENAI_API_KEY / OPENAI_BASE_URL are never used.
 */
import { envInt } from '../config/env.js';

export interface OpenAiSettings {
  /** OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  baseURL: string;
  apiKey: string;
  model: string;
  /** Ask for streamed chat completions (SSE, with the usage chunk). */
  stream: boolean;
  /** Retries per model request on 408/409/429/5xx and connection errors (the client's maxRetries). */
  maxRetries: number;
  /** Timeout of one model request, per attempt. */
  requestTimeoutMs: number;
}

/** Embeddings for hybrid knowledge search (AI_EMBED_*), on an OpenAI-compatible /embeddings endpoint. */
export interface EmbedSettings {
  baseURL: string;
  /** Sent as a bearer token when not empty (a local server may need none). */
  apiKey: string;
  model: string;
  /** Asked of the endpoint and checked on every vector: the HNSW index is built for this many. */
  dimensions: number;
  /** Timeout of one embedding request; past it a search runs full text and says so. */
  timeoutMs: number;
  /** Cosine similarity below which a vector neighbour is not a match. */
  minSimilarity: number;
}

/** An image model (AI_IMAGE_*) on an OpenAI-compatible /images/generations endpoint: branding.generateImage. */
export interface ImageSettings {
  baseURL: string;
  apiKey: string;
  model: string;
  /** Timeout of one image request. */
  timeoutMs: number;
  /** What one image costs, in micro-dollars (images are priced per image, not per token). */
  pricePerImageMicroUsd: number;
}

export interface ModelPrice {
  /** US dollars per million prompt (input) tokens, in micro-dollars: $0.15 = 150000. */
  inputMicroUsdPerMTok: number;
  outputMicroUsdPerMTok: number;
}

export interface AiConfig {
  provider: 'local' | 'openai';
  /** Required when provider is openai. */
  openai?: OpenAiSettings;
  /** Deadline of one whole ask (every step and retry), after which the ask is refused as timed out. */
  timeoutMs: number;
  /** Model requests per ask (a tool-call round is one step); at the bound the ask is refused. */
  maxSteps: number;
  /** Price of the configured model, overriding the built-in table (prices.ts). */
  priceOverride?: ModelPrice;
  /** Default monthly AI budget of an org that has not set its own, in micro-dollars. */
  monthlyBudgetMicroUsd: number;
  /** Set when AI_EMBED_MODEL is: hybrid knowledge search and the embedding of entries. */
  embed?: EmbedSettings;
  /** Set when AI_IMAGE_MODEL is: generated images by a model (photo style); else the offline pattern generator. */
  images?: ImageSettings;
}

export const DEFAULT_AI_CONFIG: AiConfig = {
  provider: 'local',
  timeoutMs: 120_000,
  maxSteps: 6,
  monthlyBudgetMicroUsd: 100_000_000, // $100 a month per org
};

export const AI_ENV_HELP = `AI gateway (books.ask and every registered AI method):
  AI_PROVIDER           local (default: offline, deterministic) or openai (any OpenAI-compatible endpoint)
  AI_BASE_URL           openai: the endpoint, e.g. https://api.openai.com/v1 (required; never read from OPENAI_BASE_URL)
  AI_MODEL              openai: the model to request (required)
  AI_API_KEY            openai: the key (required; never read from OPENAI_API_KEY)
  AI_STREAM             openai: true to request streamed completions (default false)
  AI_MAX_RETRIES        openai: retries per model request on 429/5xx/timeouts (default 2)
  AI_REQUEST_TIMEOUT_MS openai: timeout of one model request attempt (default 30000)
  AI_TIMEOUT_MS         deadline of a whole ask (default 120000)
  AI_MAX_STEPS          model requests per ask, tool rounds included (default 6)
  AI_PRICE_INPUT_USD_PER_MTOK, AI_PRICE_OUTPUT_USD_PER_MTOK
                        price of AI_MODEL per million tokens (default: the built-in price table)
  AI_MONTHLY_BUDGET_USD default monthly AI budget per org (default 100); an org may set its own (cli ai-settings)
  AI_EMBED_MODEL        an embedding model: turns on knowledge.search mode hybrid (default unset: full text only)
  AI_EMBED_DIMENSIONS   its vector length, 1 to 2000 (required with AI_EMBED_MODEL)
  AI_EMBED_BASE_URL, AI_EMBED_API_KEY
                        its OpenAI-compatible endpoint and key (default AI_BASE_URL and AI_API_KEY)
  AI_EMBED_TIMEOUT_MS   timeout of one embedding request (default 2000); past it a search runs full text, said
  AI_EMBED_MIN_SIMILARITY cosine similarity a vector match needs, 0 to 1 (default 0.3)
  AI_IMAGE_MODEL        an image model for branding.generateImage (default unset: offline patterns; photo is refused)
  AI_IMAGE_BASE_URL, AI_IMAGE_API_KEY
                        its OpenAI-compatible endpoint and key (default AI_BASE_URL and AI_API_KEY)
  AI_IMAGE_TIMEOUT_MS   timeout of one image request (default 60000)
  AI_IMAGE_PRICE_USD    what one image costs (default 0.04)`;

/** `0.15` (dollars) -> 150000 micro-dollars; at most 6 decimals. */
export function usdToMicro(name: string, raw: string): number {
  if (!/^\d+(\.\d{1,6})?$/.test(raw)) throw new Error(`${name}: must be a dollar amount like 0.15 (at most 6 decimals), got ${JSON.stringify(raw)}`);
  const [whole, frac = ''] = raw.split('.');
  return Number(whole) * 1_000_000 + Number(frac.padEnd(6, '0'));
}

export function loadAiConfig(env: NodeJS.ProcessEnv): AiConfig {
  const provider = env.AI_PROVIDER || 'local';
  if (provider !== 'local' && provider !== 'openai') throw new Error(`AI_PROVIDER: must be local or openai, got ${JSON.stringify(provider)}`);
  const config: AiConfig = {
    provider,
    timeoutMs: envInt(env, 'AI_TIMEOUT_MS', DEFAULT_AI_CONFIG.timeoutMs, 1),
    maxSteps: envInt(env, 'AI_MAX_STEPS', DEFAULT_AI_CONFIG.maxSteps, 1),
    monthlyBudgetMicroUsd: env.AI_MONTHLY_BUDGET_USD ? usdToMicro('AI_MONTHLY_BUDGET_USD', env.AI_MONTHLY_BUDGET_USD) : DEFAULT_AI_CONFIG.monthlyBudgetMicroUsd,
  };
  const input = env.AI_PRICE_INPUT_USD_PER_MTOK;
  const output = env.AI_PRICE_OUTPUT_USD_PER_MTOK;
  if (Boolean(input) !== Boolean(output)) throw new Error('AI_PRICE_INPUT_USD_PER_MTOK and AI_PRICE_OUTPUT_USD_PER_MTOK: set both or neither');
  if (input && output) {
    config.priceOverride = {
      inputMicroUsdPerMTok: usdToMicro('AI_PRICE_INPUT_USD_PER_MTOK', input),
      outputMicroUsdPerMTok: usdToMicro('AI_PRICE_OUTPUT_USD_PER_MTOK', output),
    };
  }
  config.embed = loadEmbedSettings(env);
  config.images = loadImageSettings(env);
  if (provider === 'openai') {
    const need = (name: string) => {
      const v = env[name];
      if (!v) throw new Error(`${name}: required when AI_PROVIDER=openai`);
      return v;
    };
    const baseURL = need('AI_BASE_URL');
    if (!/^https?:\/\/\S+$/.test(baseURL)) throw new Error(`AI_BASE_URL: must be an http(s) URL, got ${JSON.stringify(baseURL)}`);
    const stream = env.AI_STREAM || 'false';
    if (stream !== 'true' && stream !== 'false') throw new Error(`AI_STREAM: must be true or false, got ${JSON.stringify(stream)}`);
    config.openai = {
      baseURL,
      model: need('AI_MODEL'),
      apiKey: need('AI_API_KEY'),
      stream: stream === 'true',
      maxRetries: envInt(env, 'AI_MAX_RETRIES', 2, 0),
      requestTimeoutMs: envInt(env, 'AI_REQUEST_TIMEOUT_MS', 30_000, 1),
    };
  }
  return config;
}

function loadEmbedSettings(env: NodeJS.ProcessEnv): EmbedSettings | undefined {
  const model = env.AI_EMBED_MODEL;
  if (!model) return undefined;
  const baseURL = env.AI_EMBED_BASE_URL || env.AI_BASE_URL || '';
  if (!/^https?:\/\/\S+$/.test(baseURL))
    throw new Error(`AI_EMBED_BASE_URL: an http(s) URL is required with AI_EMBED_MODEL (or AI_BASE_URL), got ${JSON.stringify(baseURL)}`);
  if (!env.AI_EMBED_DIMENSIONS) throw new Error('AI_EMBED_DIMENSIONS: required with AI_EMBED_MODEL (the vector length, 1 to 2000)');
  const dimensions = envInt(env, 'AI_EMBED_DIMENSIONS', 0, 1);
  if (dimensions > 2000) throw new Error(`AI_EMBED_DIMENSIONS: at most 2000 (the HNSW index's limit), got ${dimensions}`);
  const similarity = env.AI_EMBED_MIN_SIMILARITY || '0.3';
  const minSimilarity = Number(similarity);
  if (!/^[0-9.]+$/.test(similarity) || !(minSimilarity >= 0 && minSimilarity <= 1)) {
    throw new Error(`AI_EMBED_MIN_SIMILARITY: must be a number from 0 to 1, got ${JSON.stringify(similarity)}`);
  }
  return {
    baseURL: baseURL.replace(/\/$/, ''),
    apiKey: env.AI_EMBED_API_KEY || env.AI_API_KEY || '',
    model,
    dimensions,
    timeoutMs: envInt(env, 'AI_EMBED_TIMEOUT_MS', 2000, 1),
    minSimilarity,
  };
}

function loadImageSettings(env: NodeJS.ProcessEnv): ImageSettings | undefined {
  const model = env.AI_IMAGE_MODEL;
  if (!model) return undefined;
  const baseURL = env.AI_IMAGE_BASE_URL || env.AI_BASE_URL || '';
  if (!/^https?:\/\/\S+$/.test(baseURL))
    throw new Error(`AI_IMAGE_BASE_URL: an http(s) URL is required with AI_IMAGE_MODEL (or AI_BASE_URL), got ${JSON.stringify(baseURL)}`);
  return {
    baseURL: baseURL.replace(/\/$/, ''),
    apiKey: env.AI_IMAGE_API_KEY || env.AI_API_KEY || '',
    model,
    timeoutMs: envInt(env, 'AI_IMAGE_TIMEOUT_MS', 60_000, 1),
    pricePerImageMicroUsd: env.AI_IMAGE_PRICE_USD ? usdToMicro('AI_IMAGE_PRICE_USD', env.AI_IMAGE_PRICE_USD) : 40_000,
  };
}
