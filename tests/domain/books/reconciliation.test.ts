import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLockDate, setMaterialityFloor } from '../../../domain/books/policy.js';
import type { TestClient } from '../../helpers/harness.js';
import { MISSING, booksServer, expectHold, idem, mutate, type BooksServer } from './setup.js';
import { otherOrg, refused } from '../../helpers/calls.js';
import { approveHoldOf, feedLine, freshDesk, invariants, journal, journalCount, mainDesk, readLine, type Desk } from './reconciliation-kit.js';

let s: BooksServer;
let other: TestClient;
let desk: Desk;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  other = await otherOrg(s);
  desk = mainDesk(s);
});
afterAll(() => s.close());

const line = (amountCents: number, extra: Parameters<typeof feedLine>[3] = {}) => feedLine(s, desk, amountCents, extra);
const lines = (journalId: string, orgId = s.org.orgId) => journal(s, orgId, journalId);
const count = (orgId = s.org.orgId) => journalCount(s, orgId);
const check = (orgId = s.org.orgId) => invariants(s, orgId);
const agent = () => ({ key: s.agent.apiKey, idem: idem() });

async function sentInvoice(payeeName: string, totalCents: number, dueDays = 14, d = desk) {
  const draft = await d.client.ok('books.invoiceDraft', { payeeName, description: 'Services', totalCents, dueDays });
  return (await d.client.ok('books.invoiceSend', { id: draft.invoice.id })).invoice;
}
const invoiceRow = async (id: string) =>
  (await s.runtime.db.query<{ status: string; paid_cents: number }>('SELECT status, paid_cents FROM books_invoices WHERE invoice_id = $1', [id]))[0];
const journalRow = async (id: string) =>
  (
    await s.runtime.db.query<{ date: string; source_kind: string; narration: string }>(
      'SELECT date, source_kind, narration FROM books_journals WHERE journal_id = $1',
      [id],
    )
  )[0];
const j = (account_code: string, amount_cents: number, tax_code: string | null = null, tax_cents = 0) => ({ account_code, amount_cents, tax_code, tax_cents });
const accountTarget = (account: string, taxCode?: string) => ({ kind: 'account', account, ...(taxCode ? { taxCode } : {}) });

describe('books.matchAccept: invoices', () => {
  it('settles the invoice through settleInvoice dated the line date; a replay posts nothing; another target is CONFLICT', async () => {
    const inv = await sentInvoice('Harbour Cafe', 110000);
    const lineId = await line(110000, { date: '2026-11-05', description: 'DEPOSIT HARBOUR CAFE', payee: 'HARBOUR CAFE' });
    const target = { kind: 'invoice', invoiceId: inv.id };
    const { result, event } = await mutate(s.client, 'books.matchAccept', { lineId, target }, 'books.feed.match');
    expect(result).toMatchObject({ changed: true, paymentId: expect.stringMatching(/^pmt_/), assetId: null });
    expect(result.line).toMatchObject({
      id: lineId,
      status: 'RECONCILED',
      target,
      journalId: result.journalId,
      direction: 'in',
      suggestion: null,
      suggestions: [],
    });
    expect(result.message).toContain(inv.number);
    expect(await lines(result.journalId)).toEqual([j('090', 110000), j('610', -110000)]);
    expect(await journalRow(result.journalId)).toMatchObject({ date: '2026-11-05', source_kind: 'payment' });
    const [payment] = await s.runtime.db.query('SELECT feed_line_id, date, amount_cents FROM books_payments WHERE payment_id = $1', [result.paymentId]);
    expect(payment).toEqual({ feed_line_id: lineId, date: '2026-11-05', amount_cents: 110000 });
    expect(await invoiceRow(inv.id)).toEqual({ status: 'PAID', paid_cents: 110000 });
    expect(event.payload).toMatchObject({
      lineId,
      targetKind: 'invoice',
      targetId: inv.id,
      amountCents: 110000,
      status: 'RECONCILED',
      journalId: result.journalId,
    });

    const before = await count();
    const replay = await mutate(s.client, 'books.matchAccept', { lineId, target }, 'books.feed.match');
    expect(replay.result).toMatchObject({ changed: false, journalId: result.journalId });
    expect(replay.event.payload.noop).toBe(true);
    expect(await count()).toBe(before);
    await refused(s.client, 'books.matchAccept', { lineId, target: accountTarget('429') }, 'CONFLICT', { message: /already RECONCILED to invoice/ });
    await check();
  });

  it('a part payment leaves the rest due; refuses more than due, dates before issue, drafts, the wrong direction', async () => {
    const inv = await sentInvoice('Blue Wren Studio', 50000);
    const target = { kind: 'invoice', invoiceId: inv.id };
    await mutate(s.client, 'books.matchAccept', { lineId: await line(20000, { date: '2026-11-06' }), target }, 'books.feed.match');
    expect(await invoiceRow(inv.id)).toEqual({ status: 'AUTHORISED', paid_cents: 20000 });
    await refused(s.client, 'books.matchAccept', { lineId: await line(40000), target }, 'BAD_REQUEST', {
      message: /^target\.invoiceId: the line's \$400\.00 is more than the \$300\.00 due/,
    });
    await refused(s.client, 'books.matchAccept', { lineId: await line(1000, { date: '2026-11-01' }), target }, 'BAD_REQUEST', {
      message: /^target\.invoiceId: .*before .* was issued \(2026-11-02\)/,
    });
    const draft = (await s.client.ok('books.invoiceDraft', { payeeName: 'Draft Co', description: 'x', totalCents: 1000, dueDays: 7 })).invoice;
    await refused(s.client, 'books.matchAccept', { lineId: await line(1000), target: { kind: 'invoice', invoiceId: draft.id } }, 'CONFLICT', {
      message: /DRAFT/,
    });
    await refused(s.client, 'books.matchAccept', { lineId: await line(-1000), target }, 'CONFLICT', {
      message: /is money out; an invoice match needs money in/,
    });
    await refused(s.client, 'books.matchAccept', { lineId: await line(1000), target: { kind: 'invoice', invoiceId: MISSING.invoice } }, 'NOT_FOUND', {
      message: /invoice .* not found/,
    });
    await refused(s.client, 'books.matchAccept', { lineId: await line(1000), target: { kind: 'bill', billId: MISSING.bill } }, 'CONFLICT', {
      message: /money in; a bill match needs money out/,
    });
    await check();
  });
});

describe('books.matchAccept: direct coding', () => {
  it('posts out Dr account net + Dr 820 / Cr 090 and in Dr 090 / Cr account + Cr 820, tax code defaulting to the account', async () => {
    const out = await line(-11000, { date: '2026-11-04', payee: 'OFFICEWORKS', description: 'OFFICEWORKS 0345 SYDNEY' });
    const { result, event } = await mutate(s.client, 'books.matchAccept', { lineId: out, target: accountTarget('429') }, 'books.feed.match');
    expect(result.line).toMatchObject({ status: 'RECONCILED', target: { kind: 'account', account: '429', taxCode: 'GST' }, direction: 'out' });
    expect(await lines(result.journalId)).toEqual([j('429', 10000, 'GST', 1000), j('820', 1000), j('090', -11000)]);
    expect(await journalRow(result.journalId)).toMatchObject({ date: '2026-11-04', source_kind: 'feed_line' });
    expect(event.payload).toMatchObject({ targetKind: 'account', targetId: '429', taxCode: 'GST', amountCents: -11000 });

    const income = await s.client.ok('books.matchAccept', { lineId: await line(5500), target: accountTarget('260') });
    expect(await lines(income.journalId)).toEqual([j('090', 5500), j('260', -5000, 'GST', -500), j('820', -500)]);
    const fee = await s.client.ok('books.matchAccept', { lineId: await line(-2500), target: accountTarget('404') });
    expect(await lines(fee.journalId)).toEqual([j('404', 2500, 'INPUT_TAXED'), j('090', -2500)]);
    const free = await s.client.ok('books.matchAccept', { lineId: await line(-1000), target: accountTarget('429', 'GST_FREE') });
    expect(await lines(free.journalId)).toEqual([j('429', 1000, 'GST_FREE'), j('090', -1000)]);

    // The default tax code names the same coding: a replay; another tax code is a recode, not a match.
    const before = await count();
    expect((await mutate(s.client, 'books.matchAccept', { lineId: out, target: accountTarget('429', 'GST') }, 'books.feed.match')).result.changed).toBe(false);
    expect(await count()).toBe(before);
    await refused(s.client, 'books.matchAccept', { lineId: out, target: accountTarget('429', 'GST_FREE') }, 'CONFLICT', { message: /books\.lineRecode/ });
    await check();
  });

  it('coding to 720 registers the fixed asset at the GST-exclusive cost', async () => {
    const lineId = await line(-330000, { payee: 'JB HI-FI', description: 'JB HI-FI LAPTOPS' });
    const { result } = await mutate(s.client, 'books.matchAccept', { lineId, target: accountTarget('720') }, 'books.feed.match');
    expect(await lines(result.journalId)).toEqual([j('720', 300000, 'GST', 30000), j('820', 30000), j('090', -330000)]);
    expect(result.assetId).toMatch(/^ast_/);
    const [asset] = await s.runtime.db.query(
      'SELECT name, cost_account, cost_cents, purchase_date, source_kind, source_id FROM books_assets WHERE asset_id = $1',
      [result.assetId],
    );
    expect(asset).toEqual({
      name: 'JB HI-FI',
      cost_account: '720',
      cost_cents: 300000,
      purchase_date: '2026-11-05',
      source_kind: 'feed_line',
      source_id: lineId,
    });
    await check();
  });

  it('refuses accounts a bank line cannot take, naming target.account and what to use instead; bad input; missing and other org', async () => {
    const out = await line(-1000);
    const cases: [string, RegExp][] = [
      ['090', /850 Suspense/],
      ['610', /kind: "invoice"/],
      ['800', /kind: "bill"/],
      ['801', /kind: "claim"/],
      ['804', /kind: "payRun"/],
      ['820', /taxCode GST/],
      ['711', /depreciation/],
    ];
    for (const [account, why] of cases) {
      const message = await refused(s.client, 'books.matchAccept', { lineId: out, target: accountTarget(account) }, 'BAD_REQUEST', {
        message: /^target\.account: /,
      });
      expect(message).toMatch(why);
    }
    await refused(s.client, 'books.matchAccept', { lineId: await line(1000), target: accountTarget('720') }, 'BAD_REQUEST', {
      message: /^target\.account: money in cannot be coded to 720/,
    });
    await refused(s.client, 'books.matchAccept', { lineId: out, target: accountTarget('999') }, 'BAD_REQUEST', {
      message: /^target\.account: must be an account code/,
    });
    await refused(s.client, 'books.matchAccept', { lineId: out, target: accountTarget('429', 'VAT') }, 'BAD_REQUEST', { message: /^target\.taxCode: / });
    await refused(s.client, 'books.matchAccept', { lineId: out, target: { kind: 'cheque' } }, 'BAD_REQUEST', { message: /^target\.kind: / });
    await refused(s.client, 'books.matchAccept', { lineId: out, target: { kind: 'invoice' } }, 'BAD_REQUEST', { message: 'target.invoiceId: required' });
    await refused(s.client, 'books.matchAccept', { lineId: 'inv_1', target: accountTarget('429') }, 'BAD_REQUEST', { message: /^lineId: / });
    await refused(s.client, 'books.matchAccept', { lineId: MISSING.line, target: accountTarget('429') }, 'NOT_FOUND', {
      message: /bank feed line .* not found/,
    });
    await refused(other, 'books.matchAccept', { lineId: out, target: accountTarget('429') }, 'NOT_FOUND');
    expect((await readLine(s, desk, out)).status).toBe('UNMATCHED');
  });

  it('a locked period refuses the match and posts nothing', async () => {
    const d = await freshDesk(s);
    const lineId = await feedLine(s, d, -5000, { date: '2026-10-15' });
    await setLockDate(s.runtime.db, d.orgId, '2026-10-31');
    await refused(d.client, 'books.matchAccept', { lineId, target: accountTarget('429') }, 'CONFLICT', { message: /locked through 2026-10-31/ });
    expect(await count(d.orgId)).toBe(0);
  });
});

describe('holds above the floor and books.matchHoldResolve', () => {
  it('holds without posting; release without proof is a hold frame; with the proof it posts; the proof is single-use', async () => {
    const inv = await sentInvoice('Acme Pty Ltd', 1200000);
    const lineId = await line(1200000, { date: '2026-11-03', payee: 'ACME PTY LTD', description: 'ACME PTY LTD TRANSFER' });
    const target = { kind: 'invoice', invoiceId: inv.id };
    const before = await count();
    const held = await mutate(s.client, 'books.matchAccept', { lineId, target }, 'books.feed.match', agent());
    expect(held.result).toMatchObject({ changed: true, journalId: null, paymentId: null });
    expect(held.result.line).toMatchObject({ status: 'HELD', target, heldBy: s.agent.principal.id, journalId: null });
    expect(held.result.message).toMatch(/above the \$5,000\.00 materiality floor/);
    expect(held.event.payload).toMatchObject({ status: 'HELD', journalId: null });
    expect(await count()).toBe(before);
    expect(await invoiceRow(inv.id)).toEqual({ status: 'AUTHORISED', paid_cents: 0 });
    await refused(s.client, 'books.matchAccept', { lineId, target }, 'CONFLICT', { message: /HELD .* books\.matchHoldResolve/ });

    const hold = await expectHold(s.client, 'books.matchHoldResolve', { lineId, decision: 'approve' }, 'books.match_hold_resolve', agent());
    expect(hold.subjectId).toBe(lineId);
    expect(hold.approval.subject.summary).toBe(`Release $12,000.00 from the bank line 2026-11-03 "ACME PTY LTD" to invoice ${inv.number} (Acme Pty Ltd)`);
    expect((await readLine(s, desk, lineId)).status).toBe('HELD');
    expect(await count()).toBe(before);

    const approvalId = await approveHoldOf(desk, hold);
    const key = idem();
    const released = await mutate(s.client, 'books.matchHoldResolve', { lineId, decision: 'approve', approvalId }, 'books.feed.resolve', {
      key: s.agent.apiKey,
      idem: key,
    });
    expect(released.result).toMatchObject({ decision: 'approve', approvalId, changed: true, paymentId: expect.stringMatching(/^pmt_/) });
    expect(released.result.line).toMatchObject({ status: 'RECONCILED', approvalId, heldAt: expect.any(String), target });
    expect(await lines(released.result.journalId)).toEqual([j('090', 1200000), j('610', -1200000)]);
    expect(await journalRow(released.result.journalId)).toMatchObject({ date: '2026-11-03' });
    expect(await invoiceRow(inv.id)).toEqual({ status: 'PAID', paid_cents: 1200000 });
    expect(released.event.payload).toMatchObject({ decision: 'approve', approvalId, journalId: released.result.journalId });

    const replay = await s.client.rpc('books.matchHoldResolve', { lineId, decision: 'approve', approvalId }, { key: s.agent.apiKey, idem: key });
    expect(replay.headers['idempotent-replay']).toBe('true');
    // A retry with a fresh key: the used proof is refused; without a proof the release replays as a no-op.
    await refused(s.client, 'books.matchHoldResolve', { lineId, decision: 'approve', approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /already used/,
      ...agent(),
    });
    const noop = await mutate(s.client, 'books.matchHoldResolve', { lineId, decision: 'approve' }, 'books.feed.resolve', agent());
    expect(noop.result).toMatchObject({ changed: false, approvalId, journalId: released.result.journalId });
    await refused(s.client, 'books.matchHoldResolve', { lineId, decision: 'reject' }, 'CONFLICT', { message: /already resolved/, ...agent() });
    // The proof on another held line: it was filed for this line, not that one.
    const second = await line(-600000, { payee: 'BIG SUPPLIER' });
    await s.client.ok('books.matchAccept', { lineId: second, target: accountTarget('429') });
    await refused(s.client, 'books.matchHoldResolve', { lineId: second, decision: 'approve', approvalId }, 'CONFLICT', {
      message: /was filed for subject/,
      ...agent(),
    });
    await check();
  });

  it('reject returns the line to UNMATCHED without a signature; an approval for an earlier hold cannot release it (the payload binds the target)', async () => {
    const lineId = await line(-700000, { payee: 'NEW DESKS' });
    await s.client.ok('books.matchAccept', { lineId, target: accountTarget('429') });
    const stale = await approveHoldOf(
      desk,
      await expectHold(s.client, 'books.matchHoldResolve', { lineId, decision: 'approve' }, 'books.match_hold_resolve', agent()),
    );
    const before = await count();
    const { result, event } = await mutate(s.client, 'books.matchHoldResolve', { lineId, decision: 'reject' }, 'books.feed.resolve', agent());
    expect(result).toMatchObject({ decision: 'reject', journalId: null, approvalId: null, changed: true });
    expect(result.line).toMatchObject({ status: 'UNMATCHED', target: null, heldAt: null, suggestion: null });
    expect(result.message).toMatch(/no money moved/);
    expect(event.payload).toMatchObject({ decision: 'reject', targetKind: 'account', targetId: '429' });
    expect(await count()).toBe(before);
    await refused(s.client, 'books.matchHoldResolve', { lineId, decision: 'reject' }, 'CONFLICT', { message: /UNMATCHED, not held/ });

    // Held again for another target: the approval filed for the first hold is refused (and not consumed).
    await s.client.ok('books.matchAccept', { lineId, target: accountTarget('720') });
    await refused(s.client, 'books.matchHoldResolve', { lineId, decision: 'approve', approvalId: stale }, 'CONFLICT', {
      message: /was filed for payloadHash .*the params differ from the held act/,
      ...agent(),
    });
    const fresh = await approveHoldOf(
      desk,
      await expectHold(s.client, 'books.matchHoldResolve', { lineId, decision: 'approve' }, 'books.match_hold_resolve', agent()),
    );
    const released = await mutate(s.client, 'books.matchHoldResolve', { lineId, decision: 'approve', approvalId: fresh }, 'books.feed.resolve', agent());
    expect(await lines(released.result.journalId)).toEqual([j('720', 636364, 'GST', 63636), j('820', 63636), j('090', -700000)]);
    expect(released.result.assetId).toMatch(/^ast_/);
    await check();
  });

  it('a stale held match is CONFLICT at release; under a raised floor the release needs no signature', async () => {
    const d = await freshDesk(s);
    const inv = await sentInvoice('Stale Co', 900000, 14, d);
    const lineId = await feedLine(s, d, 900000, { payee: 'STALE CO' });
    await d.client.ok('books.matchAccept', { lineId, target: { kind: 'invoice', invoiceId: inv.id } });
    await d.client.ok('books.invoiceCreditNote', { id: inv.id, amountCents: 100000, reason: 'Discount' });
    await refused(d.client, 'books.matchHoldResolve', { lineId, decision: 'approve' }, 'CONFLICT', {
      message: /no longer fits: the line's \$9,000\.00 is more than the \$8,000\.00 due/,
    });
    await d.client.ok('books.matchHoldResolve', { lineId, decision: 'reject' });

    const out = await feedLine(s, d, -600000);
    await d.client.ok('books.matchAccept', { lineId: out, target: accountTarget('404') });
    await setMaterialityFloor(s.runtime.db, d.orgId, 1_000_000);
    const { result } = await mutate(d.client, 'books.matchHoldResolve', { lineId: out, decision: 'approve' }, 'books.feed.resolve');
    expect(result).toMatchObject({ approvalId: null, line: { status: 'RECONCILED' } });
    expect(await lines(result.journalId, d.orgId)).toEqual([j('404', 600000, 'INPUT_TAXED'), j('090', -600000)]);
    await check(d.orgId);
  });

  it('refuses missing, other org, unmatched lines and bad decisions', async () => {
    const lineId = await line(-100);
    await refused(s.client, 'books.matchHoldResolve', { lineId, decision: 'approve' }, 'CONFLICT', {
      message: /UNMATCHED, not held; match it with books\.matchAccept/,
    });
    await refused(s.client, 'books.matchHoldResolve', { lineId: MISSING.line, decision: 'approve' }, 'NOT_FOUND');
    await refused(other, 'books.matchHoldResolve', { lineId, decision: 'reject' }, 'NOT_FOUND');
    await refused(s.client, 'books.matchHoldResolve', { lineId, decision: 'maybe' }, 'BAD_REQUEST', { message: /^decision: / });
  });
});

describe('books.lineRecode', () => {
  it('one journal dated the line date reverses the old coding and posts the new; GST moves only with the tax code; every call a new act', async () => {
    const lineId = await line(-11000, { date: '2026-11-07', payee: 'OFFICEWORKS' });
    await s.client.ok('books.matchAccept', { lineId, target: accountTarget('429') });
    const { result, event } = await mutate(s.client, 'books.lineRecode', { lineId, account: '404' }, 'books.feed.recode');
    expect(result.line.target).toEqual({ kind: 'account', account: '404', taxCode: 'INPUT_TAXED' });
    expect(await lines(result.journalId)).toEqual([j('429', -10000, 'GST', -1000), j('404', 11000, 'INPUT_TAXED'), j('820', -1000)]);
    expect(await journalRow(result.journalId)).toMatchObject({ date: '2026-11-07', source_kind: 'recode' });
    expect(event.payload).toMatchObject({
      lineId,
      from: { account: '429', taxCode: 'GST' },
      to: { account: '404', taxCode: 'INPUT_TAXED' },
      journalId: result.journalId,
    });

    const back = await s.client.ok('books.lineRecode', { lineId, account: '429' });
    expect(await lines(back.journalId)).toEqual([j('404', -11000, 'INPUT_TAXED'), j('429', 10000, 'GST', 1000), j('820', 1000)]);
    const netOnly = await s.client.ok('books.lineRecode', { lineId, account: '404', taxCode: 'GST' });
    expect(await lines(netOnly.journalId)).toEqual([j('429', -10000, 'GST', -1000), j('404', 10000, 'GST', 1000)]);

    const before = await count();
    const key = idem();
    const same = await mutate(s.client, 'books.lineRecode', { lineId, account: '404', taxCode: 'GST' }, 'books.feed.recode', { idem: key });
    expect(same.result).toMatchObject({ changed: false, journalId: null });
    expect(same.event.payload.noop).toBe(true);
    // Not idempotent by key: the same key runs again (a new act), it does not replay.
    const again = await mutate(s.client, 'books.lineRecode', { lineId, account: '429' }, 'books.feed.recode', { idem: key });
    expect(again.result.changed).toBe(true);
    expect(await count()).toBe(before + 1);
    await check();
  });

  it('recoding to 720 registers the asset; a line coded to 720 is not recoded', async () => {
    const lineId = await line(-44000, { payee: 'DELL AUSTRALIA' });
    await s.client.ok('books.matchAccept', { lineId, target: accountTarget('429') });
    const { result } = await mutate(s.client, 'books.lineRecode', { lineId, account: '720' }, 'books.feed.recode');
    expect(await lines(result.journalId)).toEqual([j('429', -40000, 'GST', -4000), j('720', 40000, 'GST', 4000)]);
    const [asset] = await s.runtime.db.query('SELECT cost_cents, cost_account FROM books_assets WHERE asset_id = $1', [result.assetId]);
    expect(asset).toEqual({ cost_cents: 40000, cost_account: '720' });
    await refused(s.client, 'books.lineRecode', { lineId, account: '429' }, 'CONFLICT', { message: new RegExp(`fixed asset ${result.assetId}`) });
    await check();
  });

  it('refuses document matches, unreconciled lines, bad accounts, locked periods, missing and other org', async () => {
    const inv = await sentInvoice('Recode Co', 5000);
    const matched = await line(5000);
    await s.client.ok('books.matchAccept', { lineId: matched, target: { kind: 'invoice', invoiceId: inv.id } });
    await refused(s.client, 'books.lineRecode', { lineId: matched, account: '260' }, 'CONFLICT', {
      message: new RegExp(`matched to invoice ${inv.id}.*fix the document`),
    });
    const open = await line(-5000);
    await refused(s.client, 'books.lineRecode', { lineId: open, account: '429' }, 'CONFLICT', { message: /UNMATCHED, not reconciled/ });
    const held = await line(-800000);
    await s.client.ok('books.matchAccept', { lineId: held, target: accountTarget('429') });
    await refused(s.client, 'books.lineRecode', { lineId: held, account: '404' }, 'CONFLICT', { message: /HELD.*matchHoldResolve/ });
    const coded = await line(-5000);
    await s.client.ok('books.matchAccept', { lineId: coded, target: accountTarget('429') });
    await refused(s.client, 'books.lineRecode', { lineId: coded, account: '610' }, 'BAD_REQUEST', {
      message: /^account: 610 Accounts receivable is a control account/,
    });
    await refused(s.client, 'books.lineRecode', { lineId: coded, account: '999' }, 'BAD_REQUEST', { message: /^account: / });
    await refused(s.client, 'books.lineRecode', { lineId: MISSING.line, account: '404' }, 'NOT_FOUND');
    await refused(other, 'books.lineRecode', { lineId: coded, account: '404' }, 'NOT_FOUND');

    const d = await freshDesk(s);
    const old = await feedLine(s, d, -5000, { date: '2026-10-20' });
    await d.client.ok('books.matchAccept', { lineId: old, target: accountTarget('429') });
    await setLockDate(s.runtime.db, d.orgId, '2026-10-31');
    await refused(d.client, 'books.lineRecode', { lineId: old, account: '404' }, 'CONFLICT', { message: /locked through 2026-10-31/ });
  });
});

describe('books.journalPost', () => {
  it('posts a balanced manual journal with BAS_EXCLUDED lines; a key replays it', async () => {
    const params = {
      date: '2026-11-10',
      narration: 'Reclassify stationery',
      lines: [
        { account: '429', amountCents: 25000, description: 'Stationery' },
        { account: '850', amountCents: -25000 },
      ],
    };
    const { result, event } = await mutate(s.client, 'books.journalPost', params, 'books.journal.post');
    expect(result).toMatchObject({ date: '2026-11-10', totalDebitsCents: 25000, changed: true });
    expect(await lines(result.journalId)).toEqual([j('429', 25000, 'BAS_EXCLUDED'), j('850', -25000, 'BAS_EXCLUDED')]);
    expect(await journalRow(result.journalId)).toEqual({ date: '2026-11-10', source_kind: 'manual', narration: 'Reclassify stationery' });
    expect(event.payload).toMatchObject({ journalId: result.journalId, lines: 2, totalDebitsCents: 25000 });
    const key = idem();
    const first = await s.client.rpc('books.journalPost', params, { idem: key });
    const second = await s.client.rpc('books.journalPost', params, { idem: key });
    expect(second.raw).toBe(first.raw);
    await check();
  });

  it('refuses unbalanced lines, control and tax accounts, bad lines and locked periods', async () => {
    const base = { date: '2026-11-10', narration: 'x' };
    await refused(
      s.client,
      'books.journalPost',
      {
        ...base,
        lines: [
          { account: '429', amountCents: 100 },
          { account: '850', amountCents: -90 },
        ],
      },
      'BAD_REQUEST',
      { message: /^lines: debits and credits differ by 10 cents/ },
    );
    await refused(
      s.client,
      'books.journalPost',
      {
        ...base,
        lines: [
          { account: '429', amountCents: 100 },
          { account: '610', amountCents: -100 },
        ],
      },
      'BAD_REQUEST',
      { message: /^lines\.1\.account: 610 Accounts receivable is a control account/ },
    );
    await refused(
      s.client,
      'books.journalPost',
      {
        ...base,
        lines: [
          { account: '820', amountCents: 100 },
          { account: '850', amountCents: -100 },
        ],
      },
      'BAD_REQUEST',
      { message: /^lines\.0\.account: 820 GST is a tax account/ },
    );
    await refused(s.client, 'books.journalPost', { ...base, lines: [{ account: '429', amountCents: 100 }] }, 'BAD_REQUEST', {
      message: 'lines: must have at least 2 lines',
    });
    await refused(
      s.client,
      'books.journalPost',
      {
        ...base,
        lines: [
          { account: '429', amountCents: 0 },
          { account: '850', amountCents: 0 },
        ],
      },
      'BAD_REQUEST',
      { message: 'lines.0.amountCents: must not be zero' },
    );
    await refused(
      s.client,
      'books.journalPost',
      {
        ...base,
        lines: [
          { account: '999', amountCents: 1 },
          { account: '850', amountCents: -1 },
        ],
      },
      'BAD_REQUEST',
      { message: /^lines\.0\.account: / },
    );
    await refused(s.client, 'books.journalPost', { date: '2026-11-10', lines: [] }, 'BAD_REQUEST', { message: 'narration: required' });
    const d = await freshDesk(s);
    await setLockDate(s.runtime.db, d.orgId, '2026-10-31');
    await refused(
      d.client,
      'books.journalPost',
      {
        ...base,
        date: '2026-10-31',
        lines: [
          { account: '429', amountCents: 1 },
          { account: '850', amountCents: -1 },
        ],
      },
      'CONFLICT',
      { message: /locked through 2026-10-31/ },
    );
  });
});

describe('books.receiptsRegister', () => {
  it('records a receipt with GST defaulting to round(total / 11), linked to a line; no journal; flags NO TAX INVOICE above $82.50', async () => {
    const lineId = await line(-12980);
    const before = await count();
    const { result, event } = await mutate(
      s.client,
      'books.receiptsRegister',
      {
        supplier: 'Officeworks',
        abn: '51 824 753 556',
        date: '2026-11-03',
        totalCents: 12980,
        fileRef: 'receipts/ow.pdf',
        taxInvoice: true,
        link: { kind: 'line', lineId },
      },
      'books.receipt.register',
    );
    expect(result.receipt).toMatchObject({
      supplier: 'Officeworks',
      abn: '51824753556',
      gstCents: 1180,
      flags: [],
      gstClaimable: true,
      link: { kind: 'line', id: lineId },
    });
    expect(result.receipt.id).toMatch(/^rcpt_/);
    expect(event.payload).toMatchObject({ receiptId: result.receipt.id, totalCents: 12980, gstCents: 1180, linkKind: 'line', linkId: lineId });
    expect(await count()).toBe(before);

    const flagged = await mutate(
      s.client,
      'books.receiptsRegister',
      { supplier: 'Corner Store', date: '2026-11-03', totalCents: 9900, fileRef: 'r/cs.jpg', taxInvoice: false },
      'books.receipt.register',
    );
    expect(flagged.result.receipt).toMatchObject({ flags: ['NO TAX INVOICE'], gstClaimable: false, gstCents: 900, link: null });
    expect(flagged.result.message).toMatch(/NO TAX INVOICE.*cannot be claimed/);
    const atThreshold = await s.client.ok('books.receiptsRegister', {
      supplier: 'Corner Store',
      date: '2026-11-03',
      totalCents: 8250,
      fileRef: 'r/2.jpg',
      taxInvoice: false,
    });
    expect(atThreshold.receipt).toMatchObject({ flags: [], gstClaimable: true });
    const gstFree = await s.client.ok('books.receiptsRegister', {
      supplier: 'Fresh Food',
      date: '2026-11-03',
      totalCents: 5000,
      gstCents: 0,
      fileRef: 'r/3.jpg',
      taxInvoice: true,
    });
    expect(gstFree.receipt.gstCents).toBe(0);
  });

  it('refuses GST above round(total / 11), links to rows that do not exist here, bad input', async () => {
    const base = { supplier: 'Officeworks', date: '2026-11-03', totalCents: 12980, fileRef: 'r.pdf', taxInvoice: true };
    await refused(s.client, 'books.receiptsRegister', { ...base, gstCents: 1181 }, 'BAD_REQUEST', { message: /^gstCents: 1181 is more than/ });
    await refused(s.client, 'books.receiptsRegister', { ...base, link: { kind: 'line', lineId: MISSING.line } }, 'NOT_FOUND', { message: /bank feed line/ });
    await refused(s.client, 'books.receiptsRegister', { ...base, link: { kind: 'bill', billId: MISSING.bill } }, 'NOT_FOUND', { message: /bill/ });
    await refused(s.client, 'books.receiptsRegister', { ...base, link: { kind: 'claim', claimId: MISSING.claim } }, 'NOT_FOUND', { message: /expense claim/ });
    await refused(other, 'books.receiptsRegister', { ...base, link: { kind: 'line', lineId: await line(-100) } }, 'NOT_FOUND');
    await refused(s.client, 'books.receiptsRegister', { ...base, abn: '12 345 678 901' }, 'BAD_REQUEST', { message: /^abn: / });
    await refused(s.client, 'books.receiptsRegister', { ...base, fileRef: undefined }, 'BAD_REQUEST', { message: 'fileRef: required' });
    await refused(s.client, 'books.receiptsRegister', { ...base, taxInvoice: undefined }, 'BAD_REQUEST', { message: 'taxInvoice: required' });
    await refused(s.client, 'books.receiptsRegister', { ...base, link: { kind: 'invoice' } }, 'BAD_REQUEST', { message: /^link\.kind: / });
  });
});

describe('books.feedLines', () => {
  it('ranks by amount, then date, then contact; status and date filters; short pages; held lines take their document', async () => {
    const d = await freshDesk(s);
    const a = await sentInvoice('Harbour Cafe', 110000, 14, d); // due 2026-11-16
    const b = await sentInvoice('Blue Wren Studio', 110000, 30, d); // due 2026-12-02
    const c = await sentInvoice('Harbour Cafe', 220000, 14, d);
    await sentInvoice('Small Co', 50000, 14, d); // cannot take a $1,100 line
    const e = await sentInvoice('Acme Pty Ltd', 77000, 14, d);
    const f = await sentInvoice('Zenith Traders', 77000, 14, d);
    const l1 = await feedLine(s, d, 110000, { date: '2026-11-16', payee: 'BLUE WREN STUDIO', description: 'TRANSFER BLUE WREN' });
    const l2 = await feedLine(s, d, 77000, { date: '2026-11-10', payee: 'ZENITH TRADERS PTY LTD', description: 'ZENITH' });
    const l3 = await feedLine(s, d, -4400, { date: '2026-11-12', description: 'BANK FEE' });
    const l4 = await feedLine(s, d, 60000, { date: '2026-11-20', description: 'UNKNOWN DEPOSIT' });

    const r1 = await readLine(s, d, l1);
    expect(r1.status).toBe('SUGGESTED');
    expect(r1.suggestions.map((x: any) => x.id)).toEqual([a.id, b.id, c.id]);
    expect(r1.suggestion).toMatchObject({
      kind: 'invoice',
      id: a.id,
      amountDueCents: 110000,
      date: '2026-11-16',
      target: { kind: 'invoice', invoiceId: a.id },
      score: { exactAmount: true, amountDiffCents: 0, daysApart: 0, contactMatchPercent: 0 },
    });
    expect(r1.suggestion.reasons[0]).toMatch(/exactly/);
    expect(r1.suggestions[1].score).toMatchObject({ exactAmount: true, daysApart: 16, contactMatchPercent: 100 });
    expect(r1.suggestions[2].score).toMatchObject({ exactAmount: false, amountDiffCents: 110000 });
    const r2 = await readLine(s, d, l2);
    expect(r2.suggestions.slice(0, 2).map((x: any) => [x.id, x.score.contactMatchPercent])).toEqual([
      [f.id, 100],
      [e.id, 0],
    ]);
    expect(await readLine(s, d, l3)).toMatchObject({ status: 'UNMATCHED', suggestion: null, suggestions: [] });

    const ids = async (params: Record<string, unknown>) => (await d.client.ok('books.feedLines', params)).feedLines.map((l: any) => l.id);
    expect(await ids({ status: 'SUGGESTED' })).toEqual([l1, l2, l4]);
    expect(await ids({ status: 'UNMATCHED' })).toEqual([l3]);
    expect(await ids({ dateFrom: '2026-11-11', dateTo: '2026-11-16' })).toEqual([l1, l3]);
    const short = await d.client.ok('books.feedLines', { status: 'UNMATCHED', limit: 1 });
    expect(short.feedLines).toEqual([]);
    expect(short.nextCursor).not.toBeNull();

    // A held line already intends to pay its invoice: it is no longer suggested for other lines.
    await setMaterialityFloor(s.runtime.db, d.orgId, 100000);
    await d.client.ok('books.matchAccept', { lineId: l1, target: { kind: 'invoice', invoiceId: a.id } });
    const l5 = await feedLine(s, d, 110000, { date: '2026-11-16' });
    expect((await readLine(s, d, l5)).suggestions.map((x: any) => x.id)).toEqual([b.id, c.id]);
    expect(await ids({ status: 'HELD' })).toEqual([l1]);
    await d.client.ok('books.matchAccept', { lineId: l2, target: { kind: 'invoice', invoiceId: f.id } });
    expect(await ids({ status: 'RECONCILED' })).toEqual([l2]);

    const reader = await d.client.mint({ tier: 'reader' });
    expect((await d.client.rpc('books.feedLines', {}, { key: reader.apiKey })).status).toBe(200);
    await refused(d.client, 'books.feedLines', { status: 'OPEN' }, 'BAD_REQUEST', { message: /^status: / });
    await refused(d.client, 'books.feedLines', { dateFrom: '16/11/2026' }, 'BAD_REQUEST', { message: /^dateFrom: / });
    await refused(d.client, 'books.matchAccept', { lineId: l3, target: accountTarget('429') }, 'FORBIDDEN_SCOPE', {
      message: /books\.write/,
      key: reader.apiKey,
    });
  });
});
