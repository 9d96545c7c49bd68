import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { reconcilePaymentRun, settleBill } from '../../../domain/books/payables/settle.js';
import type { HandlerCtx } from '../../../domain/core/handler.js';
import { one } from '../../../db/types.js';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { MISSING, approveHold, booksServer, checkInvariants, expectHold, idem, mutate, type BooksServer } from './setup.js';
import { otherOrg, refused } from '../../helpers/calls.js';

let s: BooksServer;
let other: TestClient;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  other = await otherOrg(s);
});
afterAll(() => s.close());

const PAY_DATE = '2026-11-30';
const RUN = 'books.billScheduleRun';
const CLASS = 'books.bill_schedule_run';
const agent = () => ({ key: s.agent.apiKey, idem: idem('run') });

const invariants = () => checkInvariants(s.runtime.db, s.org.orgId);

/** settleBill and reconcilePaymentRun as bank matching calls them: inside a call's transaction. */
const direct = <T>(fn: (ctx: HandlerCtx) => Promise<T>, orgId = s.org.orgId) =>
  s.runtime.db.tx((q) => fn({ q, orgId, principal: { id: 'bank-matcher' } } as unknown as HandlerCtx));

let refs = 0;
async function draft(supplierName: string, totalCents: number, extra: Record<string, unknown> = {}) {
  const params = { supplierName, reference: `R-${++refs}`, issueDate: '2026-10-20', dueDate: '2026-11-19', totalCents, ...extra };
  return (await s.client.ok('books.billCapture', params)).bill;
}
/** An AUTHORISED bill; a flagged one (every supplier's first bill) is signed by the human approver. */
async function authorised(supplierName: string, totalCents: number, extra: Record<string, unknown> = {}) {
  const bill = await draft(supplierName, totalCents, extra);
  const first = await s.client.rpc('books.billApprove', { id: bill.id }, agent());
  if (first.body.ok) return first.body.result.bill;
  const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.body.error.message)![1];
  const approvalId = await approveHold(s, {
    approval: { actionClass: 'books.bill_approve', payloadHash, subject: { kind: 'books.signature', subjectId: bill.id, summary: 'bill' } },
  });
  return (await s.client.ok('books.billApprove', { id: bill.id, approvalId }, agent())).bill;
}
async function executeRun(billIds: string[], payDate = PAY_DATE) {
  const hold = await expectHold(s.client, RUN, { payDate, billIds }, CLASS, agent());
  const approvalId = await approveHold(s, hold);
  return s.client.ok(RUN, { payDate, billIds, approvalId }, agent());
}
const runIdOf = (payDate: string, ids: string[]) => `brun_${sha256Hex(`${payDate}\n${[...ids].sort().join(',')}`).slice(0, 16)}`;
const billById = async (id: string) => (await s.client.ok('books.bills', { limit: 200 })).bills.find((b: any) => b.id === id);
const count = async (sql: string, args: unknown[]) => Number(one(await s.runtime.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${sql}`, args)).n);
const journal = async (journalId: string) =>
  s.runtime.db.query('SELECT account_code, amount_cents, contact_id FROM books_journal_lines WHERE org_id = $1 AND journal_id = $2 ORDER BY line_no', [
    s.org.orgId,
    journalId,
  ]);

describe('books.billScheduleRun', () => {
  it('holds without proof changing nothing, names one run in any order, pays once signed, and replays as a no-op', async () => {
    const a = await authorised('Acme Supplies', 600000); // ABOVE FLOOR too: signed at approval
    const b = await authorised('Blue Gum Freight', 40000);
    const ids = [a.id, b.id];
    const sorted = [...ids].sort();
    const runId = runIdOf(PAY_DATE, ids);
    const hold = await expectHold(s.client, RUN, { payDate: PAY_DATE, billIds: ids }, CLASS, agent());
    expect(hold.subjectId).toBe(runId);
    expect(hold.approval.payloadHash).toBe(sha256Hex(canonicalJson({ actionClass: CLASS, subjectId: runId, params: { payDate: PAY_DATE, billIds: sorted } })));
    const parts = sorted.map((id) => (id === a.id ? `Acme Supplies $6,000.00 ref ${a.reference}` : `Blue Gum Freight $400.00 ref ${b.reference}`));
    expect(hold.approval.subject.summary).toBe(`Pay 2 bills on ${PAY_DATE}: $6,400.00 (${parts.join(', ')})`);
    const reversed = await expectHold(s.client, RUN, { payDate: PAY_DATE, billIds: [b.id, a.id] }, CLASS, agent());
    expect([reversed.subjectId, reversed.approval.payloadHash]).toEqual([runId, hold.approval.payloadHash]);
    // The hold changed nothing.
    expect(await billById(a.id)).toMatchObject({ status: 'AUTHORISED', amountDueCents: 600000, runId: null });
    expect(await count('books_payments WHERE org_id = $1 AND doc_id = ANY($2)', [s.org.orgId, ids])).toBe(0);
    expect(await count('books_payment_runs WHERE org_id = $1 AND run_id = $2', [s.org.orgId, runId])).toBe(0);

    const approvalId = await approveHold(s, hold);
    const { result, event } = await mutate(s.client, RUN, { payDate: PAY_DATE, billIds: [b.id, a.id], approvalId }, 'books.bill.schedule_run', agent());
    expect(result.run).toMatchObject({ id: runId, payDate: PAY_DATE, totalCents: 640000, approvalId, feedLineId: null });
    // Recorded as paid in the books; no money moves, and the message says so.
    expect(result.message).toMatch(
      /^Payment run brun_\w+: recorded 2 bills as paid on .*; no money moved: this server makes no bank payments, so pay them from the bank/,
    );
    expect(result.run.bills.map((x: any) => [x.billId, x.amountCents])).toEqual(sorted.map((id) => [id, id === a.id ? 600000 : 40000]));
    expect(event.payload).toEqual({ runId, payDate: PAY_DATE, billIds: sorted, totalCents: 640000, approvalId });
    expect(event.entity_id).toBe(runId);
    for (const paid of result.run.bills) {
      expect(await journal(paid.journalId)).toEqual([
        { account_code: '800', amount_cents: paid.amountCents, contact_id: paid.contact.id },
        { account_code: '090', amount_cents: -paid.amountCents, contact_id: paid.contact.id },
      ]);
      expect(await billById(paid.billId)).toMatchObject({ status: 'PAID', amountDueCents: 0, amountPaidCents: paid.amountCents, runId });
    }
    const { date } = one(
      await s.runtime.db.query<{ date: string }>('SELECT date FROM books_journals WHERE org_id = $1 AND journal_id = $2', [
        s.org.orgId,
        result.run.bills[0].journalId,
      ]),
    );
    expect(date).toBe(PAY_DATE);
    await invariants();

    // A retry names the same run: without proof it is a no-op; with the used proof it is refused as used.
    const replay = await mutate(s.client, RUN, { payDate: PAY_DATE, billIds: ids }, 'books.bill.schedule_run', agent());
    expect(replay.result).toMatchObject({ changed: false, run: { id: runId, totalCents: 640000, approvalId } });
    expect(replay.event.payload.noop).toBe(true);
    await refused(s.client, RUN, { payDate: PAY_DATE, billIds: [b.id, a.id], approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /already used .*the act it approved has run/,
      ...agent(),
    });
    expect(await count(`books_payments WHERE org_id = $1 AND doc_kind = 'bill' AND doc_id = ANY($2)`, [s.org.orgId, ids])).toBe(2);
    expect((await s.client.ok('approval.get', { approvalId })).used).toBe(true);
    // billApprove on a paid bill: the event names the run.
    const approveEvent = await mutate(s.client, 'books.billApprove', { id: b.id }, 'books.bill.approve');
    expect(approveEvent.event.payload).toEqual({ payee: 'Blue Gum Freight', totalCents: 40000, heldReason: 'NEW PAYEE', runId });
    await invariants();
  });

  it('a proof is bound to its run and single-use: another run or a reuse is refused', async () => {
    const c = await authorised('Cedar Joinery', 11000);
    const d = await authorised('Cedar Joinery', 22000);
    const hold = await expectHold(s.client, RUN, { payDate: PAY_DATE, billIds: [c.id] }, CLASS, agent());
    const filed = await s.client.ok(
      'approval.request',
      { actionClass: CLASS, payloadHash: hold.approval.payloadHash, subject: hold.approval.subject },
      { key: s.agent.apiKey },
    );
    await refused(s.client, RUN, { payDate: PAY_DATE, billIds: [c.id], approvalId: filed.approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /pending/,
      ...agent(),
    });
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: s.approver.apiKey });
    const approvalId = filed.approvalId;
    await refused(s.client, RUN, { payDate: PAY_DATE, billIds: [d.id], approvalId }, 'CONFLICT', {
      message: new RegExp(`subject ${hold.subjectId}, not ${runIdOf(PAY_DATE, [d.id])}`),
      ...agent(),
    });
    await refused(s.client, RUN, { payDate: '2026-12-01', billIds: [c.id], approvalId }, 'CONFLICT', { message: /subject/, ...agent() });
    await s.client.ok(RUN, { payDate: PAY_DATE, billIds: [c.id], approvalId }, agent());
    // Used on its run, the proof cannot back another one.
    await expectHold(s.client, RUN, { payDate: PAY_DATE, billIds: [d.id] }, CLASS, agent());
    await refused(s.client, RUN, { payDate: PAY_DATE, billIds: [d.id], approvalId }, 'CONFLICT', { message: /approval .* was filed for subject/, ...agent() });
    expect(await billById(d.id)).toMatchObject({ status: 'AUTHORISED', runId: null });
    await invariants();
  });

  it('a long run keeps its summary within what approval.request accepts', async () => {
    const supplier = `Southern Cross Commercial Refrigeration and Airconditioning Maintenance Services Pty Ltd ${'x'.repeat(40)}`;
    const bills = [];
    for (let i = 0; i < 12; i++) bills.push(await authorised(supplier, 1000 + i));
    const { run } = await executeRun(bills.map((b) => b.id));
    expect(run.totalCents).toBe(12066);
    const hold = one(
      await s.runtime.db.query<{ summary: string }>('SELECT summary FROM signature_holds WHERE org_id = $1 AND subject_id = $2', [s.org.orgId, run.id]),
    );
    expect(hold.summary.length).toBeLessThanOrEqual(500);
    expect(hold.summary).toMatch(/^Pay 12 bills on 2026-11-30: \$120\.66 \(.*, and \d+ more\)$/);
  });

  it('refuses bad input, missing or other-org bills, and names every bill that cannot be paid and why', async () => {
    const ok = await authorised('Dune Electrical', 5000);
    await refused(s.client, RUN, { payDate: PAY_DATE, billIds: [] }, 'BAD_REQUEST', { message: /^billIds: / });
    await refused(s.client, RUN, { payDate: PAY_DATE, billIds: [ok.id, ok.id] }, 'BAD_REQUEST', { message: 'billIds: must not repeat a bill' });
    await refused(s.client, RUN, { payDate: PAY_DATE, billIds: Array.from({ length: 101 }, (_, i) => `bill_x${i}`) }, 'BAD_REQUEST', {
      message: /^billIds: .*at most 100/,
    });
    await refused(s.client, RUN, { payDate: PAY_DATE, billIds: ['inv_123'] }, 'BAD_REQUEST', { message: /^billIds\.0: / });
    await refused(s.client, RUN, { payDate: '30/11/2026', billIds: [ok.id] }, 'BAD_REQUEST', { message: /^payDate: / });
    await refused(s.client, RUN, { payDate: '2026-11-01', billIds: [ok.id] }, 'BAD_REQUEST', { message: /^payDate: .*past/ });
    await refused(s.client, RUN, { payDate: PAY_DATE, billIds: [ok.id, MISSING.bill] }, 'NOT_FOUND', { message: new RegExp(`bill ${MISSING.bill} not found`) });
    await refused(other, RUN, { payDate: PAY_DATE, billIds: [ok.id] }, 'NOT_FOUND');

    const draftBill = await draft('Dune Electrical', 5001);
    const held = await authorised('Dune Electrical', 5002);
    await s.client.ok('books.billHold', { id: held.id, reason: 'Invoice disputed' });
    const paid = await authorised('Dune Electrical', 5003);
    await direct((ctx) => settleBill(ctx, paid.id, { amountCents: 5003, date: '2026-11-02' }));
    const future = await authorised('Dune Electrical', 5004, { issueDate: '2026-12-05', dueDate: '2026-12-31' });
    const msg = await refused(s.client, RUN, { payDate: PAY_DATE, billIds: [ok.id, draftBill.id, held.id, paid.id, future.id] }, 'CONFLICT', {
      message: /^billScheduleRun: 4 of 5 bills cannot be paid/,
    });
    expect(msg).toContain(`${draftBill.id} (Dune Electrical, ref ${draftBill.reference}, $50.01) is a DRAFT`);
    expect(msg).toContain(`${held.id} (Dune Electrical, ref ${held.reference}, $50.02) is on hold (Invoice disputed)`);
    expect(msg).toContain(`${paid.id} (Dune Electrical, ref ${paid.reference}, $50.03) is PAID`);
    expect(msg).toContain(`${future.id} (Dune Electrical, ref ${future.reference}, $50.04) was issued 2026-12-05, after the pay date`);
    expect(msg).not.toContain(`${ok.id} (`);
  });
});

describe('settleBill', () => {
  it('pays part then the rest: Dr 800 / Cr 090, a payment row each, PAID at zero; a hold does not block it', async () => {
    const bill = await authorised('Eastern Couriers', 10000);
    await s.client.ok('books.billHold', { id: bill.id, reason: 'Checking' });
    const part = await direct((ctx) => settleBill(ctx, bill.id, { amountCents: 4000, date: '2026-11-03', feedLineId: 'fl_bankline0001' }));
    expect(part.label).toContain(bill.id);
    expect(await journal(part.journalId)).toEqual([
      { account_code: '800', amount_cents: 4000, contact_id: bill.contact.id },
      { account_code: '090', amount_cents: -4000, contact_id: bill.contact.id },
    ]);
    const [payment] = await s.runtime.db.query<any>(
      'SELECT doc_kind, doc_id, amount_cents, date, journal_id, feed_line_id, payment_run_id FROM books_payments WHERE org_id = $1 AND payment_id = $2',
      [s.org.orgId, part.paymentId],
    );
    expect(payment).toEqual({
      doc_kind: 'bill',
      doc_id: bill.id,
      amount_cents: 4000,
      date: '2026-11-03',
      journal_id: part.journalId,
      feed_line_id: 'fl_bankline0001',
      payment_run_id: null,
    });
    expect(await billById(bill.id)).toMatchObject({ status: 'AUTHORISED', amountPaidCents: 4000, amountDueCents: 6000, onHold: true });
    await invariants();
    await direct((ctx) => settleBill(ctx, bill.id, { amountCents: 6000, date: '2026-11-04' }));
    expect(await billById(bill.id)).toMatchObject({ status: 'PAID', amountPaidCents: 10000, amountDueCents: 0 });
    await invariants();
  });

  it('refuses more than due, a date before issue, drafts, paid bills, missing and other-org bills', async () => {
    const bill = await authorised('Eastern Couriers', 3000);
    await expect(direct((ctx) => settleBill(ctx, bill.id, { amountCents: 3001, date: '2026-11-02' }))).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^amountCents: 3001 is more than the 3000 cents due/),
    });
    await expect(direct((ctx) => settleBill(ctx, bill.id, { amountCents: 100, date: '2026-10-01' }))).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^date: .*before/),
    });
    const d = await draft('Eastern Couriers', 3002);
    await expect(direct((ctx) => settleBill(ctx, d.id, { amountCents: 100, date: '2026-11-02' }))).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/DRAFT; approve it first/),
    });
    await direct((ctx) => settleBill(ctx, bill.id, { amountCents: 3000, date: '2026-11-02' }));
    await expect(direct((ctx) => settleBill(ctx, bill.id, { amountCents: 1, date: '2026-11-02' }))).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/PAID with nothing due/),
    });
    await expect(direct((ctx) => settleBill(ctx, MISSING.bill, { amountCents: 1, date: '2026-11-02' }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const elsewhere = await freshOrg(s.runtime, 'elsewhere');
    await expect(direct((ctx) => settleBill(ctx, d.id, { amountCents: 1, date: '2026-11-02' }), elsewhere.orgId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await invariants();
  });
});

describe('reconcilePaymentRun', () => {
  it('reconciles an executed run once, for exactly its total, posting nothing', async () => {
    const f = await authorised('Fern Gardens', 12345);
    const g = await authorised('Fern Gardens', 55);
    const { run } = await executeRun([f.id, g.id]);
    const journalsBefore = await count('books_journals WHERE org_id = $1', [s.org.orgId]);
    await expect(direct((ctx) => reconcilePaymentRun(ctx, run.id, { amountCents: 12399, feedLineId: 'fl_runline00001' }))).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/bank line is \$123\.99 but payment run .* paid \$124\.00/),
    });
    const done = await direct((ctx) => reconcilePaymentRun(ctx, run.id, { amountCents: 12400, feedLineId: 'fl_runline00001' }));
    expect(done.label).toBe(`payment run ${run.id} (2 bills, $124.00 on ${PAY_DATE})`);
    const replay = await s.client.ok(RUN, { payDate: PAY_DATE, billIds: [g.id, f.id] });
    expect(replay.run.feedLineId).toBe('fl_runline00001');
    expect(await count(`books_payments WHERE org_id = $1 AND payment_run_id = $2 AND feed_line_id = 'fl_runline00001'`, [s.org.orgId, run.id])).toBe(2);
    await expect(direct((ctx) => reconcilePaymentRun(ctx, run.id, { amountCents: 12400, feedLineId: 'fl_runline00002' }))).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/already reconciled to feed line fl_runline00001/),
    });
    await expect(direct((ctx) => reconcilePaymentRun(ctx, 'brun_0000000000000000', { amountCents: 1, feedLineId: 'fl_x' }))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const elsewhere = await freshOrg(s.runtime, 'elsewhere');
    await expect(direct((ctx) => reconcilePaymentRun(ctx, run.id, { amountCents: 12400, feedLineId: 'fl_x' }), elsewhere.orgId)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await count('books_journals WHERE org_id = $1', [s.org.orgId])).toBe(journalsBefore);
    await invariants();
  });
});
