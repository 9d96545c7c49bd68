import { canonicalJson, sha256Hex } from '../protocol/hashing.js';
import type { ErrorCode } from '../protocol/errors.js';
import type { CallFrame } from '../protocol/frames.js';

/** A tool result as MCP carries it (the SDK's CallToolResult, kept structural here). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** `_meta` keys this server sets on tool results. */
export const META = {
  replayed: 'wops/idempotentReplay',
  idempotencyKey: 'wops/idempotencyKey',
  errorCode: 'wops/errorCode',
} as const;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** structuredContent must be an object: a result that is not one travels as `{ result }`. */
export const structured = (value: unknown): Record<string, unknown> => (isPlainObject(value) ? value : { result: value });

/** About 20,000 tokens: a longer result is cut to fit (fitResult), with a note saying how to get the rest. */
export const MAX_RESULT_CHARS = 80_000;

/**
 * A result whose JSON is over MAX_RESULT_CHARS keeps as many items of its longest list as fit, and says so in
 * `truncated`. A page of the ledger (items with seq, a numeric nextCursor) gets nextCursor = the last seq kept,
 * so paging on loses nothing; other lists say to ask for fewer.
 */
export function fitResult(value: Record<string, unknown>, max = MAX_RESULT_CHARS): Record<string, unknown> {
  if (JSON.stringify(value).length <= max) return value;
  const lists = Object.entries(value).filter((e): e is [string, unknown[]] => Array.isArray(e[1]));
  if (lists.length === 0) return value;
  const [field, items] = lists.reduce((a, b) => (JSON.stringify(b[1]).length > JSON.stringify(a[1]).length ? b : a));
  const build = (kept: number): Record<string, unknown> => {
    const last = items[kept - 1] as { seq?: unknown } | undefined;
    const bySeq = typeof value.nextCursor === 'number' && typeof last?.seq === 'number';
    return {
      ...value,
      [field]: items.slice(0, kept),
      ...(bySeq ? { nextCursor: last.seq } : {}),
      truncated: {
        field,
        kept,
        total: items.length,
        hint: bySeq
          ? `cut to about ${Math.round(max / 4)} tokens: call again with cursor ${String(last.seq)} for the rest`
          : `cut to about ${Math.round(max / 4)} tokens: ask for at most ${kept} (limit) or narrow the query for the rest`,
      },
    };
  };
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (JSON.stringify(build(mid)).length <= max) lo = mid;
    else hi = mid - 1;
  }
  return build(lo);
}

/**
 * Success: the result as structuredContent and the same JSON as text. `note` goes first, as its own text, for
 * what the model must read and clients may not show from _meta (a replay).
 */
export function okResult(value: unknown, meta?: Record<string, unknown>, note?: string): ToolResult {
  const content = fitResult(structured(value));
  const text = { type: 'text' as const, text: JSON.stringify(content) };
  return { content: note ? [{ type: 'text', text: note }, text] : [text], structuredContent: content, ...(meta ? { _meta: meta } : {}) };
}

/**
 * What a replayed write says first, in text: most clients never show `_meta` to the model. A method that also
 * dedupes by a field of its own (dedupeBy: messaging.send's idempotencyId) repeats only with a new value of it.
 */
export const replayNote = (key: string, dedupeBy?: string): string =>
  `Replayed: a call with idempotencyKey ${key} already ran; this is its stored result and nothing ran again. To do it again on purpose, call with ${
    dedupeBy ? `a new ${dedupeBy} (and a new idempotencyKey, or none): a new idempotencyKey alone answers the same earlier result` : 'a new idempotencyKey'
  }.`;

/** What a domain-level replay says first: the method's own dedupe field named an earlier call (result.replayed). */
export const dedupeNote = (field: string, value: unknown): string =>
  `Replayed: ${field} ${JSON.stringify(value)} already named an earlier call; this is its result and nothing ran again (changed is false). To do it again on purpose, call with a new ${field}.`;

/**
 * Failure: a tool error whose text is the spec's error frame verbatim, `{"ok":false,"error":{code,message}}`,
 * so an agent branches on `code` exactly as an HTTP client does. No structuredContent: it would have to match
 * the tool's outputSchema, which describes success.
 */
export function errorResult(code: ErrorCode, message: string): ToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify({ ok: false, error: { code, message } }) }],
    isError: true,
    _meta: { [META.errorCode]: code },
  };
}

export function frameResult(frame: CallFrame, meta?: Record<string, unknown>, note?: string): ToolResult {
  return frame.ok ? okResult(frame.result, meta, note) : errorResult(frame.error.code, frame.error.message);
}

/**
 * The idempotency key of a call whose agent gave none: a hash of the logical call (method and canonical
 * params). A retried identical call therefore replays the stored result and never runs twice; the cache is
 * the pipeline's, per org + actor + method + key, and does not expire, so an agent that means a second
 * identical act must pass a new key of its own.
 */
export function derivedIdempotencyKey(method: string, params: unknown): string {
  return `mcp-${sha256Hex(canonicalJson({ method, params: params ?? {} }))}`;
}

/** Split an idempotent tool's arguments into the method's params and the optional key. */
export function splitIdempotencyKey(args: Record<string, unknown>, field: string): { params: Record<string, unknown>; key?: unknown } {
  if (!(field in args)) return { params: args };
  const { [field]: key, ...params } = args;
  return { params, key };
}
