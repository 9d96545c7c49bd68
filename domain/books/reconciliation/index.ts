import { journalPost } from './journals.js';
import { matchAccept, matchHoldResolve } from './match.js';
import { receiptsRegister } from './receipts.js';
import { feedLines } from './reads.js';
import { lineRecode } from './recode.js';

export { importStatement, type ImportResult, type StatementFormat } from './import.js';

/** Reconciliation: 5 methods and the feedLines read; bank lines arrive through importStatement (CLI, admin path). */
export const reconciliationHandlers = {
  matchAccept,
  matchHoldResolve,
  receiptsRegister,
  lineRecode,
  journalPost,
  feedLines,
};
