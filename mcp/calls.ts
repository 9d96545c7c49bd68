import { isErrorCode } from '../protocol/errors.js';
import { jsonBoundsIssue } from '../protocol/json-bounds.js';
import { isHoldResult, type CallFrame } from '../protocol/frames.js';
import { METHODS } from '../protocol/registry.js';
import type { ApprovalView } from '../protocol/methods/approval.js';
import { completeElicitation, presentHold } from './holds.js';
import { decisionNext, explainProofRefusal } from './decisions.js';
import { dedupeNote, derivedIdempotencyKey, errorResult, frameResult, META, okResult, replayNote, type ToolResult } from './results.js';
import { credential, type McpSession, type ToolCall } from './session.js';

/*
 * Every tool call ends here, and goes through the same pipeline as HTTP: the key is authenticated for each
 * request (over HTTP once, by the transport), scopes, params validation, governance, idempotency and the
 * ledger behave exactly as over HTTP.
 */

/**
 * Call a method as the session's key. `retry` is how the agent would call it again (for hold instructions).
 */
export async function invokeMethod(
  session: McpSession,
  call: ToolCall,
  method: string,
  params: unknown,
  opts: { givenKey?: unknown; retry: string },
): Promise<ToolResult> {
  // Bounded before anything walks them: the derived key below canonicalises the params (recursively).
  const unbounded = jsonBoundsIssue(params, { root: 'params' });
  if (unbounded) return errorResult('BAD_REQUEST', unbounded);
  if (opts.givenKey !== undefined && (typeof opts.givenKey !== 'string' || opts.givenKey.length === 0)) {
    return errorResult('BAD_REQUEST', 'idempotencyKey: must be a non-empty string');
  }
  const spec = METHODS.get(method);
  const idempotent = spec !== undefined && spec.idempotent && spec.mutating;
  const key = opts.givenKey ?? (idempotent ? derivedIdempotencyKey(method, params) : undefined);
  const out = await session.pipeline.call({
    method,
    params,
    ...credential(session),
    idempotencyKey: key,
    idempotencyKeyName: 'idempotencyKey',
    requestId: call.requestId,
  });
  const meta = idempotent && key ? { [META.idempotencyKey]: key, [META.replayed]: out.replayed } : undefined;
  const presentation = {
    retry: opts.retry,
    actKey: idempotent ? key : undefined,
    meta,
    ledgerId: out.event?.ledgerId,
    replayedKey: out.replayed && key ? key : undefined,
  };
  if (out.frame.ok && isHoldResult(out.frame.result)) return presentHold(session, call, out.frame.result, presentation);
  // A refused act (PB-B1) takes the hold's path: its approval is filed for the agent, its next step said.
  if (out.refusedHold) return presentHold(session, call, out.refusedHold.hold, { ...presentation, refusal: out.refusedHold.reason });
  // A proof that cannot release the act yet (pending, rejected, expired, used): say what the agent does now.
  if (!out.frame.ok && out.frame.error.code === 'GOVERNANCE_NOT_READY') {
    const explained = await explainProofRefusal(session, call, params, opts.retry, out.frame.error.message);
    if (explained) return explained;
  }
  // A replay, of this key's earlier call or of the act the method's own dedupe field names (dedupeBy): said first.
  const dedupeBy = spec ? session.pipeline.handlers.get(method)?.contract.dedupeBy : undefined;
  const deduped = out.frame.ok && dedupeBy !== undefined && (out.frame.result as { replayed?: unknown } | null)?.replayed === true;
  const note = out.replayed && key ? replayNote(key, dedupeBy) : deduped ? dedupeNote(dedupeBy, (params as Record<string, unknown>)[dedupeBy]) : undefined;
  const shownMeta = deduped && meta ? { ...meta, [META.replayed]: true } : meta;
  return frameResult(withoutUsedTokens(method, out.frame), shownMeta, note);
}

/**
 * A used proof releases nothing more: an agent's approval lists and reads leave its token out, so they stay
 * short and hold no spent secrets (over HTTP the requester can still read it, as the spec allows).
 */
function withoutUsedTokens(method: string, frame: CallFrame): CallFrame {
  if (!frame.ok || (method !== 'approval.list' && method !== 'approval.get')) return frame;
  const strip = (v: ApprovalView): ApprovalView => (v.used && v.signatureToken ? (({ signatureToken: _, ...rest }) => rest)(v) : v);
  const result = frame.result as { approvals?: ApprovalView[] } & ApprovalView;
  return { ok: true, result: method === 'approval.list' ? { ...result, approvals: (result.approvals ?? []).map(strip) } : strip(result) };
}

/** A GET read as the session's key: the bare payload on success, the error frame otherwise. */
export async function invokeRead(session: McpSession, call: ToolCall, path: string, query: unknown): Promise<ToolResult> {
  const out = await session.pipeline.read({ path, query, ...credential(session), requestId: call.requestId, signal: call.signal });
  const body = JSON.parse(out.body) as unknown;
  if (out.status !== 200) {
    const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
    return errorResult(isErrorCode(error?.code) ? error.code : 'INTERNAL', String(error?.message ?? out.body));
  }
  if (path === 'approval.wait') {
    const view = body as ApprovalView & { timedOut: boolean };
    await completeElicitation(session, view);
    // What to do now, in the result the agent reads: the exact retry, wait again, or stop and tell the user.
    return okResult({ ...view, next: decisionNext(session, call, view) });
  }
  return okResult(body);
}
