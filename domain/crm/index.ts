import { family, type Family } from '../core/family.js';
import { archiveAccount, createAccount, updateAccount } from './accounts.js';
import { createContact, deleteContact, linkContact, updateContact } from './contacts.js';
import { closeDeal, createDeal, delegate, deleteDeal, moveStage, updateDeal } from './deals.js';
import { getDeal, listDeals } from './deal-reads.js';
import { listAccounts, listContacts } from './reads.js';
import { getTargets, setTarget } from './targets.js';
import { crmPartyRefs, crmPartyRoles } from './parties.js';
import { crmPlaybookHandlers } from './playbooks/index.js';
import { crmDeskHandlers, deskHoldActs } from './desk/index.js';
import { crmRoomHandlers } from './rooms/index.js';
import { crmTimelineHandlers } from './timeline.js';
import { CRM_ANSWERERS } from './ask/index.js';

/*
 * The crm family (docs/families/crm.md): accounts and contacts as roles on directory parties, deals on one
 * pipeline with their history, and targets. Its events carry ids, stages, amounts, currencies, counts and field
 * names, never names, next steps, reasons, domains or emails.
 */

export const crmHandlers = family('crm', {
  createAccount,
  updateAccount,
  archiveAccount,
  listAccounts,
  listContacts,
  createContact,
  updateContact,
  deleteContact,
  linkContact,
  createDeal,
  updateDeal,
  moveStage,
  closeDeal,
  delegate,
  deleteDeal,
  getDeal,
  listDeals,
  setTarget,
  getTargets,
  ...crmDeskHandlers,
  ...crmRoomHandlers,
  ...crmTimelineHandlers,
  ...crmPlaybookHandlers,
});

/** The crm family, as domain/deployed.ts lists it. */
export const crmFamily: Family = {
  name: 'crm',
  methods: crmHandlers,
  // crm.ask's answerer (ask/answerer.ts): the crm reads as the caller plus ledger.events.
  answerers: CRM_ANSWERERS,
  holdActs: { ...deskHoldActs },
  contributes: {
    // Accounts and contacts are roles of directory parties; a merge folds them inside its change log (parties.ts).
    partyRoles: crmPartyRoles,
    partyRefs: crmPartyRefs,
  },
};

/** Its public face for the policy family (GET /policy shows crm; policy.publish sets it): the org's CRM policy. */
export { crmPolicy, crmPolicyMoves, setCrmPolicy, DEFAULT_CRM_POLICY, type CrmMove, type CrmPolicy } from './policy.js';

/** The deal room's guest reads (gateway/deal-room.ts): a token instead of a key, re-checked on every request. */
export { roomView, roomFile, roomCallIcs, type RoomView } from './rooms/index.js';
