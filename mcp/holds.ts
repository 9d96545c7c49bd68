import { z } from 'zod';
import { HoldResult } from '../protocol/frames.js';
import { ApprovalStatus, type ApprovalView } from '../protocol/methods/approval.js';
import { derivedIdempotencyKey, okResult, type ToolResult } from './results.js';
import { credential, type McpSession, type ToolCall } from './session.js';

/*
 * The signature law as an MCP flow. A signature act without proof answers a hold frame. The tool result
 * shows it verbatim and adds what an agent needs next: the approval the server filed for it (when the key
 * holds approval.request), the page where a human decides, and what to call then. When the client supports
 * URL elicitation the server also asks it to send the human to that page. Nothing the client answers
 * releases anything: only a human's recorded approval.resolve does, and the act runs only when the agent
 * retries it with the proof.
 */

export const HeldToolResult = HoldResult.extend({
  approvalId: z.string().nullable().describe('The approval filed for this hold; null when this key cannot file one.'),
  approvalStatus: ApprovalStatus.nullable().describe('Its status as recorded now (pending until a human decides).'),
  url: z.string().describe('Where a human decides: the approval’s page in the approval inbox (the inbox when none was filed).'),
  elicitation: z
    .enum(['accept', 'decline', 'cancel'])
    .nullable()
    .describe('What the client answered when asked to open url for its user; null when not asked. Never an approval.'),
  next: z.string().describe('What to do next.'),
});
export type HeldToolResult = z.infer<typeof HeldToolResult>;

type Filed = { view: ApprovalView } | { error: string };

/** File approval.request for the held act as the caller, once per act call, and read its current status. */
async function fileApproval(session: McpSession, call: ToolCall, hold: HoldResult, actKey: string | undefined): Promise<Filed> {
  if (!call.principal.scopes.has('approval.request')) {
    return { error: `this key lacks scope approval.request, so it cannot file the approval; a human can file it in the approval inbox` };
  }
  const params = { actionClass: hold.approval.actionClass, payloadHash: hold.approval.payloadHash, subject: hold.approval.subject };
  // Keyed by the act call: a replayed hold finds the same approval, a new attempt of the act files anew.
  const idempotencyKey = derivedIdempotencyKey('approval.request', { params, act: actKey ?? null });
  const filed = await session.pipeline.call({ method: 'approval.request', params, ...credential(session), idempotencyKey, requestId: call.requestId });
  if (!filed.frame.ok) return { error: `approval.request failed: ${filed.frame.error.code}: ${filed.frame.error.message}` };
  return { view: await currentView(session, call, filed.frame.result as ApprovalView) };
}

/** The approval as recorded now (a replayed approval.request answers its first status). */
async function currentView(session: McpSession, call: ToolCall, view: ApprovalView): Promise<ApprovalView> {
  const got = await session.pipeline.call({ method: 'approval.get', params: { approvalId: view.approvalId }, ...credential(session), requestId: call.requestId });
  return got.frame.ok ? (got.frame.result as ApprovalView) : view;
}

/** Ask the client to open the approval page for its user, when it can. Its answer is reported, never trusted. */
async function elicit(session: McpSession, call: ToolCall, view: ApprovalView, summary: string): Promise<HeldToolResult['elicitation']> {
  if (view.status !== 'pending' || !session.server.getClientCapabilities()?.elicitation?.url) return null;
  try {
    const answer = await session.server.elicitInput(
      {
        mode: 'url',
        elicitationId: view.approvalId,
        url: view.url,
        message: `A human with approval rights must approve this before it runs: ${summary}. Open the approval inbox to review and decide.`,
      },
      { timeout: session.elicitationTimeoutMs, signal: call.signal },
    );
    return answer.action;
  } catch {
    return null;
  }
}

function nextStep(retry: string, filed: Filed, inbox: string): string {
  if ('error' in filed) {
    return `Not executed. ${filed.error} (${inbox}). Once a human has filed and approved it, call ${retry} again with approvalId (or signatureToken).`;
  }
  const { approvalId, status } = filed.view;
  const proof = `call ${retry} again with the same arguments plus approvalId "${approvalId}" and a new idempotencyKey (or none)`;
  switch (status) {
    case 'pending':
      return `Not executed. Tell the user a human must approve "${filed.view.subject.summary}" at ${filed.view.url}. Call approval_wait with approvalId "${approvalId}" until it is decided; once approved, ${proof}.`;
    case 'approved':
      return filed.view.used
        ? `Not executed by this call. Approval ${approvalId} was already used by an earlier call; to act again, call ${retry} with a new idempotencyKey to get a new hold.`
        : `Approved by a human: ${proof}.`;
    default:
      return `Not executed. Approval ${approvalId} is ${status}; the act cannot run on it. To try again, call ${retry} with a new idempotencyKey to get a new hold.`;
  }
}

/**
 * The tool result of a held act: the hold frame verbatim plus the filed approval, its URL and the next step.
 * `retry` names what the agent calls again (the tool, or invoke_write with the method).
 */
export async function presentHold(session: McpSession, call: ToolCall, hold: HoldResult, opts: { retry: string; actKey?: string; meta?: Record<string, unknown> }): Promise<ToolResult> {
  const inbox = `${session.publicUrl}/approvals`;
  const filed = await fileApproval(session, call, hold, opts.actKey);
  let elicitation: HeldToolResult['elicitation'] = null;
  let final = filed;
  if ('view' in filed) {
    // The approval's summary: what the human will read (the server's, from the hold it was bound to).
    elicitation = await elicit(session, call, filed.view, filed.view.subject.summary);
    // Whatever the client answered, report the approval as recorded.
    if (elicitation !== null) final = { view: await currentView(session, call, filed.view) };
  }
  const result: HeldToolResult = {
    ...hold,
    approvalId: 'view' in final ? final.view.approvalId : null,
    approvalStatus: 'view' in final ? final.view.status : null,
    url: 'view' in final ? final.view.url : inbox,
    elicitation,
    next: nextStep(opts.retry, final, inbox),
  };
  return okResult(result, opts.meta);
}

/** After approval_wait sees a decision, close the URL elicitation the client may still show. */
export async function completeElicitation(session: McpSession, view: { approvalId: string; status: string }): Promise<void> {
  if (view.status === 'pending' || !session.server.getClientCapabilities()?.elicitation?.url) return;
  try {
    await session.server.createElicitationCompletionNotifier(view.approvalId)();
  } catch {
    // Best effort: the client may never have shown it.
  }
}
