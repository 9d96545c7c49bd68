import { z } from 'zod';
import { cursor, id, isoDate, limit, text } from '../../schema.js';
import { ACCOUNT_CODES, TAX_CODES } from './chart.js';

/*
 * Field builders and shapes every books area shares, so the 43 methods spell the same thing the same way:
 * - money is integer cents (`…Cents`), GST-inclusive unless the name says otherwise;
 * - dates are `YYYY-MM-DD` (the books' business date, UTC);
 * - a row's own id is `id`; a reference to another row is `<kind>Id` (invoiceId, billId, lineId, ...);
 * - every mutation result carries `ledgerId` (first 8 hex of its event's row_hash), `message` (quoting
 *   `ledger #<ledgerId>`, to relay verbatim) and `changed` (false when the transition had already been made:
 *   nothing was posted);
 * - R methods page with `cursor` (0 to start, then the previous `nextCursor`) and `limit`.
 */

export const MAX_CENTS = 100_000_000_000; // $1bn: far above any small-company document, far below 2^53.

export const amountCents = (description: string) =>
  z
    .number({ message: 'must be an integer number of cents' })
    .int('must be an integer number of cents')
    .min(1, 'must be at least 1 cent')
    .max(MAX_CENTS, `must be at most ${MAX_CENTS} cents`)
    .describe(description);

/** A signed amount: debits (money in, for a bank line) positive, credits negative, never zero. */
export const signedCents = (description: string) =>
  z
    .number({ message: 'must be an integer number of cents' })
    .int('must be an integer number of cents')
    .min(-MAX_CENTS, `must be at least -${MAX_CENTS} cents`)
    .max(MAX_CENTS, `must be at most ${MAX_CENTS} cents`)
    .refine((v) => v !== 0, 'must not be zero')
    .describe(description);

export const date = (description: string) => isoDate(description);

/** An account code of the chart, as an enum (so tools and docs list the codes once, machine-readably). */
export const accountCode = (description: string) =>
  z.enum(ACCOUNT_CODES, { message: 'must be an account code of the chart (books.accounts lists them with their names)' }).describe(description);

export const taxCode = (description: string) =>
  z
    .enum(TAX_CODES)
    .describe(`${description} GST (10% GST), GST_FREE (no GST, on the BAS), INPUT_TAXED (no GST credit, on the BAS) or BAS_EXCLUDED (not on the BAS).`);

export const name = (description: string) => text({ min: 1, max: 200, description });
export const reason = (description: string) => text({ min: 1, max: 500, description });

/** An Australian Business Number: 11 digits (spaces allowed), checked with the ATO's weighting. */
export const abn = z
  .string()
  .transform((v) => v.replace(/\s+/g, ''))
  .refine((v) => /^\d{11}$/.test(v) && abnChecksumOk(v), 'must be a valid 11-digit ABN')
  .describe('Australian Business Number, 11 digits (spaces allowed).');

export function abnChecksumOk(abnDigits: string): boolean {
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  const digits = [...abnDigits].map(Number);
  digits[0] -= 1;
  return digits.reduce((sum, d, i) => sum + d * weights[i], 0) % 89 === 0;
}

export const BankDetails = z
  .strictObject({
    bsb: z
      .string()
      .transform((v) => v.replace(/[\s-]/g, ''))
      .refine((v) => /^\d{6}$/.test(v), 'must be a 6-digit BSB')
      .describe('Bank-State-Branch number, 6 digits (e.g. 062-000).'),
    accountNumber: z
      .string()
      .regex(/^\d{5,10}$/, 'must be 5 to 10 digits')
      .describe('Account number, 5 to 10 digits.'),
    accountName: name('Name on the account.'),
  })
  .describe('Where money is paid. Never written to the ledger; reads show the account number masked.');
export type BankDetails = z.output<typeof BankDetails>;

/** Ids of books rows, by prefix. */
export const ids = {
  contact: (d = 'The contact (con_…).') => id('con', d),
  invoice: (d = 'The invoice (inv_…).') => id('inv', d),
  creditNote: (d = 'The credit note (cn_…).') => id('cn', d),
  bill: (d = 'The bill (bill_…).') => id('bill', d),
  claim: (d = 'The expense claim (clm_…).') => id('clm', d),
  feedLine: (d = 'The bank feed line (fl_…).') => id('fl', d),
  receipt: (d = 'The receipt (rcpt_…).') => id('rcpt', d),
  journal: (d = 'The journal (jnl_…).') => id('jnl', d),
  employee: (d = 'The employee (emp_…).') => id('emp', d),
  onboarding: (d = 'The onboarding (onb_…).') => id('onb', d),
  payRun: (d = 'The pay run (pay_…).') => id('pay', d),
  paymentRun: (d = 'The payment run (brun_…).') => id('brun', d),
  stpEvent: (d = 'The STP event (stp_…).') => id('stp', d),
  leave: (d = 'The leave request (lv_…).') => id('lv', d),
  lodgement: (d = 'The BAS lodgement (bas_…).') => id('bas', d),
  asset: (d = 'The fixed asset (ast_…).') => id('ast', d),
};

/** What every books mutation result carries besides its record. */
export const outcome = {
  changed: z.boolean().describe('false when the row had already made this transition (a replay): nothing was posted.'),
  ledgerId: z.string().describe('First 8 hex characters of the row_hash of the event this call appended.'),
  message: z.string().describe('What happened, quoting `ledger #<ledgerId>`; relay it verbatim.'),
};

export const journalRef = z.string().nullable().describe('The journal this call posted (jnl_…), or null when it posted none.');

/** Paging params of the R methods. */
export const pageParams = { cursor, limit: limit(200, 50) };

export const page = <T extends z.ZodType>(key: string, item: T) =>
  z.strictObject({
    [key]: z.array(item),
    nextCursor: z.number().int().nullable().describe('Pass as cursor for the next page; null on the last page.'),
  });

export const ContactRef = z.strictObject({ id: z.string().describe('con_…'), name: z.string() });
