import { family, type Family } from '../core/family.js';
import { reconciliationHandlers } from './reconciliation/index.js';
import { receivablesHandlers } from './receivables/index.js';
import { taxHandlers } from './tax/index.js';
import { assetsHandlers } from './assets/index.js';
import { payablesHandlers } from './payables/index.js';
import { payrollHandlers } from './payroll/index.js';
import { expensesHandlers } from './expenses/index.js';
import { ledgerHandlers } from './ledger/index.js';
import { askHandlers } from './ask/index.js';
import { booksPartyRoles } from './parties.js';
import { BOOKS_ANSWERER } from './ask/answerer.js';
import { booksHoldActs } from './hold-acts.js';

export { booksPolicyView } from './policy-read.js';

/** The books family, area by area; each area's folder holds its handlers, model and reads. */
export const booksHandlers = family('books', {
  ...reconciliationHandlers,
  ...receivablesHandlers,
  ...taxHandlers,
  ...assetsHandlers,
  ...payablesHandlers,
  ...payrollHandlers,
  ...expensesHandlers,
  ...ledgerHandlers,
  ...askHandlers,
});

/** The books family, as domain/deployed.ts lists it. */
export const booksFamily: Family = {
  name: 'books',
  methods: booksHandlers,
  answerers: [BOOKS_ANSWERER],
  holdActs: booksHoldActs,
  contributes: {
    // A contact is a party's finance role (parties.ts); a directory merge repoints a contact's party inside its
    // change log (a revert restores it), and the con_ id stays.
    partyRoles: booksPartyRoles,
    partyRefs: { refs: [{ table: 'books_contact_roles', column: 'party_id' }] },
  },
};

/** Its public face for the policy family: the books settings a policy reads and sets, dates and money as shown. */
export { booksPolicy, setMaterialityFloor, setPromiseGraceDays } from './policy.js';
export { today } from './dates.js';
export { formatCents } from './money.js';
