import { z } from 'zod';
import { HoldResult } from '../protocol/frames.js';
import { ApprovalStatus, type ApprovalView } from '../protocol/methods/approval.js';
import { derivedIdempotencyKey, okResult, type ToolResult } from './results.js';
import { credential, type McpSession, type ToolCall } from './session.js';

/*
 * The signature law as an MCP flow, in every family. A signature act without proof answers a hold frame. The tool result
 * shows it verbatim and adds what an agent needs next: the approval the server filed for it (when the key
 * holds approval.request), the page where a human decides, and what to call then. When the client supports
 * URL elicitation the server also asks it to send the human to that page. Nothing the client answers
 * releases anything: only a human's recorded approval.resolve does, and the act runs only when the agent
 * retries it with the proof (retry mode) or in the human's decision itself (release mode: the server filed the
 * approval, the agent only waits).
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

export interface HoldPresentation {
  /** What the agent calls again (the tool, or invoke_write with the method). */
  retry: string;
  actKey?: string;
  meta?: Record<string, unknown>;
  /** The hold's ledger event (absent on a replay or a refusal). */
  ledgerId?: string;
  /** A refused act (PB-B1): why it cannot run without a signature. */
  refusal?: string;
}

/**
 * The hold's message in MCP's words: what was not done and why, with no HTTP route or header, and never "file
 * approval.request" once the server filed it. The HTTP message is in the hold frame over HTTP.
 */
function mcpMessage(hold: HoldResult, opts: HoldPresentation, filed: boolean): string {
  const ledger = opts.ledgerId ? ` (ledger #${opts.ledgerId})` : '';
  const why = opts.refusal
    ? `Refused, not executed: ${opts.refusal.replace(/\.$/, '')}${ledger}.`
    : `Held, not executed: ${hold.approval.subject.summary} needs a human's approval${ledger}.`;
  const what = filed
    ? ' The server already filed the approval for you.'
    : ' This key cannot file the approval: a human files and decides it in the approval inbox.';
  return `${why}${what} Relay this to your user; never report the act as done.`;
}

/**
 * The tool result of a held act: the hold frame plus the filed approval, its URL and the next step, its message
 * in MCP's words. A refused act (PB-B1) is presented the same way: its approval is filed like a hold's.
 */
export async function presentHold(session: McpSession, call: ToolCall, hold: HoldResult, opts: HoldPresentation): Promise<ToolResult> {
  const inbox = `${session.publicUrl}/approvals`;
  if (hold.approval.completion === 'release' && hold.approval.approvalId) return presentRelease(session, call, hold, hold.approval.approvalId, opts);
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
    message: mcpMessage(hold, opts, 'view' in final),
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

/**
 * A release hold: the server filed the approval, and a human's approve runs the act in that decision. The agent
 * is told so, sent to wait, and told never to retry (a retry would only hold again).
 */
async function presentRelease(
  session: McpSession,
  call: ToolCall,
  hold: HoldResult,
  approvalId: string,
  opts: HoldPresentation,
): Promise<ToolResult> {
  let view: ApprovalView | null = null;
  if (call.principal.scopes.has('approval.request')) {
    const got = await session.pipeline.call({ method: 'approval.get', params: { approvalId }, ...credential(session), requestId: call.requestId });
    if (got.frame.ok) view = got.frame.result as ApprovalView;
  }
  const url = view?.url ?? `${session.publicUrl}/approvals/${approvalId}`;
  let elicitation: HeldToolResult['elicitation'] = null;
  if (view) {
    elicitation = await elicit(session, call, view, view.subject.summary);
    if (elicitation !== null) view = await currentView(session, call, view);
  }
  const amendable = hold.approval.amendable?.length ? ` (they may amend ${hold.approval.amendable.join(', ')} first)` : '';
  const status = view?.status ?? null;
  const next =
    status === 'approved'
      ? `Released: a human approved approval "${approvalId}" and the act ran in that decision${view?.released?.amended.length ? `, with ${view.released.amended.join(', ')} amended` : ''}. Do not call ${opts.retry} again.`
      : status === 'rejected' || status === 'expired'
        ? `Not executed. Approval "${approvalId}" is ${status}; the act will not run. To ask again, call ${opts.retry} with a new idempotencyKey for a new hold.`
        : `Not executed yet, and not to be retried: the server filed approval "${approvalId}" for it. Tell the user a human must decide "${hold.approval.subject.summary}" at ${url}${amendable}; approving it runs the act itself, in that decision. Call approval_wait with approvalId "${approvalId}" until it is decided: approved means it ran (see released), rejected means it never will.`;
  const message = `Held, not executed: ${hold.approval.subject.summary} needs a human's decision${opts.ledgerId ? ` (ledger #${opts.ledgerId})` : ''}. The server filed approval ${approvalId}; a human's approve runs it. Relay this to your user; never report the act as done until approval_wait says approved.`;
  const result: HeldToolResult = { ...hold, message, approvalId, approvalStatus: status, url, elicitation, next };
  return okResult(result, opts.meta);
}
