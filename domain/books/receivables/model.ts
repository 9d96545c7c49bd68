import { ApiError, notFound } from '../../../protocol/errors.js';
import type { Invoice } from '../../../protocol/methods/books/receivables.js';
import type { Queryable } from '../../../db/types.js';
import { addDays, daysBetween } from '../dates.js';
import type { BooksPolicy } from '../policy.js';

/** The invoice row, its view, and loading with or without the row lock. */

export interface InvoiceRow {
  n: number;
  invoice_id: string;
  number: string | null;
  contact_id: string;
  contact_name: string;
  description: string;
  total_cents: number;
  gst_cents: number;
  due_days: number;
  status: Invoice['status'];
  issue_date: string | null;
  due_date: string | null;
  paid_cents: number;
  credited_cents: number;
  chase_step: number;
  chased_at: string | null;
  journal_id: string | null;
  created_at: string;
  updated_at: string;
  promise_id: string | null;
  promised_date: string | null;
  promise_amount_cents: number | null;
  promise_status: 'OPEN' | 'KEPT' | 'REPLACED' | null;
  promise_created_at: string | null;
}

export const INVOICE_SELECT = `
  SELECT i.n, i.invoice_id, i.number, i.contact_id, c.name AS contact_name, i.description, i.total_cents, i.gst_cents,
         i.due_days, i.status, i.issue_date, i.due_date, i.paid_cents, i.credited_cents, i.chase_step, i.chased_at,
         i.journal_id, i.created_at, i.updated_at,
         p.promise_id, p.promised_date, p.amount_cents AS promise_amount_cents, p.status AS promise_status,
         p.created_at AS promise_created_at
    FROM books_invoices i
    JOIN books_contacts c ON c.org_id = i.org_id AND c.contact_id = i.contact_id
    LEFT JOIN LATERAL (
      SELECT promise_id, promised_date, amount_cents, status, created_at FROM books_promises
       WHERE org_id = i.org_id AND invoice_id = i.invoice_id ORDER BY created_at DESC, promise_id DESC LIMIT 1
    ) p ON true`;

export const amountDue = (r: Pick<InvoiceRow, 'status' | 'total_cents' | 'paid_cents' | 'credited_cents'>): number =>
  r.status === 'DRAFT' || r.status === 'AUTHORISED' ? r.total_cents - r.paid_cents - r.credited_cents : 0;

/**
 * An OPEN promise on an invoice still owed whose date plus grace has passed is BROKEN (derived, so nothing has
 * to run for a promise to break).
 */
export function promiseStatus(r: Pick<InvoiceRow, 'promise_status' | 'promised_date' | 'status'>, today: string, policy: BooksPolicy) {
  if (r.promise_status === 'OPEN' && r.status === 'AUTHORISED' && r.promised_date && today > addDays(r.promised_date, policy.promiseGraceDays)) {
    return 'BROKEN' as const;
  }
  return r.promise_status;
}

export function invoiceView(r: InvoiceRow, today: string, policy: BooksPolicy): Invoice {
  const due = amountDue(r);
  const promiseState = promiseStatus(r, today, policy);
  return {
    id: r.invoice_id,
    number: r.number,
    contact: { id: r.contact_id, name: r.contact_name },
    description: r.description,
    totalCents: r.total_cents,
    gstCents: r.gst_cents,
    status: r.status,
    issueDate: r.issue_date,
    dueDate: r.due_date,
    dueDays: r.due_days,
    amountPaidCents: r.paid_cents,
    amountCreditedCents: r.credited_cents,
    amountDueCents: due,
    daysOverdue: r.status === 'AUTHORISED' && due > 0 && r.due_date && today > r.due_date ? daysBetween(r.due_date, today) : 0,
    chaseStep: r.chase_step,
    lastChasedAt: r.chased_at,
    promise:
      r.promise_id && promiseState
        ? {
            id: r.promise_id,
            date: r.promised_date as string,
            amountCents: r.promise_amount_cents,
            status: promiseState,
            createdAt: r.promise_created_at as string,
          }
        : null,
    journalId: r.journal_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The invoice, locked for the call's transaction when `lock` (every mutation locks before it reads state). */
export async function loadInvoice(q: Queryable, orgId: string, invoiceId: string, lock = false): Promise<InvoiceRow> {
  if (lock) {
    const [locked] = await q.query('SELECT 1 FROM books_invoices WHERE org_id = $1 AND invoice_id = $2 FOR UPDATE', [orgId, invoiceId]);
    if (!locked) throw notFound(`invoice ${invoiceId}`);
  }
  const [row] = await q.query<InvoiceRow>(`${INVOICE_SELECT} WHERE i.org_id = $1 AND i.invoice_id = $2`, [orgId, invoiceId]);
  if (!row) throw notFound(`invoice ${invoiceId}`);
  return row;
}

/** `INV-0007 (Harbour Cafe)` or `draft inv_… (Harbour Cafe)`: how messages name an invoice. */
export const invoiceLabel = (r: Pick<InvoiceRow, 'number' | 'invoice_id' | 'contact_name'>): string =>
  `${r.number ?? `draft ${r.invoice_id}`} (${r.contact_name})`;

/** Refuse anything but an authorised invoice with money due. */
export function requireOpen(r: InvoiceRow, act: string): number {
  const due = amountDue(r);
  if (r.status === 'DRAFT') throw new ApiError('CONFLICT', `${act}: invoice ${invoiceLabel(r)} is a DRAFT; send it first (books.invoiceSend)`);
  if (r.status !== 'AUTHORISED' || due === 0) throw new ApiError('CONFLICT', `${act}: invoice ${invoiceLabel(r)} is ${r.status} with nothing due`);
  return due;
}
