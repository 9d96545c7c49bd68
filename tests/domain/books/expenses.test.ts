import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLockDate } from '../../../domain/books/policy.js';
import type { TestClient } from '../../helpers/harness.js';
import { MISSING, booksServer, mutate, type BooksServer } from './setup.js';
import { otherOrg, refused } from '../../helpers/calls.js';
import { payrollKit, type Desk } from './payroll-kit.js';

/** Expense claims: submitted, approved onto 801 Unpaid expense claims, reimbursed through settleClaim. */

let s: BooksServer;
let other: TestClient;
let k: ReturnType<typeof payrollKit>;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  other = await otherOrg(s);
  k = payrollKit(s);
});
afterAll(() => s.close());

/** A clean org and one employee (a PENDING one may claim too). */
async function claimant(): Promise<{ d: Desk; employeeId: string }> {
  const d = await k.desk();
  return { d, employeeId: (await k.start(d)).employee.id };
}
const claim = async (d: Desk, employeeId: string, extra: Record<string, unknown> = {}) =>
  (
    await d.client.ok('books.expenseClaim', {
      employeeId,
      date: '2026-10-20',
      merchant: 'Officeworks',
      totalCents: 8_800,
      account: '429',
      receiptRef: 'r/1.pdf',
      ...extra,
    })
  ).claim;
const approved = async (d: Desk, employeeId: string, extra: Record<string, unknown> = {}) =>
  (await d.client.ok('books.expenseApprove', { id: (await claim(d, employeeId, extra)).id })).claim;
const claimRow = async (claimId: string) =>
  (await s.runtime.db.query<{ status: string; paid_cents: number }>('SELECT status, paid_cents FROM books_expense_claims WHERE claim_id = $1', [claimId]))[0];

describe('books.expenseClaim', () => {
  it('submits a GST-inclusive claim with the account’s tax code by default; posts nothing', async () => {
    const { d, employeeId } = await claimant();
    const { result, event } = await mutate(
      d.client,
      'books.expenseClaim',
      { employeeId, date: '2026-10-20', merchant: ' Officeworks ', totalCents: 8_800, account: '429', receiptRef: 'receipts/ow.pdf' },
      'books.expense.claim',
    );
    // GST = round(8800 / 11) = 800.
    expect(result.claim).toMatchObject({
      employee: { id: employeeId, name: 'Jane Citizen' },
      merchant: 'Officeworks',
      totalCents: 8_800,
      gstCents: 800,
      account: '429',
      taxCode: 'GST',
      status: 'SUBMITTED',
      amountPaidCents: 0,
      amountDueCents: 8_800,
      receiptRef: 'receipts/ow.pdf',
      journalId: null,
    });
    expect(result.journalId).toBeNull();
    expect(event.payload).toMatchObject({
      claimId: result.claim.id,
      employeeId,
      totalCents: 8_800,
      gstCents: 800,
      account: '429',
      taxCode: 'GST',
      hasReceipt: true,
    });
    expect(await k.journalCount(d)).toBe(0);
    // Bank fees default to INPUT_TAXED; an explicit code wins; a GST claim over $82.50 without a receipt is flagged.
    expect(await claim(d, employeeId, { account: '404', totalCents: 1_500 })).toMatchObject({ taxCode: 'INPUT_TAXED', gstCents: 0 });
    expect(await claim(d, employeeId, { taxCode: 'GST_FREE' })).toMatchObject({ taxCode: 'GST_FREE', gstCents: 0 });
    const bare = await d.client.ok('books.expenseClaim', { employeeId, date: '2026-11-02', merchant: 'Cafe', totalCents: 9_000, account: '429' });
    expect(bare.message).toMatch(/no receipt given; a GST credit over \$82\.50 needs a tax invoice/);
    await k.invariants(d);
  });

  it('refuses accounts that are not claimable, bad input, future dates; missing and other org employees', async () => {
    const { d, employeeId } = await claimant();
    const base = { employeeId, date: '2026-10-20', merchant: 'Officeworks', totalCents: 8_800, account: '429' };
    await refused(d.client, 'books.expenseClaim', { ...base, account: '090' }, 'BAD_REQUEST', {
      message: 'account: must be an expense account a purchase can be coded to (404, 429)',
    });
    await refused(d.client, 'books.expenseClaim', { ...base, account: '477' }, 'BAD_REQUEST', { message: /^account: must be an expense account/ });
    await refused(d.client, 'books.expenseClaim', { ...base, account: '999' }, 'BAD_REQUEST', { message: /^account: / });
    await refused(d.client, 'books.expenseClaim', { ...base, taxCode: 'VAT' }, 'BAD_REQUEST', { message: /^taxCode: / });
    await refused(d.client, 'books.expenseClaim', { ...base, totalCents: 0 }, 'BAD_REQUEST', { message: /^totalCents: / });
    await refused(d.client, 'books.expenseClaim', { ...base, merchant: '' }, 'BAD_REQUEST', { message: /^merchant: / });
    await refused(d.client, 'books.expenseClaim', { ...base, merchant: ' ' }, 'BAD_REQUEST', { message: 'merchant: must not be blank' });
    await refused(d.client, 'books.expenseClaim', { ...base, date: '2026-11-03' }, 'BAD_REQUEST', { message: /^date: .*future/ });
    await refused(d.client, 'books.expenseClaim', { ...base, employeeId: MISSING.employee }, 'NOT_FOUND', { message: /employee .* not found/ });
    await refused(other, 'books.expenseClaim', base, 'NOT_FOUND', { message: /employee .* not found/ });
  });
});

describe('books.expenseApprove', () => {
  it('posts Dr expense (net, with its GST) + Dr 820 / Cr 801 on the claim date; replays post nothing', async () => {
    const { d, employeeId } = await claimant();
    const c = await claim(d, employeeId);
    const { result, event } = await mutate(d.client, 'books.expenseApprove', { id: c.id }, 'books.expense.approve');
    expect(result.claim).toMatchObject({ status: 'AUTHORISED', amountDueCents: 8_800, journalId: result.journalId });
    expect(result.claim.approvedBy).toBeTruthy();
    expect(await k.lines(result.journalId)).toEqual([
      { account_code: '429', amount_cents: 8_000, tax_code: 'GST', tax_cents: 800 },
      { account_code: '820', amount_cents: 800, tax_code: null, tax_cents: 0 },
      { account_code: '801', amount_cents: -8_800, tax_code: null, tax_cents: 0 },
    ]);
    expect(await k.journalHead(result.journalId)).toMatchObject({ date: '2026-10-20', source_kind: 'claim', source_id: c.id });
    expect(event.payload).toMatchObject({ claimId: c.id, status: 'AUTHORISED', journalId: result.journalId });
    await k.invariants(d);
    const replay = await mutate(d.client, 'books.expenseApprove', { id: c.id }, 'books.expense.approve');
    expect(replay.result).toMatchObject({ changed: false, journalId: result.journalId });
    expect(replay.event.payload.noop).toBe(true);
    expect(await k.journalCount(d)).toBe(1);
  });

  it('a claim without GST posts the whole total; a claim in a locked period posts today', async () => {
    const { d, employeeId } = await claimant();
    const fees = await approved(d, employeeId, { account: '404', totalCents: 1_500 });
    expect(await k.lines(fees.journalId)).toEqual([
      { account_code: '404', amount_cents: 1_500, tax_code: 'INPUT_TAXED', tax_cents: 0 },
      { account_code: '801', amount_cents: -1_500, tax_code: null, tax_cents: 0 },
    ]);
    const late = await claim(d, employeeId, { date: '2026-09-15' });
    await setLockDate(s.runtime.db, d.orgId, '2026-09-30');
    const done = await d.client.ok('books.expenseApprove', { id: late.id });
    expect((await k.journalHead(done.journalId)).date).toBe('2026-11-02');
    await k.invariants(d);
  });

  it('refuses missing, other org and bad ids', async () => {
    const { d, employeeId } = await claimant();
    const c = await claim(d, employeeId);
    await refused(d.client, 'books.expenseApprove', { id: MISSING.claim }, 'NOT_FOUND', { message: /expense claim .* not found/ });
    await refused(other, 'books.expenseApprove', { id: c.id }, 'NOT_FOUND');
    await refused(d.client, 'books.expenseApprove', { id: 'inv_1' }, 'BAD_REQUEST', { message: /^id: / });
  });
});

describe('settleClaim (bank matching reimburses the employee)', () => {
  it('posts Dr 801 / Cr 090 with a payment row, PAID at zero; refuses unapproved, too much, too early, paid', async () => {
    const { d, employeeId } = await claimant();
    const submitted = await claim(d, employeeId);
    await expect(k.reimburse(d, submitted.id, 100)).rejects.toMatchObject({ code: 'CONFLICT', message: /approve it first/ });
    const c = await approved(d, employeeId);
    const part = await k.reimburse(d, c.id, 3_000);
    expect(await k.lines(part.journalId)).toEqual([
      { account_code: '801', amount_cents: 3_000, tax_code: null, tax_cents: 0 },
      { account_code: '090', amount_cents: -3_000, tax_code: null, tax_cents: 0 },
    ]);
    expect(part.label).toContain(c.id);
    expect(await claimRow(c.id)).toEqual({ status: 'AUTHORISED', paid_cents: 3_000 });
    await k.invariants(d);
    await expect(k.reimburse(d, c.id, 5_801)).rejects.toMatchObject({ code: 'BAD_REQUEST', message: /^amountCents: / });
    await expect(k.reimburse(d, c.id, 100, '2026-10-19')).rejects.toMatchObject({ code: 'BAD_REQUEST', message: /^date: / });
    await k.reimburse(d, c.id, 5_800);
    expect(await claimRow(c.id)).toEqual({ status: 'PAID', paid_cents: 8_800 });
    const payments = await s.runtime.db.query<{ doc_kind: string; amount_cents: number }>(
      'SELECT doc_kind, amount_cents FROM books_payments WHERE doc_id = $1 ORDER BY n',
      [c.id],
    );
    expect(payments).toEqual([
      { doc_kind: 'claim', amount_cents: 3_000 },
      { doc_kind: 'claim', amount_cents: 5_800 },
    ]);
    await expect(k.reimburse(d, c.id, 1)).rejects.toMatchObject({ code: 'CONFLICT', message: /PAID/ });
    await expect(k.reimburse(d, MISSING.claim, 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // A replayed approval of a paid claim changes nothing.
    expect((await d.client.ok('books.expenseApprove', { id: c.id })).changed).toBe(false);
    await k.invariants(d);
  });
});
