import { ApiError, badRequest } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import { MAX_PERIOD_DAYS, payroll as c } from '../../../protocol/methods/books/payroll.js';
import type { Queryable } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { daysInclusive, today } from '../dates.js';
import { postJournal, reverseJournal } from '../journal.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { assertPeriodOpen, booksPolicy } from '../policy.js';
import { periodLabel } from './model.js';
import { computePayslips } from './payslips.js';
import { payFrequency } from './payg.js';
import { paygSchedule, scheduleName } from '../rates/index.js';
import { assertSuperBaseCurrent } from './super-base.js';
import { loadRun, loadRunView, runLabel, type PayRunRow } from './run-model.js';
import { onlyNamed, outOfCycleIds, overlappingRuns } from './out-of-cycle.js';
import { latestPayEvent, queuePayEvent } from './stp.js';

/** Pay runs: draft (payslips), sign (a signature act that posts and queues STP), recall (delete or reverse). */

/** Drafts of one org run one at a time, so two overlapping drafts cannot both pass the overlap check. */
async function lockPayroll(q: Queryable, orgId: string): Promise<void> {
  await q.query(
    `INSERT INTO books_counters (org_id, name, value) VALUES ($1, 'payroll_draft_lock', 1)
     ON CONFLICT (org_id, name) DO UPDATE SET value = books_counters.value + 1`,
    [orgId],
  );
}

/** The scales a run's payslips were withheld on, ascending. */
const scalesUsed = (slips: readonly { paygScale: string }[]): string[] => [...new Set(slips.map((x) => x.paygScale))].sort();

/** `scale 2: tax-free threshold claimed` or `scale 2: tax-free threshold claimed (2 staff); scale 4: no TFN declared, resident 47% (1 staff)`. */
function scalesLabel(slips: readonly { paygScaleReason: string }[]): string {
  const byReason = new Map<string, number>();
  for (const x of slips) byReason.set(x.paygScaleReason, (byReason.get(x.paygScaleReason) ?? 0) + 1);
  if (byReason.size === 1) return slips[0].paygScaleReason;
  return [...byReason]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([reason, n]) => `${reason} (${n} staff)`)
    .join('; ');
}

/** `PAYG $604.00 under ATO Schedule 1 2026-27 (from 2026-07-01), scale 2: …`: where a run's PAYG came from ('' before schedules were recorded). */
async function paygLabel(q: Queryable, orgId: string, row: PayRunRow): Promise<string> {
  if (!row.payg_schedule) return '';
  const slips = await q.query<{ payg_scale_reason: string | null }>(
    'SELECT payg_scale_reason FROM books_payslips WHERE org_id = $1 AND run_id = $2 ORDER BY n',
    [orgId, row.run_id],
  );
  const reasons = slips.flatMap((x) => (x.payg_scale_reason ? [{ paygScaleReason: x.payg_scale_reason }] : []));
  return `; PAYG ${formatCents(row.payg_cents)} under ${row.payg_schedule}${reasons.length ? `, ${scalesLabel(reasons)}` : ''}`;
}

export const payrollDraft = handler(c.payrollDraft, async (ctx, p) => {
  if (p.periodEnd < p.periodStart) throw badRequest('periodEnd', `${p.periodEnd} is before periodStart ${p.periodStart}`);
  const days = daysInclusive(p.periodStart, p.periodEnd);
  if (days > MAX_PERIOD_DAYS)
    throw badRequest('periodEnd', `${p.periodStart} to ${p.periodEnd} is ${days} days; a pay period is at most ${MAX_PERIOD_DAYS} days`);
  if (p.payDate < p.periodEnd) throw badRequest('payDate', `${p.payDate} is before the period ends (${p.periodEnd}); wages are paid for a period once it ends`);
  const named = outOfCycleIds(p);
  await lockPayroll(ctx.q, ctx.orgId);
  const period = periodLabel(p.periodStart, p.periodEnd);

  const overlapping = await overlappingRuns(ctx.q, ctx.orgId, p.periodStart, p.periodEnd, named);
  const same = overlapping.find(
    (r) =>
      r.status === 'DRAFT' &&
      r.period_start === p.periodStart &&
      r.period_end === p.periodEnd &&
      r.pay_date === p.payDate &&
      r.out_of_cycle === (named !== null),
  );
  if (same) {
    return finish(
      ctx,
      {
        kind: 'books.payroll.draft',
        entityId: same.run_id,
        payload: { runId: same.run_id, periodStart: p.periodStart, periodEnd: p.periodEnd, payDate: p.payDate, noop: true },
      },
      { payRun: await loadRunView(ctx.q, ctx.orgId, same.run_id), journalId: null, changed: false },
      `Pay run ${same.run_id} for ${period} paid ${p.payDate} was already drafted; nothing changed`,
    );
  }
  const clash = overlapping[0];
  if (clash) {
    throw new ApiError(
      'CONFLICT',
      `${runLabel(clash)} is ${clash.status} and overlaps ${period}; ${clash.status === 'DRAFT' ? 'sign or recall that draft first (books.payrollSign, books.payrollRecall)' : 'recall it first (books.payrollRecall) or draft a period after it'}`,
    );
  }

  // The law on the pay date: Schedule 1 of that date (refused when none is loaded) and that date's super rate.
  const frequency = payFrequency(p.periodStart, p.periodEnd);
  const schedule = await paygSchedule(ctx.q, p.payDate);
  const paygScheduleName = scheduleName(schedule);
  const slips = onlyNamed(
    await computePayslips(ctx.q, ctx.orgId, { start: p.periodStart, end: p.periodEnd }, p.payDate, { schedule, frequency }),
    named,
    period,
  );
  if (slips.length === 0) {
    throw new ApiError('CONFLICT', `no ACTIVE staff are employed in ${period}: complete an onboarding first (books.onboardingStart, books.onboardingAdvance)`);
  }
  const sum = (k: 'grossCents' | 'paygCents' | 'superCents' | 'netCents') => slips.reduce((s, x) => s + x[k], 0);
  const totals = { grossCents: sum('grossCents'), paygCents: sum('paygCents'), superCents: sum('superCents'), netCents: sum('netCents') };
  if (totals.grossCents === 0)
    throw new ApiError('CONFLICT', `nothing to pay for ${period}: all ${slips.length} staff are on unpaid leave for the whole period`);

  const runId = newId('pay');
  await ctx.q.query(
    `INSERT INTO books_pay_runs (org_id, run_id, period_start, period_end, pay_date, status, staff_count, gross_cents, payg_cents, super_cents, net_cents, created_by, payg_schedule, out_of_cycle)
     VALUES ($1, $2, $3, $4, $5, 'DRAFT', $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      ctx.orgId,
      runId,
      p.periodStart,
      p.periodEnd,
      p.payDate,
      slips.length,
      totals.grossCents,
      totals.paygCents,
      totals.superCents,
      totals.netCents,
      ctx.principal.id,
      paygScheduleName,
      named !== null,
    ],
  );
  for (const s of slips) {
    const e = s.employee;
    await ctx.q.query(
      `INSERT INTO books_payslips (org_id, payslip_id, run_id, employee_id, employee_name, days_employed, pay_basis, rate_cents, hours_per_week,
              claims_tax_free_threshold, unpaid_leave_hours, unpaid_leave_cents, gross_cents, payg_cents, super_cents, net_cents, payg_schedule,
              period_pay_cents, super_rate_bp, super_base_cents, super_base_per, super_base_start, super_base_end, super_earlier_cents, super_earnings_cents,
              payg_scale, payg_scale_reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::numeric / 100, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27)`,
      [
        ctx.orgId,
        newId('psl'),
        runId,
        e.employee_id,
        e.name,
        s.daysEmployed,
        e.pay_basis,
        e.rate_cents,
        e.hours_per_week,
        e.claims_tax_free_threshold === true,
        s.unpaidLeaveHundredths,
        s.unpaidLeaveCents,
        s.grossCents,
        s.paygCents,
        s.superCents,
        s.netCents,
        paygScheduleName,
        s.periodPayCents,
        s.superTerms.rateBasisPoints,
        s.superTerms.baseCents,
        s.superTerms.per,
        s.superTerms.start,
        s.superTerms.end,
        s.superEarlierCents,
        s.superEarningsCents,
        s.paygScale,
        s.paygScaleReason,
      ],
    );
  }
  return finish(
    ctx,
    {
      kind: 'books.payroll.draft',
      entityId: runId,
      payload: {
        runId,
        periodStart: p.periodStart,
        periodEnd: p.periodEnd,
        payDate: p.payDate,
        staffCount: slips.length,
        ...totals,
        paygSchedule: paygScheduleName,
        paygScales: scalesUsed(slips),
        outOfCycle: named !== null,
      },
    },
    { payRun: await loadRunView(ctx.q, ctx.orgId, runId), journalId: null, changed: true },
    `Drafted ${named ? 'out-of-cycle ' : ''}pay run ${runId} for ${period}: ${slips.length} staff, gross ${formatCents(totals.grossCents)}, PAYG ${formatCents(totals.paygCents)}, super ${formatCents(totals.superCents)}, net ${formatCents(totals.netCents)} to be paid ${p.payDate} (PAYG under ${paygScheduleName}, ${scalesLabel(slips)})${named ? '; out of cycle, so its super is due 7 business days after the next regular payday' : ''}; nothing posts until it is signed (books.payrollSign)`,
  );
});

export const payrollSign = handler(c.payrollSign, async (ctx, p) => {
  const row = await loadRun(ctx.q, ctx.orgId, p.runId, true);
  const event = (payload: Record<string, unknown>) => ({ kind: 'books.payroll.sign', entityId: row.run_id, payload: { runId: row.run_id, ...payload } });
  if (row.status === 'POSTED') {
    // Already signed: a replay posts nothing and needs no new proof (one given anyway is checked, not consumed).
    await ctx.verifyProof({ actionClass: 'books.payroll_sign', subjectId: row.run_id, summary: '', params: p });
    return finish(
      ctx,
      event({ journalId: row.journal_id, noop: true }),
      { payRun: await loadRunView(ctx.q, ctx.orgId, row.run_id), journalId: row.journal_id, approvalId: row.approval_id, changed: false },
      `${runLabel(row)} was already signed and posted; nothing changed`,
    );
  }
  if (row.status !== 'DRAFT')
    throw new ApiError('CONFLICT', `${runLabel(row)} is ${row.status}; it cannot be signed: draft the period again (books.payrollDraft)`);
  const period = periodLabel(row.period_start, row.period_end);
  assertPeriodOpen(await booksPolicy(ctx.q, ctx.orgId), row.pay_date, `pay run ${period}`);
  const payg = await paygLabel(ctx.q, ctx.orgId, row);
  // Signing posts the drafted super: refused if runs posted or recalled since change what the base allows.
  await lockPayroll(ctx.q, ctx.orgId);
  await assertSuperBaseCurrent(ctx.q, ctx.orgId, { run_id: row.run_id, pay_date: row.pay_date, label: runLabel(row) });
  // Validated first, so a hold is only ever filed for an act that could run.
  const proof = await ctx.requireSignature({
    actionClass: 'books.payroll_sign',
    subjectId: row.run_id,
    summary: `Pay run ${period}: ${row.staff_count} staff, gross ${formatCents(row.gross_cents)}, net ${formatCents(row.net_cents)}, paid ${row.pay_date}${payg}`,
    params: p,
  });
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date: row.pay_date,
    narration: `Pay run ${period} (${row.staff_count} staff)`,
    sourceKind: 'pay_run',
    sourceId: row.run_id,
    postedBy: ctx.principal.id,
    lines: [
      { account: ACC.wages, amountCents: row.gross_cents, description: 'Gross wages' },
      { account: ACC.superannuation, amountCents: row.super_cents, description: 'Super guarantee' },
      { account: ACC.paygWithholding, amountCents: -row.payg_cents, description: 'PAYG withheld' },
      { account: ACC.superPayable, amountCents: -row.super_cents, description: 'Super guarantee payable' },
      { account: ACC.wagesPayable, amountCents: -row.net_cents, description: 'Net wages payable' },
    ],
  });
  await ctx.q.query(
    `UPDATE books_pay_runs SET status = 'POSTED', journal_id = $3, approval_id = $4, posted_at = now(), updated_at = now() WHERE org_id = $1 AND run_id = $2`,
    [ctx.orgId, row.run_id, journalId, proof.approvalId],
  );
  const stp = await queuePayEvent(ctx, row);
  return finish(
    ctx,
    event({
      journalId,
      approvalId: proof.approvalId,
      stpId: stp.stp_id,
      payDate: row.pay_date,
      grossCents: row.gross_cents,
      paygCents: row.payg_cents,
      superCents: row.super_cents,
      netCents: row.net_cents,
    }),
    { payRun: await loadRunView(ctx.q, ctx.orgId, row.run_id), journalId, approvalId: proof.approvalId, changed: true },
    `Signed and posted ${runLabel(row)} under approval ${proof.approvalId}: gross ${formatCents(row.gross_cents)}, net ${formatCents(row.net_cents)} owed to ${row.staff_count} staff on ${row.pay_date}${payg}; STP pay event ${stp.stp_id} queued`,
  );
});

export const payrollRecall = handler(c.payrollRecall, async (ctx, p) => {
  const row = await loadRun(ctx.q, ctx.orgId, p.runId, true);
  const event = (payload: Record<string, unknown>) => ({ kind: 'books.payroll.recall', entityId: row.run_id, payload: { runId: row.run_id, ...payload } });
  if (row.status === 'DELETED' || row.status === 'RECALLED') {
    return finish(
      ctx,
      event({ status: row.status, noop: true }),
      { payRun: await loadRunView(ctx.q, ctx.orgId, row.run_id), journalId: null, changed: false },
      `${runLabel(row)} was already ${row.status}; nothing changed`,
    );
  }
  if (row.status === 'DRAFT') {
    await ctx.q.query(`UPDATE books_pay_runs SET status = 'DELETED', updated_at = now() WHERE org_id = $1 AND run_id = $2`, [ctx.orgId, row.run_id]);
    return finish(
      ctx,
      event({ status: 'DELETED', journalId: null }),
      { payRun: await loadRunView(ctx.q, ctx.orgId, row.run_id), journalId: null, changed: true },
      `Deleted the draft ${runLabel(row)}; nothing had been posted`,
    );
  }
  const now = today(ctx.deps);
  const label = runLabel(row);
  if (now >= row.pay_date) {
    throw new ApiError(
      'CONFLICT',
      `${label} was due to be paid on ${row.pay_date} (today is ${now}); a run can only be recalled before its pay date: correct it in the next pay run`,
    );
  }
  if (row.paid_cents > 0) {
    throw new ApiError(
      'CONFLICT',
      `${label} has ${formatCents(row.paid_cents)} of net wages already paid; it cannot be recalled: correct it in the next pay run`,
    );
  }
  const stp = await latestPayEvent(ctx.q, ctx.orgId, row.run_id, true);
  if (stp?.status === 'ACCEPTED') {
    throw new ApiError(
      'CONFLICT',
      `the ATO has accepted STP event ${stp.stp_id} for ${label}; it cannot be recalled: correct it in the next pay run and send an update (books.stpResubmit)`,
    );
  }
  const journalId = await reverseJournal(ctx.q, ctx.orgId, row.journal_id as string, {
    date: row.pay_date,
    narration: `Recall of pay run ${periodLabel(row.period_start, row.period_end)}`,
    sourceKind: 'pay_run_recall',
    sourceId: row.run_id,
    postedBy: ctx.principal.id,
  });
  await ctx.q.query(
    `UPDATE books_pay_runs SET status = 'RECALLED', recall_journal_id = $3, recalled_at = now(), updated_at = now() WHERE org_id = $1 AND run_id = $2`,
    [ctx.orgId, row.run_id, journalId],
  );
  const cancelled = await ctx.q.query<{ stp_id: string }>(
    `UPDATE books_stp_events SET status = 'CANCELLED', error = NULL, updated_at = now()
      WHERE org_id = $1 AND run_id = $2 AND status IN ('QUEUED', 'SUBMITTED', 'FAILED') RETURNING stp_id`,
    [ctx.orgId, row.run_id],
  );
  const stpIds = cancelled.map((r) => r.stp_id);
  return finish(
    ctx,
    event({ status: 'RECALLED', journalId, cancelledStp: stpIds }),
    { payRun: await loadRunView(ctx.q, ctx.orgId, row.run_id), journalId, changed: true },
    `Recalled ${label}: its journal is reversed${stpIds.length ? ` and STP event ${stpIds.join(', ')} cancelled` : ''}; draft the period again to pay it`,
  );
});
