import { METHODS, READS } from '../protocol/registry.js';
import type { Principal } from '../domain/core/auth.js';
import { META_TOOLS } from './meta-tools.js';
import { APPROVAL_TEMPLATE, LEDGER_URI } from './resources.js';
import { describeSelection, type Selection } from './toolsets.js';

/** The server's `instructions`: generated for the session's principal and selection, sent once at initialize. */
export function buildInstructions(principal: Principal, selection: Selection, listed: number): string {
  const who = `${principal.name} (${principal.kind} ${principal.id}) in org ${principal.orgSlug}`;
  const canFile = principal.scopes.has('approval.request');
  return [
    `Workspace operations server (protocol v1). You act as ${who}. Every call is checked against your key's scopes and recorded in the org's hash-chained ledger.`,
    `Tools: one per method family.method, named family_method (dot -> underscore). This session lists ${listed} tools (${describeSelection(selection)}, filtered by your scopes); most methods are not listed: find them with ${META_TOOLS.search} and call them with ${META_TOOLS.read} / ${META_TOOLS.write}. ` +
      `Each description is the opening of the method's summary (${META_TOOLS.describe} gives all of it), then [scope; flags]: R read-only, M appends one ledger event, I idempotent, G governance-gated. ` +
      `The registry has ${METHODS.size} methods and ${READS.size} reads: ${META_TOOLS.search} finds any (words, family, scope), ${META_TOOLS.describe} gives its JSON Schema, flags and an example, ` +
      `${META_TOOLS.read} / ${META_TOOLS.write} call one that is not listed. A method not deployed on this server answers NOT_FOUND.`,
    `Errors: a tool error's text is {"ok":false,"error":{"code","message"}}. Branch on code: BAD_REQUEST names the field, FORBIDDEN_SCOPE the missing scope, NOT_FOUND, CONFLICT, GOVERNANCE_NOT_READY, RATE_LIMITED (wait the seconds it says).`,
    `Idempotency: tools flagged I take an optional idempotencyKey; reuse the same key when you retry. Without one the server derives it from the method and params, so an identical call replays its first result and never runs twice: pass a new key to repeat an act on purpose. Tools flagged M without I run on every call: do not retry them blindly.`,
    `Signature holds: a signature act without proof returns status "approval_required". It is not an error and not done: relay its message verbatim and never report the act as done. ` +
      (canFile
        ? `The server files the approval for you and returns approvalId and url (where a human decides). Call approval_wait with the approvalId until it is decided; its result's "next" says exactly what to do: the retry call with approvalId once approved, or, after a rejection, to stop and tell your user. `
        : `Your key cannot file approvals (no approval.request scope): give the user the hold's message and the url; a human files and decides it. `) +
      `When approval.completion is "release" the server filed the approval with the hold and the human's approve runs the act itself: never call it again, only wait. ` +
      `Only a human's recorded decision releases an act; nothing you or your client answer does. Humans decide in the approval inbox, never through your tools.`,
    `Paging: list methods return nextCursor; pass it back as cursor until it is null. The events tool pages by seq: cursor is the last seq you hold (start at 0).`,
    `Resources: ${LEDGER_URI} (ledger head and recent events)${canFile ? `, ${APPROVAL_TEMPLATE} (one approval's status)` : ''}.`,
  ].join('\n\n');
}
