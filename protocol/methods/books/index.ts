import { receivables } from './receivables.js';
import { reconciliation } from './reconciliation.js';
import { tax } from './tax.js';
import { assets } from './assets.js';
import { payables } from './payables.js';
import { payroll } from './payroll.js';
import { expenses } from './expenses.js';
import { ledger } from './ledger.js';
import { ask } from './ask.js';

/**
 * The books family's areas (see docs/books.md). Each area is also an MCP toolset
 * (`books.payables`): 43 books tools are too many to list at once. books.ask sits with the ledger reads.
 */
export const BOOKS_AREAS = {
  reconciliation,
  receivables,
  tax,
  assets,
  payables,
  payroll,
  expenses,
  ledger: { ...ledger, ...ask },
} as const;

/** The books family's contracts: every area's. */
export const books = {
  ...BOOKS_AREAS.reconciliation,
  ...BOOKS_AREAS.receivables,
  ...BOOKS_AREAS.tax,
  ...BOOKS_AREAS.assets,
  ...BOOKS_AREAS.payables,
  ...BOOKS_AREAS.payroll,
  ...BOOKS_AREAS.expenses,
  ...BOOKS_AREAS.ledger,
};
