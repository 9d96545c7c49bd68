import { receivables } from './receivables.js';
import { reconciliation } from './reconciliation.js';
import { tax } from './tax.js';
import { assets } from './assets.js';
import { payables } from './payables.js';
import { payroll } from './payroll.js';
import { expenses } from './expenses.js';
import { ledger } from './ledger.js';

/** The books family's contracts, area by area (see ../../../shared/design/BOOKS.md). */
export const books = {
  ...reconciliation,
  ...receivables,
  ...tax,
  ...assets,
  ...payables,
  ...payroll,
  ...expenses,
  ...ledger,
};
