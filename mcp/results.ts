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

/** Success: the result as structuredContent and the same JSON as text. */
export function okResult(value: unknown, meta?: Record<string, unknown>): ToolResult {
  const content = structured(value);
  return { content: [{ type: 'text', text: JSON.stringify(content) }], structuredContent: content, ...(meta ? { _meta: meta } : {}) };
}

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

export function frameResult(frame: CallFrame, meta?: Record<string, unknown>): ToolResult {
  return frame.ok ? okResult(frame.result, meta) : errorResult(frame.error.code, frame.error.message);
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
