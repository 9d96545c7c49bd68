import { ApiError } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import { formatCents, percentOf } from '../money.js';
import type { RuleRow } from '../rates/rule.js';
import { SUPER_RULES, maxContributionBase, superGuaranteeRate } from '../rates/super.js';
import { quarterOf } from '../tax/model.js';
import { financialYear, periodLabel } from './model.js';

/*
 * Super guarantee up to the maximum contribution base. An employer owes SG on an employee's qualifying earnings
 * only up to the base of the period the earnings are paid in: a quarter for pay dates to 30 June 2026, a financial
 * year from 1 July 2026 (Payday Super). Earnings here are the payslip's gross (salary or wages for ordinary hours:
 * the model has no allowances, overtime or bonuses). What counts as already paid in the period is the gross of
 * the org's POSTED runs with a pay date in it: a draft is not paid and a recalled run was never paid.
 */

export interface SuperTerms {
  rateBasisPoints: number;
  baseCents: number;
  per: 'QUARTER' | 'FINANCIAL_YEAR';
  /** The quarter or financial year holding the pay date. */
  start: string;
  end: string;
  /**
   * No base is recorded for the pay date's year yet: baseCents is the latest year's, a floor (Payday Super's base
   * is the concessional contributions cap * 100 / 12%, and the cap is only ever indexed up). Super on earnings
   * under it is certain; a payslip that would reach it is refused until the year's figure is added.
   */
  provisional: boolean;
}

/** The base row for `payDate`, or past the last recorded year the latest financial-year row as a floor. */
export function baseRule(payDate: string): { row: RuleRow<number>; provisional: boolean } {
  const latest = SUPER_RULES.filter((r) => r.rule === 'super.maxContributionBase' && r.status === 'LAW').at(-1);
  if (latest && latest.to !== null && payDate > latest.to && latest.per === 'FINANCIAL_YEAR') return { row: latest, provisional: true };
  return { row: maxContributionBase(payDate), provisional: false };
}

/** The rate and base in force for earnings paid on `payDate` (rates/super.ts), with the period the base counts over. */
export function superTerms(payDate: string): SuperTerms {
  const rateBasisPoints = superGuaranteeRate(payDate);
  const { row: base, provisional } = baseRule(payDate);
  const per = base.per === 'FINANCIAL_YEAR' ? 'FINANCIAL_YEAR' : 'QUARTER';
  const { start, end } = per === 'QUARTER' ? quarterOf(payDate) : financialYear(payDate);
  return { rateBasisPoints, baseCents: base.value, per, start, end, provisional };
}

/** Refuse a payslip that reaches a provisional base: the year's real base is needed to know its super. */
export function assertBaseKnown(c: SuperCalc & { grossCents: number }, t: SuperTerms, who: string, payDate: string): void {
  if (!t.provisional || c.earningsCents === c.grossCents) return;
  throw new ApiError(
    'CONFLICT',
    `payDate: ${who}'s earnings in ${basePeriodText(t)} would pass ${formatCents(t.baseCents)}, the latest maximum contribution base recorded (${financialYear(payDate).label} has none yet), so the super guarantee owed on them cannot be known: add the ${financialYear(payDate).label} base with its source to domain/books/rates/super.ts`,
  );
}

/** `the quarter 1 Apr – 30 Jun 2026` or `the financial year 1 Jul 2026 – 30 Jun 2027`. */
export const basePeriodText = (t: Pick<SuperTerms, 'per' | 'start' | 'end'>): string =>
  `the ${t.per === 'QUARTER' ? 'quarter' : 'financial year'} ${periodLabel(t.start, t.end)}`;

/** Gross each employee was paid in [start, end] by the org's POSTED runs, leaving out `exceptRunId`. */
export async function earningsPaid(q: Queryable, orgId: string, start: string, end: string, exceptRunId: string | null): Promise<Map<string, number>> {
  const rows = await q.query<{ employee_id: string; cents: number }>(
    `SELECT s.employee_id, sum(s.gross_cents)::bigint AS cents FROM books_payslips s
       JOIN books_pay_runs r ON r.org_id = s.org_id AND r.run_id = s.run_id
      WHERE s.org_id = $1 AND r.status = 'POSTED' AND r.pay_date BETWEEN $2::date AND $3::date AND ($4::text IS NULL OR r.run_id <> $4::text)
      GROUP BY s.employee_id`,
    [orgId, start, end, exceptRunId],
  );
  return new Map(rows.map((r) => [r.employee_id, Number(r.cents)]));
}

export interface SuperCalc {
  /** Earnings already paid in the base period before this payslip. */
  earlierCents: number;
  /** The part of this gross that is under the base: what super is computed on. */
  earningsCents: number;
  superCents: number;
}

export function superOn(grossCents: number, earlierCents: number, t: Pick<SuperTerms, 'baseCents' | 'rateBasisPoints'>): SuperCalc {
  const earningsCents = Math.min(grossCents, Math.max(0, t.baseCents - earlierCents));
  return { earlierCents, earningsCents, superCents: percentOf(earningsCents, t.rateBasisPoints) };
}

/** The payslip's words: what super was computed on, under which base. */
export function superBaseText(c: SuperCalc & { grossCents: number }, t: SuperTerms): string {
  const rate = `${t.rateBasisPoints / 100}%`;
  const base = `the maximum contribution base of ${formatCents(t.baseCents)} for ${basePeriodText(t)}`;
  if (c.earningsCents === c.grossCents)
    return `${rate} of ${formatCents(c.earningsCents)}: ${formatCents(c.earlierCents + c.grossCents)} paid in ${basePeriodText(t)} so far, within ${base}`;
  return `${rate} of ${formatCents(c.earningsCents)} of the ${formatCents(c.grossCents)} gross: ${formatCents(c.earlierCents)} was already paid in ${basePeriodText(t)}, and no super guarantee is owed above ${base}`;
}

/**
 * Before a draft is signed: its super still matches the base, given the runs posted or recalled since it was
 * drafted. Refused (CONFLICT) when any payslip's super would now differ, naming the employee and the way out.
 */
export async function assertSuperBaseCurrent(q: Queryable, orgId: string, run: { run_id: string; pay_date: string; label: string }): Promise<void> {
  const t = superTerms(run.pay_date);
  const slips = await q.query<{ employee_id: string; employee_name: string; gross_cents: number; super_cents: number; super_earlier_cents: number | null }>(
    'SELECT employee_id, employee_name, gross_cents, super_cents, super_earlier_cents FROM books_payslips WHERE org_id = $1 AND run_id = $2 ORDER BY n',
    [orgId, run.run_id],
  );
  const earlier = await earningsPaid(q, orgId, t.start, t.end, run.run_id);
  for (const s of slips) {
    if (s.super_earlier_cents === null) continue; // drafted before the base was applied
    const now = earlier.get(s.employee_id) ?? 0;
    const superNow = superOn(s.gross_cents, now, t).superCents;
    if (superNow === s.super_cents) continue;
    throw new ApiError(
      'CONFLICT',
      `${run.label}: ${s.employee_name}'s super of ${formatCents(s.super_cents)} was drafted with ${formatCents(s.super_earlier_cents)} already paid in ${basePeriodText(t)}; posted runs now show ${formatCents(now)} (a run was signed or recalled since), which makes it ${formatCents(superNow)} under the maximum contribution base: recall this draft (books.payrollRecall) and draft the period again`,
    );
  }
}
