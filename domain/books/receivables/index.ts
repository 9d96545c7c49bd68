import { invoiceChaseStep, invoicePromise } from './dunning.js';
import { invoiceCreditNote, invoiceDraft, invoiceRecordPayment, invoiceSend, invoiceVoid } from './invoices.js';
import { invoices } from './reads.js';
import { statementRun } from './statements.js';

/** Receivables: 8 methods and the invoices read. */
export const receivablesHandlers = {
  invoiceDraft,
  invoiceSend,
  invoiceChaseStep,
  invoiceRecordPayment,
  invoiceCreditNote,
  invoiceVoid,
  invoicePromise,
  statementRun,
  invoices,
};
