import type { Db } from '../db/types.js';
import type { AnswererRegistry } from './answerer.js';
import { canonicalJson, sha256Hex } from '../protocol/hashing.js';
import { appendAudit, type AppendedAudit, type AuditVerdict } from './audit.js';
import { budgetState, enforceBudget } from './budget.js';
import type { AiConfig } from './config.js';
import { checkGrounding } from './grounding.js';
import { costOf } from './prices.js';
import type { SpendSource } from './spend.js';
import { redactText } from './redact.js';
import { createToolbox, type CitingToolbox, type ToolboxEnv } from './toolbox.js';
import { ProviderFailure, type Claim, type Draft, type Provider, type Usage } from './types.js';

/** What the gateway needs: the database (audit, budget), its configuration, the provider and the answerers. */
export interface GatewayEnv {
  db: Db;
  config: AiConfig;
  provider: Provider;
  answerers: AnswererRegistry;
  /** Wall-clock time for the audit and the budget period (default: the system clock). */
  now?: () => Date;
  /** Spend besides the gateway's own asks that the budget counts (spend.ts). */
  spend?: readonly SpendSource[];
}

export interface AskCall {
  /** The registry method asking (`books.ask`): its answerer's reads, rules and default answer it. */
  method: string;
  orgId: string;
  requestId: string;
  /** The asking principal (usr_…/agt_…) and key. */
  actor: string;
  keyId: string;
  question: string;
  /** The org's business date. */
  today: string;
  /** How the answerer's reads reach the org as the caller (HandlerCtx.readAs, its q, org and scopes). */
  reads: ToolboxEnv;
}

export interface AskOutcome {
  status: 'answered' | 'refused';
  answer: string | null;
  claims: Claim[];
  reason: string | null;
  verdict: AuditVerdict;
  provider: string;
  model: string;
  /** Typed reads that returned data in this ask, in first-call order. */
  reads: string[];
  audit: AppendedAudit;
  /** The toolbox of this ask: what its reads returned, for a caller that stores the cited records. */
  toolbox: CitingToolbox;
}

/** How long a provider gets, after the deadline, to report what it spent before the audit is written without it. */
const SETTLE_MS = 2000;

type Settled = { ok: true; draft: Draft; usage: Usage } | { ok: false; error: unknown };

/**
 * One ask of a registered method: answerer (an unregistered method is refused) -> budget (fail closed) ->
 * provider under a deadline, over the answerer's toolbox -> grounding (the gateway's rules and the
 * answerer's) -> audit -> outcome. Every ask that reaches the provider is audited, whatever happens:
 * answered, refused as ungrounded, cannot answer, failed, timed out. An error that is not a ProviderFailure
 * is a bug: audited, then rethrown. Never call it inside a transaction: a model may take minutes, and the
 * audit append takes a transaction of its own (a handler of an M method calls it from its prepare step).
 */
export async function ask(env: GatewayEnv, call: AskCall): Promise<AskOutcome> {
  const answerer = env.answerers.get(call.method);
  const now = env.now ?? (() => new Date());
  const budget = await budgetState(env.db, call.orgId, env.config.monthlyBudgetMicroUsd, now(), env.spend);
  enforceBudget(budget, now(), call.method);
  const toolbox = createToolbox(call.reads, answerer);

  const started = performance.now();
  const controller = new AbortController();
  const running: Promise<Settled> = env.provider.answer({ question: call.question, today: call.today, answerer }, toolbox, controller.signal).then(
    (r) => ({ ok: true as const, draft: r.draft, usage: r.usage }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), env.config.timeoutMs);
  });
  let settled = await Promise.race([running, deadline]);
  clearTimeout(timer);
  let timedOut = false;
  if (settled === 'timeout') {
    timedOut = true;
    controller.abort(new Error(`${call.method} deadline of ${env.config.timeoutMs} ms passed`));
    settled = await Promise.race<Settled | 'timeout'>([running, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), SETTLE_MS).unref())]);
  }
  const latencyMs = Math.round(performance.now() - started);

  const emptyUsage: Usage = { modelRequested: '', modelAnswered: '', promptTokens: 0, completionTokens: 0, retries: [] };
  let usage = emptyUsage;
  let draft: Draft | null = null;
  let verdict: AuditVerdict;
  let reason: string | null = null;
  let bug: unknown;
  if (settled !== 'timeout' && settled.ok && !timedOut) {
    usage = settled.usage;
    draft = settled.draft;
    if (draft.kind === 'cannot_answer') {
      verdict = 'cannot_answer';
      reason = draft.reason;
    } else {
      const grounding = checkGrounding(draft, toolbox.records, answerer.grounding);
      verdict = grounding.ok ? 'grounded' : 'ungrounded';
      if (!grounding.ok) reason = `the model's answer was refused as ungrounded: ${grounding.reason}`;
    }
  } else {
    const error = settled === 'timeout' ? undefined : settled.ok ? undefined : settled.error;
    if (error instanceof ProviderFailure) usage = error.usage;
    else if (settled !== 'timeout' && settled.ok) usage = settled.usage;
    if (timedOut) {
      verdict = 'timeout';
      reason = `no answer within the ${env.config.timeoutMs} ms deadline`;
    } else {
      verdict = 'provider_error';
      reason = error instanceof ProviderFailure ? `the model call failed: ${error.message}` : 'the answerer failed (an internal error)';
      if (!(error instanceof ProviderFailure)) bug = error;
    }
  }

  const cost = costOf(env.provider.name, usage, env.config.priceOverride);
  const answered = verdict === 'grounded' && draft?.kind === 'answer';
  const audit = await appendAudit(env.db, call.orgId, {
    method: call.method,
    requestId: call.requestId,
    actor: call.actor,
    keyId: call.keyId,
    provider: env.provider.name,
    modelRequested: usage.modelRequested,
    modelAnswered: usage.modelAnswered,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    tokensEstimated: usage.estimated === true,
    costMicroUsd: cost.costMicroUsd,
    priceSource: cost.priceSource,
    latencyMs,
    retries: usage.retries.map((r) => ({ reason: r.reason })),
    reads: toolbox.calls.map((c) => ({ name: c.name, ok: c.ok, error: c.error ?? null })),
    verdict,
    reason: reason === null ? null : redactText(reason.slice(0, 1000)),
    promptHash: sha256Hex(canonicalJson({ question: call.question, today: call.today })),
    answerHash: draft ? sha256Hex(canonicalJson(draft)) : null,
    bodies: budget.storeBodies ? { question: redactText(call.question), answer: draft?.kind === 'answer' ? redactText(draft.answer) : null } : null,
  });
  if (bug !== undefined) throw bug;

  const reads = [...new Set(toolbox.calls.filter((c) => c.ok).map((c) => c.name))];
  return {
    status: answered ? 'answered' : 'refused',
    answer: answered && draft?.kind === 'answer' ? draft.answer : null,
    claims: answered && draft?.kind === 'answer' ? draft.claims : [],
    reason,
    verdict,
    provider: env.provider.name,
    model: usage.modelAnswered || usage.modelRequested,
    reads,
    audit,
    toolbox,
  };
}
