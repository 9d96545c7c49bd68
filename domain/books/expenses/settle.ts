import { ApiError, badRequest } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import type { HandlerCtx } from '../../core/handler.js';
import { postPayment } from '../payments.js';
import { formatCents } from '../money.js';
import { claimDue, claimLabel, loadClaim } from './claims.js';

/**
 * An approved claim reimbursed to the employee: Dr 801 / Cr 090, the payment row, PAID at zero. The one
 * settlement path for claims, called by bank matching.
 */
export async function settleClaim(
  ctx: HandlerCtx,
  claimId: string,
  s: { amountCents: number; date: string; feedLineId?: string },
): Promise<{ journalId: string; paymentId: string; label: string }> {
  const row = await loadClaim(ctx.q, ctx.orgId, claimId, true);
  const label = claimLabel(row);
  if (row.status === 'SUBMITTED') throw new ApiError('CONFLICT', `expense ${label} is SUBMITTED; approve it first (books.expenseApprove)`);
  if (row.status !== 'AUTHORISED')
    throw new ApiError('CONFLICT', `expense ${label} is ${row.status}: its ${formatCents(row.total_cents)} was reimbursed in full`);
  const due = claimDue(row);
  if (!Number.isSafeInteger(s.amountCents) || s.amountCents < 1) throw badRequest('amountCents', `${s.amountCents} must be a positive number of cents`);
  if (s.amountCents > due) throw badRequest('amountCents', `${s.amountCents} is more than the ${due} cents owed on ${label}`);
  if (s.date < row.date) throw badRequest('date', `${s.date} is before the expense was incurred (${row.date})`);
  const { paymentId, journalId } = await postPayment(ctx, {
    docKind: 'claim',
    docId: row.claim_id,
    direction: 'out',
    account: ACC.expenseClaims,
    amountCents: s.amountCents,
    date: s.date,
    narration: `Reimbursed ${row.employee_name} for ${label}`,
    description: `Reimbursed ${row.employee_name}`,
    feedLineId: s.feedLineId,
  });
  await ctx.q.query(
    `UPDATE books_expense_claims SET paid_cents = paid_cents + $3,
            status = CASE WHEN paid_cents + $3 = total_cents THEN 'PAID' ELSE status END, updated_at = now()
      WHERE org_id = $1 AND claim_id = $2`,
    [ctx.orgId, row.claim_id, s.amountCents],
  );
  return { journalId, paymentId, label };
}
