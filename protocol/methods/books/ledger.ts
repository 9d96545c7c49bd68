import { z } from 'zod';
import { method } from '../../contract.js';
import { ACCOUNT_TYPES, TAX_CODES } from './chart.js';
import { ContactRef, accountCode, date, ids, page, pageParams } from './common.js';
import { AGEING_BUCKETS, AgeingBuckets } from './receivables.js';
import { BasLabels } from './tax.js';

/*
 * The general ledger reads: the chart with balances, journals with their lines and source, and the reports
 * (trial balance, profit and loss, balance sheet, aged receivables and payables, BAS summary, payroll summary,
 * asset register). Every figure is computed from the posted journals and the documents at the time of the read.
 */

export const Account = z.strictObject({
  code: z.string(),
  name: z.string(),
  type: z.enum(ACCOUNT_TYPES),
  defaultTaxCode: z.enum(TAX_CODES),
  control: z.string().nullable().describe('receivables, payables, expenseClaims or wages: a control account equal to its subledger.'),
  tax: z.boolean().describe('A tax account (GST, PAYG withholding, super payable), posted only by the tax logic.'),
  debitsCents: z.number().int().describe('Sum of debits up to asOf.'),
  creditsCents: z.number().int().describe('Sum of credits up to asOf, as a positive number.'),
  balanceCents: z.number().int().describe('debits - credits: positive is a debit balance, negative a credit balance.'),
});

export const JournalLine = z.strictObject({
  lineNo: z.number().int(),
  account: z.string(),
  accountName: z.string(),
  amountCents: z.number().int().describe('Debit positive, credit negative.'),
  taxCode: z.enum(TAX_CODES).nullable(),
  taxCents: z.number().int().describe('GST belonging to this line (also posted on 820 in the same journal).'),
  contactId: z.string().nullable(),
  description: z.string(),
});

export const Journal = z.strictObject({
  id: z.string().describe('jnl_…'),
  date: z.string(),
  narration: z.string(),
  source: z.strictObject({ kind: z.string().describe('invoice, payment, credit_note, bill, manual, pay_run, tax, depreciation, …'), id: z.string() }),
  reverses: z.string().nullable().describe('The journal this one reverses.'),
  reversedBy: z.string().nullable().describe('The journal that reversed this one.'),
  postedBy: z.string(),
  postedAt: z.string(),
  lines: z.array(JournalLine),
});

const ReportLine = z.strictObject({ account: z.string(), name: z.string(), amountCents: z.number().int() });
const Section = z.strictObject({ lines: z.array(ReportLine), totalCents: z.number().int() });

const AgedRow = z.strictObject({
  contact: ContactRef,
  buckets: AgeingBuckets,
  totalCents: z.number().int(),
  documents: z.array(
    z.strictObject({
      id: z.string(),
      number: z.string().nullable(),
      dueDate: z.string(),
      balanceCents: z.number().int(),
      daysOverdue: z.number().int(),
      bucket: z.enum(AGEING_BUCKETS),
    }),
  ),
});

export const REPORTS = [
  'trialBalance',
  'profitAndLoss',
  'balanceSheet',
  'agedReceivables',
  'agedPayables',
  'basSummary',
  'payrollSummary',
  'assetRegister',
] as const;

const asOf = date('Report as at this date (default today).').optional();
const period = {
  from: date('First day of the period.'),
  to: date('Last day of the period (inclusive).'),
};

export const ReportResult = z.discriminatedUnion('report', [
  z.strictObject({
    report: z.literal('trialBalance'),
    asOf: z.string(),
    lines: z.array(z.strictObject({ account: z.string(), name: z.string(), debitCents: z.number().int(), creditCents: z.number().int() })),
    totalDebitCents: z.number().int(),
    totalCreditCents: z.number().int().describe('Equals totalDebitCents: the books balance.'),
  }),
  z.strictObject({
    report: z.literal('profitAndLoss'),
    from: z.string(),
    to: z.string(),
    income: Section.describe('Revenue accounts, as positive amounts.'),
    expenses: Section.describe('Expense accounts, as positive amounts.'),
    netProfitCents: z.number().int().describe('income - expenses.'),
  }),
  z.strictObject({
    report: z.literal('balanceSheet'),
    asOf: z.string(),
    assets: Section,
    liabilities: Section.describe('As positive amounts.'),
    equity: Section.describe('Retained earnings and current earnings (all profit and loss up to asOf), as positive amounts.'),
    balanced: z.boolean().describe('assets = liabilities + equity.'),
  }),
  z.strictObject({ report: z.literal('agedReceivables'), asOf: z.string(), contacts: z.array(AgedRow), totals: AgeingBuckets, totalCents: z.number().int() }),
  z.strictObject({ report: z.literal('agedPayables'), asOf: z.string(), contacts: z.array(AgedRow), totals: AgeingBuckets, totalCents: z.number().int() }),
  z.strictObject({
    report: z.literal('basSummary'),
    from: z.string(),
    to: z.string(),
    labels: BasLabels,
    netAmountCents: z.number().int().describe('1A + W2 - 1B: positive is payable to the ATO, negative a refund.'),
    lodgement: z
      .strictObject({ id: z.string(), status: z.string().describe('DRAFT, PREPARED, HELD (not lodged) or LODGED.') })
      .nullable()
      .describe('The lodgement for exactly this period, if one exists.'),
  }),
  z.strictObject({
    report: z.literal('payrollSummary'),
    from: z.string(),
    to: z.string(),
    runs: z.array(
      z.strictObject({
        id: z.string(),
        payDate: z.string(),
        status: z.string(),
        grossCents: z.number().int(),
        paygCents: z.number().int(),
        superCents: z.number().int(),
        netCents: z.number().int(),
        paygSchedule: z
          .string()
          .nullable()
          .describe(
            'The ATO Schedule 1 its PAYG was computed under, e.g. "ATO Schedule 1 2026-27 (from 2026-07-01)" (null on runs drafted before schedules were recorded).',
          ),
        paygScales: z.array(z.string()).describe('The Schedule 1 scales its payslips were withheld on ("1" to "6"), ascending.'),
        superRule: z.string().describe('Payday Super from 1 July 2026 (7 business days after payday, 20 for a first pay), quarterly SG before.'),
        superDue: z
          .array(z.strictObject({ dueDate: z.string(), amountCents: z.number().int(), firstPay: z.boolean() }))
          .describe("When the run's super must reach the funds: one date, or two when it holds new employees' first pays (paid status: books.taxObligations)."),
      }),
    ),
    employees: z.array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        grossCents: z.number().int(),
        paygCents: z.number().int(),
        superCents: z.number().int(),
        netCents: z.number().int(),
        paygBy: z
          .array(z.strictObject({ schedule: z.string().nullable(), scale: z.string().nullable(), reason: z.string().nullable(), paygCents: z.number().int() }))
          .describe(
            'Where the PAYG came from: per ATO schedule and scale (with why, e.g. "scale 2: tax-free threshold claimed"), the amount withheld; null schedule or scale on payslips drafted before they were recorded.',
          ),
      }),
    ),
    totals: z.strictObject({ grossCents: z.number().int(), paygCents: z.number().int(), superCents: z.number().int(), netCents: z.number().int() }),
  }),
  z.strictObject({
    report: z.literal('payRuns'),
    from: z.string(),
    to: z.string(),
    runs: z.array(
      z.strictObject({
        id: z.string(),
        periodStart: z.string(),
        periodEnd: z.string(),
        payDate: z.string(),
        status: z.string().describe('DRAFT (drafted; books.payrollSign posts it), POSTED, or RECALLED.'),
        staffCount: z.number().int(),
        grossCents: z.number().int(),
        netCents: z.number().int(),
      }),
    ),
  }),
  z.strictObject({
    report: z.literal('assetRegister'),
    asOf: z.string(),
    assets: z.array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        costAccount: z.string(),
        purchaseDate: z.string(),
        costCents: z.number().int(),
        accumulatedDepreciationCents: z.number().int(),
        bookValueCents: z.number().int(),
        status: z.string(),
      }),
    ),
    totals: z.strictObject({ costCents: z.number().int(), accumulatedDepreciationCents: z.number().int(), bookValueCents: z.number().int() }),
  }),
]);

export const ledger = {
  accounts: method({
    summary: 'The chart of accounts with debits, credits and balance of each account up to a date (debit positive). Pages with cursor/limit in code order.',
    params: z.strictObject({ asOf, ...pageParams }),
    result: page('accounts', Account),
    example: { asOf: '2026-11-30' },
  }),
  journals: method({
    summary:
      'Posted journals with their lines and source document, oldest first; filter by account, source (kind and id) or date range. Reversals link both ways. Pages with cursor/limit.',
    params: z.strictObject({
      account: accountCode('Only journals with a line on this account.').optional(),
      sourceKind: z.string().max(40).describe('Only journals posted by this kind of source (invoice, payment, bill, manual, …).').optional(),
      sourceId: z.string().max(64).describe('Only journals of this source document (e.g. an inv_… id).').optional(),
      journalId: ids.journal('Only this journal.').optional(),
      dateFrom: date('Journals dated on or after.').optional(),
      dateTo: date('Journals dated on or before.').optional(),
      ...pageParams,
    }),
    result: page('journals', Journal),
    example: { account: '610', dateFrom: '2026-11-01' },
  }),
  reports: method({
    summary:
      'One report, computed now from the journals and documents: trialBalance, balanceSheet, agedReceivables, agedPayables, assetRegister (as at asOf, default today) or profitAndLoss, basSummary, payrollSummary, payRuns (for from..to). payRuns lists pay runs of every status (DRAFT ones wait for books.payrollSign). A held BAS is reported as held, never as lodged.',
    params: z.discriminatedUnion('report', [
      z.strictObject({ report: z.literal('trialBalance').describe('Every account balance as at asOf; debits equal credits.'), asOf }),
      z.strictObject({ report: z.literal('balanceSheet').describe('Assets, liabilities and equity as at asOf.'), asOf }),
      z.strictObject({ report: z.literal('agedReceivables').describe('What customers owe as at asOf, by days past due.'), asOf }),
      z.strictObject({ report: z.literal('agedPayables').describe('What is owed to suppliers as at asOf, by days past due.'), asOf }),
      z.strictObject({ report: z.literal('assetRegister').describe('Fixed assets with cost, depreciation and book value as at asOf.'), asOf }),
      z.strictObject({ report: z.literal('profitAndLoss').describe('Income less expenses for from..to.'), ...period }),
      z.strictObject({ report: z.literal('basSummary').describe("The BAS labels for from..to and that period's lodgement status."), ...period }),
      z.strictObject({ report: z.literal('payrollSummary').describe('Posted pay runs paid in from..to, by run and employee.'), ...period }),
      z.strictObject({
        report: z
          .literal('payRuns')
          .describe('Every pay run (DRAFT, POSTED, RECALLED) with its pay date in from..to: the ids books.payrollSign and books.payrollRecall take.'),
        ...period,
      }),
    ]),
    result: ReportResult,
    example: { report: 'profitAndLoss', from: '2026-07-01', to: '2026-09-30' },
  }),
};
