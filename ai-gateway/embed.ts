import { canonicalJson, sha256Hex } from '../protocol/hashing.js';
import { appendAudit, type AuditVerdict } from './audit.js';
import { budgetState, formatMicroUsd } from './budget.js';
import type { EmbedSettings } from './config.js';
import type { GatewayEnv } from './gateway.js';
import { costOf } from './prices.js';

/*
 * Embeddings through the gateway (hybrid knowledge search): the same monthly budget as every ask, checked before
 * the request, and one AI audit record per request that reached the endpoint, priced like any model call. Never
 * an error to the caller: a missing configuration, a spent budget, a timeout or a failed request comes back as
 * { ok: false, reason }, and the search runs full text saying why. The audit records hash no text: a hash of a
 * short query is guessed, and the query itself is erased after 30 days.
 */

/** What an ask's gateway needs but its answerers and provider: the database, the settings, the clock, other spend. */
export type EmbedEnv = Pick<GatewayEnv, 'db' | 'config' | 'now' | 'spend'>;

export interface EmbedCall {
  /** What the vectors are for, recorded as the audit's method (`knowledge.search`, `knowledge.embed`). */
  method: string;
  orgId: string;
  requestId: string;
  /** The caller's principal and key; `system` and '' for a job. */
  actor: string;
  keyId: string;
  texts: readonly string[];
}

export type EmbedOutcome = { ok: true; vectors: number[][]; model: string; dimensions: number } | { ok: false; reason: string; retry: boolean };

/** The endpoint's answer, as far as it is read. */
interface EmbeddingsResponse {
  model?: string;
  data?: { index?: number; embedding?: unknown }[];
  usage?: { prompt_tokens?: number };
}

export async function embed(env: EmbedEnv, call: EmbedCall): Promise<EmbedOutcome> {
  const settings = env.config.embed;
  if (!settings) return { ok: false, reason: 'no embedding model is configured (AI_EMBED_MODEL)', retry: false };
  const now = env.now ?? (() => new Date());
  const budget = await budgetState(env.db, call.orgId, env.config.monthlyBudgetMicroUsd, now(), env.spend);
  if (budget.spentMicroUsd >= budget.monthlyBudgetMicroUsd) {
    return {
      ok: false,
      reason: `the org's monthly AI budget of ${formatMicroUsd(budget.monthlyBudgetMicroUsd)} is spent until ${budget.resetsAt}`,
      retry: false,
    };
  }
  const started = performance.now();
  const answer = await request(settings, call.texts);
  const latencyMs = Math.round(performance.now() - started);
  const promptTokens = answer.tokens ?? Math.ceil(call.texts.reduce((n, t) => n + t.length, 0) / 4);
  const model = answer.model || settings.model;
  const cost = costOf('openai', { modelRequested: settings.model, modelAnswered: model, promptTokens, completionTokens: 0 });
  const verdict: AuditVerdict = answer.vectors ? 'embedded' : answer.timedOut ? 'timeout' : 'provider_error';
  await appendAudit(env.db, call.orgId, {
    method: call.method,
    requestId: call.requestId,
    actor: call.actor,
    keyId: call.keyId,
    provider: 'openai',
    modelRequested: settings.model,
    modelAnswered: answer.vectors ? model : '',
    promptTokens,
    completionTokens: 0,
    tokensEstimated: answer.tokens === undefined,
    costMicroUsd: answer.vectors ? cost.costMicroUsd : 0,
    priceSource: cost.priceSource,
    latencyMs,
    retries: [],
    reads: [],
    verdict,
    reason: answer.vectors ? null : answer.reason,
    promptHash: sha256Hex(canonicalJson({ texts: call.texts.length })),
    answerHash: null,
    bodies: null,
  });
  if (!answer.vectors) return { ok: false, reason: answer.reason, retry: true };
  return { ok: true, vectors: answer.vectors, model: settings.model, dimensions: settings.dimensions };
}

type Answer =
  { vectors: number[][]; model: string; tokens?: number } | { vectors?: undefined; model?: undefined; tokens?: number; reason: string; timedOut: boolean };

/** One POST {baseURL}/embeddings under the timeout; every vector checked for its length and numbers. */
async function request(settings: EmbedSettings, texts: readonly string[]): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  let res: Response;
  try {
    res = await fetch(`${settings.baseURL}/embeddings`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: settings.model, input: texts, dimensions: settings.dimensions, encoding_format: 'float' }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
  } catch (err) {
    const timedOut = (err as Error)?.name === 'TimeoutError';
    return { reason: timedOut ? `the embedding request timed out (${settings.timeoutMs} ms)` : 'could not reach the embedding endpoint', timedOut };
  }
  if (!res.ok) return { reason: `the embedding endpoint answered HTTP ${res.status}`, timedOut: false };
  let body: EmbeddingsResponse;
  try {
    body = (await res.json()) as EmbeddingsResponse;
  } catch {
    return { reason: 'the embedding endpoint answered something that is not JSON', timedOut: false };
  }
  const tokens = typeof body.usage?.prompt_tokens === 'number' ? body.usage.prompt_tokens : undefined;
  const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  const vectors = data.map((d) => d.embedding);
  const good = (v: unknown): v is number[] =>
    Array.isArray(v) && v.length === settings.dimensions && v.every((x) => typeof x === 'number' && Number.isFinite(x));
  if (vectors.length !== texts.length || !vectors.every(good)) {
    return {
      reason: `the embedding endpoint did not answer ${texts.length} vector(s) of ${settings.dimensions} numbers (AI_EMBED_DIMENSIONS)`,
      tokens,
      timedOut: false,
    };
  }
  return { vectors, model: body.model ?? '', tokens };
}
