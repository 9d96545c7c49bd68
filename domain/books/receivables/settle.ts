import { one } from '../../../db/types.js';
import { badRequest } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import type { HandlerCtx } from '../../core/handler.js';
import { postPayment } from '../payments.js';
import { invoiceLabel, loadInvoice, requireOpen } from './model.js';

/**
 * Money received against an invoice: Dr 090 / Cr 610, the payment row, PAID at zero, a promise kept. The one
 * settlement path for books.invoiceRecordPayment and bank matching (books.matchAccept).
 */
export async function settleInvoice(
  ctx: HandlerCtx,
  invoiceId: string,
  s: { amountCents: number; date: string; feedLineId?: string },
): Promise<{ journalId: string; paymentId: string; label: string }> {
  const row = await loadInvoice(ctx.q, ctx.orgId, invoiceId, true);
  const due = requireOpen(row, 'payment');
  if (s.amountCents > due) throw badRequest('amountCents', `${s.amountCents} is more than the ${due} cents due on ${invoiceLabel(row)}`);
  if (row.issue_date && s.date < row.issue_date) throw badRequest('date', `${s.date} is before ${invoiceLabel(row)} was issued (${row.issue_date})`);
  const { paymentId, journalId } = await postPayment(ctx, {
    docKind: 'invoice',
    docId: row.invoice_id,
    direction: 'in',
    account: ACC.receivables,
    amountCents: s.amountCents,
    date: s.date,
    narration: `Payment for ${row.number} from ${row.contact_name}`,
    contactId: row.contact_id,
    feedLineId: s.feedLineId,
  });
  const updated = one(
    await ctx.q.query<{ paid_cents: number; status: string }>(
      `UPDATE books_invoices SET paid_cents = paid_cents + $3,
            status = CASE WHEN paid_cents + $3 + credited_cents = total_cents THEN 'PAID' ELSE status END, updated_at = now()
      WHERE org_id = $1 AND invoice_id = $2 RETURNING paid_cents, status`,
      [ctx.orgId, row.invoice_id, s.amountCents],
    ),
  );
  // An open promise is kept once the invoice is paid, or once payments since it reach the amount promised.
  await ctx.q.query(
    `UPDATE books_promises SET status = 'KEPT', closed_at = now()
      WHERE org_id = $1 AND invoice_id = $2 AND status = 'OPEN'
        AND ($3 = 'PAID' OR (amount_cents IS NOT NULL AND $4::bigint - paid_at_promise_cents >= amount_cents))`,
    [ctx.orgId, row.invoice_id, updated.status, updated.paid_cents],
  );
  return { journalId, paymentId, label: invoiceLabel(row) };
}
