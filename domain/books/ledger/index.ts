import { accounts } from './accounts.js';
import { journals } from './journals.js';
import { reports } from './reports.js';

/** The general ledger reads: accounts, journals, reports. */
export const ledgerHandlers = { accounts, journals, reports };
