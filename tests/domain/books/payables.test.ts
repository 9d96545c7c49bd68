import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { setLockDate } from '../../../domain/books/policy.js';
import { settleBill } from '../../../domain/books/payables/settle.js';
import type { HandlerCtx } from '../../../domain/core/handler.js';
import { one } from '../../../db/types.js';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { MISSING, booksServer, checkInvariants, idem, mutate, type BooksServer } from './setup.js';
import { expectOk, otherOrg, refused } from '../../helpers/calls.js';
import { fileRefusal } from './reconciliation-kit.js';

let s: BooksServer;
let other: TestClient;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  other = await otherOrg(s);
});
afterAll(() => s.close());

interface Desk {
  client: TestClient;
  orgId: string;
  agent: string;
  approver: string;
}
const main = (): Desk => ({ client: s.client, orgId: s.org.orgId, agent: s.agent.apiKey, approver: s.approver.apiKey });

/** A clean org with its own agent and human approver (for paging and period-lock tests). */
async function freshDesk(): Promise<Desk> {
  const org = await freshOrg(s.runtime, 'pay');
  const client = new TestClient(s.app, org.adminKey);
  const agent = await client.mint({ tier: 'agent' }, 'agent');
  const approver = await client.mint({ tier: 'approver' }, 'approver');
  return { client, orgId: org.orgId, agent: agent.apiKey, approver: approver.apiKey };
}

let refs = 0;
const BILL = { supplierName: 'Coastal Office Supplies', issueDate: '2026-10-20', dueDate: '2026-11-19' };
async function capture(extra: Record<string, unknown> = {}, desk = main()) {
  const params = { ...BILL, reference: `SI-${++refs}`, ...(extra.lines ? {} : { totalCents: 11000 }), ...extra };
  return (await desk.client.ok('books.billCapture', params)).bill;
}

/** billApprove by the agent; a PB-B1 refusal is filed, approved by the human and retried with the proof. */
async function approve(billId: string, desk = main()) {
  const first = await desk.client.rpc('books.billApprove', { id: billId }, { key: desk.agent, idem: idem() });
  if (first.body.ok) return first.body.result;
  expect(first.body.error.code, first.raw).toBe('GOVERNANCE_NOT_READY');
  const approvalId = await fileRefusal(desk, 'books.bill_approve', billId, first.body.error.message);
  return desk.client.ok('books.billApprove', { id: billId, approvalId }, { key: desk.agent, idem: idem() });
}
const approveHash = (billId: string) => sha256Hex(canonicalJson({ actionClass: 'books.bill_approve', subjectId: billId, params: { id: billId } }));

const journal = async (journalId: string, orgId = s.org.orgId) =>
  s.runtime.db.query<{ account_code: string; amount_cents: number; tax_code: string | null; tax_cents: number; contact_id: string | null }>(
    'SELECT account_code, amount_cents, tax_code, tax_cents, contact_id FROM books_journal_lines WHERE org_id = $1 AND journal_id = $2 ORDER BY line_no',
    [orgId, journalId],
  );
const journalsOf = async (billId: string) =>
  s.runtime.db.query<{ journal_id: string; date: string; source_kind: string }>(
    'SELECT journal_id, date, source_kind FROM books_journals WHERE org_id = $1 AND source_id = $2 ORDER BY n',
    [s.org.orgId, billId],
  );
const contactBank = async (contactId: string) =>
  (
    await s.runtime.db.query<{ bank_bsb: string | null; bank_account: string | null }>(
      'SELECT bank_bsb, bank_account FROM books_contacts WHERE org_id = $1 AND contact_id = $2',
      [s.org.orgId, contactId],
    )
  )[0];
const invariants = (orgId = s.org.orgId) => checkInvariants(s.runtime.db, orgId);
const BANK_A = { bsb: '062-000', accountNumber: '12345678', accountName: 'Coastal Office Supplies' };
const BANK_B = { bsb: '083-004', accountNumber: '99887766', accountName: 'Coastal Office Supplies' };

describe('books.billCapture', () => {
  it('captures lines with GST per line and default tax codes; first bill from a supplier is NEW PAYEE; posts nothing', async () => {
    const params = {
      supplierName: '  Harbour   Print Co ',
      reference: 'HP-1001',
      issueDate: '2026-10-15',
      dueDate: '2026-11-14',
      abn: '51 824 753 556',
      lines: [
        { description: 'Flyers', account: '429', amountCents: 33000 },
        { description: 'Card fee', account: '404', amountCents: 250 },
        { description: 'Export freight', account: '429', amountCents: 5000, taxCode: 'GST_FREE' },
      ],
    };
    const { result, event } = await mutate(s.client, 'books.billCapture', params, 'books.bill.capture');
    expect(result.bill).toMatchObject({
      status: 'DRAFT',
      reference: 'HP-1001',
      totalCents: 38250,
      gstCents: 3000,
      amountDueCents: 38250,
      amountPaidCents: 0,
      abn: '51824753556',
      contact: { name: 'Harbour Print Co' },
      flags: ['NEW PAYEE'],
      heldReason: 'NEW PAYEE',
      onHold: false,
      journalId: null,
      runId: null,
      bank: null,
    });
    expect(result.bill.lines.map((l: any) => [l.account, l.taxCode, l.amountCents, l.gstCents, l.netCents])).toEqual([
      ['429', 'GST', 33000, 3000, 30000],
      ['404', 'INPUT_TAXED', 250, 0, 250],
      ['429', 'GST_FREE', 5000, 0, 5000],
    ]);
    expect(result.journalId).toBeNull();
    expect(result.message).toMatch(/NEW PAYEE/);
    expect(event.payload).toEqual({
      billId: result.bill.id,
      contactId: result.bill.contact.id,
      reference: 'HP-1001',
      issueDate: '2026-10-15',
      dueDate: '2026-11-14',
      totalCents: 38250,
      gstCents: 3000,
      flags: ['NEW PAYEE'],
      heldReason: 'NEW PAYEE',
    });
    expect(await journalsOf(result.bill.id)).toEqual([]);
    await invariants();
  });

  it('totalCents makes one line on 429 by default, or on the account and tax code given', async () => {
    const plain = await capture({ totalCents: 2200 });
    expect(plain.lines).toMatchObject([{ account: '429', taxCode: 'GST', amountCents: 2200, gstCents: 200 }]);
    const laptop = await capture({ totalCents: 2200, account: '720', taxCode: 'GST_FREE' });
    expect(laptop.lines).toMatchObject([{ account: '720', taxCode: 'GST_FREE', gstCents: 0, netCents: 2200 }]);
  });

  it('flags ABOVE FLOOR strictly above the floor and NEW PAYEE for a first bill or changed bank details', async () => {
    const supplier = 'Floor Test Traders';
    await approve((await capture({ supplierName: supplier, totalCents: 100 })).id); // now a known supplier
    expect((await capture({ supplierName: supplier, totalCents: 500000 })).flags).toEqual([]);
    const above = await capture({ supplierName: supplier, totalCents: 500001 });
    expect(above).toMatchObject({ flags: ['ABOVE FLOOR'], heldReason: 'ABOVE FLOOR' });
    const both = await capture({ supplierName: 'Brand New Supplier', totalCents: 600000 });
    expect(both).toMatchObject({ flags: ['ABOVE FLOOR', 'NEW PAYEE'], heldReason: 'ABOVE FLOOR' });
    const bank = await capture({ supplierName: supplier, totalCents: 100, bank: BANK_A });
    expect(bank).toMatchObject({ flags: ['NEW PAYEE'], heldReason: 'NEW PAYEE', bank: { bsb: '062000', accountNumber: '••••5678' } });
    // A returned (DELETED) draft does not make the supplier known.
    const ghost = await capture({ supplierName: 'Ghost Supplies', totalCents: 100 });
    await s.client.ok('books.billReturn', { id: ghost.id, reason: 'test' });
    expect((await capture({ supplierName: 'Ghost Supplies', totalCents: 100 })).flags).toEqual(['NEW PAYEE']);
  });

  it('refuses a duplicate (same supplier, reference ignoring case, total) naming the existing bill', async () => {
    const first = await capture({ reference: 'DUP-77', totalCents: 12345 });
    const msg = await refused(
      s.client,
      'books.billCapture',
      { ...BILL, supplierName: 'coastal office  supplies', reference: ' dup-77', totalCents: 12345 },
      'CONFLICT',
    );
    expect(msg).toContain(first.id);
    expect(msg).toMatch(/duplicate/);
    // Another amount is another bill; once the first is returned the same one may be captured again.
    await capture({ reference: 'DUP-77', totalCents: 12346 });
    await s.client.ok('books.billReturn', { id: first.id, reason: 'Captured twice' });
    await capture({ reference: 'DUP-77', totalCents: 12345 });
  });

  it('refuses bad input naming the field', async () => {
    const base = { ...BILL, reference: 'BAD-1' };
    await refused(s.client, 'books.billCapture', { ...base, totalCents: 100, lines: [{ description: 'x', account: '429', amountCents: 100 }] }, 'BAD_REQUEST', {
      message: /^totalCents: .*not both/,
    });
    await refused(s.client, 'books.billCapture', base, 'BAD_REQUEST', { message: /^lines: required/ });
    await refused(s.client, 'books.billCapture', { ...base, totalCents: 100, dueDate: '2026-10-19' }, 'BAD_REQUEST', {
      message: /^dueDate: .*before the issue date/,
    });
    await refused(s.client, 'books.billCapture', { ...base, lines: [{ description: 'x', account: '200', amountCents: 100 }] }, 'BAD_REQUEST', {
      message: /^lines\.0\.account: /,
    });
    await refused(
      s.client,
      'books.billCapture',
      {
        ...base,
        lines: [
          { description: 'x', account: '429', amountCents: 1 },
          { description: 'y', account: '800', amountCents: 1 },
        ],
      },
      'BAD_REQUEST',
      { message: /^lines\.1\.account: / },
    );
    await refused(s.client, 'books.billCapture', { ...base, lines: [{ description: 'x', account: '429', amountCents: 0 }] }, 'BAD_REQUEST', {
      message: /^lines\.0\.amountCents: /,
    });
    await refused(s.client, 'books.billCapture', { ...base, lines: [] }, 'BAD_REQUEST', { message: /^lines: / });
    const many = Array.from({ length: 51 }, () => ({ description: 'x', account: '429', amountCents: 1 }));
    await refused(s.client, 'books.billCapture', { ...base, lines: many }, 'BAD_REQUEST', { message: /^lines: .*at most 50/ });
    await refused(s.client, 'books.billCapture', { ...base, lines: [{ description: 'x', account: '429', amountCents: 1 }], account: '429' }, 'BAD_REQUEST', {
      message: /^account: only with totalCents/,
    });
    await refused(s.client, 'books.billCapture', { ...base, totalCents: 100, account: '090' }, 'BAD_REQUEST', { message: /^account: / });
    await refused(s.client, 'books.billCapture', { ...base, totalCents: 100, abn: '12 345 678 901' }, 'BAD_REQUEST', { message: /^abn: / });
    await refused(s.client, 'books.billCapture', { ...base, totalCents: 100, bank: { ...BANK_A, bsb: '12' } }, 'BAD_REQUEST', { message: /^bank\.bsb: / });
    await refused(s.client, 'books.billCapture', { ...base, totalCents: 100, issueDate: '2026-02-30' }, 'BAD_REQUEST', { message: /^issueDate: / });
    await refused(s.client, 'books.billCapture', { ...base, totalCents: 100, extra: 1 }, 'BAD_REQUEST', { message: 'extra: unknown field' });
  });

  it('an idempotency key replays the stored frame', async () => {
    const key = idem('capture');
    const params = { ...BILL, reference: 'IDEM-1', totalCents: 500 };
    const a = await s.client.rpc('books.billCapture', params, { idem: key });
    const b = await s.client.rpc('books.billCapture', params, { idem: key });
    expect(b.raw).toBe(a.raw);
    expect(b.headers['idempotent-replay']).toBe('true');
  });
});

describe('books.billApprove', () => {
  it('posts Dr net per line (tax code and GST) + Dr 820 / Cr 800 on the issue date, registers assets; a replay posts nothing', async () => {
    await approve((await capture({ supplierName: 'Byte Computers', totalCents: 100 })).id);
    const bill = await capture({
      supplierName: 'Byte Computers',
      issueDate: '2026-10-05',
      lines: [
        { description: 'Laptop', account: '720', amountCents: 242000 },
        { description: 'Setup', account: '429', amountCents: 11000 },
        { description: 'Card fee', account: '404', amountCents: 300 },
      ],
    });
    expect(bill.flags).toEqual([]);
    const { result, event } = await mutate(s.client, 'books.billApprove', { id: bill.id }, 'books.bill.approve');
    expect(result).toMatchObject({ changed: true, approvalId: null, bill: { status: 'AUTHORISED', amountDueCents: 253300, journalId: result.journalId } });
    expect(event.payload).toEqual({ payee: 'Byte Computers', totalCents: 253300, heldReason: null, runId: null });
    const c = bill.contact.id;
    expect(await journal(result.journalId)).toEqual([
      { account_code: '720', amount_cents: 220000, tax_code: 'GST', tax_cents: 22000, contact_id: c },
      { account_code: '429', amount_cents: 10000, tax_code: 'GST', tax_cents: 1000, contact_id: c },
      { account_code: '404', amount_cents: 300, tax_code: 'INPUT_TAXED', tax_cents: 0, contact_id: c },
      { account_code: '820', amount_cents: 23000, tax_code: null, tax_cents: 0, contact_id: null },
      { account_code: '800', amount_cents: -253300, tax_code: null, tax_cents: 0, contact_id: c },
    ]);
    expect((await journalsOf(bill.id)).map((j) => [j.date, j.source_kind])).toEqual([['2026-10-05', 'bill']]);
    expect(result.assetIds).toHaveLength(1);
    expect(result.bill.lines[0].assetId).toBe(result.assetIds[0]);
    const [asset] = await s.runtime.db.query<any>(
      'SELECT cost_account, cost_cents, purchase_date, source_kind, source_id FROM books_assets WHERE org_id = $1 AND asset_id = $2',
      [s.org.orgId, result.assetIds[0]],
    );
    expect(asset).toEqual({ cost_account: '720', cost_cents: 220000, purchase_date: '2026-10-05', source_kind: 'bill', source_id: bill.id });

    const replay = await mutate(s.client, 'books.billApprove', { id: bill.id }, 'books.bill.approve');
    expect(replay.result).toMatchObject({ changed: false, journalId: null, assetIds: [] });
    expect(replay.event.payload).toEqual(event.payload);
    expect(await journalsOf(bill.id)).toHaveLength(1);
    await invariants();
  });

  it('PB-B1 ABOVE FLOOR: refused GOVERNANCE_NOT_READY naming what to file, appends nothing; approves once a human signs', async () => {
    const bill = await capture({ supplierName: 'Big Ticket Fitouts', reference: 'BT-9', totalCents: 600000 });
    const msg = await refused(s.client, 'books.billApprove', { id: bill.id }, 'GOVERNANCE_NOT_READY', { key: s.agent.apiKey, idem: idem() });
    expect(msg).toContain(`billApprove: bill ${bill.id} from Big Ticket Fitouts for $6,000.00 is held ABOVE FLOOR (floor $5,000.00)`);
    expect(msg).toContain('rule PB-B1');
    expect(msg).toContain('actionClass books.bill_approve');
    expect(msg).toContain(`payloadHash ${approveHash(bill.id)}`);
    expect(msg).toContain('approval.request');
    const still = (await s.client.ok('books.bills', { contactId: bill.contact.id })).bills[0];
    expect(still).toMatchObject({ status: 'DRAFT', journalId: null, approvalId: null });
    expect(await journalsOf(bill.id)).toEqual([]);

    // A rejected approval is no proof.
    const rejected = await fileRefusal(main(), 'books.bill_approve', bill.id, msg, 'reject');
    await refused(s.client, 'books.billApprove', { id: bill.id, approvalId: rejected }, 'GOVERNANCE_NOT_READY', {
      message: /rejected/,
      key: s.agent.apiKey,
      idem: idem(),
    });

    const approvalId = await fileRefusal(main(), 'books.bill_approve', bill.id, msg);
    const { result, event } = await mutate(s.client, 'books.billApprove', { id: bill.id, approvalId }, 'books.bill.approve', {
      key: s.agent.apiKey,
      idem: idem(),
    });
    expect(result).toMatchObject({ changed: true, approvalId, bill: { status: 'AUTHORISED', approvalId, heldReason: 'ABOVE FLOOR' } });
    expect(result.message).toContain(approvalId);
    expect(event.payload).toEqual({ payee: 'Big Ticket Fitouts', totalCents: 600000, heldReason: 'ABOVE FLOOR', runId: null });
    expect(await journal(result.journalId)).toEqual([
      { account_code: '429', amount_cents: 545455, tax_code: 'GST', tax_cents: 54545, contact_id: bill.contact.id },
      { account_code: '820', amount_cents: 54545, tax_code: null, tax_cents: 0, contact_id: null },
      { account_code: '800', amount_cents: -600000, tax_code: null, tax_cents: 0, contact_id: bill.contact.id },
    ]);
    // A replay needs no signature and posts nothing.
    expect((await mutate(s.client, 'books.billApprove', { id: bill.id }, 'books.bill.approve', { key: s.agent.apiKey })).result.changed).toBe(false);
    await invariants();
  });

  it('PB-B1 NEW PAYEE: changed bank details reach the supplier only through a signed approval', async () => {
    const supplier = 'Reef Cleaning Services';
    const first = await capture({ supplierName: supplier, totalCents: 5500, bank: BANK_A });
    expect(first.heldReason).toBe('NEW PAYEE');
    await approve(first.id);
    expect(await contactBank(first.contact.id)).toEqual({ bank_bsb: '062000', bank_account: '12345678' });
    // Same details again: not flagged, approved without a signature.
    const same = await capture({ supplierName: supplier, totalCents: 5501, bank: BANK_A });
    expect(same.flags).toEqual([]);
    expect((await s.client.ok('books.billApprove', { id: same.id }, { key: s.agent.apiKey })).approvalId).toBeNull();

    const changed = await capture({ supplierName: supplier, totalCents: 5502, bank: BANK_B });
    expect(changed).toMatchObject({
      flags: ['NEW PAYEE'],
      heldReason: 'NEW PAYEE',
      bank: { accountNumber: '••••7766' },
      payeeBank: { accountNumber: '••••5678' },
    });
    const msg = await refused(s.client, 'books.billApprove', { id: changed.id }, 'GOVERNANCE_NOT_READY', {
      message: /NEW PAYEE \(its bank details differ/,
      key: s.agent.apiKey,
      idem: idem(),
    });
    expect(msg).toContain(`payloadHash ${approveHash(changed.id)}`);
    expect(await contactBank(first.contact.id)).toEqual({ bank_bsb: '062000', bank_account: '12345678' });
    const approvalId = await fileRefusal(main(), 'books.bill_approve', changed.id, msg);
    const { result, event } = await mutate(s.client, 'books.billApprove', { id: changed.id, approvalId }, 'books.bill.approve', {
      key: s.agent.apiKey,
      idem: idem(),
    });
    expect(event.payload).toEqual({ payee: supplier, totalCents: 5502, heldReason: 'NEW PAYEE', runId: null });
    expect(result.bill.payeeBank).toEqual({ bsb: '083004', accountNumber: '••••7766', accountName: BANK_B.accountName });
    expect(await contactBank(first.contact.id)).toEqual({ bank_bsb: '083004', bank_account: '99887766' });
    // Events never carry the account number.
    expect(JSON.stringify(event)).not.toContain('99887766');
    await invariants();
  });

  it('posts today when the issue date is in a locked period', async () => {
    const desk = await freshDesk();
    await setLockDate(s.runtime.db, desk.orgId, '2026-09-30');
    const bill = await capture({ issueDate: '2026-09-15', dueDate: '2026-10-15', totalCents: 1100 }, desk);
    const res = await approve(bill.id, desk);
    const j = one(
      await s.runtime.db.query<{ date: string }>('SELECT date FROM books_journals WHERE org_id = $1 AND journal_id = $2', [desk.orgId, res.journalId]),
    );
    expect(j.date).toBe('2026-11-02');
    await invariants(desk.orgId);
  });

  it('releases a hold on an approved bill without posting; a flagged bill needs a fresh signature and a used proof is refused', async () => {
    await approve((await capture({ supplierName: 'Hold Co', totalCents: 100 })).id);
    const plain = await capture({ supplierName: 'Hold Co', totalCents: 4400 });
    await s.client.ok('books.billApprove', { id: plain.id });
    await s.client.ok('books.billHold', { id: plain.id, reason: 'Query on quantity' });
    const { result, event } = await mutate(s.client, 'books.billApprove', { id: plain.id }, 'books.bill.approve');
    expect(result).toMatchObject({ changed: true, journalId: null, bill: { status: 'AUTHORISED', onHold: false, holdReason: null } });
    expect(result.message).toMatch(/Released the hold/);
    expect(event.payload).toEqual({ payee: 'Hold Co', totalCents: 4400, heldReason: null, runId: null });
    expect(await journalsOf(plain.id)).toHaveLength(1);

    const big = await capture({ supplierName: 'Hold Co', totalCents: 700000 });
    const approved = await approve(big.id);
    await s.client.ok('books.billHold', { id: big.id, reason: 'Supplier dispute' });
    await refused(s.client, 'books.billApprove', { id: big.id, approvalId: approved.approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /already used/,
      key: s.agent.apiKey,
      idem: idem(),
    });
    const msg = await refused(s.client, 'books.billApprove', { id: big.id }, 'GOVERNANCE_NOT_READY', {
      message: /releasing the hold .* ABOVE FLOOR/,
      key: s.agent.apiKey,
      idem: idem(),
    });
    const approvalId = await fileRefusal(main(), 'books.bill_approve', big.id, msg);
    const released = await mutate(s.client, 'books.billApprove', { id: big.id, approvalId }, 'books.bill.approve', { key: s.agent.apiKey, idem: idem() });
    expect(released.result).toMatchObject({ changed: true, approvalId, journalId: null, bill: { onHold: false, approvalId: approved.approvalId } });
    expect(await journalsOf(big.id)).toHaveLength(1);
    await invariants();
  });

  it('a held draft stays on hold when approved', async () => {
    const bill = await capture({ supplierName: 'Hold Co', totalCents: 999 });
    await s.client.ok('books.billHold', { id: bill.id, reason: 'Awaiting delivery' });
    const res = await s.client.ok('books.billApprove', { id: bill.id });
    expect(res.bill).toMatchObject({ status: 'AUTHORISED', onHold: true, holdReason: 'Awaiting delivery' });
    expect(res.message).toMatch(/still on hold/);
  });

  it('refuses returned bills, missing, other org and bad ids', async () => {
    const bill = await capture({ totalCents: 300 });
    await refused(other, 'books.billApprove', { id: bill.id }, 'NOT_FOUND');
    await refused(s.client, 'books.billApprove', { id: MISSING.bill }, 'NOT_FOUND', { message: /bill .* not found/ });
    await refused(s.client, 'books.billApprove', { id: 'inv_123' }, 'BAD_REQUEST', { message: /^id: / });
    await s.client.ok('books.billReturn', { id: bill.id, reason: 'Not ours' });
    await refused(s.client, 'books.billApprove', { id: bill.id }, 'CONFLICT', { message: /DELETED/ });
  });
});

describe('books.billHold', () => {
  it('holds a draft or approved bill; holding again changes nothing and keeps the first reason', async () => {
    const bill = await capture({ totalCents: 1200 });
    const { result, event } = await mutate(s.client, 'books.billHold', { id: bill.id, reason: 'Price query' }, 'books.bill.hold');
    expect(result.bill).toMatchObject({ status: 'DRAFT', onHold: true, holdReason: 'Price query' });
    expect(event.payload).toEqual({ billId: bill.id, status: 'DRAFT', reason: 'Price query' });
    const again = await mutate(s.client, 'books.billHold', { id: bill.id, reason: 'Other' }, 'books.bill.hold');
    expect(again.result).toMatchObject({ changed: false, bill: { holdReason: 'Price query' } });
    expect(again.event.payload.noop).toBe(true);
    expect((await s.client.ok('books.bills', { onHold: true, limit: 200 })).bills.map((b: any) => b.id)).toContain(bill.id);
  });

  it('refuses paid and returned bills, missing, other org, no reason', async () => {
    const bill = await capture({ totalCents: 1300 });
    await refused(s.client, 'books.billHold', { id: bill.id }, 'BAD_REQUEST', { message: 'reason: required' });
    await refused(other, 'books.billHold', { id: bill.id, reason: 'x' }, 'NOT_FOUND');
    await refused(s.client, 'books.billHold', { id: MISSING.bill, reason: 'x' }, 'NOT_FOUND');
    await s.client.ok('books.billReturn', { id: bill.id, reason: 'Wrong' });
    await refused(s.client, 'books.billHold', { id: bill.id, reason: 'x' }, 'CONFLICT', { message: /DELETED/ });
    const voided = await capture({ supplierName: 'Hold Co', totalCents: 1400 });
    await s.client.ok('books.billApprove', { id: voided.id });
    await s.client.ok('books.billReturn', { id: voided.id, reason: 'Wrong' });
    await refused(s.client, 'books.billHold', { id: voided.id, reason: 'x' }, 'CONFLICT', { message: /VOIDED/ });
  });
});

describe('books.billReturn', () => {
  it('a draft is DELETED with nothing posted; returning again changes nothing', async () => {
    const bill = await capture({ totalCents: 800 });
    const { result, event } = await mutate(s.client, 'books.billReturn', { id: bill.id, reason: 'Sent to us by mistake' }, 'books.bill.return');
    expect(result).toMatchObject({ journalId: null, deletedAssetIds: [], bill: { status: 'DELETED', amountDueCents: 0 } });
    expect(event.payload).toMatchObject({ billId: bill.id, status: 'DELETED', reason: 'Sent to us by mistake' });
    const again = await mutate(s.client, 'books.billReturn', { id: bill.id, reason: 'again' }, 'books.bill.return');
    expect(again.result.changed).toBe(false);
    expect(again.event.payload.noop).toBe(true);
  });

  it('an approved unpaid bill is VOIDED with an exact reversal on its date, and its asset removed', async () => {
    const bill = await capture({
      supplierName: 'Byte Computers',
      issueDate: '2026-10-10',
      lines: [
        { description: 'Monitor', account: '720', amountCents: 66000 },
        { description: 'Cable', account: '429', amountCents: 1100 },
      ],
    });
    const approved = await s.client.ok('books.billApprove', { id: bill.id });
    const { result } = await mutate(s.client, 'books.billReturn', { id: bill.id, reason: 'Faulty' }, 'books.bill.return');
    expect(result).toMatchObject({ changed: true, deletedAssetIds: approved.assetIds, bill: { status: 'VOIDED', amountDueCents: 0 } });
    expect(result.bill.lines[0].assetId).toBeNull();
    const original = await journal(approved.journalId);
    expect(await journal(result.journalId)).toEqual(original.map((l) => ({ ...l, amount_cents: 0 - l.amount_cents, tax_cents: 0 - l.tax_cents })));
    expect((await journalsOf(bill.id)).map((j) => [j.date, j.source_kind])).toEqual([
      ['2026-10-10', 'bill'],
      ['2026-10-10', 'bill_return'],
    ]);
    expect(await s.runtime.db.query('SELECT 1 FROM books_assets WHERE org_id = $1 AND asset_id = $2', [s.org.orgId, approved.assetIds[0]])).toEqual([]);
    await invariants();
  });

  it('reverses today when the original date is locked', async () => {
    const desk = await freshDesk();
    const bill = await capture({ issueDate: '2026-09-10', dueDate: '2026-10-10', totalCents: 2200 }, desk);
    await approve(bill.id, desk);
    await setLockDate(s.runtime.db, desk.orgId, '2026-09-30');
    const res = await desk.client.ok('books.billReturn', { id: bill.id, reason: 'Duplicate' });
    const j = one(
      await s.runtime.db.query<{ date: string }>('SELECT date FROM books_journals WHERE org_id = $1 AND journal_id = $2', [desk.orgId, res.journalId]),
    );
    expect(j.date).toBe('2026-11-02');
    await invariants(desk.orgId);
  });

  it('refuses a bill whose asset was depreciated or disposed (through the assets area), changing nothing', async () => {
    const desk = await freshDesk();
    const known = await capture({ supplierName: 'Byte Computers', totalCents: 100 }, desk);
    await approve(known.id, desk);
    const depreciated = await capture({ supplierName: 'Byte Computers', issueDate: '2026-10-01', totalCents: 220000, account: '720' }, desk);
    const disposed = await capture({ supplierName: 'Byte Computers', issueDate: '2026-10-01', totalCents: 110000, account: '710' }, desk);
    const dep = await desk.client.ok('books.billApprove', { id: depreciated.id });
    const dis = await desk.client.ok('books.billApprove', { id: disposed.id });
    await desk.client.ok('books.assetDispose', { id: dis.assetIds[0], date: '2026-10-01', proceedsCents: 0 });
    await desk.client.ok('books.assetDepreciationRun', { periodEnd: '2026-10-31' });
    await refused(desk.client, 'books.billReturn', { id: depreciated.id, reason: 'x' }, 'CONFLICT', {
      message: new RegExp(`${dep.assetIds[0]}.*depreciation posted`),
    });
    await refused(desk.client, 'books.billReturn', { id: disposed.id, reason: 'x' }, 'CONFLICT', { message: new RegExp(`${dis.assetIds[0]}.*disposed`) });
    const still = (await desk.client.ok('books.bills', { status: 'AUTHORISED' })).bills.map((b: any) => b.id);
    expect(still).toEqual([known.id, depreciated.id, disposed.id]);
    await invariants(desk.orgId);
  });

  it('refuses part-paid and paid bills, missing and other org', async () => {
    const bill = await capture({ supplierName: 'Hold Co', totalCents: 1000 });
    await s.client.ok('books.billApprove', { id: bill.id });
    // Part paid through the bank (the settlement path bank matching uses).
    await s.runtime.db.tx((q) =>
      settleBill({ q, orgId: s.org.orgId, principal: { id: 'bank-test' } } as unknown as HandlerCtx, bill.id, { amountCents: 400, date: '2026-11-02' }),
    );
    await refused(s.client, 'books.billReturn', { id: bill.id, reason: 'x' }, 'CONFLICT', { message: /\$4\.00 paid.*refund/ });
    await refused(s.client, 'books.billReturn', { id: MISSING.bill, reason: 'x' }, 'NOT_FOUND');
    await refused(other, 'books.billReturn', { id: bill.id, reason: 'x' }, 'NOT_FOUND');
    await invariants();
  });
});

describe('books.bills', () => {
  it('pages with cursor and filters by status, supplier, hold and flags; bank details masked', async () => {
    const desk = await freshDesk();
    const made = [];
    made.push(await capture({ supplierName: 'Alpha', totalCents: 1000, bank: BANK_A }, desk));
    made.push(await capture({ supplierName: 'Beta', totalCents: 600000 }, desk));
    made.push(await capture({ supplierName: 'Alpha', totalCents: 1001 }, desk));
    made.push(await capture({ supplierName: 'Alpha', totalCents: 1002 }, desk));
    await approve(made[0].id, desk);
    await desk.client.ok('books.billApprove', { id: made[2].id });
    await desk.client.ok('books.billHold', { id: made[3].id, reason: 'x' });
    const first = expectOk('books.bills', await desk.client.rpc('books.bills', { limit: 3 }));
    expect(first.bills.map((b: any) => b.id)).toEqual(made.slice(0, 3).map((b) => b.id));
    const rest = await desk.client.ok('books.bills', { limit: 3, cursor: first.nextCursor });
    expect(rest).toEqual({ bills: [expect.objectContaining({ id: made[3].id })], nextCursor: null });
    const ids = async (f: Record<string, unknown>) => (await desk.client.ok('books.bills', f)).bills.map((b: any) => b.id);
    expect(await ids({ status: 'AUTHORISED' })).toEqual([made[0].id, made[2].id]);
    expect(await ids({ contactId: made[1].contact.id })).toEqual([made[1].id]);
    expect(await ids({ onHold: true })).toEqual([made[3].id]);
    expect(await ids({ onHold: false })).toHaveLength(3);
    expect(await ids({ flagged: true })).toEqual([made[0].id, made[1].id]);
    expect(await ids({ flagged: false, status: 'DRAFT' })).toEqual([made[3].id]);
    const alpha = (await desk.client.ok('books.bills', {})).bills[0];
    expect(alpha).toMatchObject({ bank: { bsb: '062000', accountNumber: '••••5678' }, payeeBank: { bsb: '062000', accountNumber: '••••5678' } });
    expect(JSON.stringify(alpha)).not.toContain('12345678');
    s.clock.set('2026-11-25'); // due 2026-11-19
    const late = (await desk.client.ok('books.bills', { status: 'AUTHORISED' })).bills;
    expect(late.map((b: any) => [b.amountDueCents, b.daysOverdue])).toEqual([
      [1000, 6],
      [1001, 6],
    ]);
    s.clock.set('2026-11-02');
    await refused(desk.client, 'books.bills', { status: 'OPEN' }, 'BAD_REQUEST', { message: /^status: / });
    await refused(desk.client, 'books.bills', { limit: 201 }, 'BAD_REQUEST', { message: /^limit: / });
    const reader = await desk.client.mint({ tier: 'reader' });
    expect((await desk.client.rpc('books.bills', {}, { key: reader.apiKey })).status).toBe(200);
    await refused(desk.client, 'books.billCapture', { ...BILL, reference: 'R', totalCents: 1 }, 'FORBIDDEN_SCOPE', {
      message: 'missing scope books.write for books.billCapture',
      key: reader.apiKey,
    });
    await invariants(desk.orgId);
  });
});
