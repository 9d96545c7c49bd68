import { ApiError, badRequest } from '../../../protocol/errors.js';
import type { HandlerCtx } from '../../core/handler.js';
import { today } from '../dates.js';
import { finish } from '../outcome.js';
import { loadEmployee, type EmployeeRow } from './model.js';

/*
 * What Payday Super's 20-business-day allowance (the "extended usual period", SGAA s 6(1) as amended by Act No. 57
 * of 2025) needs from onboarding: a change of fund after the super step (the first pay to a new fund), and a
 * re-employment (a returning person's first pay). The model has no exit act, so a re-employment is a new employee
 * record that ends the former one.
 */

export interface SuperDetails {
  fundName: string;
  usi: string;
  memberNumber: string;
}

/** Names as typed, spaces collapsed: how onboarding stores them. */
export const tidy = (s: string): string => s.trim().replace(/\s+/g, ' ');

/** Store the fund on the employee (the super step, first or again); returns the fund name as stored. */
export async function saveFund(ctx: HandlerCtx, employeeId: string, d: SuperDetails): Promise<string> {
  const fundName = tidy(d.fundName);
  await ctx.q.query(
    `UPDATE books_employees SET super_fund_name = $3, super_usi = $4, super_member_number = $5, updated_at = now() WHERE org_id = $1 AND employee_id = $2`,
    [ctx.orgId, employeeId, fundName, d.usi, d.memberNumber],
  );
  return fundName;
}

/** Whether super details differ from the employee's recorded ones (a replay of the same details is not a change). */
export const superChanged = (emp: EmployeeRow, d: SuperDetails): boolean =>
  emp.super_usi !== d.usi || emp.super_member_number !== d.memberNumber || emp.super_fund_name !== tidy(d.fundName);

/**
 * The super step again, with other details: the employee's fund changes today (business time). Another USI is a
 * new fund: the first pay run paid on or after today gives that employee's super 20 business days (tax/super.ts
 * reads books_super_fund_changes). Same USI: the member details are corrected, no allowance.
 */
export async function changeFund<V extends object>(
  ctx: HandlerCtx,
  onboardingId: string,
  emp: EmployeeRow,
  d: SuperDetails,
  views: () => Promise<V>,
): Promise<unknown> {
  if (emp.status === 'ENDED')
    throw new ApiError(
      'CONFLICT',
      `employee ${emp.employee_id} (${emp.name}) has ENDED (re-employed under a new record); change the fund on the current record`,
    );
  const changedOn = today(ctx.deps);
  const newFund = emp.super_usi !== d.usi;
  const fundName = await saveFund(ctx, emp.employee_id, d);
  await ctx.q.query(
    `INSERT INTO books_super_fund_changes (org_id, employee_id, fund_name, usi, member_number, previous_usi, new_fund, changed_on, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [ctx.orgId, emp.employee_id, fundName, d.usi, d.memberNumber, emp.super_usi ?? '', newFund, changedOn, ctx.principal.id],
  );
  return finish(
    ctx,
    {
      kind: 'books.onboarding.advance',
      entityId: onboardingId,
      payload: {
        onboardingId,
        employeeId: emp.employee_id,
        step: 'super',
        fundChange: true,
        newFund,
        fundName,
        usi: d.usi,
        previousUsi: emp.super_usi,
        changedOn,
      },
    },
    { ...(await views()), approvalId: null, changed: true },
    newFund
      ? `Changed ${emp.name}'s super fund to ${fundName} (USI ${d.usi}) from ${changedOn}: the first pay run paid on or after ${changedOn} is a first contribution to a new fund, so its super for ${emp.name} is due 20 business days after that payday (books.taxObligations)`
      : `Updated ${emp.name}'s member details in ${fundName} (same USI ${d.usi}) from ${changedOn}; the fund is the same, so super due dates do not change`,
  );
}

/**
 * A re-employment (books.onboardingStart rehireOf): the former record must have been employed (ACTIVE or already
 * ENDED) and started before the new start date; it ENDS now, so pay runs stop paying it. Returns its name.
 */
export async function endFormer(ctx: HandlerCtx, formerId: string, startDate: string): Promise<EmployeeRow> {
  const former = await loadEmployee(ctx.q, ctx.orgId, formerId, true);
  if (former.status === 'PENDING') {
    throw new ApiError(
      'CONFLICT',
      `employee ${formerId} (${former.name}) never completed onboarding, so this is not a re-employment: continue that onboarding (books.onboardingAdvance) instead`,
    );
  }
  if (startDate <= former.start_date)
    throw badRequest('startDate', `${startDate} is not after ${former.name}'s former start date ${former.start_date}; a re-employment starts later`);
  if (former.status === 'ACTIVE') {
    await ctx.q.query(`UPDATE books_employees SET status = 'ENDED', updated_at = now() WHERE org_id = $1 AND employee_id = $2`, [ctx.orgId, formerId]);
  }
  return former;
}

/**
 * SQL: the fund name when payslip `slip` (an alias of books_payslips) is its employee's first pay since a change to
 * a new fund on or before `payDate` (an SQL date expression): no other posted run paid them from the change up to
 * that day. Null otherwise. The super obligations and the pay run view both ask it here.
 */
export const newFundSql = (slip: string, payDate: string): string =>
  `(SELECT nf_c.fund_name FROM books_super_fund_changes nf_c
     WHERE nf_c.org_id = ${slip}.org_id AND nf_c.employee_id = ${slip}.employee_id AND nf_c.new_fund AND nf_c.changed_on <= ${payDate}
       AND NOT EXISTS (SELECT 1 FROM books_payslips nf_s JOIN books_pay_runs nf_r ON nf_r.org_id = nf_s.org_id AND nf_r.run_id = nf_s.run_id
                        WHERE nf_s.org_id = ${slip}.org_id AND nf_s.employee_id = ${slip}.employee_id AND nf_r.status = 'POSTED'
                          AND nf_r.run_id <> ${slip}.run_id AND nf_r.pay_date >= nf_c.changed_on AND nf_r.pay_date < ${payDate})
     ORDER BY nf_c.changed_on DESC, nf_c.n DESC LIMIT 1)`;
