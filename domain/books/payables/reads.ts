import { payables as c } from '../../../protocol/methods/books/payables.js';
import { handler } from '../../core/handler.js';
import { today } from '../dates.js';
import { pageByN } from '../paging.js';
import { BILL_SELECT, billViews, type BillRow } from './model.js';

export const bills = handler(c.bills, async (ctx, p) => {
  const { rows, nextCursor } = await pageByN<BillRow>(
    ctx.q,
    `SELECT * FROM (${BILL_SELECT} WHERE b.org_id = $1) x
      WHERE ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR contact_id = $3)
        AND ($4::boolean IS NULL OR on_hold = $4) AND ($5::boolean IS NULL OR (held_reason IS NOT NULL) = $5)`,
    [ctx.orgId, p.status ?? null, p.contactId ?? null, p.onHold ?? null, p.flagged ?? null],
    p,
  );
  return { bills: await billViews(ctx.q, ctx.orgId, rows, today(ctx.deps)), nextCursor };
});
