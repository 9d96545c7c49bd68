import { family, type Family } from '../core/family.js';
import { archiveAccount, createAccount, updateAccount } from './accounts.js';
import { createContact, deleteContact, linkContact, updateContact } from './contacts.js';
import { closeDeal, createDeal, delegate, deleteDeal, moveStage, updateDeal } from './deals.js';
import { getDeal, listDeals } from './deal-reads.js';
import { listAccounts, listContacts } from './reads.js';
import { getTargets, setTarget } from './targets.js';
import { crmPartyRefs, crmPartyRoles } from './parties.js';

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
});

/** The crm family, as domain/deployed.ts lists it. */
export const crmFamily: Family = {
  name: 'crm',
  methods: crmHandlers,
  contributes: {
    // Accounts and contacts are roles of directory parties; a merge folds them inside its change log (parties.ts).
    partyRoles: crmPartyRoles,
    partyRefs: crmPartyRefs,
  },
};

/** Its public face for the policy read (GET /policy shows crm): the org's CRM policy. */
export { crmPolicy, DEFAULT_CRM_POLICY, type CrmPolicy } from './policy.js';
