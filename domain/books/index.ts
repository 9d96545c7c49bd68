import { family } from '../family.js';
import { reconciliationHandlers } from './reconciliation/index.js';
import { receivablesHandlers } from './receivables/index.js';
import { taxHandlers } from './tax/index.js';
import { assetsHandlers } from './assets/index.js';
import { payablesHandlers } from './payables/index.js';
import { payrollHandlers } from './payroll/index.js';
import { expensesHandlers } from './expenses/index.js';
import { ledgerHandlers } from './ledger/index.js';
import { askHandlers } from './ask/index.js';
import { declarePartyRefs } from '../directory/index.js';
// Registers books' party roles with the directory (a contact is a party's finance role).
import './parties.js';

export { booksPolicyView } from './policy-read.js';

// A directory merge repoints a contact's party inside its change log (a revert restores it); the con_ id stays.
declarePartyRefs('books', [{ table: 'books_contact_roles', column: 'party_id' }]);

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
