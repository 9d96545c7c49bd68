import type { z } from 'zod';
import type { Answerer } from './answerer.js';

/*
 * The seam between the AI gateway and whatever answers a question (the offline `local` answerer, or a model
 * behind the `openai` client). A provider may only look at the org through the typed reads of the method's
 * answerer in a `Toolbox`, and hands back a `Draft`: answer text plus claims that cite what those reads
 * returned. The gateway, not the provider, decides whether a draft is grounded (grounding.ts) and audits
 * every call.
 */

/** A record the reads returned in this call, citable by its key. */
export type Citation =
  | { kind: 'record'; id: string } // any object with a string `id` (inv_…, bill_…, jnl_…, ct_…) in a read result
  | { kind: 'account'; code: string } // a chart account from books.accounts (its balance fields) or a report line
  | { kind: 'event'; seq: number }; // a ledger event returned by the events read

/**
 * A number a claim states, and how to recompute it from the claim's citations. The gateway collects the
 * cited records, takes `field` of each (a dot path, e.g. `balanceCents` or `totals.grossCents`), applies
 * `op`, and refuses the whole answer unless the result equals `value` exactly.
 * - `value`: exactly one citation; its field is the number.
 * - `sum` | `min` | `max`: over the field of every citation.
 * - `count`: the number of citations (no field).
 * Every number written in the answer or a claim's text (money like `$1,234.56`, plain integers) must be
 * one of the answer's figures, rendered by `renderFigure`; ISO dates (`2026-11-22`) and record ids are
 * not numbers for this rule.
 */
export interface Figure {
  value: number;
  unit: 'cents' | 'count' | 'days';
  op: 'value' | 'sum' | 'min' | 'max' | 'count';
  field?: string;
}

export interface Claim {
  text: string;
  cites: Citation[];
  figure?: Figure;
  /** Words copied from a cited record: they must appear in one of its text fields verbatim (grounding.ts). */
  quote?: string;
}

export type Draft =
  | { kind: 'answer'; answer: string; claims: Claim[] }
  /** The provider cannot answer from the reads (unknown record, out of scope, a request to break the rules). */
  | { kind: 'cannot_answer'; reason: string };

/** One typed read a provider may call: a registry R method (or ledger.events), its zod params, and what it is for. */
export interface ReadTool {
  /** Method name, e.g. `books.invoices`; `ledger.events` for recent ledger activity. */
  name: string;
  description: string;
  params: z.ZodType;
}

export interface Toolbox {
  readonly tools: readonly ReadTool[];
  /**
   * Run a typed read as the caller (their scopes, their org only). Params are validated by the read's zod
   * schema; a bad call throws a ToolError the provider may report back to the model. Every record the
   * result contains becomes citable for this call.
   */
  call(name: string, params: unknown): Promise<unknown>;
}

export class ToolError extends Error {}

/** Token usage and which model answered, as the provider saw them. */
export interface Usage {
  modelRequested: string;
  modelAnswered: string;
  promptTokens: number;
  completionTokens: number;
  /** Each retry the client made, with why (HTTP 429, 500, timeout…). */
  retries: { reason: string }[];
  /** true when the endpoint reported no usage and the provider estimated the tokens. */
  estimated?: boolean;
}

/**
 * A provider that failed after spending (a model request that failed after its retries, output that is not
 * a Draft, the step bound reached) throws this, so the audit still records the usage. Any other error a
 * provider throws is a bug: audited, then propagated.
 */
export class ProviderFailure extends Error {
  constructor(
    message: string,
    readonly usage: Usage,
  ) {
    super(message);
    this.name = 'ProviderFailure';
  }
}

export interface ProviderResult {
  draft: Draft;
  usage: Usage;
}

export interface AskInput {
  question: string;
  /** Business date the question is asked on (the org's "today"). */
  today: string;
  /** The method's registered answerer: a model is told its instructions, the local provider runs its default. */
  answerer: Answerer;
}

export interface Provider {
  /** `local` or `openai`: recorded in the audit. */
  readonly name: string;
  answer(input: AskInput, tools: Toolbox, signal: AbortSignal): Promise<ProviderResult>;
}
