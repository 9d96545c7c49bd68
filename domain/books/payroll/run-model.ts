import { notFound } from '../../../protocol/errors.js';
import type { PayRun } from '../../../protocol/methods/books/payroll.js';
import type { Queryable } from '../../../db/types.js';
import { firstPaySql, periodLabel } from './model.js';
import { payslipSuperRule, superRule } from '../tax/model.js';
import { newFundSql } from './super-fund.js';
import { latestPayEvent, stpView } from './stp.js';
import { PAYSLIP_TERMS_COLUMNS, earningsTerms, superBaseTerms, type PayslipTermsRow } from './payslip-terms.js';

/** The pay run row, its payslips, its view, and loading with or without the row lock. */

export interface PayRunRow {
  run_id: string;
  period_start: string;
  period_end: string;
  pay_date: string;
  status: PayRun['status'];
  staff_count: number;
  gross_cents: number;
  payg_cents: number;
  super_cents: number;
  net_cents: number;
  payg_schedule: string | null;
  /** Paid outside the regular cycle (Payday Super: due after the next regular payday). */
  out_of_cycle: boolean;
  paid_cents: number;
  journal_id: string | null;
  recall_journal_id: string | null;
  approval_id: string | null;
  created_at: string;
  updated_at: string;
}

interface PayslipRow extends PayslipTermsRow {
  payslip_id: string;
  employee_id: string;
  employee_name: string;
  days_employed: number;
  pay_basis: 'ANNUAL' | 'HOURLY';
  rate_cents: number;
  hours_per_week: number;
  claims_tax_free_threshold: boolean;
  unpaid_leave_hours: number;
  unpaid_leave_cents: number;
  gross_cents: number;
  payg_cents: number;
  super_cents: number;
  net_cents: number;
  payg_schedule: string | null;
  payg_scale: PayRun['paygScales'][number] | null;
  payg_scale_reason: string | null;
  first_pay: boolean;
}

const RUN_COLUMNS = `run_id, period_start, period_end, pay_date, status, staff_count, gross_cents, payg_cents, super_cents, net_cents, payg_schedule,
  out_of_cycle, paid_cents, journal_id, recall_journal_id, approval_id, created_at, updated_at`;

export async function loadRun(q: Queryable, orgId: string, runId: string, lock = false): Promise<PayRunRow> {
  const [row] = await q.query<PayRunRow>(`SELECT ${RUN_COLUMNS} FROM books_pay_runs WHERE org_id = $1 AND run_id = $2${lock ? ' FOR UPDATE' : ''}`, [
    orgId,
    runId,
  ]);
  if (!row) throw notFound(`pay run ${runId}`);
  return row;
}

/** Net wages still owed on a run: net - paid while POSTED, else 0. */
export const wagesOwed = (r: Pick<PayRunRow, 'status' | 'net_cents' | 'paid_cents'>): number => (r.status === 'POSTED' ? r.net_cents - r.paid_cents : 0);

/** `pay run 1–14 Nov 2026 (pay_…)`: how messages name a run. */
export const runLabel = (r: Pick<PayRunRow, 'run_id' | 'period_start' | 'period_end'>): string =>
  `pay run ${periodLabel(r.period_start, r.period_end)} (${r.run_id})`;

export async function payRunView(q: Queryable, orgId: string, r: PayRunRow): Promise<PayRun> {
  const slips = await q.query<PayslipRow>(
    `SELECT payslip_id, employee_id, employee_name, days_employed, pay_basis, rate_cents, hours_per_week, claims_tax_free_threshold,
            unpaid_leave_hours::float8 AS unpaid_leave_hours, unpaid_leave_cents, gross_cents, payg_cents, super_cents, net_cents, payg_schedule,
            payg_scale, payg_scale_reason, (${firstPaySql('s', '$3::date')} OR ${newFundSql('s', '$3::date')} IS NOT NULL) AS first_pay, ${PAYSLIP_TERMS_COLUMNS}
       FROM books_payslips s WHERE org_id = $1 AND run_id = $2 ORDER BY n`,
    [orgId, r.run_id, r.pay_date],
  );
  const stp = await latestPayEvent(q, orgId, r.run_id);
  return {
    id: r.run_id,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    payDate: r.pay_date,
    status: r.status,
    staffCount: r.staff_count,
    grossCents: r.gross_cents,
    paygCents: r.payg_cents,
    superCents: r.super_cents,
    netCents: r.net_cents,
    paygSchedule: r.payg_schedule,
    paygScales: [...new Set(slips.flatMap((s) => (s.payg_scale ? [s.payg_scale] : [])))].sort(),
    outOfCycle: r.out_of_cycle,
    superRule: superRule(r.pay_date),
    paidCents: r.paid_cents,
    unpaidCents: wagesOwed(r),
    payslips: slips.map((s) => ({
      id: s.payslip_id,
      employee: { id: s.employee_id, name: s.employee_name },
      daysEmployed: s.days_employed,
      rate: { basis: s.pay_basis, amountCents: s.rate_cents, hoursPerWeek: s.hours_per_week },
      taxScale: s.claims_tax_free_threshold ? 'TAX_FREE_THRESHOLD' : 'NO_TAX_FREE_THRESHOLD',
      paygScale: s.payg_scale,
      paygScaleReason: s.payg_scale_reason,
      unpaidLeaveHours: s.unpaid_leave_hours,
      unpaidLeaveCents: s.unpaid_leave_cents,
      grossCents: s.gross_cents,
      paygCents: s.payg_cents,
      superCents: s.super_cents,
      netCents: s.net_cents,
      paygSchedule: s.payg_schedule,
      superRule: payslipSuperRule(r.pay_date, s.first_pay, r.out_of_cycle),
      earnings: earningsTerms(s, r),
      superBase: superBaseTerms(s, r.pay_date),
    })),
    stp: stp ? stpView(stp) : null,
    journalId: r.journal_id,
    recallJournalId: r.recall_journal_id,
    approvalId: r.approval_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The run as it is now, as a view. */
export async function loadRunView(q: Queryable, orgId: string, runId: string): Promise<PayRun> {
  return payRunView(q, orgId, await loadRun(q, orgId, runId));
}
