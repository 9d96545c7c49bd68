import type { z } from 'zod';
import { one } from '../../../db/types.js';
import { ApiError, badRequest } from '../../../protocol/errors.js';
import { ACC, ACCOUNTS, type TaxCode } from '../../../protocol/methods/books/chart.js';
import { payables as c } from '../../../protocol/methods/books/payables.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { findOrCreateContact } from '../contacts.js';
import { today } from '../dates.js';
import { reverseJournal } from '../journal.js';
import { formatCents, gstOf } from '../money.js';
import { finish } from '../outcome.js';
import { booksPolicy } from '../policy.js';
import { billLabel, billView, loadBill, loadLines, type BillFlag } from './model.js';

/** Bills: capture (duplicate check, payee flags), hold and return. Approval lives in approve.ts. */

export async function billViewOf(ctx: HandlerCtx, billId: string) {
  const row = await loadBill(ctx.q, ctx.orgId, billId);
  const lines = await loadLines(ctx.q, ctx.orgId, [billId]);
  return billView(row, lines.get(billId) ?? [], today(ctx.deps));
}

/** Lower-cased, whitespace-collapsed: `SI-204` and `si-204 ` are the same supplier invoice. */
const referenceKey = (reference: string): string => reference.trim().replace(/\s+/g, ' ').toLowerCase();

interface LineIn {
  description: string;
  account: string;
  amountCents: number;
  taxCode: TaxCode;
  gstCents: number;
}

/** The bill's lines from either `lines` or `totalCents`, each with its tax code and GST. */
function captureLines(p: z.output<typeof c.billCapture.params>, supplier: string): LineIn[] {
  if (p.lines && p.totalCents !== undefined) throw badRequest('totalCents', 'give either lines or totalCents, not both');
  if (!p.lines && p.totalCents === undefined) throw badRequest('lines', 'required: give lines (1 to 50) or totalCents');
  if (p.lines && p.account !== undefined) throw badRequest('account', 'only with totalCents; with lines each line names its account');
  if (p.lines && p.taxCode !== undefined) throw badRequest('taxCode', 'only with totalCents; with lines each line may name its taxCode');
  const raw = p.lines ?? [
    { description: `${p.reference} (${supplier})`, account: p.account ?? ACC.generalExpenses, amountCents: p.totalCents as number, taxCode: p.taxCode },
  ];
  return raw.map((l) => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the rule misreads ?. here: the cast drops undefined
    const taxCode = l.taxCode ?? (ACCOUNTS.get(l.account)?.defaultTaxCode as TaxCode);
    return { description: l.description, account: l.account, amountCents: l.amountCents, taxCode, gstCents: taxCode === 'GST' ? gstOf(l.amountCents) : 0 };
  });
}

export const billCapture = handler(c.billCapture, async (ctx, p) => {
  const lines = captureLines(p, p.supplierName.trim().replace(/\s+/g, ' '));
  if (p.dueDate < p.issueDate) throw badRequest('dueDate', `${p.dueDate} is before the issue date ${p.issueDate}`);
  // Updating the contact row locks it until commit, so two captures from one supplier cannot both pass the duplicate check.
  const { contact } = await findOrCreateContact(ctx.q, ctx.orgId, p.supplierName, 'supplier');
  const total = lines.reduce((s, l) => s + l.amountCents, 0);
  const gst = lines.reduce((s, l) => s + l.gstCents, 0);
  const [duplicate] = await ctx.q.query<{ bill_id: string; status: string }>(
    `SELECT bill_id, status FROM books_bills WHERE org_id = $1 AND contact_id = $2 AND reference_key = $3 AND total_cents = $4
        AND status NOT IN ('DELETED', 'VOIDED') LIMIT 1`,
    [ctx.orgId, contact.contact_id, referenceKey(p.reference), total],
  );
  if (duplicate) {
    throw new ApiError(
      'CONFLICT',
      `billCapture: bill ${duplicate.bill_id} (${duplicate.status}) from ${contact.name} already has reference ${p.reference} for ${formatCents(total)}; this is a duplicate. Return that bill first (books.billReturn) if it is wrong`,
    );
  }
  const [earlier] = await ctx.q.query(`SELECT 1 FROM books_bills WHERE org_id = $1 AND contact_id = $2 AND status <> 'DELETED' LIMIT 1`, [
    ctx.orgId,
    contact.contact_id,
  ]);
  // Only where money goes matters: BSB and account number (the account name does not route a payment).
  const bankChanged = p.bank !== undefined && (p.bank.bsb !== contact.bank_bsb || p.bank.accountNumber !== contact.bank_account);
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  const flags: BillFlag[] = [];
  if (total > policy.materialityFloorCents) flags.push('ABOVE FLOOR');
  if (!earlier || bankChanged) flags.push('NEW PAYEE');
  const heldReason = flags[0] ?? null;
  const billId = newId('bill');
  await ctx.q.query(
    `INSERT INTO books_bills (org_id, bill_id, contact_id, reference, reference_key, issue_date, due_date, abn, total_cents, gst_cents, status,
                              bank_bsb, bank_account, bank_account_name, flags, held_reason, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'DRAFT', $11, $12, $13, $14::text[], $15, $16)`,
    [
      ctx.orgId,
      billId,
      contact.contact_id,
      p.reference,
      referenceKey(p.reference),
      p.issueDate,
      p.dueDate,
      p.abn ?? null,
      total,
      gst,
      p.bank?.bsb ?? null,
      p.bank?.accountNumber ?? null,
      p.bank?.accountName ?? null,
      flags,
      heldReason,
      ctx.principal.id,
    ],
  );
  await ctx.q.query(
    `INSERT INTO books_bill_lines (org_id, bill_id, line_no, description, account_code, tax_code, amount_cents, gst_cents)
     SELECT $1, $2, t.line_no, t.description, t.account_code, t.tax_code, t.amount_cents, t.gst_cents
       FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[]) AS t(line_no, description, account_code, tax_code, amount_cents, gst_cents)`,
    [
      ctx.orgId,
      billId,
      lines.map((_, i) => i + 1),
      lines.map((l) => l.description),
      lines.map((l) => l.account),
      lines.map((l) => l.taxCode),
      lines.map((l) => l.amountCents),
      lines.map((l) => l.gstCents),
    ],
  );
  const bill = await billViewOf(ctx, billId);
  const why = flags.length ? `; flagged ${flags.join(' and ')}: approving it needs a human signature (rule PB-B1)` : '';
  return finish(
    ctx,
    {
      kind: 'books.bill.capture',
      entityId: billId,
      payload: {
        billId,
        contactId: contact.contact_id,
        reference: p.reference,
        issueDate: p.issueDate,
        dueDate: p.dueDate,
        totalCents: total,
        gstCents: gst,
        flags,
        heldReason,
      },
    },
    { bill, journalId: null, changed: true },
    `Captured bill ${billLabel({ bill_id: billId, contact_name: contact.name, reference: p.reference, total_cents: total })} (GST ${formatCents(gst)}), due ${p.dueDate}, as a DRAFT${why}`,
  );
});

export const billHold = handler(c.billHold, async (ctx, p) => {
  const row = await loadBill(ctx.q, ctx.orgId, p.id, true);
  const event = (payload: Record<string, unknown>) => ({ kind: 'books.bill.hold', entityId: row.bill_id, payload: { billId: row.bill_id, ...payload } });
  if (row.on_hold) {
    return finish(
      ctx,
      event({ status: row.status, reason: row.hold_reason, noop: true }),
      { bill: await billViewOf(ctx, row.bill_id), changed: false },
      `Bill ${billLabel(row)} was already on hold since ${row.held_at} (${row.hold_reason}); nothing changed`,
    );
  }
  if (row.status !== 'DRAFT' && row.status !== 'AUTHORISED') {
    const why = row.status === 'PAID' ? 'nothing is left to pay' : 'it was returned to the supplier';
    throw new ApiError('CONFLICT', `billHold: bill ${billLabel(row)} is ${row.status}: ${why}, so there is nothing to hold`);
  }
  await ctx.q.query(
    'UPDATE books_bills SET on_hold = true, hold_reason = $3, held_at = now(), held_by = $4, updated_at = now() WHERE org_id = $1 AND bill_id = $2',
    [ctx.orgId, row.bill_id, p.reason, ctx.principal.id],
  );
  return finish(
    ctx,
    event({ status: row.status, reason: p.reason }),
    { bill: await billViewOf(ctx, row.bill_id), changed: true },
    `Put bill ${billLabel(row)} on hold (${p.reason}): it stays out of payment runs until books.billApprove releases it`,
  );
});

/** Remove the fixed assets an approved bill registered, unless their history has started. */
async function removeBillAssets(ctx: HandlerCtx, billId: string, label: string): Promise<string[]> {
  const assets = await ctx.q.query<{ asset_id: string; status: string }>(
    `SELECT asset_id, status FROM books_assets WHERE org_id = $1 AND source_kind = 'bill' AND source_id = $2 ORDER BY asset_id FOR UPDATE`,
    [ctx.orgId, billId],
  );
  if (assets.length === 0) return [];
  const assetIds = assets.map((a) => a.asset_id);
  const disposed = assets.filter((a) => a.status !== 'REGISTERED').map((a) => a.asset_id);
  if (disposed.length) {
    throw new ApiError(
      'CONFLICT',
      `billReturn: asset ${disposed.join(', ')} registered from bill ${label} was disposed; the bill cannot be returned: ask the supplier for a refund instead`,
    );
  }
  // The depreciation table belongs to the assets area; without it nothing can have been depreciated.
  const [table] = await ctx.q.query<{ t: string | null }>(`SELECT to_regclass('books_depreciation')::text AS t`);
  if (table?.t) {
    const depreciated = await ctx.q.query<{ asset_id: string }>(
      'SELECT DISTINCT asset_id FROM books_depreciation WHERE org_id = $1 AND asset_id = ANY($2::text[]) ORDER BY asset_id',
      [ctx.orgId, assetIds],
    );
    if (depreciated.length) {
      throw new ApiError(
        'CONFLICT',
        `billReturn: asset ${depreciated.map((d) => d.asset_id).join(', ')} registered from bill ${label} has depreciation posted; the bill cannot be returned: dispose of the asset (books.assetDispose) and ask the supplier for a refund instead`,
      );
    }
  }
  await ctx.q.query('DELETE FROM books_assets WHERE org_id = $1 AND asset_id = ANY($2::text[])', [ctx.orgId, assetIds]);
  await ctx.q.query('UPDATE books_bill_lines SET asset_id = NULL WHERE org_id = $1 AND bill_id = $2', [ctx.orgId, billId]);
  return assetIds;
}

export const billReturn = handler(c.billReturn, async (ctx, p) => {
  const row = await loadBill(ctx.q, ctx.orgId, p.id, true);
  const event = (payload: Record<string, unknown>) => ({ kind: 'books.bill.return', entityId: row.bill_id, payload: { billId: row.bill_id, ...payload } });
  if (row.status === 'DELETED' || row.status === 'VOIDED') {
    return finish(
      ctx,
      event({ status: row.status, noop: true }),
      { bill: await billViewOf(ctx, row.bill_id), journalId: null, deletedAssetIds: [], changed: false },
      `Bill ${billLabel(row)} was already returned (${row.status}); nothing changed`,
    );
  }
  if (row.paid_cents > 0) {
    throw new ApiError(
      'CONFLICT',
      `billReturn: bill ${billLabel(row)} is ${row.status} with ${formatCents(row.paid_cents)} paid; a paid or part-paid bill cannot be returned: ask the supplier for a refund or a credit note instead`,
    );
  }
  let journalId: string | null = null;
  let deletedAssetIds: string[] = [];
  if (row.status === 'AUTHORISED') {
    deletedAssetIds = await removeBillAssets(ctx, row.bill_id, billLabel(row));
    // Reverse on the original date while that period is open, else today (a lodged period stays as lodged).
    const original = one(
      await ctx.q.query<{ date: string }>('SELECT date FROM books_journals WHERE org_id = $1 AND journal_id = $2', [ctx.orgId, row.journal_id]),
      'the bill journal',
    );
    const policy = await booksPolicy(ctx.q, ctx.orgId);
    const date = policy.lockDate && original.date <= policy.lockDate ? today(ctx.deps) : original.date;
    journalId = await reverseJournal(ctx.q, ctx.orgId, row.journal_id as string, {
      date,
      narration: `Bill ${row.reference} returned to ${row.contact_name}: ${p.reason}`,
      sourceKind: 'bill_return',
      sourceId: row.bill_id,
      postedBy: ctx.principal.id,
    });
  }
  const status = row.status === 'DRAFT' ? 'DELETED' : 'VOIDED';
  await ctx.q.query('UPDATE books_bills SET status = $3, return_reason = $4, returned_at = now(), updated_at = now() WHERE org_id = $1 AND bill_id = $2', [
    ctx.orgId,
    row.bill_id,
    status,
    p.reason,
  ]);
  return finish(
    ctx,
    event({ status, reason: p.reason, journalId, deletedAssetIds }),
    { bill: await billViewOf(ctx, row.bill_id), journalId, deletedAssetIds, changed: true },
    status === 'DELETED'
      ? `Returned draft bill ${billLabel(row)} to the supplier (${p.reason}): DELETED, nothing had posted`
      : `Returned bill ${billLabel(row)} to the supplier (${p.reason}): VOIDED, its journal reversed${deletedAssetIds.length ? ` and asset ${deletedAssetIds.join(', ')} removed` : ''}`,
  );
});
