import type { Queryable } from '../../../db/types.js';
import { daysInclusive, maxDate, minDate } from '../dates.js';
import { divRound } from '../money.js';
import { activeEmployees, employeePaygDeclaration, type EmployeeRow } from './model.js';
import { assertBaseKnown, earningsPaid, superOn, superTerms, type SuperTerms } from './super-base.js';
import type { PaygScheduleData } from '../rates/payg-schedule.js';
import { withholding, type PayFrequency, type Withholding } from './payg.js';

/**
 * What each employee earns in a pay period: the contract's pay for the period (a full month of a salary is a
 * twelfth, a fortnight a 26th, a week a 52nd), by calendar days for a period started part-way, less scheduled
 * unpaid leave at the hourly equivalent; PAYG withheld on that gross; super on top up to the maximum
 * contribution base (super-base.ts); net = gross - PAYG. docs/decisions/0050-salary-super-base-dated-rules.md.
 */

export interface PayslipCalc {
  employee: EmployeeRow;
  daysEmployed: number;
  /** What a full period pays under the contract (before any part-period or leave). */
  periodPayCents: number;
  /** Hundredths of an hour, so leave such as 7.6 hours stays exact. */
  unpaidLeaveHundredths: number;
  unpaidLeaveCents: number;
  grossCents: number;
  paygCents: number;
  /** The Schedule 1 scale the employee's declaration gives, and why. */
  paygScale: Withholding['scale'];
  paygScaleReason: string;
  superCents: number;
  /** Earnings already paid in the base period and the part of this gross super was computed on. */
  superEarlierCents: number;
  superEarningsCents: number;
  superTerms: SuperTerms;
  netCents: number;
}

interface UnpaidLeave {
  employee_id: string;
  start_date: string;
  end_date: string;
  hundredths: number;
}

type PayTerms = Pick<EmployeeRow, 'pay_basis' | 'rate_cents' | 'hours_per_week'>;

/** Pay periods in a year by frequency: a week is a 52nd of the year, a fortnight a 26th, a month a 12th. */
export const PERIODS_PER_YEAR: Record<PayFrequency, number> = { WEEKLY: 52, FORTNIGHTLY: 26, MONTHLY: 12 };

/** A year's pay: the salary, or the hourly rate for hoursPerWeek over 52 weeks. */
const annualCents = (e: PayTerms): number => (e.pay_basis === 'ANNUAL' ? e.rate_cents : e.rate_cents * e.hours_per_week * 52);

/** What a full period of `frequency` pays: the year's pay / 52, 26 or 12. */
export const periodPayCents = (e: PayTerms, frequency: PayFrequency): number => divRound(annualCents(e), PERIODS_PER_YEAR[frequency]);

/** Pay for `days` of a `periodDays`-day period: the full period's pay when all of it, else its share by calendar days. */
export const payForDays = (e: PayTerms, frequency: PayFrequency, days: number, periodDays: number): number =>
  days === periodDays ? periodPayCents(e, frequency) : divRound(annualCents(e) * days, PERIODS_PER_YEAR[frequency] * periodDays);

/** Pay for `hundredths` hundredths of an hour: the hourly rate, or for a salary its hourly equivalent (a year / 52 / hoursPerWeek). */
export const payForHours = (e: PayTerms, hundredths: number): number => divRound(annualCents(e) * hundredths, 52 * e.hours_per_week * 100);

/**
 * The hours of a leave that fall in [from, to]: a leave spanning the period's edge counts pro rata by days
 * (its hours spread evenly over its days).
 */
export function leaveHundredthsIn(l: Pick<UnpaidLeave, 'start_date' | 'end_date' | 'hundredths'>, from: string, to: string): number {
  const start = maxDate(l.start_date, from);
  const end = minDate(l.end_date, to);
  if (end < start) return 0;
  return divRound(l.hundredths * daysInclusive(start, end), daysInclusive(l.start_date, l.end_date));
}

export async function computePayslips(
  q: Queryable,
  orgId: string,
  period: { start: string; end: string },
  payDate: string,
  payg: { schedule: PaygScheduleData; frequency: PayFrequency },
): Promise<PayslipCalc[]> {
  const employees = await activeEmployees(q, orgId, period.end);
  const leave = await q.query<UnpaidLeave>(
    `SELECT employee_id, start_date, end_date, round(hours * 100)::bigint AS hundredths FROM books_leave
      WHERE org_id = $1 AND kind = 'UNPAID' AND status = 'SCHEDULED' AND start_date <= $3::date AND end_date >= $2::date`,
    [orgId, period.start, period.end],
  );
  // Earnings already paid in the base period (quarter or financial year of the pay date) by posted runs.
  const terms = superTerms(payDate);
  const earlier = await earningsPaid(q, orgId, terms.start, terms.end, null);
  const periodDays = daysInclusive(period.start, period.end);
  return employees.map((employee) => {
    const from = maxDate(period.start, employee.start_date);
    const daysEmployed = daysInclusive(from, period.end);
    const full = payForDays(employee, payg.frequency, daysEmployed, periodDays);
    const unpaidLeaveHundredths = leave
      .filter((l) => l.employee_id === employee.employee_id)
      .reduce((sum, l) => sum + leaveHundredthsIn(l, from, period.end), 0);
    const unpaidLeaveCents = Math.min(full, payForHours(employee, unpaidLeaveHundredths));
    const grossCents = full - unpaidLeaveCents;
    const payg_ = withholding(payg.schedule, grossCents, payg.frequency, employeePaygDeclaration(employee));
    const paygCents = payg_.cents;
    const sup = superOn(grossCents, earlier.get(employee.employee_id) ?? 0, terms);
    assertBaseKnown({ ...sup, grossCents }, terms, employee.name, payDate);
    return {
      employee,
      daysEmployed,
      periodPayCents: periodPayCents(employee, payg.frequency),
      unpaidLeaveHundredths,
      unpaidLeaveCents,
      grossCents,
      paygCents,
      paygScale: payg_.scale,
      paygScaleReason: payg_.reason,
      superCents: sup.superCents,
      superEarlierCents: sup.earlierCents,
      superEarningsCents: sup.earningsCents,
      superTerms: terms,
      netCents: grossCents - paygCents,
    };
  });
}
