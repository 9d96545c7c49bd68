import { receivables as c } from '../../../protocol/methods/books/receivables.js';
import { handler } from '../../core/handler.js';
import { today } from '../dates.js';
import { pageByN } from '../paging.js';
import { booksPolicy } from '../policy.js';
import { INVOICE_SELECT, invoiceView, type InvoiceRow } from './model.js';

export const invoices = handler(c.invoices, async (ctx, p) => {
  const now = today(ctx.deps);
  const { rows, nextCursor } = await pageByN<InvoiceRow>(
    ctx.q,
    `SELECT * FROM (${INVOICE_SELECT} WHERE i.org_id = $1) x
      WHERE ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR contact_id = $3)
        AND (NOT $4 OR (status = 'AUTHORISED' AND due_date < $5::date))`,
    [ctx.orgId, p.status ?? null, p.contactId ?? null, p.overdue ?? false, now],
    p,
  );
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  return { invoices: rows.map((r) => invoiceView(r, now, policy)), nextCursor };
});
