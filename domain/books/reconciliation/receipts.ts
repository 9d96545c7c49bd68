import { ApiError, badRequest, notFound } from '../../../protocol/errors.js';
import { reconciliation as c } from '../../../protocol/methods/books/reconciliation.js';
import { one, type Queryable } from '../../../db/types.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { today } from '../dates.js';
import { formatCents, gstOf } from '../money.js';
import { finish } from '../outcome.js';
import { booksPolicy } from '../policy.js';

/** Purchase receipts: the record of what was bought and whether its GST can be claimed. No journal. */

/** Where each linkable row lives; a table another area has not created yet holds no rows, so the link is NOT_FOUND. */
const LINKS = {
  line: { table: 'books_feed_lines', idColumn: 'line_id', noun: 'bank feed line' },
  bill: { table: 'books_bills', idColumn: 'bill_id', noun: 'bill' },
  claim: { table: 'books_expense_claims', idColumn: 'claim_id', noun: 'expense claim' },
  super: { table: 'books_feed_lines', idColumn: 'line_id', noun: 'super payment (bank line)' },
} as const;

/**
 * A fund's acknowledgement of super sent by a bank line: the line must have sent super (reconciled, coded to 826,
 * money out), the receipt dated on or after it and not in the future, and the line's acknowledgements at most
 * what it sent. Returns what the line sent.
 */
async function checkSuperAck(
  ctx: HandlerCtx,
  lineId: string,
  p: { date: string; totalCents: number; gstCents?: number; taxInvoice: boolean },
): Promise<number> {
  const [line] = await ctx.q.query<{ date: string; amount_cents: number; status: string; account_code: string | null }>(
    `SELECT date::text AS date, amount_cents, status, account_code FROM books_feed_lines WHERE org_id = $1 AND line_id = $2 FOR UPDATE`,
    [ctx.orgId, lineId],
  );
  if (!line) throw notFound(`bank feed line ${lineId}`);
  if (line.status !== 'RECONCILED' || line.account_code !== '826' || Number(line.amount_cents) >= 0) {
    throw new ApiError(
      'CONFLICT',
      `bank line ${lineId} did not send super: a fund acknowledges money out coded to 826 Superannuation payable; code the payment first (books.matchAccept target account 826)`,
    );
  }
  if ((p.gstCents ?? 0) !== 0) throw badRequest('gstCents', 'a super contribution carries no GST: leave it out or send 0');
  if (p.taxInvoice) throw badRequest('taxInvoice', 'a fund acknowledgement is not a tax invoice: send false');
  if (p.date < line.date) throw badRequest('date', `${p.date} is before the bank line sent it (${line.date}); the date is when the fund received it`);
  const now = today(ctx.deps);
  if (p.date > now) throw badRequest('date', `${p.date} is in the future (today is ${now}); record the acknowledgement once the fund has received it`);
  const sent = -Number(line.amount_cents);
  const acked = one(
    await ctx.q.query<{ v: number }>(
      `SELECT coalesce(sum(total_cents), 0)::bigint AS v FROM books_receipts WHERE org_id = $1 AND link_kind = 'super' AND link_id = $2`,
      [ctx.orgId, lineId],
    ),
  );
  const left = sent - Number(acked.v);
  if (p.totalCents > left) {
    throw badRequest(
      'totalCents',
      `${formatCents(p.totalCents)} is more than the ${formatCents(left)} of bank line ${lineId} not yet acknowledged (it sent ${formatCents(sent)})`,
    );
  }
  return sent;
}

async function requireLinked(q: Queryable, orgId: string, kind: keyof typeof LINKS, id: string): Promise<void> {
  const { table, idColumn, noun } = LINKS[kind];
  const [exists] = await q.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [table]);
  const found = exists?.t ? await q.query(`SELECT 1 FROM ${table} WHERE org_id = $1 AND ${idColumn} = $2`, [orgId, id]) : [];
  if (found.length === 0) throw notFound(`${noun} ${id}`);
}

export const receiptsRegister = handler(c.receiptsRegister, async (ctx, p) => {
  const link = p.link
    ? { kind: p.link.kind, id: p.link.kind === 'line' || p.link.kind === 'super' ? p.link.lineId : p.link.kind === 'bill' ? p.link.billId : p.link.claimId }
    : null;
  const superAck = link?.kind === 'super';
  const maxGst = superAck ? 0 : gstOf(p.totalCents);
  const gstCents = superAck ? 0 : (p.gstCents ?? maxGst);
  if (gstCents > maxGst)
    throw badRequest('gstCents', `${gstCents} is more than the GST a ${formatCents(p.totalCents)} purchase can include (round(total / 11) = ${maxGst})`);
  if (link && superAck) await checkSuperAck(ctx, link.id, p);
  else if (link) await requireLinked(ctx.q, ctx.orgId, link.kind, link.id);
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  const noTaxInvoice = !superAck && p.totalCents > policy.taxInvoiceThresholdCents && !p.taxInvoice;
  const flags = noTaxInvoice ? (['NO TAX INVOICE'] as const) : [];
  const receiptId = newId('rcpt');
  const row = one(
    await ctx.q.query<{ created_at: string }>(
      `INSERT INTO books_receipts (org_id, receipt_id, supplier, abn, date, total_cents, gst_cents, file_ref, tax_invoice, flags, link_kind, link_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING created_at`,
      [
        ctx.orgId,
        receiptId,
        p.supplier,
        p.abn ?? null,
        p.date,
        p.totalCents,
        gstCents,
        p.fileRef,
        p.taxInvoice,
        [...flags],
        link?.kind ?? null,
        link?.id ?? null,
        ctx.principal.id,
      ],
    ),
  );
  const receipt = {
    id: receiptId,
    supplier: p.supplier,
    abn: p.abn ?? null,
    date: p.date,
    totalCents: p.totalCents,
    gstCents,
    fileRef: p.fileRef,
    taxInvoice: p.taxInvoice,
    gstClaimable: !noTaxInvoice && !superAck,
    flags: [...flags],
    link,
    createdAt: row.created_at,
  };
  const linked = link ? `, linked to ${LINKS[link.kind].noun} ${link.id}` : '';
  return finish(
    ctx,
    {
      kind: 'books.receipt.register',
      entityId: receiptId,
      payload: {
        receiptId,
        supplier: p.supplier,
        date: p.date,
        totalCents: p.totalCents,
        gstCents,
        taxInvoice: p.taxInvoice,
        flags: [...flags],
        linkKind: link?.kind ?? null,
        linkId: link?.id ?? null,
      },
    },
    { receipt, changed: true },
    superAck
      ? `Recorded ${p.supplier}'s acknowledgement ${receiptId}: the fund received ${formatCents(p.totalCents)} on ${p.date} of the super sent by bank line ${link.id}; super obligations count it as received from that day (books.taxObligations)`
      : noTaxInvoice
        ? `Registered receipt ${receiptId} from ${p.supplier} for ${formatCents(p.totalCents)}${linked}, flagged NO TAX INVOICE: above ${formatCents(policy.taxInvoiceThresholdCents)} without a valid tax invoice, so the ${formatCents(gstCents)} GST cannot be claimed as a credit; ask the supplier for a tax invoice`
        : `Registered receipt ${receiptId} from ${p.supplier} for ${formatCents(p.totalCents)} (GST ${formatCents(gstCents)})${linked}`,
  );
});
