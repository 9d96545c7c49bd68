import { z } from 'zod';
import { method } from '../../contract.js';
import { text } from '../../schema.js';
import { ACCOUNTS, TAX_CODES } from './chart.js';
import { accountCode, amountCents, date, ids, journalRef, name, outcome, taxCode } from './common.js';

/*
 * Expense claims: an employee paid for something of the business and is owed the money back. SUBMITTED,
 * AUTHORISED once approved (owed on 801 Unpaid expense claims), PAID when reimbursed in full (bank matching).
 * Amounts are GST-inclusive; GST = round(total / 11) when the tax code is GST.
 */

export const CLAIM_STATUSES = ['SUBMITTED', 'AUTHORISED', 'PAID'] as const;

/**
 * Expense accounts a purchase may be coded to. Wages (477), super (478) and depreciation (416) are expense
 * accounts too, but only payroll and the depreciation run post to them.
 */
export const CLAIMABLE_ACCOUNTS: readonly string[] = [...ACCOUNTS.values()]
  .filter((a) => a.type === 'EXPENSE' && !['416', '477', '478'].includes(a.code))
  .map((a) => a.code);

export const ExpenseClaim = z.strictObject({
  id: z.string().describe('clm_…'),
  employee: z.strictObject({ id: z.string(), name: z.string() }),
  date: z.string().describe('When the expense was incurred.'),
  merchant: z.string(),
  totalCents: z.number().int().describe('GST-inclusive total.'),
  gstCents: z.number().int().describe('round(total / 11) when taxCode is GST, else 0.'),
  account: z.string(),
  taxCode: z.enum(TAX_CODES),
  receiptRef: z.string().nullable(),
  status: z.enum(CLAIM_STATUSES).describe('SUBMITTED, AUTHORISED (approved, owed to the employee) or PAID (amount due 0).'),
  amountPaidCents: z.number().int(),
  amountDueCents: z.number().int().describe('total - paid while AUTHORISED (owed on 801); total while SUBMITTED; 0 when PAID.'),
  approvedBy: z.string().nullable(),
  approvedAt: z.string().nullable(),
  journalId: z.string().nullable().describe('The journal that posted the approval.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ExpenseClaim = z.infer<typeof ExpenseClaim>;

const claimResult = z.strictObject({ claim: ExpenseClaim, journalId: journalRef, ...outcome });

export const expenses = {
  expenseClaim: method({
    summary:
      'Submit an expense claim for an employee’s out-of-pocket purchase: GST-inclusive total coded to an expense account (404 or 429), tax code defaulting to the account’s (GST = round(total / 11)). SUBMITTED: nothing posts until books.expenseApprove.',
    params: z.strictObject({
      employeeId: ids.employee('The employee who paid (emp_…).'),
      date: date('When the purchase was made: today or earlier.'),
      merchant: name('Who was paid (the supplier on the receipt).'),
      totalCents: amountCents('GST-inclusive total in cents.'),
      account: accountCode('The expense account to code it to.').refine(
        (v) => CLAIMABLE_ACCOUNTS.includes(v),
        `must be an expense account a purchase can be coded to (${CLAIMABLE_ACCOUNTS.join(', ')})`,
      ),
      taxCode: taxCode('GST treatment (default: the account’s).').optional(),
      receiptRef: text({
        min: 1,
        max: 200,
        description: 'The receipt or tax invoice (file reference); GST credits above $82.50 need a tax invoice.',
      }).optional(),
    }),
    result: claimResult,
    events: ['books.expense.claim'],
    example: {
      employeeId: 'emp_0123456789abcdef',
      date: '2026-11-02',
      merchant: 'Officeworks',
      totalCents: 8800,
      account: '429',
      receiptRef: 'receipts/2026-11/officeworks.pdf',
    },
  }),
  expenseApprove: method({
    summary:
      'Approve a submitted claim: SUBMITTED -> AUTHORISED, owed to the employee. Posts, dated the claim date (today when that period is locked), Dr expense (net of GST) + Dr 820 GST / Cr 801 Unpaid expense claims. Approving an approved or paid claim changes nothing.',
    params: z.strictObject({ id: ids.claim('The expense claim (clm_…).') }),
    result: claimResult,
    events: ['books.expense.approve'],
    example: { id: 'clm_0123456789abcdef' },
  }),
};
