import { badRequest, notFound } from '../../../protocol/errors.js';
import { ACC, ACCOUNTS, type TaxCode } from '../../../protocol/methods/books/chart.js';
import { expenses as c, type ExpenseClaim } from '../../../protocol/methods/books/expenses.js';
import type { Queryable } from '../../../db/types.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { today } from '../dates.js';
import { postJournal } from '../journal.js';
import { formatCents, gstOf } from '../money.js';
import { finish } from '../outcome.js';
import { booksPolicy } from '../policy.js';
import { loadEmployee } from '../payroll/model.js';

/** Expense claims: submitted by (or for) an employee, approved onto 801, reimbursed through settleClaim. */

export interface ClaimRow {
  claim_id: string;
  employee_id: string;
  employee_name: string;
  date: string;
  merchant: string;
  total_cents: number;
  gst_cents: number;
  account_code: string;
  tax_code: TaxCode;
  receipt_ref: string | null;
  status: ExpenseClaim['status'];
  paid_cents: number;
  approved_by: string | null;
  approved_at: string | null;
  journal_id: string | null;
  created_at: string;
  updated_at: string;
}

/** What is owed to the employee: total - paid once approved; the whole total while submitted; 0 when paid. */
export const claimDue = (r: Pick<ClaimRow, 'status' | 'total_cents' | 'paid_cents'>): number => (r.status === 'PAID' ? 0 : r.total_cents - r.paid_cents);

export const claimView = (r: ClaimRow): ExpenseClaim => ({
  id: r.claim_id,
  employee: { id: r.employee_id, name: r.employee_name },
  date: r.date,
  merchant: r.merchant,
  totalCents: r.total_cents,
  gstCents: r.gst_cents,
  account: r.account_code,
  taxCode: r.tax_code,
  receiptRef: r.receipt_ref,
  status: r.status,
  amountPaidCents: r.paid_cents,
  amountDueCents: claimDue(r),
  approvedBy: r.approved_by,
  approvedAt: r.approved_at,
  journalId: r.journal_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The claim, locked for the call's transaction when `lock`. */
export async function loadClaim(q: Queryable, orgId: string, claimId: string, lock = false): Promise<ClaimRow> {
  if (lock) {
    const [locked] = await q.query('SELECT 1 FROM books_expense_claims WHERE org_id = $1 AND claim_id = $2 FOR UPDATE', [orgId, claimId]);
    if (!locked) throw notFound(`expense claim ${claimId}`);
  }
  const [row] = await q.query<ClaimRow>(
    `SELECT c.claim_id, c.employee_id, e.name AS employee_name, c.date, c.merchant, c.total_cents, c.gst_cents, c.account_code, c.tax_code,
            c.receipt_ref, c.status, c.paid_cents, c.approved_by, c.approved_at, c.journal_id, c.created_at, c.updated_at
       FROM books_expense_claims c JOIN books_employees e ON e.org_id = c.org_id AND e.employee_id = c.employee_id
      WHERE c.org_id = $1 AND c.claim_id = $2`,
    [orgId, claimId],
  );
  if (!row) throw notFound(`expense claim ${claimId}`);
  return row;
}

/** `claim clm_… (Officeworks, Jane Citizen)`: how messages name a claim. */
export const claimLabel = (r: Pick<ClaimRow, 'claim_id' | 'merchant' | 'employee_name'>): string => `claim ${r.claim_id} (${r.merchant}, ${r.employee_name})`;

const view = async (ctx: HandlerCtx, claimId: string) => claimView(await loadClaim(ctx.q, ctx.orgId, claimId));

export const expenseClaim = handler(c.expenseClaim, async (ctx, p) => {
  const employee = await loadEmployee(ctx.q, ctx.orgId, p.employeeId);
  const now = today(ctx.deps);
  if (p.date > now) throw badRequest('date', `${p.date} is in the future; claim an expense once it is paid`);
  const taxCode = p.taxCode ?? ACCOUNTS.get(p.account)?.defaultTaxCode;
  const gst = taxCode === 'GST' ? gstOf(p.totalCents) : 0;
  const claimId = newId('clm');
  const merchant = p.merchant.trim().replace(/\s+/g, ' ');
  if (!merchant) throw badRequest('merchant', 'must not be blank');
  await ctx.q.query(
    `INSERT INTO books_expense_claims (org_id, claim_id, employee_id, date, merchant, total_cents, gst_cents, account_code, tax_code, receipt_ref, status, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'SUBMITTED', $11)`,
    [ctx.orgId, claimId, employee.employee_id, p.date, merchant, p.totalCents, gst, p.account, taxCode, p.receiptRef ?? null, ctx.principal.id],
  );
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  const noInvoice = taxCode === 'GST' && !p.receiptRef && p.totalCents > policy.taxInvoiceThresholdCents;
  return finish(
    ctx,
    {
      kind: 'books.expense.claim',
      entityId: claimId,
      payload: {
        claimId,
        employeeId: employee.employee_id,
        date: p.date,
        merchant,
        totalCents: p.totalCents,
        gstCents: gst,
        account: p.account,
        taxCode,
        hasReceipt: p.receiptRef !== undefined,
      },
    },
    { claim: await view(ctx, claimId), journalId: null, changed: true },
    `Submitted expense claim ${claimId} by ${employee.name}: ${formatCents(p.totalCents)} at ${merchant} on ${p.date}, coded ${p.account} (${taxCode}${gst ? `, GST ${formatCents(gst)}` : ''}); nothing posts until it is approved (books.expenseApprove)${noInvoice ? `. Note: no receipt given; a GST credit over ${formatCents(policy.taxInvoiceThresholdCents)} needs a tax invoice` : ''}`,
  );
});

export const expenseApprove = handler(c.expenseApprove, async (ctx, p) => {
  const row = await loadClaim(ctx.q, ctx.orgId, p.id, true);
  const label = claimLabel(row);
  if (row.status !== 'SUBMITTED') {
    return finish(
      ctx,
      { kind: 'books.expense.approve', entityId: row.claim_id, payload: { claimId: row.claim_id, status: row.status, noop: true } },
      { claim: claimView(row), journalId: row.journal_id, changed: false },
      `Expense ${label} was already approved (${row.status}); nothing changed`,
    );
  }
  // Posted on the claim date while that period is open, else today (a lodged period stays as lodged).
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  const date = policy.lockDate && row.date <= policy.lockDate ? today(ctx.deps) : row.date;
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date,
    narration: `Expense ${label}`,
    sourceKind: 'claim',
    sourceId: row.claim_id,
    postedBy: ctx.principal.id,
    lines: [
      { account: row.account_code, amountCents: row.total_cents - row.gst_cents, taxCode: row.tax_code, taxCents: row.gst_cents, description: row.merchant },
      { account: ACC.gst, amountCents: row.gst_cents, description: `GST on ${label}` },
      { account: ACC.expenseClaims, amountCents: -row.total_cents, description: `Owed to ${row.employee_name}` },
    ],
  });
  await ctx.q.query(
    `UPDATE books_expense_claims SET status = 'AUTHORISED', journal_id = $3, approved_by = $4, approved_at = now(), updated_at = now()
      WHERE org_id = $1 AND claim_id = $2`,
    [ctx.orgId, row.claim_id, journalId, ctx.principal.id],
  );
  return finish(
    ctx,
    {
      kind: 'books.expense.approve',
      entityId: row.claim_id,
      payload: {
        claimId: row.claim_id,
        status: 'AUTHORISED',
        date,
        totalCents: row.total_cents,
        gstCents: row.gst_cents,
        account: row.account_code,
        journalId,
      },
    },
    { claim: await view(ctx, row.claim_id), journalId, changed: true },
    `Approved expense ${label}: ${formatCents(row.total_cents)} owed to ${row.employee_name}, posted ${date}`,
  );
});
