import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../../helpers/harness.js';
import { MISSING, approveHold, booksServer, checkInvariants, expectHold, idem, mutate, type BooksServer } from './setup.js';
import { expectOk, head, otherOrg, refused } from '../../helpers/calls.js';

let s: BooksServer;
let other: TestClient;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  other = await otherOrg(s);
});
afterAll(() => s.close());

const invariants = () => checkInvariants(s.runtime.db, s.org.orgId);

async function draft(extra: Record<string, unknown> = {}) {
  const r = await s.client.ok('books.invoiceDraft', { payeeName: 'Harbour Cafe', description: 'Bookkeeping', totalCents: 110000, dueDays: 14, ...extra });
  return r.invoice;
}
async function sent(extra: Record<string, unknown> = {}) {
  const inv = await draft(extra);
  return (await s.client.ok('books.invoiceSend', { id: inv.id })).invoice;
}
const journal = async (journalId: string) =>
  s.runtime.db.query<{ account_code: string; amount_cents: number; tax_code: string | null; tax_cents: number }>(
    'SELECT account_code, amount_cents, tax_code, tax_cents FROM books_journal_lines WHERE org_id = $1 AND journal_id = $2 ORDER BY line_no',
    [s.org.orgId, journalId],
  );

describe('books.invoiceDraft', () => {
  it('drafts with GST = round(total / 11), finds or creates the contact, posts nothing', async () => {
    const { result, event } = await mutate(
      s.client,
      'books.invoiceDraft',
      { payeeName: '  Blue  Wren Studio ', description: 'Logo design', totalCents: 100000, dueDays: 30 },
      'books.invoice.draft',
    );
    expect(result.invoice).toMatchObject({
      status: 'DRAFT',
      number: null,
      totalCents: 100000,
      gstCents: 9091,
      amountDueCents: 100000,
      dueDays: 30,
      issueDate: null,
      contact: { name: 'Blue Wren Studio' },
    });
    expect(result.journalId).toBeNull();
    expect(event.payload).toMatchObject({ invoiceId: result.invoice.id, totalCents: 100000, gstCents: 9091 });
    const again = await s.client.ok('books.invoiceDraft', { payeeName: 'blue wren studio', description: 'Second', totalCents: 5000, dueDays: 7 });
    expect(again.invoice.contact.id).toBe(result.invoice.contact.id);
    await invariants();
  });

  it('refuses bad input naming the field', async () => {
    await refused(s.client, 'books.invoiceDraft', { payeeName: 'X', description: 'Y', totalCents: 10.5, dueDays: 7 }, 'BAD_REQUEST', {
      message: /^totalCents: /,
    });
    await refused(s.client, 'books.invoiceDraft', { payeeName: 'X', description: 'Y', totalCents: 0, dueDays: 7 }, 'BAD_REQUEST', { message: /^totalCents: / });
    await refused(s.client, 'books.invoiceDraft', { payeeName: '', description: 'Y', totalCents: 100, dueDays: 7 }, 'BAD_REQUEST', { message: /^payeeName: / });
    await refused(s.client, 'books.invoiceDraft', { payeeName: 'X', description: 'Y', totalCents: 100 }, 'BAD_REQUEST', { message: 'dueDays: required' });
    await refused(s.client, 'books.invoiceDraft', { payeeName: 'X', description: 'Y', totalCents: 100, dueDays: -1 }, 'BAD_REQUEST', { message: /^dueDays: / });
    await refused(s.client, 'books.invoiceDraft', { payeeName: 'X', description: 'Y', totalCents: 100, dueDays: 1, extra: 1 }, 'BAD_REQUEST', {
      message: 'extra: unknown field',
    });
  });
});

describe('books.invoiceSend', () => {
  it('numbers, dates and posts Dr 610 / Cr 200 / Cr 820; a replay posts nothing', async () => {
    const inv = await draft({ totalCents: 110000, dueDays: 14 });
    const { result, event } = await mutate(s.client, 'books.invoiceSend', { id: inv.id }, 'books.invoice.send');
    expect(result.invoice).toMatchObject({ status: 'AUTHORISED', issueDate: '2026-11-02', dueDate: '2026-11-16', amountDueCents: 110000 });
    expect(result.invoice.number).toMatch(/^INV-\d{4}$/);
    expect(result.message).toContain(result.invoice.number);
    // AUTHORISED and posted, but nothing emails it: never "Sent invoice".
    expect(result.message).toMatch(/authorised and posted as sent: .*; not emailed: this server sends no invoices/);
    expect(event.payload.journalId).toBe(result.journalId);
    expect(await journal(result.journalId)).toEqual([
      { account_code: '610', amount_cents: 110000, tax_code: null, tax_cents: 0 },
      { account_code: '200', amount_cents: -100000, tax_code: 'GST', tax_cents: -10000 },
      { account_code: '820', amount_cents: -10000, tax_code: null, tax_cents: 0 },
    ]);
    const replay = await mutate(s.client, 'books.invoiceSend', { id: inv.id }, 'books.invoice.send');
    expect(replay.result.changed).toBe(false);
    expect(replay.result.invoice.number).toBe(result.invoice.number);
    expect(replay.event.payload.noop).toBe(true);
    const journals = await s.runtime.db.query(`SELECT 1 FROM books_journals WHERE org_id = $1 AND source_id = $2`, [s.org.orgId, inv.id]);
    expect(journals).toHaveLength(1);
    await invariants();
  });

  it('idempotency key replays the stored frame', async () => {
    const inv = await draft();
    const key = idem('send');
    const first = await s.client.rpc('books.invoiceSend', { id: inv.id }, { idem: key });
    const second = await s.client.rpc('books.invoiceSend', { id: inv.id }, { idem: key });
    expect(second.raw).toBe(first.raw);
    expect(second.headers['idempotent-replay']).toBe('true');
  });

  it('missing, other org, voided, bad id', async () => {
    await refused(s.client, 'books.invoiceSend', { id: MISSING.invoice }, 'NOT_FOUND', { message: /invoice .* not found/ });
    const inv = await draft();
    await refused(other, 'books.invoiceSend', { id: inv.id }, 'NOT_FOUND');
    await s.client.ok('books.invoiceVoid', { id: inv.id });
    await refused(s.client, 'books.invoiceSend', { id: inv.id }, 'CONFLICT', { message: /DELETED/ });
    await refused(s.client, 'books.invoiceSend', { id: 'bill_123' }, 'BAD_REQUEST', { message: /^id: / });
  });
});

describe('books.invoiceRecordPayment', () => {
  it('part then full payment: Dr 090 / Cr 610, PAID at zero', async () => {
    const inv = await sent({ totalCents: 50000 });
    const part = await mutate(s.client, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 20000 }, 'books.invoice.record_payment');
    expect(part.result.invoice).toMatchObject({ status: 'AUTHORISED', amountPaidCents: 20000, amountDueCents: 30000 });
    expect(await journal(part.result.journalId)).toEqual([
      { account_code: '090', amount_cents: 20000, tax_code: null, tax_cents: 0 },
      { account_code: '610', amount_cents: -20000, tax_code: null, tax_cents: 0 },
    ]);
    const rest = await mutate(s.client, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 30000, date: '2026-11-02' }, 'books.invoice.record_payment');
    expect(rest.result.invoice).toMatchObject({ status: 'PAID', amountDueCents: 0 });
    expect(rest.result.message).toMatch(/PAID/);
    await invariants();
  });

  it('refuses overpayment, payment of a draft or a paid invoice, dates before issue, other org', async () => {
    const inv = await sent({ totalCents: 1000 });
    await refused(s.client, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 1001 }, 'BAD_REQUEST', { message: /^amountCents: / });
    await refused(s.client, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 100, date: '2026-10-01' }, 'BAD_REQUEST', { message: /^date: .*before/ });
    await refused(s.client, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 100, date: '2026-13-01' }, 'BAD_REQUEST', { message: /^date: / });
    await refused(other, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 100 }, 'NOT_FOUND');
    await refused(s.client, 'books.invoiceRecordPayment', { id: MISSING.invoice, amountCents: 100 }, 'NOT_FOUND');
    const d = await draft();
    await refused(s.client, 'books.invoiceRecordPayment', { id: d.id, amountCents: 100 }, 'CONFLICT', { message: /DRAFT/ });
    await s.client.ok('books.invoiceRecordPayment', { id: inv.id, amountCents: 1000 });
    await refused(s.client, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 1 }, 'CONFLICT', { message: /PAID/ });
  });
});

describe('books.invoiceCreditNote', () => {
  it('credits Dr 200 + Dr 820 / Cr 610 and can settle the invoice', async () => {
    const inv = await sent({ totalCents: 22000 });
    const { result } = await mutate(s.client, 'books.invoiceCreditNote', { id: inv.id, amountCents: 11000, reason: 'Discount' }, 'books.invoice.credit');
    expect(result.creditNote).toMatchObject({ amountCents: 11000, gstCents: 1000, reason: 'Discount' });
    expect(result.creditNote.number).toMatch(/^CN-\d{4}$/);
    expect(result.invoice).toMatchObject({ amountCreditedCents: 11000, amountDueCents: 11000, status: 'AUTHORISED' });
    expect(await journal(result.journalId)).toEqual([
      { account_code: '200', amount_cents: 10000, tax_code: 'GST', tax_cents: 1000 },
      { account_code: '820', amount_cents: 1000, tax_code: null, tax_cents: 0 },
      { account_code: '610', amount_cents: -11000, tax_code: null, tax_cents: 0 },
    ]);
    const rest = await s.client.ok('books.invoiceCreditNote', { id: inv.id, amountCents: 11000, reason: 'Written off' });
    expect(rest.invoice.status).toBe('PAID');
    await invariants();
  });

  it('refuses more than due, drafts, missing reason, other org', async () => {
    const inv = await sent({ totalCents: 5000 });
    await refused(s.client, 'books.invoiceCreditNote', { id: inv.id, amountCents: 5001, reason: 'x' }, 'BAD_REQUEST', { message: /^amountCents: / });
    await refused(s.client, 'books.invoiceCreditNote', { id: inv.id, amountCents: 100 }, 'BAD_REQUEST', { message: 'reason: required' });
    await refused(other, 'books.invoiceCreditNote', { id: inv.id, amountCents: 100, reason: 'x' }, 'NOT_FOUND');
    const d = await draft();
    await refused(s.client, 'books.invoiceCreditNote', { id: d.id, amountCents: 100, reason: 'x' }, 'CONFLICT', { message: /DRAFT/ });
  });
});

describe('books.invoiceVoid', () => {
  it('deletes a draft; voids an unpaid invoice with an exact reversal; replays change nothing', async () => {
    const d = await draft();
    const del = await mutate(s.client, 'books.invoiceVoid', { id: d.id }, 'books.invoice.void');
    expect(del.result.invoice).toMatchObject({ status: 'DELETED', amountDueCents: 0 });
    expect(del.result.journalId).toBeNull();

    const inv = await sent({ totalCents: 33000 });
    const { result } = await mutate(s.client, 'books.invoiceVoid', { id: inv.id, reason: 'Wrong customer' }, 'books.invoice.void');
    expect(result.invoice).toMatchObject({ status: 'VOIDED', amountDueCents: 0 });
    const original = await journal(inv.journalId);
    const reversal = await journal(result.journalId);
    expect(reversal).toEqual(original.map((l) => ({ ...l, amount_cents: 0 - l.amount_cents, tax_cents: 0 - l.tax_cents })));
    const again = await mutate(s.client, 'books.invoiceVoid', { id: inv.id }, 'books.invoice.void');
    expect(again.result.changed).toBe(false);
    await invariants();
  });

  it('refuses a paid or credited invoice (use a credit note); missing and other org', async () => {
    const inv = await sent({ totalCents: 5000 });
    await s.client.ok('books.invoiceRecordPayment', { id: inv.id, amountCents: 100 });
    await refused(s.client, 'books.invoiceVoid', { id: inv.id }, 'CONFLICT', { message: /credit note/ });
    await refused(s.client, 'books.invoiceVoid', { id: MISSING.invoice }, 'NOT_FOUND');
    await refused(other, 'books.invoiceVoid', { id: inv.id }, 'NOT_FOUND');
  });
});

describe('books.invoicePromise', () => {
  it('opens a promise that pauses chasing, replaces an earlier one, is kept by payment, breaks after grace', async () => {
    const inv = await sent({ totalCents: 40000 });
    const first = await mutate(s.client, 'books.invoicePromise', { id: inv.id, date: '2026-11-20' }, 'books.invoice.promise');
    expect(first.result.promise).toMatchObject({ status: 'OPEN', date: '2026-11-20', amountCents: null });
    await refused(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 1 }, 'CONFLICT', { message: /paused/ });
    const second = await mutate(s.client, 'books.invoicePromise', { id: inv.id, date: '2026-11-25', amountCents: 10000 }, 'books.invoice.promise');
    expect(second.event.payload.replaced).toBe(first.result.promise.id);
    const paid = await s.client.ok('books.invoiceRecordPayment', { id: inv.id, amountCents: 10000 });
    expect(paid.invoice.promise).toMatchObject({ id: second.result.promise.id, status: 'KEPT' });

    const late = await sent({ totalCents: 40000 });
    await s.client.ok('books.invoicePromise', { id: late.id, date: '2026-11-03' });
    s.clock.set('2026-11-07'); // promised date + 3 grace days has passed
    const read = await s.client.ok('books.invoices', { status: 'AUTHORISED', limit: 200 });
    expect(read.invoices.find((i: any) => i.id === late.id).promise.status).toBe('BROKEN');
    // A broken promise no longer pauses chasing.
    await mutate(s.client, 'books.invoiceChaseStep', { id: late.id, step: 1 }, 'books.invoice.chase');
    s.clock.set('2026-11-02');
  });

  it('is not idempotent by key: each call is a new act', async () => {
    const inv = await sent();
    const key = idem('promise');
    const a = await s.client.rpc('books.invoicePromise', { id: inv.id, date: '2026-12-01' }, { idem: key });
    const b = await s.client.rpc('books.invoicePromise', { id: inv.id, date: '2026-12-01' }, { idem: key });
    expect(a.body.result.promise.id).not.toBe(b.body.result.promise.id);
  });

  it('refuses past dates, more than due, drafts, missing, other org', async () => {
    const inv = await sent({ totalCents: 1000 });
    await refused(s.client, 'books.invoicePromise', { id: inv.id, date: '2026-11-01' }, 'BAD_REQUEST', { message: /^date: .*past/ });
    await refused(s.client, 'books.invoicePromise', { id: inv.id, date: '2026-12-01', amountCents: 2000 }, 'BAD_REQUEST', { message: /^amountCents: / });
    await refused(s.client, 'books.invoicePromise', { id: (await draft()).id, date: '2026-12-01' }, 'CONFLICT', { message: /DRAFT/ });
    await refused(s.client, 'books.invoicePromise', { id: MISSING.invoice, date: '2026-12-01' }, 'NOT_FOUND');
    await refused(other, 'books.invoicePromise', { id: inv.id, date: '2026-12-01' }, 'NOT_FOUND');
  });
});

describe('books.invoiceChaseStep', () => {
  it('step 1 runs; steps only move forward; repeating a step changes nothing', async () => {
    const inv = await sent();
    const { result } = await mutate(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 1 }, 'books.invoice.chase');
    expect(result.reminder).toMatchObject({ step: 1, tone: 'friendly' });
    expect(result.invoice.chaseStep).toBe(1);
    const again = await mutate(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 1 }, 'books.invoice.chase');
    expect(again.result.changed).toBe(false);
    await refused(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 4 }, 'BAD_REQUEST', { message: /^step: / });
  });

  it('step 2 holds without proof, runs with a human approval, and the proof is single-use', async () => {
    const inv = await sent({ totalCents: 77000 });
    await s.client.ok('books.invoiceChaseStep', { id: inv.id, step: 1 });
    const hold = await expectHold(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 2 }, 'books.invoice_chase_step', {
      key: s.agent.apiKey,
      idem: idem(),
    });
    expect(hold.subjectId).toBe(inv.id);
    expect(hold.approval.subject.summary).toMatch(/Step 2 \(firm\)/);
    const unchanged = await s.client.ok('books.invoices', { limit: 200 });
    expect(unchanged.invoices.find((i: any) => i.id === inv.id).chaseStep).toBe(1);

    const approvalId = await approveHold(s, hold);
    const { result } = await mutate(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 2, approvalId }, 'books.invoice.chase', {
      key: s.agent.apiKey,
      idem: idem(),
    });
    expect(result).toMatchObject({ approvalId, changed: true, reminder: { tone: 'firm' } });
    // Nothing mails the customer: the message says what was recorded and that nothing was sent.
    expect(result.message).toMatch(/^Chase step 2 \(firm\) recorded on .*, signed off under approval apr_\w+; not sent: this server sends no reminders/);
    expect(result.message).not.toMatch(/send the reminder/);
    // Step 3 with the step-2 proof: another payload -> CONFLICT.
    await refused(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 3, approvalId }, 'CONFLICT', {
      message: /payloadHash/,
      key: s.agent.apiKey,
      idem: idem(),
    });
  });

  it('refuses backwards steps, paid invoices, drafts, missing, other org', async () => {
    const inv = await sent({ totalCents: 1000 });
    await s.client.ok('books.invoiceChaseStep', { id: inv.id, step: 1 });
    const hold = await expectHold(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 3 }, 'books.invoice_chase_step');
    const approvalId = await approveHold(s, hold);
    await s.client.ok('books.invoiceChaseStep', { id: inv.id, step: 3, approvalId });
    await refused(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 2 }, 'CONFLICT', { message: /forward/ });
    const paid = await sent({ totalCents: 1000 });
    await s.client.ok('books.invoiceRecordPayment', { id: paid.id, amountCents: 1000 });
    await refused(s.client, 'books.invoiceChaseStep', { id: paid.id, step: 1 }, 'CONFLICT', { message: /PAID/ });
    await refused(s.client, 'books.invoiceChaseStep', { id: (await draft()).id, step: 1 }, 'CONFLICT', { message: /DRAFT/ });
    await refused(s.client, 'books.invoiceChaseStep', { id: MISSING.invoice, step: 1 }, 'NOT_FOUND');
    await refused(other, 'books.invoiceChaseStep', { id: inv.id, step: 1 }, 'NOT_FOUND');
  });
});

describe('books.statementRun', () => {
  it('ages open items as at a date from documents, payments and credits dated by then', async () => {
    const mine = await otherOrg(s); // a clean org, so the figures are exactly these invoices
    s.clock.set('2026-08-01');
    const old = (await mine.ok('books.invoiceDraft', { payeeName: 'Old Co', description: 'Old', totalCents: 10000, dueDays: 0 })).invoice;
    await mine.ok('books.invoiceSend', { id: old.id });
    s.clock.set('2026-10-20');
    const recent = (await mine.ok('books.invoiceDraft', { payeeName: 'Old Co', description: 'Recent', totalCents: 5000, dueDays: 30 })).invoice;
    await mine.ok('books.invoiceSend', { id: recent.id });
    await mine.ok('books.invoiceRecordPayment', { id: old.id, amountCents: 4000, date: '2026-10-25' });
    s.clock.set('2026-11-02');
    const before = await head(mine);
    const res = await mine.rpc('books.statementRun', { asOf: '2026-11-01' });
    const run = expectOk('books.statementRun', res);
    expect(run.statements).toHaveLength(1);
    const st = run.statements[0];
    expect(st.totalDueCents).toBe(11000);
    // Due 1 Aug, as at 1 Nov: 92 days past due.
    expect(st.buckets).toEqual({ current: 5000, '1-30': 0, '31-60': 0, '61-90': 0, '90+': 6000 });
    expect(st.lines.map((l: any) => [l.balanceCents, l.daysOverdue, l.bucket])).toEqual([
      [6000, 92, '90+'],
      [5000, 0, 'current'],
    ]);
    expect(run.message).toContain(`ledger #${run.ledgerId}`);
    expect(await head(mine)).toBe(before + 1);
    // Before the payment's date the whole old invoice was owed.
    const earlier = await mine.ok('books.statementRun', { asOf: '2026-10-24' });
    expect(earlier.statements[0].lines[0].balanceCents).toBe(10000);
    await refused(mine, 'books.statementRun', { asOf: '2026-11-01', contactId: MISSING.contact }, 'NOT_FOUND');
    await refused(mine, 'books.statementRun', { asOf: 'yesterday' }, 'BAD_REQUEST', { message: /^asOf: / });
  });
});

describe('books.invoices', () => {
  it('pages with cursor and filters by status, contact and overdue', async () => {
    const mine = await otherOrg(s);
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push((await mine.ok('books.invoiceDraft', { payeeName: `Cust ${i % 2}`, description: 'x', totalCents: 1000 + i, dueDays: 0 })).invoice);
    await mine.ok('books.invoiceSend', { id: made[0].id });
    const first = expectOk('books.invoices', await mine.rpc('books.invoices', { limit: 2 }));
    expect(first.invoices.map((i: any) => i.id)).toEqual([made[0].id, made[1].id]);
    const second = await mine.ok('books.invoices', { limit: 2, cursor: first.nextCursor });
    expect(second.invoices.map((i: any) => i.id)).toEqual([made[2].id, made[3].id]);
    const last = await mine.ok('books.invoices', { limit: 2, cursor: second.nextCursor });
    expect(last.invoices.map((i: any) => i.id)).toEqual([made[4].id]);
    expect(last.nextCursor).toBeNull();
    expect((await mine.ok('books.invoices', { status: 'AUTHORISED' })).invoices.map((i: any) => i.id)).toEqual([made[0].id]);
    expect((await mine.ok('books.invoices', { contactId: made[1].contact.id })).invoices).toHaveLength(2);
    s.clock.set('2026-11-05');
    expect((await mine.ok('books.invoices', { overdue: true })).invoices.map((i: any) => [i.id, i.daysOverdue])).toEqual([[made[0].id, 3]]);
    s.clock.set('2026-11-02');
    await refused(mine, 'books.invoices', { status: 'OPEN' }, 'BAD_REQUEST', { message: /^status: / });
    await refused(mine, 'books.invoices', { limit: 201 }, 'BAD_REQUEST', { message: /^limit: / });
    const reader = await s.client.mint({ tier: 'reader' });
    expect((await s.client.rpc('books.invoices', {}, { key: reader.apiKey })).status).toBe(200);
    await refused(s.client, 'books.invoiceDraft', { payeeName: 'X', description: 'Y', totalCents: 1, dueDays: 1 }, 'FORBIDDEN_SCOPE', {
      message: 'missing scope books.write for books.invoiceDraft',
      key: reader.apiKey,
    });
  });
});
