import { ApiError, badRequest } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import { receivables as c } from '../../../protocol/methods/books/receivables.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { findOrCreateContact } from '../contacts.js';
import { addDays, today } from '../dates.js';
import { postJournal, reverseJournal } from '../journal.js';
import { formatCents, gstOf } from '../money.js';
import { nextNumber } from '../numbers.js';
import { settleInvoice } from './settle.js';
import { finish } from '../outcome.js';
import { assertPeriodOpen, booksPolicy } from '../policy.js';
import { invoiceLabel, invoiceView, loadInvoice, requireOpen } from './model.js';

/** Invoices from draft to paid: draft, send, payment, credit note, void. Dunning lives in dunning.ts. */

async function view(ctx: HandlerCtx, invoiceId: string) {
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  return invoiceView(await loadInvoice(ctx.q, ctx.orgId, invoiceId), today(ctx.deps), policy);
}

export const invoiceDraft = handler(c.invoiceDraft, async (ctx, p) => {
  const { contact } = await findOrCreateContact(ctx.q, ctx.orgId, p.payeeName, 'customer');
  const invoiceId = newId('inv');
  const gst = gstOf(p.totalCents);
  await ctx.q.query(
    `INSERT INTO books_invoices (org_id, invoice_id, contact_id, description, total_cents, gst_cents, due_days, status, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'DRAFT', $8)`,
    [ctx.orgId, invoiceId, contact.contact_id, p.description, p.totalCents, gst, p.dueDays, ctx.principal.id],
  );
  const invoice = await view(ctx, invoiceId);
  return finish(
    ctx,
    {
      kind: 'books.invoice.draft',
      entityId: invoiceId,
      payload: { invoiceId, contactId: contact.contact_id, totalCents: p.totalCents, gstCents: gst, dueDays: p.dueDays },
    },
    { invoice, journalId: null, changed: true },
    `Drafted invoice ${invoiceId} to ${contact.name} for ${formatCents(p.totalCents)} (GST ${formatCents(gst)}); nothing posted until it is sent`,
  );
});

export const invoiceSend = handler(c.invoiceSend, async (ctx, p) => {
  const row = await loadInvoice(ctx.q, ctx.orgId, p.id, true);
  if (row.status !== 'DRAFT') {
    if (row.status === 'VOIDED' || row.status === 'DELETED') throw new ApiError('CONFLICT', `invoice ${invoiceLabel(row)} is ${row.status}; it cannot be sent`);
    // Already sent: a replay posts nothing.
    return finish(
      ctx,
      { kind: 'books.invoice.send', entityId: row.invoice_id, payload: { invoiceId: row.invoice_id, number: row.number, noop: true } },
      { invoice: await view(ctx, row.invoice_id), journalId: row.journal_id, changed: false },
      `Invoice ${invoiceLabel(row)} was already sent; nothing changed`,
    );
  }
  const issueDate = today(ctx.deps);
  const dueDate = addDays(issueDate, row.due_days);
  const number = await nextNumber(ctx.q, ctx.orgId, 'INV');
  const net = row.total_cents - row.gst_cents;
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date: issueDate,
    narration: `Invoice ${number} to ${row.contact_name}`,
    sourceKind: 'invoice',
    sourceId: row.invoice_id,
    postedBy: ctx.principal.id,
    lines: [
      { account: ACC.receivables, amountCents: row.total_cents, contactId: row.contact_id, description: row.description },
      { account: ACC.sales, amountCents: -net, taxCode: 'GST', taxCents: -row.gst_cents, contactId: row.contact_id, description: row.description },
      { account: ACC.gst, amountCents: -row.gst_cents, description: `GST on ${number}` },
    ],
  });
  await ctx.q.query(
    `UPDATE books_invoices SET status = 'AUTHORISED', number = $3, issue_date = $4, due_date = $5, journal_id = $6, updated_at = now()
      WHERE org_id = $1 AND invoice_id = $2`,
    [ctx.orgId, row.invoice_id, number, issueDate, dueDate, journalId],
  );
  return finish(
    ctx,
    { kind: 'books.invoice.send', entityId: row.invoice_id, payload: { invoiceId: row.invoice_id, number, totalCents: row.total_cents, dueDate, journalId } },
    { invoice: await view(ctx, row.invoice_id), journalId, changed: true },
    // AUTHORISED and posted; nothing here mails it to the customer (no email family yet).
    `Invoice ${number} to ${row.contact_name} authorised and posted as sent: ${formatCents(row.total_cents)} due ${dueDate}; not emailed: this server sends no invoices, so send it to the customer yourself`,
  );
});

export const invoiceRecordPayment = handler(c.invoiceRecordPayment, async (ctx, p) => {
  const date = p.date ?? today(ctx.deps);
  const { journalId, paymentId, label } = await settleInvoice(ctx, p.id, { amountCents: p.amountCents, date });
  const invoice = await view(ctx, p.id);
  return finish(
    ctx,
    {
      kind: 'books.invoice.record_payment',
      entityId: p.id,
      payload: { invoiceId: p.id, paymentId, amountCents: p.amountCents, date, amountDueCents: invoice.amountDueCents, journalId },
    },
    { invoice, paymentId, journalId, changed: true },
    `Recorded ${formatCents(p.amountCents)} received for ${label}; ${invoice.status === 'PAID' ? 'now PAID' : `${formatCents(invoice.amountDueCents)} still due`}`,
  );
});

export const invoiceCreditNote = handler(c.invoiceCreditNote, async (ctx, p) => {
  const row = await loadInvoice(ctx.q, ctx.orgId, p.id, true);
  const due = requireOpen(row, 'invoiceCreditNote');
  if (p.amountCents > due) throw badRequest('amountCents', `${p.amountCents} is more than the ${due} cents due on ${invoiceLabel(row)}`);
  const date = today(ctx.deps);
  const gst = gstOf(p.amountCents);
  const creditNoteId = newId('cn');
  const number = await nextNumber(ctx.q, ctx.orgId, 'CN');
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date,
    narration: `Credit note ${number} against ${row.number} (${row.contact_name}): ${p.reason}`,
    sourceKind: 'credit_note',
    sourceId: creditNoteId,
    postedBy: ctx.principal.id,
    lines: [
      { account: ACC.sales, amountCents: p.amountCents - gst, taxCode: 'GST', taxCents: gst, contactId: row.contact_id, description: p.reason },
      { account: ACC.gst, amountCents: gst, description: `GST on ${number}` },
      { account: ACC.receivables, amountCents: -p.amountCents, contactId: row.contact_id },
    ],
  });
  await ctx.q.query(
    `INSERT INTO books_credit_notes (org_id, credit_note_id, number, invoice_id, amount_cents, gst_cents, reason, date, journal_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [ctx.orgId, creditNoteId, number, row.invoice_id, p.amountCents, gst, p.reason, date, journalId, ctx.principal.id],
  );
  await ctx.q.query(
    `UPDATE books_invoices SET credited_cents = credited_cents + $3,
            status = CASE WHEN paid_cents + credited_cents + $3 = total_cents THEN 'PAID' ELSE status END, updated_at = now()
      WHERE org_id = $1 AND invoice_id = $2`,
    [ctx.orgId, row.invoice_id, p.amountCents],
  );
  const invoice = await view(ctx, row.invoice_id);
  return finish(
    ctx,
    {
      kind: 'books.invoice.credit',
      entityId: row.invoice_id,
      payload: { invoiceId: row.invoice_id, creditNoteId, number, amountCents: p.amountCents, gstCents: gst, journalId },
    },
    { invoice, creditNote: { id: creditNoteId, number, amountCents: p.amountCents, gstCents: gst, reason: p.reason, date }, journalId, changed: true },
    `Credit note ${number} for ${formatCents(p.amountCents)} allocated to ${invoiceLabel(row)}; ${formatCents(invoice.amountDueCents)} still due`,
  );
});

export const invoiceVoid = handler(c.invoiceVoid, async (ctx, p) => {
  const row = await loadInvoice(ctx.q, ctx.orgId, p.id, true);
  const event = (payload: Record<string, unknown>) => ({
    kind: 'books.invoice.void',
    entityId: row.invoice_id,
    payload: { invoiceId: row.invoice_id, ...payload },
  });
  if (row.status === 'VOIDED' || row.status === 'DELETED') {
    return finish(
      ctx,
      event({ status: row.status, noop: true }),
      { invoice: await view(ctx, row.invoice_id), journalId: null, changed: false },
      `Invoice ${invoiceLabel(row)} was already ${row.status}; nothing changed`,
    );
  }
  if (row.paid_cents > 0 || row.credited_cents > 0) {
    throw new ApiError(
      'CONFLICT',
      `invoice ${invoiceLabel(row)} has ${formatCents(row.paid_cents)} paid and ${formatCents(row.credited_cents)} credited; it cannot be voided: issue a credit note for the rest instead (books.invoiceCreditNote)`,
    );
  }
  let journalId: string | null = null;
  if (row.status === 'AUTHORISED') {
    // Reverse on the original date while that period is open, else today (a lodged period stays as lodged).
    const policy = await booksPolicy(ctx.q, ctx.orgId);
    const original = row.issue_date as string;
    const date = policy.lockDate && original <= policy.lockDate ? today(ctx.deps) : original;
    assertPeriodOpen(policy, date, `void of ${row.number}`);
    journalId = await reverseJournal(ctx.q, ctx.orgId, row.journal_id as string, {
      date,
      narration: `Void of invoice ${row.number} (${row.contact_name})${p.reason ? `: ${p.reason}` : ''}`,
      sourceKind: 'invoice_void',
      sourceId: row.invoice_id,
      postedBy: ctx.principal.id,
    });
  }
  const status = row.status === 'DRAFT' ? 'DELETED' : 'VOIDED';
  await ctx.q.query(`UPDATE books_invoices SET status = $3, updated_at = now() WHERE org_id = $1 AND invoice_id = $2`, [ctx.orgId, row.invoice_id, status]);
  return finish(
    ctx,
    event({ status, reason: p.reason ?? null, journalId }),
    { invoice: await view(ctx, row.invoice_id), journalId, changed: true },
    status === 'DELETED' ? `Deleted draft invoice ${row.invoice_id} (${row.contact_name})` : `Voided invoice ${invoiceLabel(row)}; its journal is reversed`,
  );
});
