import { badRequest, notFound } from '../../../protocol/errors.js';
import { reconciliation as c } from '../../../protocol/methods/books/reconciliation.js';
import type { Queryable } from '../../../db/types.js';
import { handler } from '../../handler.js';
import { newId } from '../../ids.js';
import { formatCents, gstOf } from '../money.js';
import { finish } from '../outcome.js';
import { booksPolicy } from '../policy.js';

/** Purchase receipts: the record of what was bought and whether its GST can be claimed. No journal. */

/** Where each linkable row lives; a table another area has not created yet holds no rows, so the link is NOT_FOUND. */
const LINKS = {
  line: { table: 'books_feed_lines', idColumn: 'line_id', noun: 'bank feed line' },
  bill: { table: 'books_bills', idColumn: 'bill_id', noun: 'bill' },
  claim: { table: 'books_expense_claims', idColumn: 'claim_id', noun: 'expense claim' },
} as const;

async function requireLinked(q: Queryable, orgId: string, kind: keyof typeof LINKS, id: string): Promise<void> {
  const { table, idColumn, noun } = LINKS[kind];
  const [exists] = await q.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [table]);
  const found = exists?.t ? await q.query(`SELECT 1 FROM ${table} WHERE org_id = $1 AND ${idColumn} = $2`, [orgId, id]) : [];
  if (found.length === 0) throw notFound(`${noun} ${id}`);
}

export const receiptsRegister = handler(c.receiptsRegister, async (ctx, p) => {
  const maxGst = gstOf(p.totalCents);
  const gstCents = p.gstCents ?? maxGst;
  if (gstCents > maxGst) throw badRequest('gstCents', `${gstCents} is more than the GST a ${formatCents(p.totalCents)} purchase can include (round(total / 11) = ${maxGst})`);
  const link = p.link ? { kind: p.link.kind, id: p.link.kind === 'line' ? p.link.lineId : p.link.kind === 'bill' ? p.link.billId : p.link.claimId } : null;
  if (link) await requireLinked(ctx.q, ctx.orgId, link.kind, link.id);
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  const noTaxInvoice = p.totalCents > policy.taxInvoiceThresholdCents && !p.taxInvoice;
  const flags = noTaxInvoice ? (['NO TAX INVOICE'] as const) : [];
  const receiptId = newId('rcpt');
  const [row] = await ctx.q.query<{ created_at: string }>(
    `INSERT INTO books_receipts (org_id, receipt_id, supplier, abn, date, total_cents, gst_cents, file_ref, tax_invoice, flags, link_kind, link_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING created_at`,
    [ctx.orgId, receiptId, p.supplier, p.abn ?? null, p.date, p.totalCents, gstCents, p.fileRef, p.taxInvoice, [...flags], link?.kind ?? null, link?.id ?? null, ctx.principal.id],
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
    gstClaimable: !noTaxInvoice,
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
      payload: { receiptId, supplier: p.supplier, date: p.date, totalCents: p.totalCents, gstCents, taxInvoice: p.taxInvoice, flags: [...flags], linkKind: link?.kind ?? null, linkId: link?.id ?? null },
    },
    { receipt, changed: true },
    noTaxInvoice
      ? `Registered receipt ${receiptId} from ${p.supplier} for ${formatCents(p.totalCents)}${linked}, flagged NO TAX INVOICE: above ${formatCents(policy.taxInvoiceThresholdCents)} without a valid tax invoice, so the ${formatCents(gstCents)} GST cannot be claimed as a credit; ask the supplier for a tax invoice`
      : `Registered receipt ${receiptId} from ${p.supplier} for ${formatCents(p.totalCents)} (GST ${formatCents(gstCents)})${linked}`,
  );
});
