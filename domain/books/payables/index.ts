import { billApprove } from './approve.js';
import { billCapture, billHold, billReturn } from './bills.js';
import { bills } from './reads.js';
import { billScheduleRun } from './runs.js';

/** Payables: 5 methods and the bills read. settle.ts holds settleBill and reconcilePaymentRun for bank matching. */
export const payablesHandlers = {
  billCapture,
  billApprove,
  billHold,
  billReturn,
  billScheduleRun,
  bills,
};
