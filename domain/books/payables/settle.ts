import { ApiError, badRequest, notFound } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import type { HandlerCtx } from '../../core/handler.js';
import { postPayment } from '../payments.js';
import { formatCents } from '../money.js';
import { billLabel, loadBill, requirePayable } from './model.js';

/**
 * Money paid against a bill: Dr 800 / Cr 090, the payment row, PAID at zero. The one settlement path for
 * payment runs (books.billScheduleRun) and bank matching (books.matchAccept). A hold does not block it: a hold
 * keeps a bill out of runs, but money that already left the bank must still be matched.
 */
export async function settleBill(
  ctx: HandlerCtx,
  billId: string,
  s: { amountCents: number; date: string; feedLineId?: string; paymentRunId?: string },
): Promise<{ journalId: string; paymentId: string; label: string }> {
  const row = await loadBill(ctx.q, ctx.orgId, billId, true);
  const due = requirePayable(row, 'payment');
  if (s.amountCents > due) throw badRequest('amountCents', `${s.amountCents} is more than the ${due} cents due on bill ${billLabel(row)}`);
  if (s.date < row.issue_date) throw badRequest('date', `${s.date} is before bill ${billLabel(row)} was issued (${row.issue_date})`);
  const { paymentId, journalId } = await postPayment(ctx, {
    docKind: 'bill',
    docId: row.bill_id,
    direction: 'out',
    account: ACC.payables,
    amountCents: s.amountCents,
    date: s.date,
    narration: `Payment of bill ${row.reference} to ${row.contact_name}${s.paymentRunId ? ` (payment run ${s.paymentRunId})` : ''}`,
    contactId: row.contact_id,
    feedLineId: s.feedLineId,
    paymentRunId: s.paymentRunId,
  });
  await ctx.q.query(
    `UPDATE books_bills SET paid_cents = paid_cents + $3, status = CASE WHEN paid_cents + $3 = total_cents THEN 'PAID' ELSE status END,
            run_id = coalesce($4, run_id), updated_at = now()
      WHERE org_id = $1 AND bill_id = $2`,
    [ctx.orgId, row.bill_id, s.amountCents, s.paymentRunId ?? null],
  );
  return { journalId, paymentId, label: `bill ${billLabel(row)}` };
}

/**
 * The bank line of an executed payment run: one debit for the whole run. It must be exactly the run total and
 * reconcile the run once. No journal: the run already posted each payment.
 */
export async function reconcilePaymentRun(ctx: HandlerCtx, runId: string, s: { amountCents: number; feedLineId: string }): Promise<{ label: string }> {
  const [run] = await ctx.q.query<{ pay_date: string; total_cents: number; bill_ids: string[]; feed_line_id: string | null }>(
    'SELECT pay_date, total_cents, bill_ids, feed_line_id FROM books_payment_runs WHERE org_id = $1 AND run_id = $2 FOR UPDATE',
    [ctx.orgId, runId],
  );
  if (!run) throw notFound(`payment run ${runId}`);
  const label = `payment run ${runId} (${run.bill_ids.length} bill${run.bill_ids.length === 1 ? '' : 's'}, ${formatCents(run.total_cents)} on ${run.pay_date})`;
  if (run.feed_line_id) throw new ApiError('CONFLICT', `${label} was already reconciled to feed line ${run.feed_line_id}`);
  if (s.amountCents !== run.total_cents) {
    throw new ApiError('CONFLICT', `the bank line is ${formatCents(s.amountCents)} but ${label} paid ${formatCents(run.total_cents)}; they must be equal`);
  }
  await ctx.q.query('UPDATE books_payment_runs SET feed_line_id = $3, reconciled_at = now() WHERE org_id = $1 AND run_id = $2', [
    ctx.orgId,
    runId,
    s.feedLineId,
  ]);
  // The run's payments moved through that bank line too.
  await ctx.q.query(`UPDATE books_payments SET feed_line_id = $3 WHERE org_id = $1 AND payment_run_id = $2 AND doc_kind = 'bill'`, [
    ctx.orgId,
    runId,
    s.feedLineId,
  ]);
  return { label };
}
