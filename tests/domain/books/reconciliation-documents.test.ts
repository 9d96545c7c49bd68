import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../../helpers/harness.js';
import { MISSING, booksServer, idem, mutate, type BooksServer } from './setup.js';
import { otherOrg, refused } from '../../helpers/calls.js';
import { feedLine, fileRefusal, freshDesk, invariants, journal, readLine, signed, type Desk } from './reconciliation-kit.js';

/*
 * Bank lines matched to the documents of the other areas (bills, payment runs, expense claims, pay runs), each
 * created through its own methods, and settled through that area's settlement function.
 */

let s: BooksServer;
let other: TestClient;
let d: Desk;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  other = await otherOrg(s);
  d = await freshDesk(s, 'docs');
});
afterAll(() => s.close());

const j = (account_code: string, amount_cents: number) => ({ account_code, amount_cents, tax_code: null, tax_cents: 0 });
const row = async (sql: string, args: unknown[]) => (await s.runtime.db.query<any>(sql, args))[0];

let refs = 0;
/** A captured and approved bill (its NEW PAYEE refusal filed and signed by the human, as PB-B1 asks). */
async function approvedBill(supplierName: string, totalCents: number): Promise<any> {
  const bill = (await d.client.ok('books.billCapture', { supplierName, reference: `SI-${++refs}`, issueDate: '2026-10-20', dueDate: '2026-11-19', totalCents }))
    .bill;
  const first = await d.client.rpc('books.billApprove', { id: bill.id }, { key: d.agent, idem: idem() });
  if (first.body.ok) return first.body.result.bill;
  const approvalId = await fileRefusal(d, 'books.bill_approve', bill.id, first.body.error.message);
  return (await d.client.ok('books.billApprove', { id: bill.id, approvalId }, { key: d.agent, idem: idem() })).bill;
}

/** An employee through all four onboarding steps (the contract step signed by the human). */
async function activeEmployee(person: string): Promise<string> {
  const started = await d.client.ok('books.onboardingStart', {
    person,
    role: 'Bookkeeper',
    startDate: '2026-10-01',
    rate: { basis: 'ANNUAL', amountCents: 7800000, hoursPerWeek: 38 },
  });
  const id = started.onboarding.id;
  await d.client.ok('books.onboardingAdvance', { id, step: 'tfn', data: { tfn: '123456782', claimsTaxFreeThreshold: true } });
  await d.client.ok('books.onboardingAdvance', { id, step: 'super', data: { fundName: 'AustralianSuper', usi: 'STA0100AU', memberNumber: '100200' } });
  await d.client.ok('books.onboardingAdvance', { id, step: 'bank', data: { bsb: '062-000', accountNumber: '12345678', accountName: person } });
  await signed(d, 'books.onboardingAdvance', { id, step: 'contract', data: { contractRef: 'contracts/jane.pdf', signedOn: '2026-10-01' } });
  return started.employee.id;
}

describe('bills and payment runs', () => {
  it('money out to a bill settles it through settleBill: Dr 800 / Cr 090 dated the line date', async () => {
    const bill = await approvedBill('Coastal Office Supplies', 33000);
    const lineId = await feedLine(s, d, -33000, { date: '2026-11-06', payee: 'COASTAL OFFICE SUPPLIES' });
    const seen = await readLine(s, d, lineId);
    expect(seen.suggestion).toMatchObject({
      kind: 'bill',
      id: bill.id,
      amountDueCents: 33000,
      target: { kind: 'bill', billId: bill.id },
      score: { exactAmount: true, contactMatchPercent: 100 },
    });
    const { result, event } = await mutate(d.client, 'books.matchAccept', { lineId, target: seen.suggestion.target }, 'books.feed.match');
    expect(result.line).toMatchObject({ status: 'RECONCILED', target: { kind: 'bill', billId: bill.id } });
    expect(await journal(s, d.orgId, result.journalId)).toEqual([j('800', 33000), j('090', -33000)]);
    expect(await row('SELECT date FROM books_journals WHERE journal_id = $1', [result.journalId])).toEqual({ date: '2026-11-06' });
    expect(await row('SELECT status, paid_cents FROM books_bills WHERE bill_id = $1', [bill.id])).toEqual({ status: 'PAID', paid_cents: 33000 });
    expect(await row('SELECT feed_line_id FROM books_payments WHERE payment_id = $1', [result.paymentId])).toEqual({ feed_line_id: lineId });
    expect(event.payload).toMatchObject({ targetKind: 'bill', targetId: bill.id, amountCents: -33000 });
    await invariants(s, d.orgId);
  });

  it('refuses more than due, a line before the bill, the wrong direction, missing and other org bills', async () => {
    const bill = await approvedBill('Coastal Office Supplies', 10000);
    const target = { kind: 'bill', billId: bill.id };
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, -10001), target }, 'BAD_REQUEST', {
      message: /^target\.billId: the line's \$100\.01 is more than the \$100\.00 due/,
    });
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, -100, { date: '2026-10-19' }), target }, 'BAD_REQUEST', {
      message: /^target\.billId: .*before bill/,
    });
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, 100), target }, 'CONFLICT', {
      message: /money in; a bill match needs money out/,
    });
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, -100), target: { kind: 'bill', billId: MISSING.bill } }, 'NOT_FOUND', {
      message: /bill .* not found/,
    });
    const foreign = await feedLine(s, { ...d, client: other, orgId: (await other.get('org/whoami')).body.orgId }, -100);
    await refused(other, 'books.matchAccept', { lineId: foreign, target }, 'NOT_FOUND', { message: /bill .* not found/ });
  });

  it('one debit reconciles an executed payment run exactly (no journal: the run posted), once', async () => {
    const a = await approvedBill('Harbour Printing', 22000);
    const b = await approvedBill('Harbour Printing', 11000);
    const run = (await signed(d, 'books.billScheduleRun', { payDate: '2026-11-10', billIds: [a.id, b.id] })).run;
    const lineId = await feedLine(s, d, -33000, { date: '2026-11-10', description: 'BATCH PAYMENT' });
    const seen = await readLine(s, d, lineId);
    expect(seen.suggestions.find((x: any) => x.kind === 'paymentRun')).toMatchObject({
      id: run.id,
      amountDueCents: 33000,
      target: { kind: 'paymentRun', paymentRunId: run.id },
    });
    const journals = await row('SELECT count(*)::int AS c FROM books_journals WHERE org_id = $1', [d.orgId]);
    const { result } = await mutate(d.client, 'books.matchAccept', { lineId, target: { kind: 'paymentRun', paymentRunId: run.id } }, 'books.feed.match');
    expect(result).toMatchObject({
      journalId: null,
      paymentId: null,
      line: { status: 'RECONCILED', journalId: null, target: { kind: 'paymentRun', paymentRunId: run.id } },
    });
    expect(await row('SELECT count(*)::int AS c FROM books_journals WHERE org_id = $1', [d.orgId])).toEqual(journals);
    expect(await row('SELECT feed_line_id FROM books_payment_runs WHERE org_id = $1 AND run_id = $2', [d.orgId, run.id])).toEqual({ feed_line_id: lineId });
    const again = await feedLine(s, d, -33000);
    expect((await readLine(s, d, again)).suggestions.some((x: any) => x.kind === 'paymentRun')).toBe(false);
    await refused(d.client, 'books.matchAccept', { lineId: again, target: { kind: 'paymentRun', paymentRunId: run.id } }, 'CONFLICT', {
      message: /already reconciled to bank feed line/,
    });
    await refused(d.client, 'books.matchAccept', { lineId: again, target: { kind: 'paymentRun', paymentRunId: 'brun_doesnotexist0000' } }, 'NOT_FOUND', {
      message: /payment run/,
    });
    const c = await approvedBill('Harbour Printing', 5000);
    const run2 = (await signed(d, 'books.billScheduleRun', { payDate: '2026-11-11', billIds: [c.id] })).run;
    await refused(
      d.client,
      'books.matchAccept',
      { lineId: await feedLine(s, d, -4000), target: { kind: 'paymentRun', paymentRunId: run2.id } },
      'BAD_REQUEST',
      { message: /^target\.paymentRunId: .*must be equal/ },
    );
    await invariants(s, d.orgId);
  });
});

describe('expense claims and pay runs', () => {
  it('money out to an approved claim settles it through settleClaim: Dr 801 / Cr 090', async () => {
    const employeeId = await activeEmployee('Jane Citizen');
    const claim = (await d.client.ok('books.expenseClaim', { employeeId, date: '2026-11-01', merchant: 'Officeworks', totalCents: 8800, account: '429' }))
      .claim;
    const target = { kind: 'claim', claimId: claim.id };
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, -8800), target }, 'CONFLICT', { message: /SUBMITTED; approve it first/ });
    await d.client.ok('books.expenseApprove', { id: claim.id });
    const lineId = await feedLine(s, d, -8800, { date: '2026-11-04', payee: 'JANE CITIZEN', description: 'REIMBURSE JANE CITIZEN' });
    expect((await readLine(s, d, lineId)).suggestion).toMatchObject({ kind: 'claim', id: claim.id, score: { contactMatchPercent: 100 } });
    const { result } = await mutate(d.client, 'books.matchAccept', { lineId, target }, 'books.feed.match');
    expect(await journal(s, d.orgId, result.journalId)).toEqual([j('801', 8800), j('090', -8800)]);
    expect(await row('SELECT status, paid_cents FROM books_expense_claims WHERE claim_id = $1', [claim.id])).toEqual({ status: 'PAID', paid_cents: 8800 });
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, -100), target }, 'CONFLICT', { message: /PAID with nothing owed/ });
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, -100), target: { kind: 'claim', claimId: MISSING.claim } }, 'NOT_FOUND');
    await invariants(s, d.orgId);
  });

  it('money out to a posted pay run pays its net wages through settlePayRun: Dr 804 / Cr 090', async () => {
    await activeEmployee('Sam Worker');
    const draft = (await d.client.ok('books.payrollDraft', { periodStart: '2026-11-01', periodEnd: '2026-11-14', payDate: '2026-11-15' })).payRun;
    const target = { kind: 'payRun', payRunId: draft.id };
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, -100, { date: '2026-11-15' }), target }, 'CONFLICT', { message: /DRAFT/ });
    const run = (await signed(d, 'books.payrollSign', { runId: draft.id })).payRun;
    const net = run.netCents as number;
    expect(net).toBeGreaterThan(0);
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, -net, { date: '2026-11-13' }), target }, 'BAD_REQUEST', {
      message: /^target\.payRunId: .*before .* ends/,
    });
    await refused(d.client, 'books.matchAccept', { lineId: await feedLine(s, d, -(net + 1), { date: '2026-11-15' }), target }, 'BAD_REQUEST', {
      message: /^target\.payRunId: .*more than/,
    });
    const lineId = await feedLine(s, d, -net, { date: '2026-11-15', description: 'PAYROLL' });
    expect((await readLine(s, d, lineId)).suggestions.map((x: any) => x.id)).toContain(draft.id);
    const { result } = await mutate(d.client, 'books.matchAccept', { lineId, target }, 'books.feed.match');
    expect(await journal(s, d.orgId, result.journalId)).toEqual([j('804', net), j('090', -net)]);
    expect(await row('SELECT paid_cents FROM books_pay_runs WHERE run_id = $1', [draft.id])).toEqual({ paid_cents: net });
    await refused(
      d.client,
      'books.matchAccept',
      { lineId: await feedLine(s, d, -100, { date: '2026-11-15' }), target: { kind: 'payRun', payRunId: MISSING.payRun } },
      'NOT_FOUND',
      { message: /pay run/ },
    );
    await invariants(s, d.orgId);
  });
});
