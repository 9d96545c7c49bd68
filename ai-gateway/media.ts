import { createHash } from 'node:crypto';
import { canonicalJson, sha256Hex } from '../protocol/hashing.js';
import { appendAudit, type AppendedAudit, type AuditVerdict } from './audit.js';
import { budgetState, enforceBudget } from './budget.js';
import type { GatewayEnv } from './gateway.js';
import { costOf } from './prices.js';
import { redactText } from './redact.js';

/*
 * Generation through the gateway that is not an ask (branding's images and rewrites): the org's monthly budget
 * checked first (fail closed: RATE_LIMITED), one request to an OpenAI-compatible endpoint (or the caller's offline
 * default when no model is configured), and one AI audit record per call, whatever happens. The audit holds hashes
 * of the prompt and the output; the texts only when the org keeps bodies. Never call these inside a transaction.
 */

const bytesHash = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export type MediaEnv = Pick<GatewayEnv, 'db' | 'config' | 'now' | 'spend'>;

export interface MediaCall {
  method: string;
  orgId: string;
  requestId: string;
  actor: string;
  keyId: string;
}

interface Outcome {
  provider: 'local' | 'openai';
  model: string;
  audit: AppendedAudit;
}

async function budgeted(env: MediaEnv, call: MediaCall) {
  const now = env.now ?? (() => new Date());
  const budget = await budgetState(env.db, call.orgId, env.config.monthlyBudgetMicroUsd, now(), env.spend);
  enforceBudget(budget, now(), call.method);
  return budget;
}

async function audit(
  env: MediaEnv,
  call: MediaCall,
  a: {
    provider: string;
    model: string;
    tokens: [number, number];
    estimated?: boolean;
    cost: { costMicroUsd: number; priceSource: string };
    latencyMs: number;
    verdict: AuditVerdict;
    reason: string | null;
    promptHash: string;
    answerHash: string | null;
    bodies: { question: string; answer: string | null } | null;
  },
) {
  return appendAudit(env.db, call.orgId, {
    method: call.method,
    requestId: call.requestId,
    actor: call.actor,
    keyId: call.keyId,
    provider: a.provider,
    modelRequested: a.model,
    modelAnswered: a.verdict === 'provider_error' || a.verdict === 'timeout' ? '' : a.model,
    promptTokens: a.tokens[0],
    completionTokens: a.tokens[1],
    tokensEstimated: a.estimated === true,
    costMicroUsd: a.cost.costMicroUsd,
    priceSource: a.cost.priceSource,
    latencyMs: a.latencyMs,
    retries: [],
    reads: [],
    verdict: a.verdict,
    reason: a.reason === null ? null : redactText(a.reason.slice(0, 1000)),
    promptHash: a.promptHash,
    answerHash: a.answerHash,
    bodies: a.bodies,
  });
}

const failed = (err: unknown, ms: number) =>
  (err as Error)?.name === 'TimeoutError'
    ? { verdict: 'timeout' as const, reason: `no answer within ${ms} ms` }
    : { verdict: 'provider_error' as const, reason: 'could not reach the model endpoint' };

export type ImageOutcome = Outcome & ({ ok: true; bytes: Buffer } | { ok: false; reason: string });

/**
 * One image: by the image model (AI_IMAGE_*) when configured, else by `local` (offline, deterministic). `inputs`
 * identify the request (their hash is the audit's promptHash).
 */
export async function generateImage(
  env: MediaEnv,
  call: MediaCall & { prompt: string; size: { width: number; height: number }; inputs: unknown; local: () => Promise<Buffer> },
): Promise<ImageOutcome> {
  const budget = await budgeted(env, call);
  const settings = env.config.images;
  const promptHash = sha256Hex(canonicalJson(call.inputs));
  const bodies = budget.storeBodies ? { question: redactText(call.prompt), answer: null } : null;
  const started = performance.now();
  if (!settings) {
    const bytes = await call.local();
    const a = await audit(env, call, {
      provider: 'local',
      model: 'pattern',
      tokens: [0, 0],
      cost: costOf('local', { modelRequested: '', modelAnswered: '', promptTokens: 0, completionTokens: 0 }),
      latencyMs: Math.round(performance.now() - started),
      verdict: 'generated',
      reason: null,
      promptHash,
      answerHash: bytesHash(bytes),
      bodies,
    });
    return { ok: true, bytes, provider: 'local', model: 'pattern', audit: a };
  }
  let bytes: Buffer | undefined;
  let problem: { verdict: AuditVerdict; reason: string } | undefined;
  try {
    const res = await fetch(`${settings.baseURL}/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({ model: settings.model, prompt: call.prompt, n: 1, size: `${call.size.width}x${call.size.height}`, response_format: 'b64_json' }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    const body = res.ok ? ((await res.json().catch(() => null)) as { data?: { b64_json?: unknown }[] } | null) : null;
    const b64 = body?.data?.[0]?.b64_json;
    if (!res.ok) problem = { verdict: 'provider_error', reason: `the image endpoint answered HTTP ${res.status}` };
    else if (typeof b64 !== 'string' || b64 === '') problem = { verdict: 'provider_error', reason: 'the image endpoint answered no b64_json image' };
    else bytes = Buffer.from(b64, 'base64');
  } catch (err) {
    problem = failed(err, settings.timeoutMs);
  }
  const a = await audit(env, call, {
    provider: 'openai',
    model: settings.model,
    tokens: [0, 0],
    cost: bytes ? { costMicroUsd: settings.pricePerImageMicroUsd, priceSource: 'config' } : { costMicroUsd: 0, priceSource: 'config' },
    latencyMs: Math.round(performance.now() - started),
    verdict: bytes ? 'generated' : problem!.verdict,
    reason: problem?.reason ?? null,
    promptHash,
    answerHash: bytes ? bytesHash(bytes) : null,
    bodies,
  });
  return bytes
    ? { ok: true, bytes, provider: 'openai', model: settings.model, audit: a }
    : { ok: false, reason: problem!.reason, provider: 'openai', model: settings.model, audit: a };
}

export type RewriteOutcome = Outcome & { source: 'model' | 'rules'; text: string; refusal: string | null };

/**
 * A text rewritten: with a chat model (AI_PROVIDER=openai), its draft checked by `check` (a reason refuses it,
 * audited as ungrounded) and `local` answering when the draft is refused or the model fails; offline, `local`.
 */
export async function rewriteText(
  env: MediaEnv,
  call: MediaCall & { instructions: string; text: string; check: (draft: string) => string | undefined; local: () => string },
): Promise<RewriteOutcome> {
  const budget = await budgeted(env, call);
  const promptHash = sha256Hex(canonicalJson({ instructions: call.instructions, text: call.text }));
  const started = performance.now();
  const settings = env.config.provider === 'openai' ? env.config.openai : undefined;
  const record = (r: {
    provider: string;
    model: string;
    tokens: [number, number];
    estimated?: boolean;
    verdict: AuditVerdict;
    reason: string | null;
    answer: string | null;
  }) =>
    audit(env, call, {
      ...r,
      cost: costOf(
        r.provider,
        { modelRequested: r.model, modelAnswered: r.model, promptTokens: r.tokens[0], completionTokens: r.tokens[1] },
        env.config.priceOverride,
      ),
      latencyMs: Math.round(performance.now() - started),
      promptHash,
      answerHash: r.answer === null ? null : sha256Hex(r.answer),
      bodies: budget.storeBodies ? { question: redactText(call.text), answer: r.answer === null ? null : redactText(r.answer) } : null,
    });
  if (!settings) {
    const text = call.local();
    const a = await record({ provider: 'local', model: 'rules', tokens: [0, 0], verdict: 'grounded', reason: null, answer: text });
    return { source: 'rules', text, refusal: null, provider: 'local', model: 'rules', audit: a };
  }
  let draft: string | undefined;
  let tokens: [number, number] = [0, 0];
  let estimated = false;
  let problem: { verdict: AuditVerdict; reason: string } | undefined;
  try {
    const res = await fetch(`${settings.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${settings.apiKey}` },
      body: JSON.stringify({
        model: settings.model,
        messages: [
          { role: 'system', content: call.instructions },
          { role: 'user', content: call.text },
        ],
      }),
      signal: AbortSignal.timeout(settings.requestTimeoutMs),
    });
    const body = res.ok
      ? ((await res.json().catch(() => null)) as {
          choices?: { message?: { content?: unknown } }[];
          usage?: { prompt_tokens?: number; completion_tokens?: number };
        } | null)
      : null;
    const content = body?.choices?.[0]?.message?.content;
    if (!res.ok) problem = { verdict: 'provider_error', reason: `the model endpoint answered HTTP ${res.status}` };
    else if (typeof content !== 'string' || content.trim() === '') problem = { verdict: 'provider_error', reason: 'the model answered no text' };
    else draft = content.trim();
    const u = body?.usage;
    if (typeof u?.prompt_tokens === 'number' && typeof u.completion_tokens === 'number') tokens = [u.prompt_tokens, u.completion_tokens];
    else if (draft !== undefined) {
      tokens = [Math.ceil((call.instructions.length + call.text.length) / 4), Math.ceil(draft.length / 4)];
      estimated = true;
    }
  } catch (err) {
    problem = failed(err, settings.requestTimeoutMs);
  }
  const refusal = draft === undefined ? null : (call.check(draft) ?? null);
  const verdict: AuditVerdict = problem?.verdict ?? (refusal === null ? 'grounded' : 'ungrounded');
  const reason = problem?.reason ?? (refusal === null ? null : `the model's rewrite was refused: ${refusal}`);
  const a = await record({ provider: 'openai', model: settings.model, tokens, estimated, verdict, reason, answer: draft ?? null });
  if (draft !== undefined && refusal === null) return { source: 'model', text: draft, refusal: null, provider: 'openai', model: settings.model, audit: a };
  return { source: 'rules', text: call.local(), refusal: reason, provider: 'openai', model: settings.model, audit: a };
}
