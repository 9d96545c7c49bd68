import { z } from 'zod';
import { method } from '../../contract.js';
import { proofFields, text } from '../../schema.js';
import { ContactRef, amountCents, date, ids, journalRef, outcome, page, pageParams, reason } from './common.js';

/*
 * Receivables: invoices from draft to paid, dunning (chase steps, promises to pay), credit notes, voids and
 * customer statements. Sales amounts are GST-inclusive; GST = round(total / 11).
 */

export const INVOICE_STATUSES = ['DRAFT', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED'] as const;
export const PROMISE_STATUSES = ['OPEN', 'KEPT', 'BROKEN', 'REPLACED'] as const;
export const CHASE_STEPS = { 1: 'friendly', 2: 'firm', 3: 'final' } as const;
export const AGEING_BUCKETS = ['current', '1-30', '31-60', '61-90', '90+'] as const;

export const PromiseToPay = z.strictObject({
  id: z.string().describe('prm_…'),
  date: z.string().describe('The date the customer promised to pay by.'),
  amountCents: z.number().int().nullable().describe('The amount promised; null means the whole amount due.'),
  status: z.enum(PROMISE_STATUSES).describe('OPEN (chasing paused), KEPT, BROKEN (date + grace passed unpaid) or REPLACED by a newer promise.'),
  createdAt: z.string(),
});

export const Invoice = z.strictObject({
  id: z.string().describe('inv_…'),
  number: z.string().nullable().describe('INV-0001…, given when the invoice is sent; null for a draft.'),
  contact: ContactRef,
  description: z.string(),
  totalCents: z.number().int().describe('GST-inclusive total.'),
  gstCents: z.number().int().describe('GST included in the total: round(total / 11).'),
  status: z.enum(INVOICE_STATUSES).describe('DRAFT, AUTHORISED (sent, money owed), PAID (amount due 0), VOIDED or DELETED (a voided draft).'),
  issueDate: z.string().nullable().describe('Set when sent.'),
  dueDate: z.string().nullable().describe('issueDate + dueDays.'),
  dueDays: z.number().int(),
  amountPaidCents: z.number().int(),
  amountCreditedCents: z.number().int().describe('Credit notes allocated to this invoice.'),
  amountDueCents: z.number().int().describe('total - paid - credited while DRAFT or AUTHORISED; 0 when PAID, VOIDED or DELETED.'),
  daysOverdue: z.number().int().describe('Days past the due date with money still due; 0 otherwise.'),
  chaseStep: z.number().int().describe('Last dunning step taken: 0 none, 1 friendly, 2 firm, 3 final.'),
  lastChasedAt: z.string().nullable(),
  promise: PromiseToPay.nullable().describe('The latest promise to pay, if any.'),
  journalId: z.string().nullable().describe('The journal that posted the invoice (when sent).'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Invoice = z.infer<typeof Invoice>;

const invoiceId = ids.invoice('The invoice (inv_…).');

const invoiceResult = z.strictObject({ invoice: Invoice, journalId: journalRef, ...outcome });

export const StatementLine = z.strictObject({
  invoiceId: z.string(),
  number: z.string().nullable(),
  issueDate: z.string(),
  dueDate: z.string(),
  totalCents: z.number().int(),
  balanceCents: z.number().int().describe('Still owed as at the statement date.'),
  daysOverdue: z.number().int(),
  bucket: z.enum(AGEING_BUCKETS),
});

export const AgeingBuckets = z.strictObject(
  Object.fromEntries(AGEING_BUCKETS.map((b) => [b, z.number().int()])) as Record<(typeof AGEING_BUCKETS)[number], z.ZodNumber>,
);

export const Statement = z.strictObject({
  contact: ContactRef,
  lines: z.array(StatementLine).describe('Open items, oldest due first.'),
  buckets: AgeingBuckets.describe('Balance by days past due: current (not yet due), 1-30, 31-60, 61-90, 90+.'),
  totalDueCents: z.number().int(),
});

export const receivables = {
  invoiceDraft: method({
    summary:
      'Draft a sales invoice: finds or creates the customer by name, one line on 200 Sales with GST included (GST = round(total / 11)). DRAFT: nothing posts until books.invoiceSend.',
    params: z.strictObject({
      payeeName: text({ min: 1, max: 200, description: 'The customer, by name; a new name creates the contact.' }),
      description: text({ min: 1, max: 1000, description: 'What was sold (the invoice line).' }),
      totalCents: amountCents('GST-inclusive total in cents.'),
      dueDays: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(365, 'must be at most 365')
        .describe('Payment terms: days from sending to the due date (0 to 365).'),
    }),
    result: invoiceResult,
    events: ['books.invoice.draft'],
    example: { payeeName: 'Harbour Cafe Pty Ltd', description: 'October bookkeeping', totalCents: 165000, dueDays: 14 },
  }),
  invoiceSend: method({
    summary:
      'Approve and send a draft: DRAFT -> AUTHORISED, numbered INV-…, issued today, due after its dueDays. Posts Dr 610 / Cr 200 / Cr 820. Sending a sent invoice changes nothing.',
    params: z.strictObject({ id: invoiceId }),
    result: invoiceResult,
    events: ['books.invoice.send'],
    example: { id: 'inv_0123456789abcdef' },
  }),
  invoiceChaseStep: method({
    hold: { completion: 'retry', when: 'the step is 2 or 3' },
    summary:
      'Take a dunning step on an authorised invoice with money due: 1 friendly, 2 firm, 3 final; steps only move forward and an open promise to pay pauses chasing. Step 2 or 3 is a signature act: without proof it answers a hold frame (once a human approves, retry with approvalId). Records the step and returns the reminder text; this server sends nothing to the customer.',
    params: z.strictObject({
      id: invoiceId,
      step: z
        .number({ message: 'must be 1, 2 or 3' })
        .int('must be 1, 2 or 3')
        .min(1, 'must be 1, 2 or 3')
        .max(3, 'must be 1, 2 or 3')
        .describe('1 friendly nudge, 2 firm reminder, 3 final notice. Repeating the current step changes nothing.'),
      ...proofFields,
    }),
    result: z.strictObject({
      invoice: Invoice,
      reminder: z
        .strictObject({ step: z.number().int(), tone: z.enum(['friendly', 'firm', 'final']), subject: z.string(), body: z.string() })
        .describe('The reminder for this step, for someone to send to the customer: this server does not send it.'),
      approvalId: z.string().nullable().describe('The approval that backed a step 2 or 3.'),
      ...outcome,
    }),
    events: ['books.invoice.chase'],
    example: { id: 'inv_0123456789abcdef', step: 1 },
  }),
  invoiceRecordPayment: method({
    summary:
      'Record money received against an authorised invoice (at most the amount due). Posts Dr 090 / Cr 610; the invoice is PAID when nothing is left due, and an open promise it satisfies becomes KEPT.',
    params: z.strictObject({
      id: invoiceId,
      amountCents: amountCents('Amount received, at most the amount due.'),
      date: date('When the money was received (default today); not before the issue date, not in a locked period.').optional(),
    }),
    result: z.strictObject({ invoice: Invoice, paymentId: z.string().describe('pmt_…'), journalId: journalRef, ...outcome }),
    events: ['books.invoice.record_payment'],
    example: { id: 'inv_0123456789abcdef', amountCents: 165000, date: '2026-11-20' },
  }),
  invoiceCreditNote: method({
    summary:
      'Issue a credit note (CN-…) allocated to an authorised invoice, at most its amount due, dated today. Posts Dr 200 + Dr 820 / Cr 610 (GST = round(amount / 11)). The way to reduce a paid or part-paid invoice.',
    params: z.strictObject({
      id: invoiceId,
      amountCents: amountCents('GST-inclusive amount to credit, at most the amount due.'),
      reason: reason('Why, as the customer will read it.'),
    }),
    result: z.strictObject({
      invoice: Invoice,
      creditNote: z.strictObject({
        id: z.string(),
        number: z.string(),
        amountCents: z.number().int(),
        gstCents: z.number().int(),
        reason: z.string(),
        date: z.string(),
      }),
      journalId: journalRef,
      ...outcome,
    }),
    events: ['books.invoice.credit'],
    example: { id: 'inv_0123456789abcdef', amountCents: 11000, reason: 'Discount agreed for late delivery' },
  }),
  invoiceVoid: method({
    summary:
      'Void an invoice: a DRAFT is DELETED; an AUTHORISED invoice with nothing paid or credited is VOIDED and its journal reversed. Paid or credited invoices are refused (issue a credit note instead). Voiding again changes nothing.',
    params: z.strictObject({ id: invoiceId, reason: reason('Why (kept with the event).').optional() }),
    result: invoiceResult,
    events: ['books.invoice.void'],
    example: { id: 'inv_0123456789abcdef', reason: 'Raised against the wrong customer' },
  }),
  invoicePromise: method({
    summary:
      'Record a customer promise to pay an authorised invoice by a date (optionally an amount): OPEN, pausing chasing; it replaces an earlier open promise, becomes KEPT when paid and BROKEN once the date plus the grace days pass unpaid. Every call is a new act.',
    params: z.strictObject({
      id: invoiceId,
      date: date('The date the customer promised to pay by: today or later.'),
      amountCents: amountCents('Amount promised, at most the amount due (default: all of it).').optional(),
    }),
    result: z.strictObject({ invoice: Invoice, promise: PromiseToPay, ...outcome }),
    events: ['books.invoice.promise'],
    example: { id: 'inv_0123456789abcdef', date: '2026-12-05', amountCents: 80000 },
  }),
  statementRun: method({
    summary:
      'Produce open-item customer statements as at a date: each customer with money owed, its open invoices and the balance aged into current, 1-30, 31-60, 61-90 and 90+ days past due. Recorded as a statement run; every call is a new run.',
    params: z.strictObject({
      asOf: date('Statement date: invoices issued by then, less payments and credits by then.'),
      contactId: ids.contact('Only this customer (default: every customer with a balance).').optional(),
    }),
    result: z.strictObject({
      runId: z.string().describe('stm_…'),
      asOf: z.string(),
      statements: z.array(Statement),
      totalDueCents: z.number().int(),
      ...outcome,
    }),
    events: ['books.statement.run'],
    example: { asOf: '2026-11-30' },
  }),
  invoices: method({
    summary: 'Invoices with amount due, days overdue, chase step and promise, oldest first; filter by status, customer or overdue. Pages with cursor/limit.',
    params: z.strictObject({
      status: z.enum(INVOICE_STATUSES).describe('Only invoices in this status.').optional(),
      contactId: ids.contact('Only this customer’s invoices.').optional(),
      overdue: z.boolean().describe('true: only authorised invoices past due with money owed.').optional(),
      ...pageParams,
    }),
    result: page('invoices', Invoice),
    example: { status: 'AUTHORISED', overdue: true, limit: 50 },
  }),
};
