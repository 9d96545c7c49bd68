import { ApiError } from '../../../protocol/errors.js';
import type { Principal } from '../../core/auth.js';
import { actionClassOf, type SignatureProof, type SignatureRequest } from '../../approval/index.js';
import type { HandlerCtx } from '../../core/handler.js';

/*
 * The agent lane of the people families: for every people-family write, whether an agent caller may do it alone,
 * holds for a human's approval (always, or when a condition the handler computes is true), or may never do it.
 * One table, consulted by the handlers (laneHold, laneSignature) and walked by its test over every deployed
 * people-family write with an agent key and a human key. How a hold completes (retry or release) and the words
 * of its condition are the method's contract's `hold` (protocol/methods), which the test checks against this
 * table. Human callers run every act directly (within their scopes).
 *
 * The rule: an agent never grants access or power, commits money, or writes a mandate on its own, nor changes
 * a human's membership, access, record, reporting line, profile or notices; cutting an agent's access (the kill
 * switch) never waits; and no agent mints a key or is handed one (the secret would be the agent's).
 */

export type AgentLane =
  /** An agent may do it alone. */
  | { readonly agent: 'runs'; readonly why: string }
  /** It holds for a human's approval whenever an agent calls it. */
  | { readonly agent: 'holds'; readonly why: string }
  /** It holds for a human's approval when the contract's hold.when is true of the call (the handler computes it). */
  | { readonly agent: 'holdsWhen'; readonly why: string }
  /** An agent may not do it at all: GOVERNANCE_NOT_READY saying who does and what the agent can do instead. */
  | { readonly agent: 'refused'; readonly why: string; readonly next: string };

const MINT_NEXT =
  'a human admin mints keys (settings.mintApiKey over HTTP or the CLI); a new agent gets its own key by pairing (pairing.request, then a human admin approves it)';

/** Every deployed people-family write: member, team, hierarchy, profile, persona, user, admin, invitation, notification, billing, org, settings, pairing. */
export const PEOPLE_LANE: Readonly<Record<string, AgentLane>> = {
  'member.create': { agent: 'runs', why: 'a directory record without access (a future hire): nobody gains a key or a right' },
  'member.update': {
    agent: 'holdsWhen',
    why: "a human's record (name, email, sign-in name, manager) is changed by humans; an agent edits its own and other agents'",
  },
  'member.archive': { agent: 'holdsWhen', why: 'it takes a human out of the directory and the chart' },
  'member.assignTeam': { agent: 'holdsWhen', why: "it moves a human between teams, or grants a member access through a team's file shares" },
  'member.reassignReporting': { agent: 'holdsWhen', why: "it changes humans' reporting lines" },
  'member.savePosition': { agent: 'runs', why: "the display order among a manager's reports: nobody's line, access or record changes" },
  'member.resetPositions': { agent: 'runs', why: 'the display order among siblings, back to name order' },
  'team.create': { agent: 'runs', why: 'a new team without members: nobody gains access' },
  'team.update': { agent: 'runs', why: "a team's name, handle, parent or lead label: no member joins or leaves" },
  'team.delete': { agent: 'holdsWhen', why: "it takes humans out of a team (and out of the team's file shares)" },
  'hierarchy.set': { agent: 'holds', why: 'a reorg: many reporting lines at once' },
  'profile.update': { agent: 'holdsWhen', why: "a human's profile is theirs; an agent edits its own and other agents'" },
  'profile.updateAvatar': { agent: 'holdsWhen', why: "a human's picture is theirs" },
  'profile.addSection': { agent: 'holdsWhen', why: "a human's profile is theirs" },
  'profile.updateSection': { agent: 'holdsWhen', why: "a human's profile is theirs" },
  'profile.deleteSection': { agent: 'holdsWhen', why: "a human's profile is theirs" },
  'persona.generateAgentId': { agent: 'holds', why: 'it writes a mandate: no agent writes one alone' },
  'persona.editField': { agent: 'holds', why: 'it writes a mandate' },
  'persona.regenerate': { agent: 'holdsWhen', why: 'a model rewrites a mandate (a template is deterministic from fields a human approved)' },
  'user.deactivate': { agent: 'holds', why: 'it offboards a human (every user is one): keys revoked, work handed over' },
  'user.updateRole': { agent: 'holdsWhen', why: 'a wider role grants power; narrowing one never waits' },
  'admin.deactivate': { agent: 'holdsWhen', why: "it suspends a human; an agent's access (the kill switch) is cut at once" },
  'admin.reactivate': { agent: 'holds', why: 'it grants access back' },
  'invitation.create': { agent: 'holds', why: 'it grants access (the key goes to the invitee, never to the agent)' },
  'invitation.resend': { agent: 'runs', why: 'the same invitation, role and address with a new link: nothing new is granted' },
  'invitation.revoke': { agent: 'runs', why: 'it cuts a pending grant, and cutting access never waits' },
  'notification.updatePreferences': { agent: 'holdsWhen', why: "what a human is told is theirs (the org's defaults are every human's)" },
  'billing.update': { agent: 'holds', why: 'it commits money' },
  'org.create': {
    agent: 'refused',
    why: 'it creates an org and hands its admin key to the caller',
    next: 'a human admin creates orgs (org.create over HTTP or the CLI)',
  },
  'org.delete': { agent: 'holds', why: "it ends an org and every member's access to it" },
  'org.mintApiKey': { agent: 'refused', why: 'it hands the caller a new key (and, without principalId, a new member)', next: MINT_NEXT },
  'org.revokeApiKey': { agent: 'holdsWhen', why: "it cuts a human's access; an agent's key is revoked at once" },
  'settings.mintApiKey': { agent: 'refused', why: 'it hands the caller a new key (and, without principalId, a new member)', next: MINT_NEXT },
  'settings.revokeApiKey': { agent: 'holdsWhen', why: "it cuts a human's access; an agent's key is revoked at once" },
  'settings.renameApiKey': { agent: 'runs', why: "a key's label" },
  'pairing.approve': {
    agent: 'refused',
    why: "it mints a key for a new agent: pairing is a human admin's act",
    next: 'the pairing stays pending until a human admin approves it (pairing.approve)',
  },
  'pairing.request': { agent: 'runs', why: 'pre-auth: no principal calls it, and the pairing waits for a human admin (pairing.approve)' },
};

/**
 * A principal exempt from the lane (the SCIM provisioner: its humans decided in the identity provider). Its key
 * holds no /api/v1 scope; it acts only through the SCIM face's capability (gateway/scim/calls.ts), so the
 * exemption is reachable there only.
 */
export const isScimProvisioner = (principal: Principal): boolean => principal.tier === 'scim';

/** Whether the lane applies to this caller at all: an agent, not the provisioner. */
export function mustHold(principal: Principal): boolean {
  return principal.kind === 'agent' && !isScimProvisioner(principal);
}

/** The lane row of a people-family write; a method missing from the table is a programming error. */
export function laneOf(method: string): AgentLane {
  const lane = Object.hasOwn(PEOPLE_LANE, method) ? PEOPLE_LANE[method] : undefined;
  if (!lane) throw new Error(`${method} has no row in the people agent lane (domain/people/member/lane.ts PEOPLE_LANE)`);
  return lane;
}

/**
 * The people handlers' one question: does this call hold for a human? `when` is the condition of a holdsWhen row
 * (computed by the handler; ignored for other rows). A refused act throws GOVERNANCE_NOT_READY: no scope is
 * missing, a human's act is.
 */
export function laneHold(principal: Principal, method: string, when?: boolean): boolean {
  const lane = laneOf(method);
  if (!mustHold(principal)) return false;
  switch (lane.agent) {
    case 'runs':
      return false;
    case 'holds':
      return true;
    case 'holdsWhen':
      if (when === undefined) throw new Error(`${method} holds on a condition; its handler must say whether it is met`);
      return when;
    case 'refused':
      throw new ApiError(
        'GOVERNANCE_NOT_READY',
        `${method} is never an agent's act: ${lane.why}, and ${principal.id} is an agent. Nothing changed; ${lane.next}`,
      );
  }
}

/**
 * laneHold, then the signature: the proof (a retried or released act), a hold for a human, or null when the call
 * runs without one. The action class is the method's (`member.archive`), the completion its contract's.
 */
export async function laneSignature(
  ctx: HandlerCtx,
  when: boolean | undefined,
  req: Omit<SignatureRequest, 'actionClass'> & { completion: 'retry' | 'release' },
): Promise<SignatureProof | null> {
  if (!laneHold(ctx.principal, ctx.method.name, when)) return null;
  return ctx.requireSignature({ actionClass: actionClassOf(ctx.method.name), ...req });
}
