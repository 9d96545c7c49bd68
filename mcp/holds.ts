import { z } from 'zod';
import { HoldResult } from '../protocol/frames.js';
import { ApprovalStatus, type ApprovalView } from '../protocol/methods/approval.js';
import { derivedIdempotencyKey, okResult, type ToolResult } from './results.js';
import { rejectionText } from './decisions.js';
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
    .enum(['accept', 'decline', 'cancel', 'requested'])
    .nullable()
    .describe(
      'What the client answered when asked to open url for its user (requested: asked, no answer yet; the call does not wait for one); null when not asked. Never an approval.',
    ),
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
  const got = await session.pipeline.call({
    method: 'approval.get',
    params: { approvalId: view.approvalId },
    ...credential(session),
    requestId: call.requestId,
  });
  return got.frame.ok ? (got.frame.result as ApprovalView) : view;
}

/**
 * How long a hold waits for the client's answer to its URL elicitation: only an answer the client gives at once
 * (it opened the page, or its user declined) is reported. The elicitation itself stays open in the background up
 * to elicitationTimeoutMs; the tool call never waits on a human, so it ends well inside a client's 60 s timeout.
 */
export const ELICITATION_ANSWER_MS = 2_000;

/** Ask the client to open the approval page for its user, when it can. Its answer is reported, never trusted. */
async function elicit(session: McpSession, call: ToolCall, view: ApprovalView, summary: string): Promise<HeldToolResult['elicitation']> {
  if (view.status !== 'pending' || !session.server.getClientCapabilities()?.elicitation?.url) return null;
  // One open elicitation per approval and session: a retried hold does not ask (nor wait) again.
  const open = session.openElicitations;
  if (open.has(view.approvalId)) return 'requested';
  open.add(view.approvalId);
  const asked = session.server
    .elicitInput(
      {
        mode: 'url',
        elicitationId: view.approvalId,
        url: view.url,
        message: `A human with approval rights must approve this before it runs: ${summary}. Open the approval inbox to review and decide.`,
      },
      { timeout: session.elicitationTimeoutMs },
    )
    .then((answer) => answer.action)
    .catch(() => null)
    .finally(() => open.delete(view.approvalId));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'requested'>((resolve) => {
    timer = setTimeout(() => resolve('requested'), Math.min(ELICITATION_ANSWER_MS, session.elicitationTimeoutMs));
  });
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}

function nextStep(retry: string, filed: Filed, inbox: string): string {
  if ('error' in filed) {
    return `Not executed. ${filed.error} (${inbox}). Once a human has filed and approved it, call ${retry} again with approvalId (or signatureToken).`;
  }
  const view = filed.view;
  const { approvalId, status } = view;
  const proof = `call ${retry} again with the same arguments plus approvalId "${approvalId}" and a new idempotencyKey (or none)`;
  switch (status) {
    case 'pending':
      return `Not executed. Tell the user a human must approve "${view.subject.summary}" at ${view.url}. Call approval_wait with approvalId "${approvalId}" until it is decided; once approved, ${proof}.`;
    case 'approved':
      return view.used
        ? `Not executed by this call. Approval ${approvalId} was already used by an earlier call; to act again, call ${retry} with a new idempotencyKey to get a new hold.`
        : `Approved by a human: ${proof}.`;
    case 'rejected':
      // A rejection is final: never a hint to try again.
      return `Not executed. ${rejectionText(view)}`;
    case 'expired':
      return `Not executed. Approval ${approvalId} expired without a decision; the act cannot run on it. To ask again, call ${retry} with a new idempotencyKey to get a new hold.`;
    case 'withdrawn':
      return `Not executed. Approval ${approvalId} was withdrawn by its requester; the act cannot run on it. To ask again, call ${retry} with a new idempotencyKey to get a new hold.`;
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
  /** The hold is a replay of an earlier call under this idempotencyKey: said first, with the approval as it stands now. */
  replayedKey?: string;
}

/** The approval's state in the hold's own first sentence: a decided approval is never "needs a human's approval". */
function stateOf(view: ApprovalView | null, summary: string, ledger: string): string {
  switch (view?.status ?? 'pending') {
    case 'approved':
      return view?.used
        ? `Not executed by this call: ${summary} was approved, and its approval was already used by an earlier call${ledger}.`
        : `Not executed yet: a human approved ${summary}; the act runs only when it is called again with the proof${ledger}.`;
    case 'rejected':
      return `Not executed: a human rejected ${summary}; it will not run${ledger}.`;
    case 'expired':
      return `Not executed: the approval for ${summary} expired without a decision${ledger}.`;
    default:
      return `Held, not executed: ${summary} needs a human's approval${ledger}.`;
  }
}

/**
 * The hold's message in MCP's words: what was not done and why, with no HTTP route or header, never "file
 * approval.request" once the server filed it, and the approval's state as recorded now. The HTTP message is in
 * the hold frame over HTTP.
 */
function mcpMessage(hold: HoldResult, opts: HoldPresentation, filed: Filed): string {
  const ledger = opts.ledgerId ? ` (ledger #${opts.ledgerId})` : '';
  const view = 'view' in filed ? filed.view : null;
  const why =
    opts.refusal && (view === null || view.status === 'pending')
      ? `Refused, not executed: ${opts.refusal.replace(/\.$/, '')}${ledger}.`
      : stateOf(view, hold.approval.subject.summary, ledger);
  const what = view
    ? view.status === 'pending'
      ? ' The server already filed the approval for you.'
      : ''
    : ' This key cannot file the approval: a human files and decides it in the approval inbox.';
  return `${why}${what} Relay this to your user; never report the act as done.`;
}

/** What a replayed hold says first, in text: the earlier call's hold, and the approval as it stands now. */
function holdReplayNote(key: string, view: ApprovalView | null): string {
  const now = view
    ? ` Its approval ${view.approvalId} is ${view.used ? 'approved and used' : view.status} now${view.status === 'rejected' ? ': stop, the act will not run' : ''}.`
    : '';
  return `Replayed: a call with idempotencyKey ${key} already answered with this hold; nothing ran again.${now} Read next for what to do.`;
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
    if (elicitation !== null && elicitation !== 'requested') final = { view: await currentView(session, call, filed.view) };
  }
  const result: HeldToolResult = {
    ...hold,
    message: mcpMessage(hold, opts, final),
    approvalId: 'view' in final ? final.view.approvalId : null,
    approvalStatus: 'view' in final ? final.view.status : null,
    url: 'view' in final ? final.view.url : inbox,
    elicitation,
    next: nextStep(opts.retry, final, inbox),
  };
  return okResult(result, opts.meta, opts.replayedKey ? holdReplayNote(opts.replayedKey, 'view' in final ? final.view : null) : undefined);
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
async function presentRelease(session: McpSession, call: ToolCall, hold: HoldResult, approvalId: string, opts: HoldPresentation): Promise<ToolResult> {
  let view: ApprovalView | null = null;
  if (call.principal.scopes.has('approval.request')) {
    const got = await session.pipeline.call({ method: 'approval.get', params: { approvalId }, ...credential(session), requestId: call.requestId });
    if (got.frame.ok) view = got.frame.result as ApprovalView;
  }
  const url = view?.url ?? `${session.publicUrl}/approvals/${approvalId}`;
  let elicitation: HeldToolResult['elicitation'] = null;
  if (view) {
    elicitation = await elicit(session, call, view, view.subject.summary);
    if (elicitation !== null && elicitation !== 'requested') view = await currentView(session, call, view);
  }
  const amendable = hold.approval.amendable?.length ? ` (they may amend ${hold.approval.amendable.join(', ')} first)` : '';
  const status = view?.status ?? null;
  const summary = hold.approval.subject.summary;
  const ledger = opts.ledgerId ? ` (ledger #${opts.ledgerId})` : '';
  const next =
    status === 'approved'
      ? `Released: a human approved approval "${approvalId}" and the act ran in that decision${view?.released?.amended.length ? `, with ${view.released.amended.join(', ')} amended` : ''}. Do not call ${opts.retry} again.`
      : status === 'rejected' && view
        ? `Not executed. ${rejectionText(view)}`
        : status === 'expired'
          ? `Not executed. Approval "${approvalId}" expired without a decision; the act will not run. To ask again, call ${opts.retry} with a new idempotencyKey for a new hold.`
          : `Not executed yet, and not to be retried: the server filed approval "${approvalId}" for it. Tell the user a human must decide "${summary}" at ${url}${amendable}; approving it runs the act itself, in that decision. Call approval_wait with approvalId "${approvalId}" until it is decided: approved means it ran (see released), rejected means it never will.`;
  const message =
    status === 'approved'
      ? `Released: ${summary} ran when a human approved it${ledger}. This call ran nothing again.`
      : status === 'rejected' || status === 'expired'
        ? `${stateOf(view, summary, ledger)} Relay this to your user; never report the act as done.`
        : `Held, not executed: ${summary} needs a human's decision${ledger}. The server filed approval ${approvalId}; a human's approve runs it. Relay this to your user; never report the act as done until approval_wait says approved.`;
  const result: HeldToolResult = { ...hold, message, approvalId, approvalStatus: status, url, elicitation, next };
  return okResult(result, opts.meta, opts.replayedKey ? holdReplayNote(opts.replayedKey, view) : undefined);
}
