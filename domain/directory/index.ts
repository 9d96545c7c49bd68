import { family, type Family } from '../core/family.js';
import { addChannel, removeChannel, setPrimaryChannel } from './channels.js';
import { listOrgs, listPeople, search } from './listing.js';
import { archiveOrg, createOrg, getOrg, updateOrg } from './orgs.js';
import { archivePerson, createPerson, getPerson, updatePerson } from './persons.js';
import { linkParty, unlinkParty } from './links.js';
import { addToList, createList, listLists, removeFromList, shareList } from './lists.js';
import { setAwareness } from './awareness-levels.js';
import { listAwarenessRequests, requestAwareness, resolveAwarenessRequest } from './awareness-requests.js';
import { listCaptures, proposeCapture, resolveCapture } from './captures.js';
import { executeMerge, listMerges, proposeMerge, revertMerge } from './merges.js';
import { exportVcard } from './vcard-export.js';
import { ask } from './ask/index.js';
import { DIRECTORY_ANSWERER } from './ask/answerer.js';
import { importBooksContacts } from './books-import.js';
import { checkPartyRefs } from './refs.js';
import { checkPartyRoles } from './roles.js';
import { introductionsWaiting } from './awareness-requests.js';

/*
 * directory.*: the people and organisations outside the org (parties per_ and co_), their channels, search and
 * dedupe. What other families call (never the tables): resolveParty, requireWritableParty (model.ts),
 * resolveChannel (channel-store.ts), touchAwareness (awareness.ts), the dedupe rule (dedupe.ts) and the normalisers
 * (normalise.ts). Families offer it party columns (`contributes.partyRefs`, refs.ts) and roles (`contributes.partyRoles`,
 * roles.ts) from their descriptors.
 */

export { resolveParty, requireWritableParty, type ResolvedParty } from './model.js';
export { resolveChannel, primaryEmailOf, type ResolvedChannel } from './channel-store.js';
export { touchAwareness, AWARENESS_LEVELS, type AwarenessLevel } from './awareness.js';
export { partyRefs, type PartyRef, type PartyRefs, type RepointHook, type MergeChangeLog, type MergeChange } from './refs.js';
export { rolesOf, type PartyRole, type PartyRoleSource } from './roles.js';
export { candidatesFor, candidatesOf, factsOf, scorePair, type Candidate, type PartyFacts } from './dedupe.js';
export { refreshEmployers, refreshEmployerName } from './terms.js';
// The contact view (contact.*, contacts.upsert, GET /contacts.list): parties as flat address-book cards.
export { toContact, toContactTombstone, listContacts, syncContacts } from './contact-view.js';
export {
  addMissingValue,
  checkKindFields,
  contactKey,
  createContactParty,
  employerNamed,
  hasStandInName,
  matchContact,
  renameChanges,
  setEmployer,
  setPrimaryValue,
  splitName,
} from './contact-write.js';
export { getPartyRow, noun } from './model.js';
export { setArchived, writeChanges, type Change } from './party-write.js';
export { lockKeys } from './channel-store.js';
// Parties by name for families whose records name them (books contacts); merges (a family's repoint hook logs here).
export { partiesNamed, lockPartyName, createOrgParty, type NamedParty } from './named.js';
// The parties CRM roles stand on: found or made, names, domains and emails written through, and read as cards; the search over them.
export { findOrMakeOrg, findOrMakePerson, renameParty, setOrgDomain, setPersonEmail, partyCards } from './role-parties.js';
export { searchPartiesByKind } from './search.js';

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
  linkParty,
  unlinkParty,
  createList,
  addToList,
  removeFromList,
  shareList,
  listLists,
  setAwareness,
  requestAwareness,
  resolveAwarenessRequest,
  listAwarenessRequests,
  proposeCapture,
  resolveCapture,
  listCaptures,
  proposeMerge,
  executeMerge,
  revertMerge,
  listMerges,
  exportVcard,
  ask,
});

/** The directory family, as domain/deployed.ts lists it. */
export const directoryFamily: Family = {
  name: 'directory',
  methods: directoryHandlers,
  answerers: [DIRECTORY_ANSWERER],
  startup: [importBooksContacts],
  contributes: { waiting: introductionsWaiting },
  // What other families contributed to the directory's extension points is checked once, as the runtime is built.
  verify(set) {
    checkPartyRefs(set);
    checkPartyRoles(set);
  },
};
