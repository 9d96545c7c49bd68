import type { z } from 'zod';
import type { Obligation } from '../../../protocol/methods/books/tax.js';
import type { Queryable } from '../../../db/types.js';
import { holidaysBetween, type AuState } from '../calendar.js';
import { formatCents } from '../money.js';
import { firstPaySql, periodLabel as payPeriodLabel } from '../payroll/model.js';
import { PAYROLL_SOURCES } from './bas.js';
import { PAYDAY_SUPER_DAYS, PAYDAY_SUPER_FIRST_PAY_DAYS, QUARTERLY_RULE, isPaydaySuper, periodLabel, quarterOf, quarterlySuperDueDate, superDueDate } from './model.js';

/*
 * Super guarantee obligations, from the ledger: what pay runs credited to 826 (a recall's reversal takes its run
 * out) is owed, and what other journals debited to 826 (bank lines coded to it, manual journals) is paid. Pay
 * dates before 1 July 2026 owe by the quarter (28 days after it); from then each pay run owes its own, due 7
 * business days after its pay date, the super of employees on their first pay in this org 20. Payments are not
 * tied to runs, so they settle the obligations oldest due first.
 */

type Item = z.infer<typeof Obligation>;

export interface SuperObligation {
  key: string;
  periodStart: string;
  periodEnd: string;
  /** Payday Super: the run's pay date; quarterly: null. */
  payDate: string | null;
  runId: string | null;
  firstPay: boolean;
  dueDate: string;
  amountCents: number;
  paidCents: number;
  status: 'PAID' | 'PART_PAID' | 'UNPAID';
  overdue: boolean;
  note: string;
}

interface RunAccrual {
  source_id: string;
  pay_date: string;
  period_start: string | null;
  period_end: string | null;
  accrued: number;
  first_pay: number;
}

/** Super each pay run (journal source) accrued on 826 through `to`, with the part on employees' first pays. */
async function runAccruals(q: Queryable, orgId: string, to: string): Promise<RunAccrual[]> {
  const rows = await q.query<RunAccrual>(
    `WITH acc AS (
       SELECT j.source_id, coalesce(min(j.date) FILTER (WHERE j.source_kind = 'pay_run'), min(j.date))::text AS pay_date,
              (0 - sum(l.amount_cents))::bigint AS accrued
         FROM books_journal_lines l JOIN books_journals j ON j.org_id = l.org_id AND j.journal_id = l.journal_id
        WHERE l.org_id = $1 AND l.account_code = '826' AND j.source_kind = ANY($3::text[]) AND j.date <= $2::date
        GROUP BY j.source_id)
     SELECT a.source_id, a.pay_date, r.period_start::text AS period_start, r.period_end::text AS period_end, a.accrued,
            coalesce((SELECT sum(s.super_cents) FROM books_payslips s
                       WHERE s.org_id = $1 AND s.run_id = a.source_id AND ${firstPaySql('s', 'r.pay_date')}), 0)::bigint AS first_pay
       FROM acc a LEFT JOIN books_pay_runs r ON r.org_id = $1 AND r.run_id = a.source_id
      WHERE a.accrued > 0 ORDER BY a.pay_date, a.source_id`,
    [orgId, to, PAYROLL_SOURCES],
  );
  return rows.map((r) => ({ ...r, accrued: Number(r.accrued), first_pay: Number(r.first_pay) }));
}

/** What journals other than pay runs debited to 826 through `asOf`: super paid to the funds. */
async function superPaid(q: Queryable, orgId: string, asOf: string): Promise<number> {
  const [row] = await q.query<{ v: number }>(
    `SELECT coalesce(sum(l.amount_cents), 0)::bigint AS v
       FROM books_journal_lines l JOIN books_journals j ON j.org_id = l.org_id AND j.journal_id = l.journal_id
      WHERE l.org_id = $1 AND l.account_code = '826' AND NOT (j.source_kind = ANY($3::text[])) AND j.date <= $2::date`,
    [orgId, asOf, PAYROLL_SOURCES],
  );
  return Math.max(0, Number(row.v));
}

type Draft = Omit<SuperObligation, 'paidCents' | 'status' | 'overdue' | 'note'> & { what: string; rule: string };

function drafts(runs: RunAccrual[], state: AuState): Draft[] {
  const out: Draft[] = [];
  const quarters = new Map<string, Draft>();
  for (const r of runs) {
    if (!isPaydaySuper(r.pay_date)) {
      const qr = quarterOf(r.pay_date);
      const key = `SUPER ${qr.start}..${qr.end}`;
      const d = quarters.get(key);
      if (d) d.amountCents += r.accrued;
      else {
        const q: Draft = {
          key,
          periodStart: qr.start,
          periodEnd: qr.end,
          payDate: null,
          runId: null,
          firstPay: false,
          dueDate: quarterlySuperDueDate(qr.end),
          amountCents: r.accrued,
          what: `Super guarantee ${periodLabel(qr.start, qr.end)}`,
          rule: QUARTERLY_RULE,
        };
        quarters.set(key, q);
        out.push(q);
      }
      continue;
    }
    const run = r.period_start && r.period_end ? `pay run ${payPeriodLabel(r.period_start, r.period_end)} (${r.source_id})` : `pay run ${r.source_id}`;
    const base = { periodStart: r.period_start ?? r.pay_date, periodEnd: r.period_end ?? r.pay_date, payDate: r.pay_date, runId: r.source_id };
    const first = Math.min(r.first_pay, r.accrued);
    const skipped = (due: string) => {
      const days = holidaysBetween(state, r.pay_date, due);
      return days.length ? `; skips ${days.map((h) => `${h.name} ${h.date}`).join(', ')} (${state})` : '';
    };
    if (r.accrued - first > 0) {
      const dueDate = superDueDate(r.pay_date, state);
      out.push({
        ...base,
        key: `SUPER ${r.source_id}`,
        firstPay: false,
        dueDate,
        amountCents: r.accrued - first,
        what: `Super on ${run} paid ${r.pay_date}`,
        rule: `Payday Super: due ${PAYDAY_SUPER_DAYS} business days after payday${skipped(dueDate)}`,
      });
    }
    if (first > 0) {
      const dueDate = superDueDate(r.pay_date, state, true);
      out.push({
        ...base,
        key: `SUPER ${r.source_id} first pay`,
        firstPay: true,
        dueDate,
        amountCents: first,
        what: `Super on ${run} paid ${r.pay_date}, new employees' first pay`,
        rule: `Payday Super: due ${PAYDAY_SUPER_FIRST_PAY_DAYS} business days after a new employee's first payday${skipped(dueDate)}`,
      });
    }
  }
  return out;
}

/**
 * Every super obligation of the org as at `asOf` (runs paid up to `to`), oldest due first, with what is paid
 * of each (payments settle the oldest due first) and whether it is overdue: unpaid after its due date, i.e.
 * from the 8th business day after payday under Payday Super.
 */
export async function superObligations(q: Queryable, orgId: string, state: AuState, asOf: string, to: string): Promise<SuperObligation[]> {
  const list = drafts(await runAccruals(q, orgId, to), state).sort(
    (a, b) => a.dueDate.localeCompare(b.dueDate) || (a.payDate ?? a.periodEnd).localeCompare(b.payDate ?? b.periodEnd) || a.key.localeCompare(b.key),
  );
  let pool = await superPaid(q, orgId, asOf);
  return list.map(({ what, rule, ...d }) => {
    const paidCents = Math.min(pool, d.amountCents);
    pool -= paidCents;
    const unpaid = d.amountCents - paidCents;
    const status = unpaid === 0 ? 'PAID' : paidCents > 0 ? 'PART_PAID' : 'UNPAID';
    const overdue = unpaid > 0 && d.dueDate < asOf;
    const state = unpaid === 0 ? 'paid' : `${formatCents(unpaid)} unpaid${paidCents > 0 ? ` (${formatCents(paidCents)} paid)` : ''}${overdue ? `, overdue since ${d.dueDate}` : ''}`;
    const note = `${what}: ${formatCents(d.amountCents)}, to reach the funds by ${d.dueDate} (${rule}); ${state} as at ${asOf}`;
    return { ...d, paidCents, status, overdue, note };
  });
}

/** The obligations calendar's SUPER items: the quarters or pay dates shown (from `from`) and anything earlier unpaid. */
export async function superItems(q: Queryable, orgId: string, state: AuState, asOf: string, from: string, to: string): Promise<Item[]> {
  const all = await superObligations(q, orgId, state, asOf, to);
  return all
    .filter((o) => (o.payDate ?? o.periodEnd) >= from || o.status !== 'PAID')
    .map((o) => ({
      key: o.key,
      kind: 'SUPER' as const,
      periodStart: o.periodStart,
      periodEnd: o.periodEnd,
      dueDate: o.dueDate,
      status: o.status,
      lodgementId: null,
      amountCents: o.amountCents,
      estimated: false,
      overdue: o.overdue,
      note: o.note,
    }));
}
