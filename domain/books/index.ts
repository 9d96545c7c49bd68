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

export { booksReads } from './policy-read.js';

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
