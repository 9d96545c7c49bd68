import { ApiError, badRequest } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import type { PayRunRow } from './run-model.js';

/*
 * Out-of-cycle pay runs (books.payrollDraft outOfCycle): a payment outside the regular cycle, e.g. an employee the
 * regular run missed. It pays only the employees named, may overlap regular runs but not a run that already pays
 * one of them for an overlapping period, and Payday Super makes its super due 7 business days after the next
 * regular payday (tax/super.ts).
 */

/** The employees an out-of-cycle draft pays, or null for a regular draft; refuses params that do not fit. */
export function outOfCycleIds(p: { outOfCycle?: boolean; employeeIds?: string[] }): string[] | null {
  if (!p.outOfCycle) {
    if (p.employeeIds)
      throw badRequest('employeeIds', 'only an out-of-cycle run names its employees (send outOfCycle: true); a regular run pays every ACTIVE employee');
    return null;
  }
  if (!p.employeeIds) throw badRequest('employeeIds', 'an out-of-cycle run pays only the employees it names: list them (emp_…)');
  return [...new Set(p.employeeIds)];
}

/** DRAFT or POSTED runs overlapping the period: all of them for a regular draft, those paying a named employee for an out-of-cycle one. */
export async function overlappingRuns(q: Queryable, orgId: string, start: string, end: string, ids: string[] | null): Promise<PayRunRow[]> {
  return q.query<PayRunRow>(
    `SELECT run_id, period_start, period_end, pay_date, status, out_of_cycle FROM books_pay_runs r
      WHERE org_id = $1 AND status IN ('DRAFT', 'POSTED') AND period_start <= $3::date AND period_end >= $2::date
        AND ($4::text[] IS NULL OR EXISTS (SELECT 1 FROM books_payslips s WHERE s.org_id = r.org_id AND s.run_id = r.run_id AND s.employee_id = ANY($4::text[])))
      ORDER BY n`,
    [orgId, start, end, ids],
  );
}

/** The payslips of the named employees; every one must be ACTIVE and employed in the period. */
export function onlyNamed<T extends { employee: { employee_id: string } }>(slips: T[], ids: string[] | null, period: string): T[] {
  if (!ids) return slips;
  const missing = ids.filter((id) => !slips.some((s) => s.employee.employee_id === id));
  if (missing.length) {
    throw new ApiError(
      'CONFLICT',
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not an ACTIVE employee employed in ${period}: an out-of-cycle run pays only ACTIVE staff started by the period's end`,
    );
  }
  return slips.filter((s) => ids.includes(s.employee.employee_id));
}
