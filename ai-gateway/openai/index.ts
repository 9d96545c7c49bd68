import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { OpenAiSettings } from '../config.js';
import { ProviderFailure, ToolError, type AskInput, type Provider, type ProviderResult, type Toolbox, type Usage } from '../types.js';
import { describeAttempt, recordingClient, type RecordingClient } from './client.js';
import { parseDraft } from './draft.js';
import { functionName, toolSpecs } from './prompt.js';

export interface OpenAiProviderOptions extends OpenAiSettings {
  /** Model requests per ask; the last one may not call tools. */
  maxSteps: number;
  /** A tool result longer than this is cut (the model is told to page). Default 24000 characters. */
  maxToolResultChars?: number;
}

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

interface Turn {
  model: string;
  content: string | null;
  toolCalls: ToolCall[];
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/**
 * The `openai` provider: chat completions with tool calling over the toolbox's typed reads, told what the
 * method's answerer instructs (its task, draft shape and grounding rules in words), against any
 * OpenAI-compatible endpoint. Each step is one model request (with the client's own retries and per-request
 * timeout); tool calls are run through the toolbox and their results (or ToolErrors) sent back; the final
 * message must be a Draft as JSON. Plain or streamed (SSE, with the usage chunk) per configuration.
 */
export function openAiProvider(opts: OpenAiProviderOptions): Provider {
  const maxChars = opts.maxToolResultChars ?? 24_000;
  return {
    name: 'openai',
    async answer(input: AskInput, toolbox: Toolbox, signal: AbortSignal): Promise<ProviderResult> {
      const rc = recordingClient(opts, signal);
      const usage: Usage = { modelRequested: opts.model, modelAnswered: '', promptTokens: 0, completionTokens: 0, retries: [] };
      const byFunction = new Map(toolbox.tools.map((t) => [functionName(t.name), t.name]));
      const tools = toolSpecs(toolbox.tools);
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: input.answerer.instructions(input.today) },
        { role: 'user', content: input.question },
      ];
      for (let step = 1; step <= opts.maxSteps; step++) {
        const last = step === opts.maxSteps;
        const turn = await request(rc, opts, { messages, tools, last }, signal, usage);
        if (turn.toolCalls.length > 0 && last) break;
        if (turn.toolCalls.length === 0) {
          const parsed = parseDraft(turn.content, input.answerer.draftSchema);
          if ('error' in parsed) throw new ProviderFailure(parsed.error, usage);
          return { draft: parsed.draft, usage };
        }
        messages.push({
          role: 'assistant',
          content: turn.content,
          tool_calls: turn.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
        });
        for (const call of turn.toolCalls) {
          messages.push({ role: 'tool', tool_call_id: call.id, content: await runTool(toolbox, byFunction, call, maxChars) });
        }
      }
      throw new ProviderFailure(`no final answer within ${opts.maxSteps} model requests (AI_MAX_STEPS)`, usage);
    },
  };
}

/** Run one tool call; what the model gets back is the result as JSON, or `{"error": …}` for a refused call. */
async function runTool(toolbox: Toolbox, byFunction: Map<string, string>, call: ToolCall, maxChars: number): Promise<string> {
  let params: unknown;
  try {
    params = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (err) {
    return JSON.stringify({ error: `arguments are not valid JSON (${(err as Error).message})` });
  }
  try {
    const result = await toolbox.call(byFunction.get(call.name) ?? call.name, params);
    const text = JSON.stringify(result);
    if (text.length <= maxChars) return text;
    return JSON.stringify({
      truncated: `the result is ${text.length} characters; only the first ${maxChars} are shown: ask for fewer with limit and page with cursor`,
      partial: text.slice(0, maxChars),
    });
  } catch (err) {
    if (err instanceof ToolError) return JSON.stringify({ error: err.message });
    throw err;
  }
}

/** One model request, plain or streamed; its usage, model and retries are added to the ask's usage. */
async function request(
  rc: RecordingClient,
  opts: OpenAiProviderOptions,
  body: { messages: ChatCompletionMessageParam[]; tools: ReturnType<typeof toolSpecs>; last: boolean },
  signal: AbortSignal,
  usage: Usage,
): Promise<Turn> {
  const params = {
    model: opts.model,
    messages: body.messages,
    tools: body.tools,
    tool_choice: body.last ? ('none' as const) : ('auto' as const),
  };
  let turn: Turn;
  try {
    turn = opts.stream ? await streamed(rc.client, params, signal) : await plain(rc.client, params, signal);
  } catch (err) {
    const attempts = rc.take();
    usage.retries.push(...attempts.slice(0, -1).map((a) => ({ reason: describeAttempt(a, opts.requestTimeoutMs) })));
    throw new ProviderFailure(failureMessage(err, attempts.length, opts), usage);
  }
  // Every attempt but the last was retried (on failure above, the last is the failure).
  const attempts = rc.take();
  usage.retries.push(...attempts.slice(0, -1).map((a) => ({ reason: describeAttempt(a, opts.requestTimeoutMs) })));
  usage.modelAnswered = turn.model || usage.modelAnswered;
  if (turn.usage) {
    usage.promptTokens += turn.usage.prompt_tokens;
    usage.completionTokens += turn.usage.completion_tokens;
  } else {
    // The endpoint reported no usage: estimate (4 characters a token) so the budget still counts the call.
    usage.estimated = true;
    usage.promptTokens += Math.ceil(JSON.stringify(body.messages).length / 4);
    usage.completionTokens += Math.ceil(((turn.content ?? '').length + JSON.stringify(turn.toolCalls).length) / 4);
  }
  return turn;
}

function failureMessage(err: unknown, attempts: number, opts: OpenAiProviderOptions): string {
  const after = attempts > 1 ? ` after ${attempts - 1} ${attempts - 1 === 1 ? 'retry' : 'retries'}` : '';
  if (err instanceof OpenAI.APIUserAbortError) return 'the request was aborted at the deadline';
  if (err instanceof OpenAI.APIConnectionTimeoutError) return `the model request timed out (${opts.requestTimeoutMs} ms)${after}`;
  if (err instanceof OpenAI.APIConnectionError) return `could not reach the model endpoint${after}`;
  if (err instanceof OpenAI.APIError) return `the model endpoint answered HTTP ${err.status}${after}: ${String(err.message).slice(0, 200)}`;
  return `the model request failed: ${(err as Error)?.message ?? String(err)}`;
}

type Params = {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools: ReturnType<typeof toolSpecs>;
  tool_choice: 'none' | 'auto';
};

async function plain(client: OpenAI, params: Params, signal: AbortSignal): Promise<Turn> {
  const res = await client.chat.completions.create({ ...params, stream: false }, { signal });
  const message = res.choices[0]?.message;
  const toolCalls = (message?.tool_calls ?? []).flatMap((c) =>
    c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
  );
  return { model: res.model, content: message?.content ?? null, toolCalls, usage: res.usage ?? undefined };
}

/** Streamed: content and tool-call fragments are put together by index; usage comes in the last chunk. */
async function streamed(client: OpenAI, params: Params, signal: AbortSignal): Promise<Turn> {
  const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, { signal });
  let model = '';
  let content = '';
  let sawContent = false;
  let usage: Turn['usage'];
  const calls: ToolCall[] = [];
  for await (const chunk of stream) {
    if (chunk.model) model = chunk.model;
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices[0]?.delta;
    if (delta?.content) {
      content += delta.content;
      sawContent = true;
    }
    for (const part of delta?.tool_calls ?? []) {
      const slot = (calls[part.index] ??= { id: '', name: '', arguments: '' });
      if (part.id) slot.id = part.id;
      if (part.function?.name) slot.name += part.function.name;
      if (part.function?.arguments) slot.arguments += part.function.arguments;
    }
  }
  return { model, content: sawContent ? content : null, toolCalls: calls.filter(Boolean), usage };
}
