import type { ApprovalView } from '../protocol/methods/approval.js';
import { errorResult, type ToolResult } from './results.js';
import { credential, type McpSession, type ToolCall } from './session.js';
import { hiddenBecause } from './toolsets.js';

/*
 * What an agent does once a human has (or has not yet) decided: the exact call that completes the act, to wait,
 * or to stop and tell its user. Said in the tool results an agent reads (approval_wait, and a retry whose proof
 * cannot release the act yet), in MCP's own terms: tools, never HTTP routes.
 */

/** The exact retry of a held act with its proof: its tool when this session lists it, else invoke_write. */
export function retryCall(session: McpSession, call: ToolCall, view: ApprovalView): string {
  if (!view.heldAct) return `the held act again with approvalId "${view.approvalId}"`;
  const params = { ...view.heldAct.params, approvalId: view.approvalId };
  const entry = session.catalog.byTarget.get(view.heldAct.method);
  if (entry && !hiddenBecause(entry, call.principal, session.selection)) return `${entry.tool} with ${JSON.stringify(params)}`;
  return `invoke_write with ${JSON.stringify({ name: view.heldAct.method, params })}`;
}

/** The tool to call for a new hold of the same act (no proof). */
function holdAgain(session: McpSession, call: ToolCall, view: ApprovalView): string {
  if (!view.heldAct) return 'the act again without approvalId';
  const entry = session.catalog.byTarget.get(view.heldAct.method);
  return entry && !hiddenBecause(entry, call.principal, session.selection)
    ? `${entry.tool} without approvalId`
    : `invoke_write (name "${view.heldAct.method}") without approvalId`;
}

/** A rejection, to be relayed to the user word for word; the agent must not try again or around it. */
export function rejectionText(view: ApprovalView): string {
  const note = view.note ? ` with the note: "${view.note}"` : ' without a note';
  return (
    `Stop: ${view.decidedBy ?? 'a human'} rejected "${view.subject.summary}"${note}. The act will not run on approval ${view.approvalId}. ` +
    'Tell your user exactly that, and do not retry it or work around it.'
  );
}

/** approval_wait's `next`: what the agent does with the approval as it now stands. */
export function decisionNext(session: McpSession, call: ToolCall, view: ApprovalView & { timedOut?: boolean }): string {
  switch (view.status) {
    case 'pending':
      return `Still pending a human decision (${view.url}). Call approval_wait with approvalId "${view.approvalId}" again; do not retry the act meanwhile.`;
    case 'rejected':
      return rejectionText(view);
    case 'expired':
      return `Expired without a decision: the act will not run on it. To ask again, call ${holdAgain(session, call, view)} for a new hold.`;
    case 'withdrawn':
      return `Withdrawn by its requester before anyone decided it: the act will not run on it. To ask again, call ${holdAgain(session, call, view)} for a new hold.`;
    case 'approved':
      if (view.completion === 'release') {
        const amended = view.released?.amended.length ? `, with ${view.released.amended.join(', ')} amended by the human` : '';
        return `Released: the act ran in ${view.decidedBy ?? 'the human'}'s decision${amended} (see released). Do not call it again.`;
      }
      if (view.used) return `Approved and already used: the act ran with this proof. A proof is single-use; a new act needs a new hold.`;
      return `Approved by ${view.decidedBy ?? 'a human'}. Now call ${retryCall(session, call, view)} (no idempotencyKey, or a new one).`;
  }
}

async function approvalOf(session: McpSession, call: ToolCall, approvalId: string): Promise<ApprovalView | undefined> {
  if (!call.principal.scopes.has('approval.request')) return undefined;
  const got = await session.pipeline.call({ method: 'approval.get', params: { approvalId }, ...credential(session), requestId: call.requestId });
  return got.frame.ok ? (got.frame.result as ApprovalView) : undefined;
}

/**
 * A retry whose proof cannot release the act (GOVERNANCE_NOT_READY): pending, rejected, expired or used. The
 * error says which and what to do, naming approval_wait rather than an HTTP route; undefined when the call
 * carried no proof or the approval cannot be read with this key (the pipeline's message stands).
 */
export async function explainProofRefusal(
  session: McpSession,
  call: ToolCall,
  params: unknown,
  retry: string,
  message: string,
): Promise<ToolResult | undefined> {
  const given = params as { approvalId?: unknown; signatureToken?: unknown } | null;
  const approvalId =
    typeof given?.approvalId === 'string' ? given.approvalId : typeof given?.signatureToken === 'string' ? given.signatureToken.split('.')[0] : undefined;
  // Only a refusal of that proof is explained by the approval's state; another rule's refusal (an agent adopting its
  // own proposal, with an approvalId in its params) keeps the server's own words.
  if (!approvalId || !message.startsWith(`approval ${approvalId} `)) return undefined;
  const view = await approvalOf(session, call, approvalId);
  if (!view) return undefined;
  const text =
    view.status === 'pending'
      ? `Not executed: approval ${approvalId} is still pending a human decision (${view.url}). Call approval_wait with approvalId "${approvalId}" until it is decided, then call ${retry} again with the same arguments.`
      : view.status === 'rejected'
        ? `Not executed. ${rejectionText(view)}`
        : view.status === 'expired'
          ? `Not executed: approval ${approvalId} expired without a decision. Call ${holdAgain(session, call, view)} for a new hold.`
          : view.used
            ? `Not executed: approval ${approvalId} was already used; a proof is single-use. Call ${holdAgain(session, call, view)} for a new hold.`
            : undefined;
  return text ? errorResult('GOVERNANCE_NOT_READY', text) : errorResult('GOVERNANCE_NOT_READY', message);
}
