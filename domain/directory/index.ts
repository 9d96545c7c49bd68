import { family } from '../family.js';
import { addChannel, removeChannel, setPrimaryChannel } from './channels.js';
import { listOrgs, listPeople, search } from './listing.js';
import { archiveOrg, createOrg, getOrg, updateOrg } from './orgs.js';
import { archivePerson, createPerson, getPerson, updatePerson } from './persons.js';

/*
 * directory.*: the people and organisations outside the org (parties per_ and co_), their channels, search and
 * dedupe. What other families call (never the tables): resolveParty, requireWritableParty (model.ts),
 * resolveChannel (channel-store.ts), touchAwareness (awareness.ts), declarePartyRefs (refs.ts),
 * registerPartyRoles (roles.ts), the dedupe rule (dedupe.ts) and the normalisers (normalise.ts).
 */

export { resolveParty, requireWritableParty, type ResolvedParty } from './model.js';
export { resolveChannel, type ResolvedChannel } from './channel-store.js';
export { touchAwareness, AWARENESS_LEVELS, type AwarenessLevel } from './awareness.js';
export { declarePartyRefs, partyRefs, type PartyRef, type RepointHook, type MergeChangeLog, type MergeChange } from './refs.js';
export { registerPartyRoles, rolesOf, type PartyRole, type PartyRoleSource } from './roles.js';
export { candidatesFor, candidatesOf, factsOf, scorePair, type Candidate, type PartyFacts } from './dedupe.js';
export { refreshEmployers, refreshEmployerName } from './terms.js';

export const directoryHandlers = family('directory', {
  createPerson,
  createOrg,
  updatePerson,
  updateOrg,
  archivePerson,
  archiveOrg,
  getPerson,
  getOrg,
  listPeople,
  listOrgs,
  search,
  addChannel,
  removeChannel,
  setPrimaryChannel,
});
