import { ApiError, badRequest } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import type { HandlerCtx } from '../../core/handler.js';
import { postPayment } from '../payments.js';
import { formatCents } from '../money.js';
import { loadRun, runLabel, wagesOwed } from './run-model.js';

/**
 * Net wages paid out of the bank for a posted run: Dr 804 / Cr 090 and the payment row; the run stays POSTED
 * (status and payment are separate: what is owed is net - paid). The one settlement path for pay runs, called
 * by bank matching.
 */
export async function settlePayRun(
  ctx: HandlerCtx,
  runId: string,
  s: { amountCents: number; date: string; feedLineId?: string },
): Promise<{ journalId: string; paymentId: string; label: string }> {
  const row = await loadRun(ctx.q, ctx.orgId, runId, true);
  const label = runLabel(row);
  if (row.status !== 'POSTED') {
    throw new ApiError(
      'CONFLICT',
      `${label} is ${row.status}; only a POSTED (signed) run has wages to pay${row.status === 'DRAFT' ? ': sign it first (books.payrollSign)' : ''}`,
    );
  }
  const owed = wagesOwed(row);
  if (owed === 0) throw new ApiError('CONFLICT', `${label} has its net wages of ${formatCents(row.net_cents)} paid in full; nothing is owed`);
  if (!Number.isSafeInteger(s.amountCents) || s.amountCents < 1) throw badRequest('amountCents', `${s.amountCents} must be a positive number of cents`);
  if (s.amountCents > owed) throw badRequest('amountCents', `${s.amountCents} is more than the ${owed} cents of net wages owed on ${label}`);
  // Wages for a period are paid once it ends (a day or two before the pay date is common).
  if (s.date < row.period_end) throw badRequest('date', `${s.date} is before ${label} ends (${row.period_end})`);
  const { paymentId, journalId } = await postPayment(ctx, {
    docKind: 'pay_run',
    docId: row.run_id,
    direction: 'out',
    account: ACC.wagesPayable,
    amountCents: s.amountCents,
    date: s.date,
    narration: `Net wages paid for ${label}`,
    description: 'Net wages paid',
    feedLineId: s.feedLineId,
  });
  await ctx.q.query('UPDATE books_pay_runs SET paid_cents = paid_cents + $3, updated_at = now() WHERE org_id = $1 AND run_id = $2', [
    ctx.orgId,
    row.run_id,
    s.amountCents,
  ]);
  return { journalId, paymentId, label };
}
