import type { Queryable } from '../../../db/types.js';
import { daysInclusive, maxDate, minDate } from '../dates.js';
import { divRound, percentOf } from '../money.js';
import { activeEmployees, type EmployeeRow } from './model.js';
import type { PaygScheduleData } from '../rates/payg-schedule.js';
import { withholdingCents, type PayFrequency } from './payg.js';

/**
 * What each employee earns in a pay period: gross over the days employed, less scheduled unpaid leave at the
 * hourly equivalent, PAYG withheld on that gross, super on top, net = gross - PAYG.
 */

export interface PayslipCalc {
  employee: EmployeeRow;
  daysEmployed: number;
  /** Hundredths of an hour, so leave such as 7.6 hours stays exact. */
  unpaidLeaveHundredths: number;
  unpaidLeaveCents: number;
  grossCents: number;
  paygCents: number;
  superCents: number;
  netCents: number;
}

interface UnpaidLeave {
  employee_id: string;
  start_date: string;
  end_date: string;
  hundredths: number;
}

/** Gross for `days` days: ANNUAL amount * days / 365, HOURLY amount * hoursPerWeek * days / 7. */
export const grossForDays = (e: Pick<EmployeeRow, 'pay_basis' | 'rate_cents' | 'hours_per_week'>, days: number): number =>
  e.pay_basis === 'ANNUAL' ? divRound(e.rate_cents * days, 365) : divRound(e.rate_cents * e.hours_per_week * days, 7);

/** Pay for `hundredths` hundredths of an hour; a salary's hourly equivalent is its week (amount * 7 / 365) / hoursPerWeek. */
export const payForHours = (e: Pick<EmployeeRow, 'pay_basis' | 'rate_cents' | 'hours_per_week'>, hundredths: number): number =>
  e.pay_basis === 'ANNUAL' ? divRound(e.rate_cents * 7 * hundredths, 365 * e.hours_per_week * 100) : divRound(e.rate_cents * hundredths, 100);

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
  superBasisPoints: number,
  payg: { schedule: PaygScheduleData; frequency: PayFrequency },
): Promise<PayslipCalc[]> {
  const employees = await activeEmployees(q, orgId, period.end);
  const leave = await q.query<UnpaidLeave>(
    `SELECT employee_id, start_date, end_date, round(hours * 100)::bigint AS hundredths FROM books_leave
      WHERE org_id = $1 AND kind = 'UNPAID' AND status = 'SCHEDULED' AND start_date <= $3::date AND end_date >= $2::date`,
    [orgId, period.start, period.end],
  );
  return employees.map((employee) => {
    const from = maxDate(period.start, employee.start_date);
    const daysEmployed = daysInclusive(from, period.end);
    const full = grossForDays(employee, daysEmployed);
    const unpaidLeaveHundredths = leave
      .filter((l) => l.employee_id === employee.employee_id)
      .reduce((sum, l) => sum + leaveHundredthsIn(l, from, period.end), 0);
    const unpaidLeaveCents = Math.min(full, payForHours(employee, unpaidLeaveHundredths));
    const grossCents = full - unpaidLeaveCents;
    const paygCents = withholdingCents(payg.schedule, grossCents, payg.frequency, employee.claims_tax_free_threshold === true);
    return {
      employee,
      daysEmployed,
      unpaidLeaveHundredths,
      unpaidLeaveCents,
      grossCents,
      paygCents,
      superCents: percentOf(grossCents, superBasisPoints),
      netCents: grossCents - paygCents,
    };
  });
}
