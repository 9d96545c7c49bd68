import { z } from 'zod';
import { method } from '../../contract.js';
import { proofFields, text } from '../../schema.js';
import { CHART } from './chart.js';
import { BankDetails, ContactRef, abn, amountCents, date, ids, journalRef, name, outcome, page, pageParams, reason, taxCode } from './common.js';

/*
 * Payables: supplier bills from capture to paid. A bill is captured as a DRAFT (duplicate check, payee flags),
 * approved (posts the liability), held or returned, and paid by a signed payment run. Amounts are
 * GST-inclusive; GST on a line taxed GST = round(line / 11).
 */

export const BILL_STATUSES = ['DRAFT', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED'] as const;
export const BILL_FLAGS = ['ABOVE FLOOR', 'NEW PAYEE'] as const;

/** Where a bill line may go: an expense account, or a fixed asset cost account (which registers an asset). */
export const BILL_ACCOUNTS = CHART.filter((a) => a.type === 'EXPENSE' || a.accumulated).map((a) => a.code) as [string, ...string[]];

const billAccount = (description: string) =>
  z
    .enum(BILL_ACCOUNTS)
    .describe(
      `${description} An expense account or a fixed asset cost account (${BILL_ACCOUNTS.join(', ')}); a line on 710 or 720 registers a fixed asset when the bill is approved.`,
    );

const MaskedBank = z.strictObject({
  bsb: z.string(),
  accountNumber: z.string().describe('Masked: ••••6789.'),
  accountName: z.string(),
});

export const BillLine = z.strictObject({
  lineNo: z.number().int(),
  description: z.string(),
  account: z.string(),
  taxCode: z.string(),
  amountCents: z.number().int().describe('GST-inclusive amount of the line.'),
  gstCents: z.number().int().describe('round(amount / 11) when taxCode is GST, else 0.'),
  netCents: z.number().int().describe('amount - GST: what is debited to the account.'),
  assetId: z.string().nullable().describe('The fixed asset registered from this line when the bill was approved (710/720 lines).'),
});

export const Bill = z.strictObject({
  id: z.string().describe('bill_…'),
  contact: ContactRef.describe('The supplier.'),
  reference: z.string().describe('The supplier’s invoice number.'),
  issueDate: z.string(),
  dueDate: z.string(),
  abn: z.string().nullable().describe('The supplier ABN on the bill, when given.'),
  lines: z.array(BillLine),
  totalCents: z.number().int().describe('GST-inclusive total (sum of the lines).'),
  gstCents: z.number().int().describe('GST claimable: sum of the lines’ GST.'),
  status: z
    .enum(BILL_STATUSES)
    .describe('DRAFT, AUTHORISED (approved, money owed), PAID (amount due 0), VOIDED (returned after approval) or DELETED (returned draft).'),
  amountPaidCents: z.number().int(),
  amountDueCents: z.number().int().describe('total - paid while DRAFT or AUTHORISED; 0 otherwise.'),
  daysOverdue: z.number().int().describe('Days past the due date of an authorised bill with money due; 0 otherwise.'),
  flags: z
    .array(z.enum(BILL_FLAGS))
    .describe(
      'Payee flags from capture: ABOVE FLOOR (total above the materiality floor) and/or NEW PAYEE (first bill from the supplier, or bank details that differ from the approved ones).',
    ),
  heldReason: z
    .enum(BILL_FLAGS)
    .nullable()
    .describe('Why approval needs a human signature (rule PB-B1): ABOVE FLOOR first, else NEW PAYEE; null when it does not.'),
  onHold: z.boolean().describe('Put on hold by books.billHold: excluded from payment runs until released by books.billApprove.'),
  holdReason: z.string().nullable(),
  approvalId: z.string().nullable().describe('The human approval that backed the approval of a flagged bill.'),
  runId: z.string().nullable().describe('The payment run (brun_…) that paid the bill.'),
  bank: MaskedBank.nullable().describe('Bank details printed on this bill, account masked.'),
  payeeBank: MaskedBank.nullable().describe('The supplier’s approved bank details (what a payment run pays to), account masked.'),
  journalId: z.string().nullable().describe('The journal that posted the bill when approved.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Bill = z.infer<typeof Bill>;

export const PaymentRun = z.strictObject({
  id: z.string().describe('brun_… derived from payDate and the sorted bill ids.'),
  payDate: z.string(),
  bills: z.array(
    z.strictObject({
      billId: z.string(),
      contact: ContactRef,
      reference: z.string(),
      amountCents: z.number().int().describe('Paid by this run: what was due on the bill.'),
      paymentId: z.string().describe('pmt_…'),
      journalId: z.string(),
    }),
  ),
  totalCents: z.number().int(),
  approvalId: z.string().nullable().describe('The human approval that signed the run.'),
  feedLineId: z.string().nullable().describe('The bank feed line the run was reconciled to, once matched.'),
  createdAt: z.string(),
});

const billId = ids.bill('The bill (bill_…).');

const BillLineInput = z.strictObject({
  description: text({ min: 1, max: 500, description: 'What was bought (the line as on the supplier’s invoice).' }),
  account: billAccount('Where the line is coded.'),
  amountCents: amountCents('GST-inclusive amount of the line in cents.'),
  taxCode: taxCode('Default: the account’s default tax code (GST for 429, 710 and 720; INPUT_TAXED for 404).').optional(),
});

const billResult = z.strictObject({ bill: Bill, journalId: journalRef, ...outcome });

export const payables = {
  billCapture: method({
    summary:
      'Capture a supplier bill as a DRAFT (nothing posts): finds or creates the supplier by name; give either lines (1 to 50) or totalCents (one line on account, default 429). ' +
      'GST per line = round(line / 11) when its taxCode is GST. Refuses a duplicate (CONFLICT naming the existing bill): a bill not returned with the same supplier, reference (case ignored) and total. ' +
      'Flags ABOVE FLOOR when the total is strictly above the materiality floor, and NEW PAYEE when the supplier has no earlier bill or the bank details given differ (BSB or account number) from the supplier’s approved ones; a flagged bill’s approval needs a human signature (rule PB-B1).',
    params: z.strictObject({
      supplierName: name('The supplier, by name; a new name creates the contact.'),
      reference: text({ min: 1, max: 100, description: 'The supplier’s invoice number (used in the duplicate check, case ignored).' }),
      issueDate: date('The date on the supplier’s invoice; the bill posts on it when approved (or today if that period is locked).'),
      dueDate: date('When payment is due: on or after issueDate.'),
      lines: z
        .array(BillLineInput)
        .min(1, 'must have at least 1 line')
        .max(50, 'must have at most 50 lines')
        .describe('The bill’s lines (1 to 50). Give either lines or totalCents, not both.')
        .optional(),
      totalCents: amountCents('GST-inclusive total for a one-line bill. Give either lines or totalCents, not both.').optional(),
      account: billAccount('With totalCents only: where the line is coded (default 429 General expenses).').optional(),
      taxCode: taxCode('With totalCents only: default the account’s default tax code.').optional(),
      abn: abn.optional(),
      bank: BankDetails.describe(
        'The bank details printed on the bill. Differing from the supplier’s approved details flags NEW PAYEE; they become the approved details only when a human-signed approval of this bill runs.',
      ).optional(),
    }),
    result: billResult,
    events: ['books.bill.capture'],
    example: {
      supplierName: 'Coastal Office Supplies',
      reference: 'SI-20418',
      issueDate: '2026-11-01',
      dueDate: '2026-11-30',
      lines: [
        { description: 'Printer paper and toner', account: '429', amountCents: 44000 },
        { description: 'Laptop', account: '720', amountCents: 242000 },
      ],
      abn: '51 824 753 556',
    },
  }),
  billApprove: method({
    hold: { completion: 'retry', when: 'the bill is flagged (heldReason ABOVE FLOOR or NEW PAYEE, rule PB-B1)' },
    summary:
      'Approve a draft bill: DRAFT -> AUTHORISED, posting Dr each line’s net on its account + Dr 820 GST / Cr 800 total, dated the issue date (today if that period is locked); 710/720 lines register fixed assets. ' +
      'A flagged bill (heldReason ABOVE FLOOR or NEW PAYEE, rule PB-B1) is refused with GOVERNANCE_NOT_READY (its message says how the approval is filed) until a human signature backs it; once approved, retry with approvalId; a signed NEW PAYEE approval also makes the bill’s bank details the supplier’s approved ones. ' +
      'An approved bill on hold is released from the hold (no journal; a flagged bill’s release needs a new signature). An approved or paid bill otherwise stays as it is (changed false). Returned bills are refused.',
    params: z.strictObject({ id: billId, ...proofFields }),
    result: z.strictObject({
      bill: Bill,
      journalId: journalRef,
      assetIds: z.array(z.string()).describe('Fixed assets registered by this approval.'),
      approvalId: z.string().nullable().describe('The approval consumed by this call, if it needed one.'),
      ...outcome,
    }),
    events: ['books.bill.approve'],
    example: { id: 'bill_0123456789abcdef' },
  }),
  billHold: method({
    summary:
      'Put a DRAFT or AUTHORISED bill on hold with a reason: it is left out of payment runs until books.billApprove releases it (money already paid through the bank is still matched). Holding a held bill changes nothing; paid or returned bills are refused.',
    params: z.strictObject({ id: billId, reason: reason('Why it must not be paid yet (kept with the bill and the event).') }),
    result: z.strictObject({ bill: Bill, ...outcome }),
    events: ['books.bill.hold'],
    example: { id: 'bill_0123456789abcdef', reason: 'Goods not yet delivered' },
  }),
  billReturn: method({
    summary:
      'Send a bill back to the supplier: a DRAFT is DELETED; an AUTHORISED bill with nothing paid is VOIDED and its journal reversed (on its date if still open, else today), and fixed assets it registered are removed (refused if any was depreciated or disposed). ' +
      'A part-paid or paid bill is refused (ask the supplier for a refund or credit). Returning a returned bill changes nothing.',
    params: z.strictObject({ id: billId, reason: reason('Why it goes back (kept with the bill and the event).') }),
    result: z.strictObject({ bill: Bill, journalId: journalRef, deletedAssetIds: z.array(z.string()), ...outcome }),
    events: ['books.bill.return'],
    example: { id: 'bill_0123456789abcdef', reason: 'Billed twice for the same delivery' },
  }),
  billScheduleRun: method({
    hold: { completion: 'retry' },
    summary:
      'Pay authorised bills in full on a date: a signature act. The run id is brun_ + the first 16 hex of sha256(payDate, newline, sorted bill ids joined by commas), so a retry in any order names the same run. ' +
      'Every bill must exist (NOT_FOUND) and be AUTHORISED, not on hold, with money due and issued by payDate (CONFLICT naming each bill and why). A run already executed is a no-op replay. ' +
      'Without proof it answers a hold frame (once a human approves, retry with approvalId); with it, each bill is paid Dr 800 / Cr 090 on payDate and becomes PAID.',
    params: z.strictObject({
      payDate: date('When the money leaves the bank: today or later.'),
      billIds: z
        .array(billId)
        .min(1, 'must list at least 1 bill')
        .max(100, 'must list at most 100 bills')
        .refine((v) => new Set(v).size === v.length, 'must not repeat a bill')
        .describe('The bills to pay (1 to 100 distinct ids); their order does not matter.'),
      ...proofFields,
    }),
    result: z.strictObject({ run: PaymentRun, ...outcome }),
    events: ['books.bill.schedule_run'],
    example: { payDate: '2026-11-30', billIds: ['bill_0123456789abcdef', 'bill_fedcba9876543210'] },
  }),
  bills: method({
    summary:
      'Bills with amount due, days overdue, payee flags (ABOVE FLOOR, NEW PAYEE), approval, hold, payment run and masked bank details, oldest first; filter by status, supplier, on hold or flagged. Pages with cursor/limit.',
    params: z.strictObject({
      status: z.enum(BILL_STATUSES).describe('Only bills in this status.').optional(),
      contactId: ids.contact('Only this supplier’s bills.').optional(),
      onHold: z.boolean().describe('true: only bills on hold; false: only bills not on hold.').optional(),
      flagged: z.boolean().describe('true: only bills whose approval needs a signature (heldReason set); false: only the others.').optional(),
      ...pageParams,
    }),
    result: page('bills', Bill),
    example: { status: 'AUTHORISED', onHold: false, limit: 50 },
  }),
};
