import { z } from 'zod';
import { method } from '../../contract.js';
import { proofFields, text } from '../../schema.js';
import { BankDetails, amountCents, date, ids, journalRef, name, outcome } from './common.js';

/*
 * Payroll and people: onboarding (tfn, super, bank, contract), pay runs (draft, sign, recall) with PAYG
 * withholding from the ATO's Schedule 1 and super at 12%, leave, and Single Touch Payroll events.
 * A TFN and bank account numbers are stored but never shown in full and never written to the ledger.
 */

export const EMPLOYEE_STATUSES = ['PENDING', 'ACTIVE'] as const;
export const ONBOARDING_STATUSES = ['PENDING', 'COMPLETED'] as const;
export const ONBOARDING_STEPS = ['tfn', 'super', 'bank', 'contract'] as const;
export const PAY_BASES = ['ANNUAL', 'HOURLY'] as const;
export const PAY_RUN_STATUSES = ['DRAFT', 'POSTED', 'RECALLED', 'DELETED'] as const;
export const STP_KINDS = ['PAY', 'UPDATE'] as const;
export const STP_STATUSES = ['QUEUED', 'SUBMITTED', 'ACCEPTED', 'FAILED', 'CANCELLED'] as const;
export const LEAVE_KINDS = ['ANNUAL', 'PERSONAL', 'UNPAID'] as const;
export const LEAVE_STATUSES = ['REQUESTED', 'SCHEDULED', 'REJECTED'] as const;

/** Caps that keep every payroll sum exact in cents: $10m a year, $10,000 an hour. */
export const MAX_RATE_CENTS = { ANNUAL: 1_000_000_000, HOURLY: 1_000_000 } as const;
/** Pay periods are weekly, fortnightly or monthly: at most 31 days. */
export const MAX_PERIOD_DAYS = 31;

/** A Tax File Number: 9 digits (spaces allowed) passing the ATO check digit (weights 1,4,3,7,5,8,6,9,10; sum % 11 = 0). */
export function tfnValid(tfn: string): boolean {
  if (!/^\d{9}$/.test(tfn)) return false;
  const weights = [1, 4, 3, 7, 5, 8, 6, 9, 10];
  return [...tfn].reduce((sum, d, i) => sum + Number(d) * weights[i], 0) % 11 === 0;
}

const hoursPerWeek = z
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(60, 'must be at most 60')
  .describe('Ordinary hours a week, 1 to 60 (default 38, the National Employment Standards week).');

export const Rate = z
  .strictObject({
    basis: z.enum(PAY_BASES).describe('ANNUAL salary or HOURLY wage.'),
    amountCents: amountCents('The salary a year (ANNUAL, at most $10m) or the wage an hour (HOURLY, at most $10,000), in cents.'),
    hoursPerWeek: hoursPerWeek.default(38),
  })
  .superRefine((r, issue) => {
    if (r.amountCents > MAX_RATE_CENTS[r.basis]) {
      issue.addIssue({ code: 'custom', path: ['amountCents'], message: `must be at most ${MAX_RATE_CENTS[r.basis]} cents for ${r.basis} pay` });
    }
  })
  .describe('How the employee is paid. Gross for a period: ANNUAL amount * days / 365, HOURLY amount * hoursPerWeek * days / 7.');

export const Employee = z.strictObject({
  id: z.string().describe('emp_…'),
  name: z.string(),
  email: z.string().nullable(),
  role: z.string(),
  startDate: z.string(),
  status: z.enum(EMPLOYEE_STATUSES).describe('PENDING until every onboarding step is done, then ACTIVE (paid by pay runs).'),
  rate: z.strictObject({ basis: z.enum(PAY_BASES), amountCents: z.number().int(), hoursPerWeek: z.number().int() }),
  tfn: z.string().nullable().describe('Masked: only the last 3 digits show (••••••782); null until the tfn step.'),
  claimsTaxFreeThreshold: z.boolean().nullable().describe('true: PAYG scale 2; false: scale 1; null until the tfn step.'),
  super: z.strictObject({ fundName: z.string(), usi: z.string(), memberNumber: z.string() }).nullable(),
  bank: z.strictObject({ bsb: z.string(), accountNumber: z.string().describe('Masked: ••••6789.'), accountName: z.string() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Employee = z.infer<typeof Employee>;

export const Onboarding = z.strictObject({
  id: z.string().describe('onb_…'),
  employee: z.strictObject({ id: z.string(), name: z.string() }),
  role: z.string(),
  startDate: z.string(),
  status: z.enum(ONBOARDING_STATUSES).describe('COMPLETED once all four steps are done (the employee is then ACTIVE).'),
  steps: z.array(z.strictObject({ step: z.enum(ONBOARDING_STEPS), done: z.boolean(), doneAt: z.string().nullable() })).describe('tfn, super, bank, contract, in that order.'),
  contract: z.strictObject({ contractRef: z.string(), signedOn: z.string(), approvalId: z.string().nullable() }).nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
export type Onboarding = z.infer<typeof Onboarding>;

const StpFigures = z.strictObject({
  employeeId: z.string(),
  name: z.string(),
  grossCents: z.number().int(),
  paygCents: z.number().int(),
  superCents: z.number().int(),
});

export const StpEvent = z.strictObject({
  id: z.string().describe('stp_…'),
  runId: z.string().describe('The pay run it reports (for an UPDATE: the run whose accepted event it follows).'),
  kind: z.enum(STP_KINDS).describe('PAY: one pay run; UPDATE: year-to-date figures for the financial year.'),
  status: z.enum(STP_STATUSES).describe('QUEUED, SUBMITTED (sent, awaiting the ATO), ACCEPTED, FAILED (error says why) or CANCELLED (its run was recalled).'),
  attempt: z.number().int().describe('1, plus one per resubmission.'),
  error: z.string().nullable().describe('Why the ATO refused it (FAILED only).'),
  payDate: z.string(),
  financialYear: z.string().describe('1 July to 30 June, e.g. 2026-27.'),
  follows: z.string().nullable().describe('UPDATE: the accepted event it follows.'),
  employees: z.array(StpFigures).describe('PAY: the run’s payslips; UPDATE: year-to-date totals of POSTED runs in the financial year.'),
  grossCents: z.number().int(),
  paygCents: z.number().int(),
  superCents: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StpEvent = z.infer<typeof StpEvent>;

export const Payslip = z.strictObject({
  id: z.string().describe('psl_…'),
  employee: z.strictObject({ id: z.string(), name: z.string() }),
  daysEmployed: z.number().int().describe('Days of the period on or after the start date.'),
  rate: z.strictObject({ basis: z.enum(PAY_BASES), amountCents: z.number().int(), hoursPerWeek: z.number().int() }),
  taxScale: z.enum(['TAX_FREE_THRESHOLD', 'NO_TAX_FREE_THRESHOLD']).describe('Schedule 1 scale 2 or scale 1.'),
  unpaidLeaveHours: z.number().describe('Scheduled unpaid leave in the period, in hours.'),
  unpaidLeaveCents: z.number().int().describe('Deducted from gross at the hourly equivalent.'),
  grossCents: z.number().int(),
  paygCents: z.number().int().describe('PAYG withheld.'),
  superCents: z.number().int().describe('Super guarantee on gross, on top, at the rate in force on the pay date (11.5% in 2024-25, 12% from 1 July 2025).'),
  netCents: z.number().int().describe('gross - PAYG: what the employee is paid.'),
  paygSchedule: z.string().nullable().describe('The PAYG schedule it was computed under, e.g. "ATO Schedule 1 2024-25 (from 2024-07-01)"; null on payslips drafted before schedules were recorded.'),
  superRule: z
    .string()
    .describe('When its super is due: "Payday Super: due 7 business days after payday", "Payday Super, first pay: due 20 business days after payday" (the employee\'s first pay in the org), or "quarterly SG: due 28 days after the quarter" before 1 July 2026.'),
});

export const PayRun = z.strictObject({
  id: z.string().describe('pay_…'),
  periodStart: z.string(),
  periodEnd: z.string(),
  payDate: z.string(),
  status: z.enum(PAY_RUN_STATUSES).describe('DRAFT, POSTED (signed, journal posted), RECALLED (reversed) or DELETED (a discarded draft).'),
  staffCount: z.number().int(),
  grossCents: z.number().int(),
  paygCents: z.number().int(),
  superCents: z.number().int(),
  netCents: z.number().int(),
  paygSchedule: z.string().nullable().describe('The PAYG schedule its payslips were computed under (chosen by the pay date); null on runs drafted before schedules were recorded.'),
  superRule: z
    .string()
    .describe(
      'The super guarantee rule its pay date falls under: "Payday Super: due 7 business days after payday (20 for a new employee\'s first pay)" from 1 July 2026, "quarterly SG: due 28 days after the quarter" before; the due dates are in books.taxObligations.',
    ),
  paidCents: z.number().int().describe('Net wages paid so far (bank matching).'),
  unpaidCents: z.number().int().describe('net - paid while POSTED (owed on 804 Wages payable); 0 otherwise.'),
  payslips: z.array(Payslip),
  stp: StpEvent.nullable().describe('The run’s latest STP pay event (after signing).'),
  journalId: z.string().nullable(),
  recallJournalId: z.string().nullable(),
  approvalId: z.string().nullable().describe('The approval that backed the signature.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PayRun = z.infer<typeof PayRun>;

export const Leave = z.strictObject({
  id: z.string().describe('lv_…'),
  employee: z.strictObject({ id: z.string(), name: z.string() }),
  kind: z.enum(LEAVE_KINDS),
  startDate: z.string(),
  endDate: z.string(),
  hours: z.number(),
  status: z.enum(LEAVE_STATUSES),
  note: z.string().nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  createdAt: z.string(),
});

export const LeaveBalance = z.strictObject({
  kind: z.enum(['ANNUAL', 'PERSONAL']),
  accruedHours: z.number().describe('Accrued from the start date up to the leave’s start date.'),
  committedHours: z.number().describe('Leave of this kind already REQUESTED or SCHEDULED (before this request).'),
  availableHours: z.number().describe('accrued - committed.'),
});

const runId = ids.payRun('The pay run (pay_…).');
const employeeRef = ids.employee('The employee (emp_…).');
const onboardingId = ids.onboarding('The onboarding (onb_…).');

const TfnData = z
  .strictObject({
    tfn: z
      .string({ message: 'must be a 9-digit TFN' })
      .transform((v) => v.replace(/[\s-]/g, ''))
      .refine(tfnValid, 'must be a valid 9-digit TFN (the ATO check digit fails)')
      .describe('Tax File Number, 9 digits (spaces allowed). Stored, shown masked, never written to the ledger.'),
    claimsTaxFreeThreshold: z.boolean().describe('From the TFN declaration: true withholds on scale 2, false on scale 1.'),
  })
  .describe('tfn step: the TFN declaration.');

const SuperData = z
  .strictObject({
    fundName: name('The super fund’s name.'),
    usi: z.string().regex(/^[A-Za-z0-9]{3,20}$/, 'must be 3 to 20 letters or digits').describe('The fund’s Unique Superannuation Identifier.'),
    memberNumber: z.string().regex(/^[A-Za-z0-9-]{1,20}$/, 'must be 1 to 20 letters, digits or hyphens').describe('The employee’s member number in the fund.'),
  })
  .describe('super step: the employee’s choice of fund.');

const ContractData = z
  .strictObject({
    contractRef: text({ min: 1, max: 200, description: 'The signed contract’s reference (file or document id).' }),
    signedOn: date('The date the contract was signed: today or earlier.'),
  })
  .describe('contract step: the signed employment contract.');

const advanceBase = { id: onboardingId };

const onboardingResult = z.strictObject({ onboarding: Onboarding, employee: Employee, ...outcome });
const payRunResult = z.strictObject({ payRun: PayRun, journalId: journalRef, ...outcome });

export const payroll = {
  onboardingStart: method({
    summary:
      'Start onboarding a new employee: creates the employee (PENDING) and an onboarding (PENDING) with four steps to do: tfn, super, bank and contract (books.onboardingAdvance). The employee is paid by pay runs only once ACTIVE. Posts nothing.',
    params: z.strictObject({
      person: name('The employee’s full name.'),
      role: text({ min: 1, max: 200, description: 'Job title, e.g. Bookkeeper.' }),
      startDate: date('First day of employment: pay and leave accrue from it.'),
      rate: Rate,
      email: z.email({ message: 'must be an email address' }).max(200, 'must be at most 200 characters').describe('Where payslips go.').optional(),
    }),
    result: onboardingResult,
    example: { person: 'Jane Citizen', role: 'Bookkeeper', startDate: '2026-11-09', rate: { basis: 'ANNUAL', amountCents: 7800000, hoursPerWeek: 38 } },
  }),
  onboardingAdvance: method({
    summary:
      'Do one onboarding step; data depends on step: tfn {tfn, claimsTaxFreeThreshold}, super {fundName, usi, memberNumber}, bank {bsb, accountNumber, accountName}, contract {contractRef, signedOn}. A step already done changes nothing. The contract step is a signature act: without proof it answers a hold frame (file approval.request, retry with approvalId and a fresh idempotency key). When all four steps are done the onboarding is COMPLETED and the employee ACTIVE. The TFN and account number are never shown in full nor written to the ledger.',
    params: z.discriminatedUnion(
      'step',
      [
        z.strictObject({ ...advanceBase, step: z.literal('tfn').describe('Which step.'), data: TfnData }),
        z.strictObject({ ...advanceBase, step: z.literal('super').describe('Which step.'), data: SuperData }),
        z.strictObject({ ...advanceBase, step: z.literal('bank').describe('Which step.'), data: BankDetails.describe('bank step: where net pay goes.') }),
        z.strictObject({ ...advanceBase, step: z.literal('contract').describe('Which step (a signature act).'), data: ContractData, ...proofFields }),
      ],
      { error: 'must be one of "tfn", "super", "bank", "contract"' },
    ),
    result: z.strictObject({ onboarding: Onboarding, employee: Employee, approvalId: z.string().nullable().describe('The approval that backed the contract step.'), ...outcome }),
    example: { id: 'onb_0123456789abcdef', step: 'tfn', data: { tfn: '123456782', claimsTaxFreeThreshold: true } },
  }),
  payrollDraft: method({
    summary:
      'Draft a pay run for a period (at most 31 days) with a payslip per ACTIVE employee started by its end: gross = ANNUAL amount * days / 365 or HOURLY amount * hoursPerWeek * days / 7 over the days employed, less scheduled UNPAID leave at the hourly equivalent; PAYG withheld per the ATO Schedule 1 (scale 2 with the tax-free threshold, else scale 1); super 12% of gross on top; net = gross - PAYG. Refused when another DRAFT or POSTED run overlaps the period; the same draft again (same three dates) changes nothing. DRAFT: nothing posts until books.payrollSign.',
    params: z.strictObject({
      periodStart: date('First day of the pay period.'),
      periodEnd: date('Last day of the pay period: on or after periodStart, at most 31 days in all.'),
      payDate: date('When the wages are paid: on or after periodEnd. The journal is dated this day.'),
    }),
    result: payRunResult,
    example: { periodStart: '2026-11-01', periodEnd: '2026-11-14', payDate: '2026-11-15' },
  }),
  payrollSign: method({
    summary:
      'Sign a drafted pay run (find them with books.reports report payRuns): DRAFT -> POSTED. Signature act: without proof it answers a hold frame (file approval.request, retry with approvalId and a fresh idempotency key). Posts, dated the pay date, Dr 477 gross + Dr 478 super / Cr 825 PAYG + Cr 826 super + Cr 804 net wages, and queues the STP pay event. Signing a POSTED run changes nothing; a recalled or deleted run is refused.',
    params: z.strictObject({ runId, ...proofFields }),
    result: z.strictObject({ payRun: PayRun, journalId: journalRef, approvalId: z.string().nullable(), ...outcome }),
    example: { runId: 'pay_0123456789abcdef' },
  }),
  payrollRecall: method({
    summary:
      'Recall a pay run: a DRAFT is DELETED; a POSTED run is RECALLED (its journal reversed, its STP event CANCELLED) only before its pay date, with no wages paid and its STP event not ACCEPTED by the ATO; otherwise refused with the reason. Recalling again changes nothing.',
    params: z.strictObject({ runId }),
    result: payRunResult,
    example: { runId: 'pay_0123456789abcdef' },
  }),
  leaveRequest: method({
    summary:
      'Request leave for an ACTIVE employee -> REQUESTED. ANNUAL accrues hoursPerWeek * 4 and PERSONAL hoursPerWeek * 2 hours a year of service (pro rata by days from the start date to the leave’s start); the request must fit the balance less leave of that kind already REQUESTED or SCHEDULED, else CONFLICT stating the balance. UNPAID has no balance: once scheduled it is deducted from gross in pay runs.',
    params: z.strictObject({
      employeeId: employeeRef,
      kind: z.enum(LEAVE_KINDS).describe('ANNUAL (holidays), PERSONAL (sick or carer’s) or UNPAID.'),
      startDate: date('First day of leave: on or after the employee’s start date.'),
      endDate: date('Last day of leave: on or after startDate.'),
      hours: z
        .number({ message: 'must be a number of hours' })
        .positive('must be more than 0')
        .max(2000, 'must be at most 2000')
        .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, 'must have at most 2 decimals')
        .describe('Hours of leave in the range (e.g. 7.6 a day on a 38-hour week); at most hoursPerWeek per started week of the range.'),
    }),
    result: z.strictObject({ leave: Leave, balance: LeaveBalance.nullable().describe('The balance before this request (null for UNPAID).'), ...outcome }),
    example: { employeeId: 'emp_0123456789abcdef', kind: 'ANNUAL', startDate: '2026-12-21', endDate: '2026-12-24', hours: 30.4 },
  }),
  leaveApprove: method({
    summary:
      'Decide a leave request: approve -> SCHEDULED, reject -> REJECTED. The same decision again changes nothing; the other decision after deciding is refused.',
    params: z.strictObject({
      id: ids.leave('The leave request (lv_…).'),
      decision: z.enum(['approve', 'reject']).describe('approve or reject.'),
      note: text({ min: 1, max: 500, description: 'Why, as the employee will read it.' }).optional(),
    }),
    result: z.strictObject({ leave: Leave, ...outcome }),
    example: { id: 'lv_0123456789abcdef', decision: 'approve' },
  }),
  stpResubmit: method({
    summary:
      'Resend an STP event: a FAILED event is queued again (attempt + 1, error cleared); for an ACCEPTED event a new UPDATE event is queued with year-to-date figures per employee for its financial year (1 July to 30 June). QUEUED or SUBMITTED events are still in flight and CANCELLED ones are refused. Every call is a new act.',
    params: z.strictObject({ eventId: ids.stpEvent('The STP event (stp_…).') }),
    result: z.strictObject({ stpEvent: StpEvent.describe('The requeued event, or the new UPDATE event.'), ...outcome }),
    example: { eventId: 'stp_0123456789abcdef' },
  }),
};
