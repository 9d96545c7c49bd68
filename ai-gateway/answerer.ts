import type { z } from 'zod';
import { ApiError } from '../protocol/errors.js';
import type { CitedRecords } from './records.js';
import type { AskInput, Citation, Draft, ReadTool, Toolbox } from './types.js';

/*
 * The registry of answerers. A family that answers in words (books.ask, crm.ask, email.summarise…) registers
 * one answerer per method: its toolbox (the typed reads a provider may call, run as the caller), its grounding
 * rules (on top of the gateway's own), its offline deterministic default, and what a model is told. The
 * gateway owns everything else: providers, budget, audit chain, grounding engine. ai-gateway imports no
 * family: domain/answerers.ts lists the families' answerers and the runtime registers them.
 */

/** What a family adds to the gateway's grounding rules (grounding.ts applies its own to every answer). */
export interface GroundingRules {
  /**
   * Extra citations one node of a read's result stands for, besides the record citation of any object with
   * a string `id` and the event citation of a ledger.events event (books: a chart account or report line
   * is an `account` citation).
   */
  citable?(tool: string, node: Readonly<Record<string, unknown>>): Citation[];
  /** Every claim must carry a quote (found verbatim in a record it cites); default: a quote is optional. */
  quotesRequired?: boolean;
  /**
   * The names a read node carries that, written in an answer, must come from a record the statement cites
   * (directory: a party's name and aliases). Names of nodes this ask read only: a name nothing read is not known.
   */
  names?(node: Readonly<Record<string, unknown>>): string[];
  /** A family's own check after the gateway's (e.g. every date written must be a cited event's): the reason it fails, else undefined. */
  check?(draft: Extract<Draft, { kind: 'answer' }>, records: CitedRecords): string | undefined;
}

/** The offline answerer: deterministic, no model, reading only through the toolbox. */
export type LocalAnswer = (input: AskInput, tools: Toolbox) => Promise<Draft>;

export interface Answerer {
  /** The registry method it answers for, e.g. `books.ask`: recorded in the audit and in /cost.rollup. */
  method: string;
  /** The typed reads a provider may call: registry R methods (run as the caller) and LEDGER_EVENTS_READ. */
  tools: readonly ReadTool[];
  grounding: GroundingRules;
  /** The offline deterministic default (AI_PROVIDER=local). */
  local: LocalAnswer;
  /** What a model is told: the task, its reads, the draft's shape and the grounding rules in words. */
  instructions(today: string): string;
  /** The shape a model's final message must have (default: DraftSchema in ai-gateway/draft-schema.ts). */
  draftSchema?: z.ZodType;
}

/**
 * Reads no answerer's toolbox may offer, whatever it declares: a vault secret's metadata and leases (credential.*)
 * would put what guards a secret into a model's context, and integration.invokeTool would let a model call the
 * outside world with the org's credentials.
 */
export const NEVER_READ = /^(credential\.[A-Za-z]+|integration\.invokeTool)$/;

export class AnswererRegistry {
  private readonly byMethod = new Map<string, Answerer>();

  constructor(answerers: readonly Answerer[] = []) {
    for (const a of answerers) this.register(a);
  }

  register(a: Answerer): void {
    if (this.byMethod.has(a.method)) throw new Error(`an answerer for ${a.method} is already registered`);
    if (a.tools.length === 0) throw new Error(`the answerer for ${a.method} has no reads`);
    const barred = a.tools.filter((t) => NEVER_READ.test(t.name));
    if (barred.length)
      throw new Error(`the answerer for ${a.method} may not read ${barred.map((t) => t.name).join(', ')}: secrets and remote tool calls never reach a model`);
    this.byMethod.set(a.method, a);
  }

  /** The answerer of a method; a method without one is refused (no model is called for it). */
  get(method: string): Answerer {
    const a = this.byMethod.get(method);
    if (!a) throw new ApiError('NOT_FOUND', `${method} has no AI answerer registered on this server`);
    return a;
  }

  get methods(): string[] {
    return [...this.byMethod.keys()];
  }
}
