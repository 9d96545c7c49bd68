import { ApiError } from '../protocol/errors.js';
import type { Queryable } from '../db/types.js';
import { NEVER_READ, type Answerer } from './answerer.js';
import { LEDGER_EVENTS_SCOPE, LEDGER_EVENTS_TOOL, LedgerEventsParams, recentEvents } from './ledger-events.js';
import { CitedRecords, indexResult } from './records.js';
import { ToolError, type Toolbox } from './types.js';

/** What a toolbox needs of the caller: the pipeline's readAs for the registry reads, and the org for the ledger. */
export interface ToolboxEnv {
  /** Run a registry R method as the caller (Pipeline.readAs / HandlerCtx.readAs): scope, deployment, params. */
  readAs(method: string, params: unknown): Promise<unknown>;
  q: Queryable;
  orgId: string;
  scopes: ReadonlySet<string>;
}

/** One tool call as the audit records it: name, outcome, and the error a provider was told. */
export interface ToolCall {
  name: string;
  ok: boolean;
  error?: string;
}

export interface CitingToolbox extends Toolbox {
  /** Everything the reads returned in this ask, for grounding. */
  readonly records: CitedRecords;
  /** Every call made, in order. */
  readonly calls: readonly ToolCall[];
}

/**
 * A toolbox for one ask: the answerer's typed reads (and `ledger.events` if it offers it), run as the caller.
 * Every result is indexed (records.ts, with the answerer's citable rule) so a draft may cite what it returned
 * and nothing else. A refused or malformed call is a ToolError whose message (`limit: must be at most 200`,
 * `missing scope org.read for ledger.events`) a provider may show the model; any other failure is a bug and
 * propagates.
 */
export function createToolbox(env: ToolboxEnv, answerer: Pick<Answerer, 'tools' | 'grounding'>): CitingToolbox {
  const barred = answerer.tools.filter((t) => NEVER_READ.test(t.name));
  if (barred.length) throw new Error(`an AI toolbox may not read ${barred.map((t) => t.name).join(', ')}: secrets and remote tool calls never reach a model`);
  const records = new CitedRecords();
  const calls: ToolCall[] = [];
  const tools = answerer.tools;
  const byName = new Map(tools.map((t) => [t.name, t]));

  async function run(name: string, params: unknown): Promise<unknown> {
    if (name === LEDGER_EVENTS_TOOL) {
      if (!env.scopes.has(LEDGER_EVENTS_SCOPE)) throw new ApiError('FORBIDDEN_SCOPE', `missing scope ${LEDGER_EVENTS_SCOPE} for ${LEDGER_EVENTS_TOOL}`);
      const parsed = LedgerEventsParams.safeParse(params ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ApiError('BAD_REQUEST', `${issue.path.join('.') || 'params'}: ${issue.message}`);
      }
      return recentEvents(env.q, env.orgId, parsed.data);
    }
    return env.readAs(name, params ?? {});
  }

  return {
    tools,
    records,
    calls,
    async call(name, params) {
      if (!byName.has(name)) {
        calls.push({ name, ok: false, error: 'unknown tool' });
        throw new ToolError(`unknown tool ${JSON.stringify(String(name).slice(0, 60))}; the tools are ${tools.map((t) => t.name).join(', ')}`);
      }
      let result: unknown;
      try {
        result = await run(name, params);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const message = `${err.code}: ${err.message}`;
        calls.push({ name, ok: false, error: message });
        throw new ToolError(message);
      }
      indexResult(records, name, result, answerer.grounding);
      calls.push({ name, ok: true });
      return result;
    },
  };
}
