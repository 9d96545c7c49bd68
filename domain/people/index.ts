/*
 * The people group: the org and its keys, members (principals), teams, users, invitations, personas, pairing,
 * billing, admin, the org chart (hierarchy) and profiles. They share tables (principals, member_teams, api_keys),
 * so they are one module: other families reach any of them only through this file, and each keeps its own
 * descriptor in domain/deployed.ts.
 */

export { adminFamily } from './admin/index.js';
export { billingFamily } from './billing/index.js';
export { hierarchyFamily } from './hierarchy/index.js';
export { invitationFamily } from './invitation/index.js';
export { memberFamily, checkVersion } from './member/index.js';
export { orgFamily } from './org/index.js';
export { pairingFamily } from './pairing/index.js';
export { personaFamily } from './persona/index.js';
export { profileFamily } from './profile/index.js';
export { teamFamily } from './team/index.js';
export { userFamily } from './user/index.js';

/** Members: who a principal is, who holds a role, whether a name may be given to others. */
export { activeHumansWithRole, checkTeams, getMember, getMembers, requireNamableMember, type Member } from './member/model.js';
/** The agent lane: acts on humans an agent may not do alone. */
export { laneSignature, mustHold } from './member/lane.js';
/** Orgs and their keys (the system commands create orgs and mint keys); the org's decision rights (governance). */
export { createOrg, findOrgById, findOrgBySlug, setDecisionRights, type CreatedOrg } from './org/service.js';
export { activeWithAdmin, keyHolder, liveScopes, mintKey, mintedKeyEvent, type MintedKey, type MintRequest } from './org/keys.js';
/** Per-address rate limits of unauthenticated pages (pairing, guest pages). */
export { addressBucket, count, hmac } from './pairing/limits.js';
/** Members' zones and working hours (calendar.findATime). */
export { workingHoursOf, type MemberHours } from './profile/hours.js';
/** Who sponsors an agent. */
export { sponsorOf } from './persona/model.js';
/** The teams a principal belongs to, in JS and as SQL for a query's WHERE. */
export { TEAM_IDS_SQL, teamIdsOf } from './team/find.js';
/** What a family does with a person's work when their access is cut (its `heldWork` contribution). */
export { heldWork, type HeldWork } from './held-work.js';
/** Members' approval-inbox sessions (the gateway's inbox signs members in with them). */
export { SessionStore, type Session, type SessionOptions } from './user/inbox-sessions.js';
