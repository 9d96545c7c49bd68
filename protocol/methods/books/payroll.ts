import { z } from 'zod';
import { method } from '../../contract.js';
import { proofFields, text } from '../../schema.js';
import { BankDetails, amountCents, date, ids, journalRef, name, outcome } from './common.js';

/*
 * Payroll and people: onboarding (tfn, super, bank, contract), pay runs (draft, sign, recall) with PAYG
 * withholding from the ATO's Schedule 1 and super at 12%, leave, and Single Touch Payroll events.
 * A TFN and bank account numbers are stored but never shown in full and never written to the ledger.
 */

export const EMPLOYEE_STATUSES = ['PENDING', 'ACTIVE', 'ENDED'] as const;
export const ONBOARDING_STATUSES = ['PENDING', 'COMPLETED'] as const;
export const ONBOARDING_STEPS = ['tfn', 'super', 'bank', 'contract'] as const;
export const PAY_BASES = ['ANNUAL', 'HOURLY'] as const;
export const PAY_RUN_STATUSES = ['DRAFT', 'POSTED', 'RECALLED', 'DELETED'] as const;
export const STP_KINDS = ['PAY', 'UPDATE'] as const;
export const STP_STATUSES = ['QUEUED', 'SUBMITTED', 'ACCEPTED', 'FAILED', 'CANCELLED'] as const;
export const LEAVE_KINDS = ['ANNUAL', 'PERSONAL', 'UNPAID'] as const;
export const LEAVE_STATUSES = ['REQUESTED', 'SCHEDULED', 'REJECTED'] as const;
/** ATO Schedule 1 (NAT 1004) scales: 1 no tax-free threshold, 2 threshold, 3 foreign resident, 4 no TFN, 5 and 6 full and half Medicare levy exemption. */
export const PAYG_SCALES = ['1', '2', '3', '4', '5', '6'] as const;
export const RESIDENCIES = ['RESIDENT', 'FOREIGN'] as const;
export const MEDICARE_LEVY_VARIATIONS = ['NONE', 'HALF', 'FULL'] as const;

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
  .describe(
    'How the employee is paid. A full period pays a year (ANNUAL amount, or HOURLY amount * hoursPerWeek * 52) / 52 a week, / 26 a fortnight, / 12 a calendar month; a period started part-way its share by calendar days.',
  );

export const Employee = z.strictObject({
  id: z.string().describe('emp_…'),
  name: z.string(),
  email: z.string().nullable(),
  role: z.string(),
  startDate: z.string(),
  status: z
    .enum(EMPLOYEE_STATUSES)
    .describe(
      'PENDING until every onboarding step is done, then ACTIVE (paid by pay runs); ENDED once re-employed under a new record (books.onboardingStart rehireOf): no longer paid.',
    ),
  rehireOf: z
    .string()
    .nullable()
    .optional()
    .describe('A re-employment: the former employee record (emp_…) this one follows; its first pay has 20 business days for super.'),
  rate: z.strictObject({ basis: z.enum(PAY_BASES), amountCents: z.number().int(), hoursPerWeek: z.number().int() }),
  tfn: z.string().nullable().describe('Masked: only the last 3 digits show (••••••782); null until the tfn step.'),
  claimsTaxFreeThreshold: z
    .boolean()
    .nullable()
    .describe('Whether the tax-free threshold is claimed (TFN declaration); null until the tfn step. The scale it leads to is declaration.paygScale.'),
  declaration: z
    .strictObject({
      tfnProvided: z.boolean().describe('false: no TFN declared, withheld on scale 4 (47% resident, 45% foreign resident).'),
      residency: z.enum(RESIDENCIES).describe('RESIDENT or FOREIGN resident for tax purposes.'),
      claimsTaxFreeThreshold: z.boolean(),
      medicareLevyVariation: z
        .enum(MEDICARE_LEVY_VARIATIONS)
        .describe('NONE, HALF or FULL exemption from the Medicare levy (Medicare levy variation declaration).'),
      paygScale: z
        .enum(PAYG_SCALES)
        .describe('The Schedule 1 scale pay runs withhold on: no TFN 4; foreign resident 3; no threshold 1; FULL 5; HALF 6; else 2.'),
      paygScaleReason: z.string().describe('The scale and why, e.g. "scale 4: no TFN declared, resident".'),
    })
    .nullable()
    .describe('The PAYG declaration made at the tfn step (null before it).'),
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
  steps: z
    .array(z.strictObject({ step: z.enum(ONBOARDING_STEPS), done: z.boolean(), doneAt: z.string().nullable() }))
    .describe('tfn, super, bank, contract, in that order.'),
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
  taxScale: z
    .enum(['TAX_FREE_THRESHOLD', 'NO_TAX_FREE_THRESHOLD'])
    .describe('Whether the employee claimed the tax-free threshold when it was drafted; the scale used is paygScale.'),
  paygScale: z
    .enum(PAYG_SCALES)
    .nullable()
    .describe('The Schedule 1 scale PAYG was withheld on (null on payslips drafted before scales were recorded: 2 or 1 by taxScale).'),
  paygScaleReason: z.string().nullable().describe('Why that scale, e.g. "scale 4: no TFN declared, resident 47%", "scale 2: tax-free threshold claimed".'),
  unpaidLeaveHours: z.number().describe('Scheduled unpaid leave in the period, in hours.'),
  unpaidLeaveCents: z.number().int().describe('Deducted from gross at the hourly equivalent.'),
  grossCents: z.number().int(),
  paygCents: z.number().int().describe('PAYG withheld (whole dollars, in cents) under paygSchedule on paygScale.'),
  superCents: z
    .number()
    .int()
    .describe(
      'Super guarantee on top of gross, at the rate in force on the pay date (11.5% in 2024-25, 12% from 1 July 2025), on earnings up to the maximum contribution base (see superBase).',
    ),
  netCents: z.number().int().describe('gross - PAYG: what the employee is paid.'),
  paygSchedule: z
    .string()
    .nullable()
    .describe(
      'The PAYG schedule it was computed under, e.g. "ATO Schedule 1 2024-25 (from 2024-07-01)"; null on payslips drafted before schedules were recorded.',
    ),
  superRule: z
    .string()
    .describe(
      'When its super is due: "Payday Super: due 7 business days after payday", "Payday Super, first contribution: due 20 business days after payday" (the employee\'s first pay in the org, re-employed included, or the first pay since a change to a new fund), "Payday Super, out of cycle: due 7 business days after the next regular payday", or "quarterly SG: due 28 days after the quarter" before 1 July 2026.',
    ),
  earnings: z
    .strictObject({
      rule: z
        .enum(['FULL_PERIOD', 'PART_PERIOD'])
        .describe(
          "FULL_PERIOD: the contract's pay for the period (a salary's twelfth for a calendar month, 26th for a fortnight, 52nd for a week); PART_PERIOD: less, for the reasons listed.",
        ),
      reasons: z
        .array(z.enum(['STARTED_IN_PERIOD', 'UNPAID_LEAVE']))
        .describe(
          'STARTED_IN_PERIOD: paid by calendar days employed / days in the period; UNPAID_LEAVE: hours deducted at the hourly rate (a salary: a year / 52 / hours a week).',
        ),
      periodPayCents: z.number().int().describe('What the whole period pays under the contract.'),
      explanation: z.string().describe('The gross worked out in words.'),
    })
    .nullable()
    .describe('How the gross follows the contract; null on payslips drafted before this was recorded.'),
  superBase: z
    .strictObject({
      rateBasisPoints: z.number().int().describe('The super guarantee rate of the pay date (1200 = 12%).'),
      earningsCents: z.number().int().describe('The earnings super was computed on: the gross, or the part of it under the maximum contribution base.'),
      earlierEarningsCents: z
        .number()
        .int()
        .describe("Earnings already paid to the employee in the base period by this org's posted runs when the run was drafted."),
      baseCents: z.number().int().describe('The maximum contribution base applied.'),
      per: z.enum(['QUARTER', 'FINANCIAL_YEAR']).describe('QUARTER for pay dates to 30 June 2026; FINANCIAL_YEAR from 1 July 2026 (Payday Super).'),
      periodStart: z.string(),
      periodEnd: z.string(),
      explanation: z.string().describe('What super was computed on, in words.'),
      law: z.string().describe('The provision the base comes from (GET /policy books.rules has every dated rule with its source).'),
    })
    .nullable()
    .describe('What the super was computed on under the maximum contribution base; null on payslips drafted before this was recorded.'),
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
  paygSchedule: z
    .string()
    .nullable()
    .describe('The PAYG schedule its payslips were computed under (chosen by the pay date); null on runs drafted before schedules were recorded.'),
  outOfCycle: z
    .boolean()
    .optional()
    .describe('true: paid outside the regular cycle (books.payrollDraft outOfCycle); its super is due 7 business days after the next regular payday.'),
  paygScales: z.array(z.enum(PAYG_SCALES)).describe('The Schedule 1 scales its payslips were withheld on, ascending (empty when none was recorded).'),
  superRule: z
    .string()
    .describe(
      'The super guarantee rule its pay date falls under: "Payday Super: due 7 business days after payday (20 for a first contribution: …; out-of-cycle runs 7 after the next regular payday)" from 1 July 2026, "quarterly SG: due 28 days after the quarter" before; the due dates are in books.taxObligations.',
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
      .string({ message: 'must be a 9-digit TFN, or null when the employee declared none' })
      .transform((v) => v.replace(/[\s-]/g, ''))
      .refine(tfnValid, 'must be a valid 9-digit TFN (the ATO check digit fails)')
      .nullable()
      .describe(
        'Tax File Number, 9 digits (spaces allowed), or null: no TFN declared, withheld on scale 4 (47% resident, 45% foreign resident). Stored, shown masked, never written to the ledger.',
      ),
    claimsTaxFreeThreshold: z
      .boolean({ message: 'required with a TFN: true or false, as the TFN declaration says' })
      .optional()
      .describe('From the TFN declaration, required with a TFN: true withholds on scale 2 (or 5, 6), false on scale 1. Ignored for scale 4.'),
    residency: z
      .enum(RESIDENCIES)
      .default('RESIDENT')
      .describe('Residency for tax purposes: RESIDENT (default) or FOREIGN (scale 3; a foreign resident cannot claim the threshold).'),
    medicareLevyVariation: z
      .enum(MEDICARE_LEVY_VARIATIONS)
      .default('NONE')
      .describe('From a Medicare levy variation declaration: NONE (default), HALF (scale 6) or FULL (scale 5) exemption; applies with the threshold claimed.'),
  })
  .superRefine((d, issue) => {
    if (d.tfn !== null && d.claimsTaxFreeThreshold === undefined)
      issue.addIssue({ code: 'custom', path: ['claimsTaxFreeThreshold'], message: 'required with a TFN: true or false, as the TFN declaration says' });
    if (d.residency === 'FOREIGN' && d.claimsTaxFreeThreshold === true) {
      issue.addIssue({
        code: 'custom',
        path: ['claimsTaxFreeThreshold'],
        message: 'a foreign resident cannot claim the tax-free threshold; send false (scale 3 applies)',
      });
    }
    if (d.residency === 'FOREIGN' && d.medicareLevyVariation !== 'NONE') {
      issue.addIssue({
        code: 'custom',
        path: ['medicareLevyVariation'],
        message: 'the Medicare levy does not apply to a foreign resident; send NONE (scale 3 applies)',
      });
    }
  })
  .describe('tfn step: the TFN declaration (and any Medicare levy variation declaration).');

const SuperData = z
  .strictObject({
    fundName: name('The super fund’s name.'),
    usi: z
      .string()
      .regex(/^[A-Za-z0-9]{3,20}$/, 'must be 3 to 20 letters or digits')
      .describe('The fund’s Unique Superannuation Identifier.'),
    memberNumber: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,20}$/, 'must be 1 to 20 letters, digits or hyphens')
      .describe('The employee’s member number in the fund.'),
  })
  .describe(
    'super step: the employee’s choice of fund. Sent again once the step is done, it changes the fund (same details: nothing changes): recorded with today’s date, and when the USI differs (a new fund) the first pay run paid on or after today has 20 business days for that employee’s super (Payday Super: a first contribution to a new fund).',
  );

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
      rehireOf: ids
        .employee(
          'A re-employment after a break: the former employee record (emp_…), which ENDS (no longer paid by pay runs) as this one starts; the new record’s first pay is a first contribution (20 business days for super).',
        )
        .optional(),
    }),
    result: onboardingResult,
    events: ['books.onboarding.start'],
    example: { person: 'Jane Citizen', role: 'Bookkeeper', startDate: '2026-11-09', rate: { basis: 'ANNUAL', amountCents: 7800000, hoursPerWeek: 38 } },
  }),
  onboardingAdvance: method({
    hold: { completion: 'retry', when: 'the step is contract' },
    summary:
      'Do one onboarding step; data depends on step: tfn {tfn (null: none declared, scale 4), claimsTaxFreeThreshold, residency?, medicareLevyVariation?}, super {fundName, usi, memberNumber}, bank {bsb, accountNumber, accountName}, contract {contractRef, signedOn}. A step already done changes nothing, except tfn and super with other data: tfn records a new declaration (a TFN given later ends scale 4) for pay runs drafted from now; super changes the employee’s fund (another USI is a new fund: the first pay run paid from today gives its super 20 business days). The contract step is a signature act: without proof it answers a hold frame (once a human approves, retry with approvalId). When all four steps are done the onboarding is COMPLETED and the employee ACTIVE. The TFN and account number are never shown in full nor written to the ledger.',
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
    result: z.strictObject({
      onboarding: Onboarding,
      employee: Employee,
      approvalId: z.string().nullable().describe('The approval that backed the contract step.'),
      ...outcome,
    }),
    events: ['books.onboarding.advance'],
    example: { id: 'onb_0123456789abcdef', step: 'tfn', data: { tfn: '123456782', claimsTaxFreeThreshold: true } },
  }),
  payrollDraft: method({
    summary:
      'Draft a pay run for a period (a week, a fortnight or a calendar month) with a payslip per ACTIVE employee started by its end; nothing posts until books.payrollSign. ' +
      'Gross is the contract’s pay for the period (a year, the ANNUAL amount or HOURLY amount * hoursPerWeek * 52, / 52 a week, / 26 a fortnight, / 12 a calendar month; by calendar days employed / days in the period when started part-way), less scheduled UNPAID leave at the hourly equivalent (a year / 52 / hoursPerWeek). ' +
      'PAYG is withheld under the ATO Schedule 1 in force on the pay date, on the scale of each employee’s declaration (no TFN 4, foreign resident 3, no tax-free threshold 1, Medicare levy exemption FULL 5 or HALF 6, else 2). ' +
      'Super is on top at the rate of the pay date (12% from 1 July 2025) on gross up to the maximum contribution base (per quarter to 30 June 2026, per financial year from 1 July 2026, counting the employee’s earnings in posted runs of that period); each payslip says what its gross, PAYG and super were worked out on (earnings, paygScale, superBase). net = gross - PAYG. ' +
      'Refused when another DRAFT or POSTED run overlaps the period (an outOfCycle run names its employees and may overlap runs that do not pay them); the same draft again (same three dates) changes nothing.',
    params: z.strictObject({
      periodStart: date('First day of the pay period.'),
      periodEnd: date('Last day of the pay period: on or after periodStart, at most 31 days in all.'),
      payDate: date('When the wages are paid: on or after periodEnd. The journal is dated this day.'),
      outOfCycle: z
        .boolean()
        .describe(
          'true: a payment outside the regular pay cycle (e.g. an employee missed by the regular run). It pays only employeeIds, may overlap regular runs (not an employee already on one for an overlapping period), and its super is due 7 business days after the next regular payday (Payday Super). Default false.',
        )
        .optional(),
      employeeIds: z
        .array(employeeRef)
        .min(1, 'must name at least one employee')
        .max(500, 'must have at most 500 employees')
        .describe('Out-of-cycle runs only (required there): the ACTIVE employees it pays.')
        .optional(),
    }),
    result: payRunResult,
    events: ['books.payroll.draft'],
    example: { periodStart: '2026-11-01', periodEnd: '2026-11-14', payDate: '2026-11-15' },
  }),
  payrollSign: method({
    hold: { completion: 'retry' },
    summary:
      'Sign a drafted pay run (find them with books.reports report payRuns): DRAFT -> POSTED. Signature act: without proof it answers a hold frame (once a human approves, retry with approvalId). Posts, dated the pay date, Dr 477 gross + Dr 478 super / Cr 825 PAYG + Cr 826 super + Cr 804 net wages, and queues the STP pay event. Signing a POSTED run changes nothing; a recalled or deleted run is refused, and so is a draft whose super a run posted or recalled since would change under the maximum contribution base (recall it and draft again).',
    params: z.strictObject({ runId, ...proofFields }),
    result: z.strictObject({ payRun: PayRun, journalId: journalRef, approvalId: z.string().nullable(), ...outcome }),
    events: ['books.payroll.sign'],
    example: { runId: 'pay_0123456789abcdef' },
  }),
  payrollRecall: method({
    summary:
      'Recall a pay run: a DRAFT is DELETED; a POSTED run is RECALLED (its journal reversed, its STP event CANCELLED) only before its pay date, with no wages paid and its STP event not ACCEPTED by the ATO; otherwise refused with the reason. Recalling again changes nothing.',
    params: z.strictObject({ runId }),
    result: payRunResult,
    events: ['books.payroll.recall'],
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
    events: ['books.leave.request'],
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
    events: ['books.leave.approve'],
    example: { id: 'lv_0123456789abcdef', decision: 'approve' },
  }),
  stpResubmit: method({
    summary:
      'Resend an STP event: a FAILED event is queued again (attempt + 1, error cleared); for an ACCEPTED event a new UPDATE event is queued with year-to-date figures per employee for its financial year (1 July to 30 June). QUEUED or SUBMITTED events are still in flight and CANCELLED ones are refused. Every call is a new act.',
    params: z.strictObject({ eventId: ids.stpEvent('The STP event (stp_…).') }),
    result: z.strictObject({ stpEvent: StpEvent.describe('The requeued event, or the new UPDATE event.'), ...outcome }),
    events: ['books.stp.resubmit'],
    example: { eventId: 'stp_0123456789abcdef' },
  }),
};
