import { isErrorCode } from '../protocol/errors.js';
import { jsonBoundsIssue } from '../protocol/json-bounds.js';
import { isHoldResult } from '../protocol/frames.js';
import { METHODS } from '../protocol/registry.js';
import { completeElicitation, presentHold } from './holds.js';
import { derivedIdempotencyKey, errorResult, frameResult, META, okResult, type ToolResult } from './results.js';
import { credential, type McpSession, type ToolCall } from './session.js';

/*
 * Every tool call ends here, and goes through the same pipeline as HTTP: the key is authenticated for each
 * request (over HTTP once, by the transport), scopes, params validation, governance, idempotency and the
 * ledger behave exactly as over HTTP.
 */

/**
 * Call a method as the session's key. `retry` is how the agent would call it again (for hold instructions);
 * `paramsAt` is where the params sit in the tool's arguments (`params` for invoke_write), for messages.
 */
export async function invokeMethod(
  session: McpSession,
  call: ToolCall,
  method: string,
  params: unknown,
  opts: { givenKey?: unknown; retry: string; paramsAt?: string },
): Promise<ToolResult> {
  // Bounded before anything walks them: the derived key below canonicalises the params (recursively).
  const unbounded = jsonBoundsIssue(params, { prefix: opts.paramsAt });
  if (unbounded) return errorResult('BAD_REQUEST', unbounded);
  if (opts.givenKey !== undefined && (typeof opts.givenKey !== 'string' || opts.givenKey.length === 0)) {
    return errorResult('BAD_REQUEST', 'idempotencyKey: must be a non-empty string');
  }
  const spec = METHODS.get(method);
  const idempotent = spec !== undefined && spec.idempotent && spec.mutating;
  const key = (opts.givenKey as string | undefined) ?? (idempotent ? derivedIdempotencyKey(method, params) : undefined);
  const out = await session.pipeline.call({ method, params, ...credential(session), idempotencyKey: key, idempotencyKeyName: 'idempotencyKey', requestId: call.requestId });
  const meta = idempotent && key ? { [META.idempotencyKey]: key, [META.replayed]: out.replayed } : undefined;
  if (out.frame.ok && isHoldResult(out.frame.result)) {
    return presentHold(session, call, out.frame.result, { retry: opts.retry, actKey: idempotent ? key : undefined, meta });
  }
  return frameResult(out.frame, meta);
}

/** A GET read as the session's key: the bare payload on success, the error frame otherwise. */
export async function invokeRead(session: McpSession, call: ToolCall, path: string, query: unknown): Promise<ToolResult> {
  const out = await session.pipeline.read({ path, query, ...credential(session), requestId: call.requestId, signal: call.signal });
  const body = JSON.parse(out.body) as unknown;
  if (out.status !== 200) {
    const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
    return errorResult(isErrorCode(error?.code) ? error.code : 'INTERNAL', String(error?.message ?? out.body));
  }
  if (path === 'approval.wait') await completeElicitation(session, body as { approvalId: string; status: string });
  return okResult(body);
}
