import { notFound } from '../../../protocol/errors.js';
import { ONBOARDING_STEPS, type Employee, type Onboarding } from '../../../protocol/methods/books/payroll.js';
import type { Queryable } from '../../../db/types.js';
import { maskAccount } from '../contacts.js';
import { formatCents } from '../money.js';
import { paygScale, type PaygDeclaration } from './payg.js';

/** Employees and onboardings: rows, views (TFN and account number masked), loading with or without the lock. */

export interface EmployeeRow {
  n: number;
  employee_id: string;
  name: string;
  email: string | null;
  role: string;
  start_date: string;
  status: 'PENDING' | 'ACTIVE' | 'ENDED';
  /** A re-employment: the former record this one follows. */
  rehire_of: string | null;
  pay_basis: 'ANNUAL' | 'HOURLY';
  rate_cents: number;
  hours_per_week: number;
  tfn: string | null;
  claims_tax_free_threshold: boolean | null;
  /** The PAYG declaration (migration 046): null until the tfn step; no TFN declared is tfn null with residency set. */
  residency: 'RESIDENT' | 'FOREIGN' | null;
  medicare_levy_variation: 'NONE' | 'HALF' | 'FULL' | null;
  super_fund_name: string | null;
  super_usi: string | null;
  super_member_number: string | null;
  bank_bsb: string | null;
  bank_account: string | null;
  bank_account_name: string | null;
  created_at: string;
  updated_at: string;
}

export interface OnboardingRow {
  onboarding_id: string;
  employee_id: string;
  status: 'PENDING' | 'COMPLETED';
  tfn_done_at: string | null;
  super_done_at: string | null;
  bank_done_at: string | null;
  contract_done_at: string | null;
  contract_ref: string | null;
  contract_signed_on: string | null;
  contract_approval_id: string | null;
  created_at: string;
  completed_at: string | null;
}

export type Step = (typeof ONBOARDING_STEPS)[number];

/** `••••••782`: what reads show of a TFN. */
export const maskTfn = (tfn: string | null): string | null => (tfn ? `••••••${tfn.slice(-3)}` : null);

type DeclarationColumns = Pick<EmployeeRow, 'tfn' | 'residency' | 'claims_tax_free_threshold' | 'medicare_levy_variation'>;

/**
 * The declaration pay runs withhold on. An ACTIVE employee always made one (migration 046); without one the
 * employee is treated as having declared no TFN (scale 4), never silently as scale 2.
 */
export const employeePaygDeclaration = (r: DeclarationColumns): PaygDeclaration => ({
  tfnProvided: r.tfn !== null && r.residency !== null,
  residency: r.residency ?? 'RESIDENT',
  claimsTaxFreeThreshold: r.claims_tax_free_threshold === true,
  medicareLevyVariation: r.medicare_levy_variation ?? 'NONE',
});

/** The PAYG declaration the employee made at the tfn step (null before it), and the scale it withholds on. */
export function employeeDeclaration(r: DeclarationColumns): Employee['declaration'] {
  if (r.residency === null || r.claims_tax_free_threshold === null) return null;
  const d = employeePaygDeclaration(r);
  const { scale, why } = paygScale(d);
  return { ...d, paygScale: scale, paygScaleReason: `scale ${scale}: ${why}` };
}

export function employeeView(r: EmployeeRow): Employee {
  return {
    id: r.employee_id,
    name: r.name,
    email: r.email,
    role: r.role,
    startDate: r.start_date,
    status: r.status,
    rate: { basis: r.pay_basis, amountCents: r.rate_cents, hoursPerWeek: r.hours_per_week },
    tfn: maskTfn(r.tfn),
    claimsTaxFreeThreshold: r.claims_tax_free_threshold,
    declaration: employeeDeclaration(r),
    super: r.super_usi ? { fundName: r.super_fund_name as string, usi: r.super_usi, memberNumber: r.super_member_number as string } : null,
    bank: r.bank_account
      ? { bsb: r.bank_bsb as string, accountNumber: maskAccount(r.bank_account) as string, accountName: r.bank_account_name as string }
      : null,
    rehireOf: r.rehire_of,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export const stepDoneAt = (r: OnboardingRow, step: Step): string | null => r[`${step}_done_at` as const];

export function onboardingView(r: OnboardingRow, e: EmployeeRow): Onboarding {
  return {
    id: r.onboarding_id,
    employee: { id: e.employee_id, name: e.name },
    role: e.role,
    startDate: e.start_date,
    status: r.status,
    steps: ONBOARDING_STEPS.map((step) => ({ step, done: stepDoneAt(r, step) !== null, doneAt: stepDoneAt(r, step) })),
    contract:
      r.contract_ref && r.contract_signed_on ? { contractRef: r.contract_ref, signedOn: r.contract_signed_on, approvalId: r.contract_approval_id } : null,
    createdAt: r.created_at,
    completedAt: r.completed_at,
  };
}

const EMPLOYEE_COLUMNS = `n, employee_id, name, email, role, start_date, status, pay_basis, rate_cents, hours_per_week, tfn,
  claims_tax_free_threshold, residency, medicare_levy_variation, super_fund_name, super_usi, super_member_number, bank_bsb, bank_account, bank_account_name,
  rehire_of, created_at, updated_at`;

/** The employee, locked for the call's transaction when `lock`. */
export async function loadEmployee(q: Queryable, orgId: string, employeeId: string, lock = false): Promise<EmployeeRow> {
  const [row] = await q.query<EmployeeRow>(
    `SELECT ${EMPLOYEE_COLUMNS} FROM books_employees WHERE org_id = $1 AND employee_id = $2${lock ? ' FOR UPDATE' : ''}`,
    [orgId, employeeId],
  );
  if (!row) throw notFound(`employee ${employeeId}`);
  return row;
}

/** Employees ACTIVE and started by `date`, in the order they were created. */
export async function activeEmployees(q: Queryable, orgId: string, startedBy: string): Promise<EmployeeRow[]> {
  return q.query<EmployeeRow>(`SELECT ${EMPLOYEE_COLUMNS} FROM books_employees WHERE org_id = $1 AND status = 'ACTIVE' AND start_date <= $2::date ORDER BY n`, [
    orgId,
    startedBy,
  ]);
}

const ONBOARDING_COLUMNS = `onboarding_id, employee_id, status, tfn_done_at, super_done_at, bank_done_at, contract_done_at,
  contract_ref, contract_signed_on, contract_approval_id, created_at, completed_at`;

export async function loadOnboarding(q: Queryable, orgId: string, onboardingId: string, lock = false): Promise<OnboardingRow> {
  const [row] = await q.query<OnboardingRow>(
    `SELECT ${ONBOARDING_COLUMNS} FROM books_onboardings WHERE org_id = $1 AND onboarding_id = $2${lock ? ' FOR UPDATE' : ''}`,
    [orgId, onboardingId],
  );
  if (!row) throw notFound(`onboarding ${onboardingId}`);
  return row;
}

/** `$78,000.00 a year, 38 h/week` or `$45.00 an hour, 38 h/week`. */
export const rateLabel = (r: Pick<EmployeeRow, 'pay_basis' | 'rate_cents' | 'hours_per_week'>): string =>
  `${formatCents(r.rate_cents)} ${r.pay_basis === 'ANNUAL' ? 'a year' : 'an hour'}, ${r.hours_per_week} h/week`;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const parts = (d: string) => ({ y: d.slice(0, 4), m: MONTHS[Number(d.slice(5, 7)) - 1], d: String(Number(d.slice(8, 10))) });

/** `1–14 Nov 2026`, `25 Nov – 8 Dec 2026`, `29 Dec 2026 – 11 Jan 2027`: how messages name a pay period. */
export function periodLabel(start: string, end: string): string {
  const a = parts(start);
  const b = parts(end);
  if (a.y !== b.y) return `${a.d} ${a.m} ${a.y} – ${b.d} ${b.m} ${b.y}`;
  if (a.m !== b.m) return `${a.d} ${a.m} – ${b.d} ${b.m} ${b.y}`;
  return start === end ? `${b.d} ${b.m} ${b.y}` : `${a.d}–${b.d} ${b.m} ${b.y}`;
}

/** The Australian financial year (1 July to 30 June) containing a date: its label and bounds. */
export function financialYear(date: string): { label: string; start: string; end: string } {
  const year = Number(date.slice(0, 4));
  const first = Number(date.slice(5, 7)) >= 7 ? year : year - 1;
  return { label: `${first}-${String((first + 1) % 100).padStart(2, '0')}`, start: `${first}-07-01`, end: `${first + 1}-06-30` };
}

/**
 * SQL: whether payslip `slip` (an alias of books_payslips) pays its employee for the first time in the org, on
 * `payDate` (an SQL date expression): no other posted run paid them earlier. Payday Super gives a first pay 20
 * business days; the pay run view and the super obligations both ask it here.
 */
export const firstPaySql = (slip: string, payDate: string): string =>
  `NOT EXISTS (SELECT 1 FROM books_payslips fp_s JOIN books_pay_runs fp_r ON fp_r.org_id = fp_s.org_id AND fp_r.run_id = fp_s.run_id
                WHERE fp_s.org_id = ${slip}.org_id AND fp_s.employee_id = ${slip}.employee_id AND fp_r.status = 'POSTED'
                  AND fp_r.run_id <> ${slip}.run_id AND fp_r.pay_date < ${payDate})`;
