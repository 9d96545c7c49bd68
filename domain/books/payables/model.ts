import { ApiError, notFound } from '../../../protocol/errors.js';
import type { Bill } from '../../../protocol/methods/books/payables.js';
import type { TaxCode } from '../../../protocol/methods/books/chart.js';
import type { Queryable } from '../../../db/types.js';
import { maskAccount } from '../contacts.js';
import { daysBetween } from '../dates.js';
import { formatCents } from '../money.js';

/** The bill row and its lines, their view, and loading with or without the row lock. */

export type BillFlag = Bill['flags'][number];

export interface BillRow {
  n: number;
  bill_id: string;
  contact_id: string;
  contact_name: string;
  reference: string;
  issue_date: string;
  due_date: string;
  abn: string | null;
  total_cents: number;
  gst_cents: number;
  paid_cents: number;
  status: Bill['status'];
  bank_bsb: string | null;
  bank_account: string | null;
  bank_account_name: string | null;
  payee_bsb: string | null;
  payee_account: string | null;
  payee_account_name: string | null;
  flags: BillFlag[];
  held_reason: BillFlag | null;
  on_hold: boolean;
  hold_reason: string | null;
  held_at: string | null;
  approval_id: string | null;
  journal_id: string | null;
  run_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface BillLineRow {
  bill_id: string;
  line_no: number;
  description: string;
  account_code: string;
  tax_code: TaxCode;
  amount_cents: number;
  gst_cents: number;
  asset_id: string | null;
}

export const BILL_SELECT = `
  SELECT b.n, b.bill_id, b.contact_id, c.name AS contact_name, b.reference, b.issue_date, b.due_date, b.abn,
         b.total_cents, b.gst_cents, b.paid_cents, b.status, b.bank_bsb, b.bank_account, b.bank_account_name,
         c.bank_bsb AS payee_bsb, c.bank_account AS payee_account, c.bank_account_name AS payee_account_name,
         b.flags, b.held_reason, b.on_hold, b.hold_reason, b.held_at, b.approval_id, b.journal_id, b.run_id,
         b.created_at, b.updated_at
    FROM books_bills b
    JOIN books_contacts c ON c.org_id = b.org_id AND c.contact_id = b.contact_id`;

export const amountDue = (r: Pick<BillRow, 'status' | 'total_cents' | 'paid_cents'>): number =>
  r.status === 'DRAFT' || r.status === 'AUTHORISED' ? r.total_cents - r.paid_cents : 0;

const masked = (bsb: string | null, account: string | null, accountName: string | null) =>
  bsb && account ? { bsb, accountNumber: maskAccount(account) as string, accountName: accountName ?? '' } : null;

export function billView(r: BillRow, lines: BillLineRow[], today: string): Bill {
  const due = amountDue(r);
  return {
    id: r.bill_id,
    contact: { id: r.contact_id, name: r.contact_name },
    reference: r.reference,
    issueDate: r.issue_date,
    dueDate: r.due_date,
    abn: r.abn,
    lines: lines.map((l) => ({
      lineNo: l.line_no,
      description: l.description,
      account: l.account_code,
      taxCode: l.tax_code,
      amountCents: l.amount_cents,
      gstCents: l.gst_cents,
      netCents: l.amount_cents - l.gst_cents,
      assetId: l.asset_id,
    })),
    totalCents: r.total_cents,
    gstCents: r.gst_cents,
    status: r.status,
    amountPaidCents: r.paid_cents,
    amountDueCents: due,
    daysOverdue: r.status === 'AUTHORISED' && due > 0 && today > r.due_date ? daysBetween(r.due_date, today) : 0,
    flags: r.flags,
    heldReason: r.held_reason,
    onHold: r.on_hold,
    holdReason: r.hold_reason,
    approvalId: r.approval_id,
    runId: r.run_id,
    bank: masked(r.bank_bsb, r.bank_account, r.bank_account_name),
    payeeBank: masked(r.payee_bsb, r.payee_account, r.payee_account_name),
    journalId: r.journal_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The lines of some bills, by bill id, in line order. */
export async function loadLines(q: Queryable, orgId: string, billIds: string[]): Promise<Map<string, BillLineRow[]>> {
  const rows = await q.query<BillLineRow>(
    `SELECT bill_id, line_no, description, account_code, tax_code, amount_cents, gst_cents, asset_id
       FROM books_bill_lines WHERE org_id = $1 AND bill_id = ANY($2::text[]) ORDER BY bill_id, line_no`,
    [orgId, billIds],
  );
  const byBill = new Map<string, BillLineRow[]>(billIds.map((id) => [id, []]));
  for (const row of rows) byBill.get(row.bill_id)?.push(row);
  return byBill;
}

/** Views of several bill rows, lines included (one query for all the lines). */
export async function billViews(q: Queryable, orgId: string, rows: BillRow[], today: string): Promise<Bill[]> {
  const lines = await loadLines(
    q,
    orgId,
    rows.map((r) => r.bill_id),
  );
  return rows.map((r) => billView(r, lines.get(r.bill_id) ?? [], today));
}

/** The bill, locked for the call's transaction when `lock` (every mutation locks before it reads state). */
export async function loadBill(q: Queryable, orgId: string, billId: string, lock = false): Promise<BillRow> {
  if (lock) {
    const [locked] = await q.query('SELECT 1 FROM books_bills WHERE org_id = $1 AND bill_id = $2 FOR UPDATE', [orgId, billId]);
    if (!locked) throw notFound(`bill ${billId}`);
  }
  const [row] = await q.query<BillRow>(`${BILL_SELECT} WHERE b.org_id = $1 AND b.bill_id = $2`, [orgId, billId]);
  if (!row) throw notFound(`bill ${billId}`);
  return row;
}

/** `bill_… (Acme Pty Ltd, ref SI-204, $1,100.00)`: how messages name a bill. */
export const billLabel = (r: Pick<BillRow, 'bill_id' | 'contact_name' | 'reference' | 'total_cents'>): string =>
  `${r.bill_id} (${r.contact_name}, ref ${r.reference}, ${formatCents(r.total_cents)})`;

/** approval.request takes a subject summary of at most 500 characters: a signature summary must fit. */
export const SUMMARY_MAX = 500;
export const fitSummary = (text: string): string => (text.length <= SUMMARY_MAX ? text : `${text.slice(0, SUMMARY_MAX - 1)}…`);

/** Refuse anything but an authorised bill with money due (settlement). */
export function requirePayable(r: BillRow, act: string): number {
  const due = amountDue(r);
  if (r.status === 'DRAFT') throw new ApiError('CONFLICT', `${act}: bill ${billLabel(r)} is a DRAFT; approve it first (books.billApprove)`);
  if (r.status !== 'AUTHORISED' || due === 0) throw new ApiError('CONFLICT', `${act}: bill ${billLabel(r)} is ${r.status} with nothing due`);
  return due;
}
