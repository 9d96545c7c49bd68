import type { HoldDeclaration } from '../protocol/contract.js';

/*
 * What a tool's description and describe_method say about a signature act, generated from the hold its contract
 * declares (MethodContract.hold): when it holds, and whether the agent retries with the proof (retry) or a human's
 * approve runs the act itself (release). The pipeline refuses a hold of another completion, so the words stay
 * true. Over MCP the server files the approval for the agent (mcp/holds.ts), so neither text asks it to.
 */

const condition = (hold: HoldDeclaration): string => (hold.when ? ` when ${hold.when}` : '');

/**
 * The tool listing's short note (tools/list is in every prompt: kept short). `brief` is the description's summary
 * part: when it already says when the act holds, the condition is not repeated (describe_method gives it whole).
 */
export function holdListingNote(hold: HoldDeclaration, brief = ''): string {
  const when = /\bholds?\b/i.test(brief) ? '' : condition(hold);
  return hold.completion === 'release'
    ? `Signature act${when}: holds (approval_required); a human's approve runs it (release mode): wait, do not call again.`
    : `Signature act${when}: holds (approval_required) for a human; once approved, call again with approvalId.`;
}

/** describe_method's note: what happens, what the agent does next, and that otherwise it runs at once. */
export function holdDescribeNote(hold: HoldDeclaration): string {
  const mode = `Signature act (${hold.completion} mode)`;
  const scope = hold.when ? `It holds for a human only when ${hold.when}; otherwise it runs at once.` : 'Every call without proof holds for a human.';
  const held =
    hold.completion === 'release'
      ? 'A held call answers status approval_required and does nothing yet; the server files the approval, and a human’s approve runs the act itself, in that decision (approval_wait then says released). Do not call it again.'
      : 'A held call answers status approval_required and does nothing; the server files the approval for you, and once a human approves it (approval_wait) you call it again with the same arguments plus approvalId.';
  return `${mode}. ${scope} ${held}`;
}
