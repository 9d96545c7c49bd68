import type { z } from 'zod';
import type { Obligation } from '../../../protocol/methods/books/tax.js';
import type { Queryable } from '../../../db/types.js';
import { addSgBusinessDays, holidayList, sgHolidaysBetween, type StateHoliday } from '../calendar.js';
import { addDays, daysInclusive } from '../dates.js';
import { formatCents } from '../money.js';
import { firstPaySql, periodLabel as payPeriodLabel } from '../payroll/model.js';
import { newFundSql } from '../payroll/super-fund.js';
import { PAYROLL_SOURCES } from './bas.js';
import {
  PAYDAY_SUPER_DAYS,
  PAYDAY_SUPER_FIRST_PAY_DAYS,
  RULE_WORDS,
  isPaydaySuper,
  periodLabel,
  quarterOf,
  quarterlySuperDueDate,
  type SuperDueRule,
} from './model.js';

/*
 * Super guarantee obligations, from the ledger: what pay runs credited to 826 (a recall's reversal takes its run
 * out) is owed. Pay dates before 1 July 2026 owe by the quarter (28 days after it); from then each pay run owes its
 * own (SGAA as amended by Act No. 57 of 2025): due 7 business days after its pay date; 20 for a first contribution
 * (a new or re-employed employee's first pay, the first pay to a new fund); an out-of-cycle run 7 after the next
 * regular payday. Super counts when the fund receives it: other journals debiting 826 (bank lines coded to it) are
 * what was sent, receipts linked as `super` (books.receiptsRegister) what the funds acknowledged receiving. Neither
 * is tied to a run, so both settle the obligations oldest due first.
 */

type Item = z.infer<typeof Obligation>;

export interface SuperObligation {
  key: string;
  periodStart: string;
  periodEnd: string;
  /** Payday Super: the run's pay date; quarterly: null. */
  payDate: string | null;
  runId: string | null;
  /** The 20-business-day allowance (a first contribution) set its due date. */
  firstPay: boolean;
  dueDate: string;
  /** An out-of-cycle run's due date while no regular run is paid after it: estimated from the pay cycle. */
  estimated: boolean;
  rule: SuperDueRule;
  holidaysSkipped: StateHoliday[];
  amountCents: number;
  sentCents: number;
  receivedCents: number;
  /** The day the funds had received all of it, or null. */
  receivedOn: string | null;
  status: 'UNPAID' | 'SENT' | 'RECEIVED';
  overdue: boolean;
  note: string;
}

interface RunAccrual {
  source_id: string;
  pay_date: string;
  period_start: string | null;
  period_end: string | null;
  out_of_cycle: boolean;
  accrued: number;
}

/** Super each pay run (journal source) accrued on 826 through `to`. */
async function runAccruals(q: Queryable, orgId: string, to: string): Promise<RunAccrual[]> {
  const rows = await q.query<RunAccrual>(
    `WITH acc AS (
       SELECT j.source_id, coalesce(min(j.date) FILTER (WHERE j.source_kind = 'pay_run'), min(j.date))::text AS pay_date,
              (0 - sum(l.amount_cents))::bigint AS accrued
         FROM books_journal_lines l JOIN books_journals j ON j.org_id = l.org_id AND j.journal_id = l.journal_id
        WHERE l.org_id = $1 AND l.account_code = '826' AND j.source_kind = ANY($3::text[]) AND j.date <= $2::date
        GROUP BY j.source_id)
     SELECT a.source_id, a.pay_date, r.period_start::text AS period_start, r.period_end::text AS period_end,
            coalesce(r.out_of_cycle, false) AS out_of_cycle, a.accrued
       FROM acc a LEFT JOIN books_pay_runs r ON r.org_id = $1 AND r.run_id = a.source_id
      WHERE a.accrued > 0 ORDER BY a.pay_date, a.source_id`,
    [orgId, to, PAYROLL_SOURCES],
  );
  return rows.map((r) => ({ ...r, accrued: Number(r.accrued) }));
}

interface Slip {
  run_id: string;
  employee_name: string;
  super_cents: number;
  first_pay: boolean;
  rehire: boolean;
  new_fund: string | null;
}

/**
 * The payslips of the runs with why each one's super gets 20 business days, if it does: the employee's first pay
 * in the org (a re-employed employee is a new record, so theirs too), or the first run paid since they changed to
 * a new fund (books_super_fund_changes).
 */
async function slipsOf(q: Queryable, orgId: string, runIds: string[]): Promise<Slip[]> {
  if (runIds.length === 0) return [];
  const rows = await q.query<Slip>(
    `SELECT s.run_id, s.employee_name, s.super_cents, ${firstPaySql('s', 'r.pay_date')} AS first_pay, (e.rehire_of IS NOT NULL) AS rehire,
            ${newFundSql('s', 'r.pay_date')} AS new_fund
       FROM books_payslips s JOIN books_pay_runs r ON r.org_id = s.org_id AND r.run_id = s.run_id
       LEFT JOIN books_employees e ON e.org_id = s.org_id AND e.employee_id = s.employee_id
      WHERE s.org_id = $1 AND s.run_id = ANY($2::text[]) ORDER BY s.n`,
    [orgId, runIds],
  );
  return rows.map((r) => ({ ...r, super_cents: Number(r.super_cents) }));
}

interface RegularRun {
  pay_date: string;
  period_start: string;
  period_end: string;
  run_id: string;
}

/**
 * The regular payday an out-of-cycle run's super waits for: the first POSTED regular run paid on or after it, else
 * an estimate from the pay cycle (the latest regular run's period length, or the run's own when there is none).
 */
function nextRegularPayday(regular: RegularRun[], r: RunAccrual): { date: string; runId: string | null } {
  const next = regular.find((x) => x.pay_date >= r.pay_date);
  if (next) return { date: next.pay_date, runId: next.run_id };
  const last = regular.filter((x) => x.pay_date < r.pay_date).at(-1);
  const cycle = last ? daysInclusive(last.period_start, last.period_end) : daysInclusive(r.period_start ?? r.pay_date, r.period_end ?? r.pay_date);
  let date = last ? last.pay_date : r.pay_date;
  do date = addDays(date, cycle);
  while (date < r.pay_date);
  return { date, runId: null };
}

type Draft = Omit<SuperObligation, 'sentCents' | 'receivedCents' | 'receivedOn' | 'status' | 'overdue' | 'note'> & { what: string; why: string };

const names = (slips: Slip[]): string =>
  slips.map((s) => (s.new_fund ? `${s.employee_name} (new fund ${s.new_fund})` : s.rehire ? `${s.employee_name} (re-employed)` : s.employee_name)).join(', ');

function drafts(runs: RunAccrual[], slips: Slip[], regular: RegularRun[]): Draft[] {
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
          estimated: false,
          rule: 'QUARTERLY',
          holidaysSkipped: [],
          amountCents: r.accrued,
          what: `Super guarantee ${periodLabel(qr.start, qr.end)}`,
          why: RULE_WORDS.QUARTERLY,
        };
        quarters.set(key, q);
        out.push(q);
      }
      continue;
    }
    const run = r.period_start && r.period_end ? `pay run ${payPeriodLabel(r.period_start, r.period_end)} (${r.source_id})` : `pay run ${r.source_id}`;
    const base = { periodStart: r.period_start ?? r.pay_date, periodEnd: r.period_end ?? r.pay_date, payDate: r.pay_date, runId: r.source_id };
    const mine = slips.filter((s) => s.run_id === r.source_id);
    const extended = mine.filter((s) => s.first_pay || s.new_fund !== null);
    const first = Math.min(
      extended.reduce((t, s) => t + s.super_cents, 0),
      r.accrued,
    );
    // The ordinary due date: 7 business days after payday, or after the next regular payday when out of cycle.
    const next = r.out_of_cycle ? nextRegularPayday(regular, r) : null;
    const from = next?.date ?? r.pay_date;
    const ordinaryDue = addSgBusinessDays(from, PAYDAY_SUPER_DAYS);
    const ordinaryRule: SuperDueRule = next ? 'OUT_OF_CYCLE' : 'PAYDAY';
    const ordinaryWhy = next
      ? `${RULE_WORDS.OUT_OF_CYCLE}, ${next.runId ? `${next.date} (${next.runId})` : `estimated ${next.date} from the pay cycle: no regular run is paid after it yet`}`
      : RULE_WORDS.PAYDAY;
    const kind = r.out_of_cycle ? ' out of cycle' : '';
    if (r.accrued - first > 0) {
      const skipped = sgHolidaysBetween(from, ordinaryDue);
      out.push({
        ...base,
        key: `SUPER ${r.source_id}${kind}`,
        firstPay: false,
        dueDate: ordinaryDue,
        estimated: next !== null && next.runId === null,
        rule: ordinaryRule,
        holidaysSkipped: skipped,
        amountCents: r.accrued - first,
        what: `Super on ${run}${kind} paid ${r.pay_date}`,
        why: ordinaryWhy,
      });
    }
    if (first > 0) {
      // A first contribution has 20 business days after payday; out of cycle, the later of that and the ordinary date.
      const twenty = addSgBusinessDays(r.pay_date, PAYDAY_SUPER_FIRST_PAY_DAYS);
      const useTwenty = twenty >= ordinaryDue;
      const dueDate = useTwenty ? twenty : ordinaryDue;
      out.push({
        ...base,
        key: `SUPER ${r.source_id}${kind} first pay`,
        firstPay: useTwenty,
        dueDate,
        estimated: !useTwenty && next !== null && next.runId === null,
        rule: useTwenty ? 'FIRST_CONTRIBUTION' : ordinaryRule,
        holidaysSkipped: sgHolidaysBetween(useTwenty ? r.pay_date : from, dueDate),
        amountCents: first,
        what: `Super on ${run}${kind} paid ${r.pay_date}, first contributions for ${names(extended)}`,
        why: useTwenty ? RULE_WORDS.FIRST_CONTRIBUTION : ordinaryWhy,
      });
    }
  }
  return out;
}

/** Net cents by date, oldest first: what was sent (826 debits outside pay runs) or received (fund receipts). */
async function flows(q: Queryable, orgId: string, asOf: string): Promise<{ sent: [string, number][]; received: [string, number][] }> {
  const sent = await q.query<{ d: string; v: number }>(
    `SELECT j.date::text AS d, sum(l.amount_cents)::bigint AS v
       FROM books_journal_lines l JOIN books_journals j ON j.org_id = l.org_id AND j.journal_id = l.journal_id
      WHERE l.org_id = $1 AND l.account_code = '826' AND NOT (j.source_kind = ANY($3::text[])) AND j.date <= $2::date
      GROUP BY j.date ORDER BY j.date`,
    [orgId, asOf, PAYROLL_SOURCES],
  );
  const received = await q.query<{ d: string; v: number }>(
    `SELECT date::text AS d, sum(total_cents)::bigint AS v FROM books_receipts
      WHERE org_id = $1 AND link_kind = 'super' AND date <= $2::date GROUP BY date ORDER BY date`,
    [orgId, asOf],
  );
  const pairs = (rows: { d: string; v: number }[]): [string, number][] => rows.map((r) => [r.d, Number(r.v)]);
  return { sent: pairs(sent), received: pairs(received) };
}

/** The first day the running total of `series` (oldest first) reached `target`, or null. */
function reached(series: [string, number][], target: number): string | null {
  let total = 0;
  for (const [d, v] of series) {
    total += v;
    if (total >= target) return d;
  }
  return null;
}

const total = (series: [string, number][]): number =>
  Math.max(
    0,
    series.reduce((t, [, v]) => t + v, 0),
  );

/**
 * Every super obligation of the org as at `asOf` (runs paid up to `to`), oldest due first, with what was sent and
 * what the funds received of each (each settles the oldest due first), and whether it is overdue: not received in
 * full by its due date once that date has passed. Received late stays overdue: it was late.
 */
export async function superObligations(q: Queryable, orgId: string, asOf: string, to: string): Promise<SuperObligation[]> {
  const runs = await runAccruals(q, orgId, to);
  const slips = await slipsOf(
    q,
    orgId,
    runs.filter((r) => isPaydaySuper(r.pay_date)).map((r) => r.source_id),
  );
  const regular = await q.query<RegularRun>(
    `SELECT run_id, pay_date::text AS pay_date, period_start::text AS period_start, period_end::text AS period_end FROM books_pay_runs
      WHERE org_id = $1 AND status = 'POSTED' AND NOT out_of_cycle ORDER BY pay_date, n`,
    [orgId],
  );
  const list = drafts(runs, slips, regular).sort(
    (a, b) => a.dueDate.localeCompare(b.dueDate) || (a.payDate ?? a.periodEnd).localeCompare(b.payDate ?? b.periodEnd) || a.key.localeCompare(b.key),
  );
  const { sent, received } = await flows(q, orgId, asOf);
  const [sentTotal, receivedTotal] = [total(sent), total(received)];
  let before = 0;
  return list.map(({ what, why, ...d }) => {
    const clamp = (t: number) => Math.min(Math.max(t - before, 0), d.amountCents);
    const [sentCents, receivedCents] = [clamp(sentTotal), clamp(receivedTotal)];
    const receivedOn = receivedCents === d.amountCents ? reached(received, before + d.amountCents) : null;
    const sentOn = sentCents === d.amountCents ? reached(sent, before + d.amountCents) : null;
    before += d.amountCents;
    const status = receivedCents === d.amountCents ? 'RECEIVED' : sentCents > 0 ? 'SENT' : 'UNPAID';
    const overdue = d.dueDate < asOf && !(receivedOn !== null && receivedOn <= d.dueDate);
    const skipped = d.holidaysSkipped.length ? `; skips ${holidayList(d.holidaysSkipped)}` : '';
    const amount = formatCents(d.amountCents);
    const ack = 'record the fund’s acknowledgement with books.receiptsRegister (link kind super, dated when the fund received it)';
    let state: string;
    if (status === 'RECEIVED') {
      state =
        receivedOn! <= d.dueDate
          ? `received by the funds ${receivedOn}, on time`
          : `received by the funds ${receivedOn}, after its due date ${d.dueDate}: late`;
    } else if (status === 'SENT') {
      const gap = formatCents(d.amountCents - receivedCents);
      const sentText = `${formatCents(sentCents)} sent${sentOn ? ` by ${sentOn}` : ''}, ${formatCents(receivedCents)} received`;
      state = overdue
        ? `${sentText}; overdue since ${d.dueDate}: no receipt from the funds is recorded for ${gap} (super counts when the fund receives it; ${ack})`
        : `${sentText}; it counts when the fund receives it: ${ack}`;
    } else {
      state = `${amount} not sent${overdue ? `, overdue since ${d.dueDate}` : ''}`;
    }
    const note = `${what}: ${amount}, to reach the funds by ${d.dueDate} (${why}${skipped}); ${state} as at ${asOf}`;
    return { ...d, sentCents, receivedCents, receivedOn, status, overdue, note };
  });
}

/** The obligations calendar's SUPER items: the quarters or pay dates shown (from `from`) and anything earlier open or late. */
export async function superItems(q: Queryable, orgId: string, asOf: string, from: string, to: string): Promise<Item[]> {
  const all = await superObligations(q, orgId, asOf, to);
  return all
    .filter((o) => (o.payDate ?? o.periodEnd) >= from || o.status !== 'RECEIVED')
    .map((o) => ({
      key: o.key,
      kind: 'SUPER' as const,
      periodStart: o.periodStart,
      periodEnd: o.periodEnd,
      dueDate: o.dueDate,
      status: o.status,
      lodgementId: null,
      amountCents: o.amountCents,
      estimated: o.estimated,
      overdue: o.overdue,
      note: o.note,
      sentCents: o.sentCents,
      receivedCents: o.receivedCents,
      receivedOn: o.receivedOn,
      dueRule: o.rule,
      holidaysSkipped: o.holidaysSkipped.map((h) => ({ date: h.date, name: h.name, states: h.states })),
    }));
}
