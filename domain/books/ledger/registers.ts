import type { Queryable } from '../../../db/types.js';
import { computeBas } from '../tax/bas.js';
import { isPaydaySuper, superDueDate, superRule } from '../tax/model.js';
import { superObligations } from '../tax/super.js';

/** Reports built from the subledgers: BAS summary, payroll summary, asset register. */

/** The BAS figures for a period (the same computation a lodgement snapshots) and that period's lodgement, if any. */
export async function basSummary(q: Queryable, orgId: string, from: string, to: string) {
  const { labels, netCents } = await computeBas(q, orgId, from, to);
  const [lodgement] = await q.query<{ lodgement_id: string; status: string }>(
    `SELECT lodgement_id, status FROM books_tax_lodgements WHERE org_id = $1 AND period_start = $2 AND period_end = $3 ORDER BY n DESC LIMIT 1`,
    [orgId, from, to],
  );
  return {
    report: 'basSummary' as const,
    from,
    to,
    labels,
    netAmountCents: netCents,
    lodgement: lodgement ? { id: lodgement.lodgement_id, status: lodgement.status } : null,
  };
}

/** Every pay run of the period whatever its status (deleted drafts aside): what an agent looks up to sign or recall. */
export async function payRuns(q: Queryable, orgId: string, from: string, to: string) {
  const rows = await q.query<{
    run_id: string;
    period_start: string;
    period_end: string;
    pay_date: string;
    status: string;
    staff_count: number;
    gross_cents: number;
    net_cents: number;
  }>(
    `SELECT run_id, period_start, period_end, pay_date, status, staff_count, gross_cents, net_cents FROM books_pay_runs
      WHERE org_id = $1 AND status <> 'DELETED' AND pay_date BETWEEN $2 AND $3 ORDER BY pay_date, n`,
    [orgId, from, to],
  );
  return {
    report: 'payRuns' as const,
    from,
    to,
    runs: rows.map((r) => ({
      id: r.run_id,
      periodStart: r.period_start,
      periodEnd: r.period_end,
      payDate: r.pay_date,
      status: r.status,
      staffCount: r.staff_count,
      grossCents: r.gross_cents,
      netCents: r.net_cents,
    })),
  };
}

interface PaygSourceRow {
  run_id: string;
  employee_id: string;
  payg_schedule: string | null;
  payg_scale: string | null;
  payg_scale_reason: string | null;
  payg_cents: number;
}

/** The payslips of posted runs paid in [from, to]: which schedule and scale each PAYG amount came from. */
const paygSources = (q: Queryable, orgId: string, from: string, to: string) =>
  q.query<PaygSourceRow>(
    `SELECT s.run_id, s.employee_id, s.payg_schedule, s.payg_scale, s.payg_scale_reason, s.payg_cents
       FROM books_payslips s JOIN books_pay_runs r ON r.org_id = s.org_id AND r.run_id = s.run_id
      WHERE s.org_id = $1 AND r.status = 'POSTED' AND r.pay_date BETWEEN $2 AND $3 ORDER BY r.pay_date, r.n, s.n`,
    [orgId, from, to],
  );

/** An employee's PAYG in the period split by schedule and scale (in pay date order of first use). */
function paygBy(rows: readonly PaygSourceRow[], employeeId: string) {
  const by = new Map<string, { schedule: string | null; scale: string | null; reason: string | null; paygCents: number }>();
  for (const r of rows.filter((x) => x.employee_id === employeeId)) {
    const key = `${r.payg_schedule}|${r.payg_scale}|${r.payg_scale_reason}`;
    const seen = by.get(key);
    if (seen) seen.paygCents += r.payg_cents;
    else by.set(key, { schedule: r.payg_schedule, scale: r.payg_scale, reason: r.payg_scale_reason, paygCents: r.payg_cents });
  }
  return [...by.values()];
}

/** Posted pay runs paid in the period (recalled and draft runs are not payroll), by run and by employee. */
export async function payrollSummary(q: Queryable, orgId: string, from: string, to: string) {
  const runs = await q.query<{
    run_id: string;
    pay_date: string;
    status: string;
    gross_cents: number;
    payg_cents: number;
    super_cents: number;
    net_cents: number;
    payg_schedule: string | null;
  }>(
    `SELECT run_id, pay_date, status, gross_cents, payg_cents, super_cents, net_cents, payg_schedule FROM books_pay_runs
      WHERE org_id = $1 AND status = 'POSTED' AND pay_date BETWEEN $2 AND $3 ORDER BY pay_date, n`,
    [orgId, from, to],
  );
  const employees = await q.query<{ employee_id: string; name: string; gross: number; payg: number; super: number; net: number }>(
    `SELECT s.employee_id, min(s.employee_name) AS name, sum(s.gross_cents)::bigint AS gross, sum(s.payg_cents)::bigint AS payg,
            sum(s.super_cents)::bigint AS super, sum(s.net_cents)::bigint AS net
       FROM books_payslips s JOIN books_pay_runs r ON r.org_id = s.org_id AND r.run_id = s.run_id
      WHERE s.org_id = $1 AND r.status = 'POSTED' AND r.pay_date BETWEEN $2 AND $3
      GROUP BY s.employee_id ORDER BY min(s.employee_name)`,
    [orgId, from, to],
  );
  const total = (k: 'gross_cents' | 'payg_cents' | 'super_cents' | 'net_cents') => runs.reduce((s, r) => s + r[k], 0);
  const payg = await paygSources(q, orgId, from, to);
  // Each run's super due dates, as the obligations calendar computes them (first pays split out).
  const dues = runs.some((r) => isPaydaySuper(r.pay_date)) ? await superObligations(q, orgId, to, to) : [];
  return {
    report: 'payrollSummary' as const,
    from,
    to,
    runs: runs.map((r) => ({
      id: r.run_id,
      payDate: r.pay_date,
      status: r.status,
      grossCents: r.gross_cents,
      paygCents: r.payg_cents,
      superCents: r.super_cents,
      netCents: r.net_cents,
      paygSchedule: r.payg_schedule,
      paygScales: [...new Set(payg.filter((x) => x.run_id === r.run_id && x.payg_scale).map((x) => x.payg_scale as string))].sort(),
      superRule: superRule(r.pay_date),
      superDue: isPaydaySuper(r.pay_date)
        ? dues.filter((o) => o.runId === r.run_id).map((o) => ({ dueDate: o.dueDate, amountCents: o.amountCents, firstPay: o.firstPay }))
        : [{ dueDate: superDueDate(r.pay_date), amountCents: r.super_cents, firstPay: false }],
    })),
    employees: employees.map((e) => ({
      id: e.employee_id,
      name: e.name,
      grossCents: e.gross,
      paygCents: e.payg,
      superCents: e.super,
      netCents: e.net,
      paygBy: paygBy(payg, e.employee_id),
    })),
    totals: { grossCents: total('gross_cents'), paygCents: total('payg_cents'), superCents: total('super_cents'), netCents: total('net_cents') },
  };
}

/** Assets bought by asOf with depreciation through asOf; an asset disposed by then shows as DISPOSED at no book value. */
export async function assetRegister(q: Queryable, orgId: string, asOf: string) {
  const rows = await q.query<{
    asset_id: string;
    name: string;
    cost_account: string;
    purchase_date: string;
    cost_cents: number;
    accumulated: number;
    disposed: boolean;
  }>(
    `SELECT a.asset_id, a.name, a.cost_account, a.purchase_date, a.cost_cents,
            coalesce((SELECT sum(d.amount_cents) FROM books_depreciation d WHERE d.org_id = a.org_id AND d.asset_id = a.asset_id AND d.period_end <= $2), 0)::bigint AS accumulated,
            (a.status = 'DISPOSED' AND a.disposed_date <= $2) AS disposed
       FROM books_assets a WHERE a.org_id = $1 AND a.purchase_date <= $2 ORDER BY a.purchase_date, a.n`,
    [orgId, asOf],
  );
  const assets = rows.map((r) => ({
    id: r.asset_id,
    name: r.name,
    costAccount: r.cost_account,
    purchaseDate: r.purchase_date,
    costCents: r.cost_cents,
    accumulatedDepreciationCents: r.accumulated,
    bookValueCents: r.disposed ? 0 : r.cost_cents - r.accumulated,
    status: r.disposed ? 'DISPOSED' : 'REGISTERED',
  }));
  const held = assets.filter((a) => a.status === 'REGISTERED');
  return {
    report: 'assetRegister' as const,
    asOf,
    assets,
    totals: {
      costCents: held.reduce((s, a) => s + a.costCents, 0),
      accumulatedDepreciationCents: held.reduce((s, a) => s + a.accumulatedDepreciationCents, 0),
      bookValueCents: held.reduce((s, a) => s + a.bookValueCents, 0),
    },
  };
}
