import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { approveFlaggedBill, booksServer, checkInvariants, type BooksServer, withSignature } from './setup.js';
import { expectOk, refused } from '../../helpers/calls.js';

/*
 * The general ledger reads. A quarter of activity is built through the API (invoices, a credit note, bills with
 * an asset, a payment run, a pay run, a manual journal, depreciation); then every report is checked against
 * figures this file recomputes on its own from the journals (read through books.journals) and the documents.
 */

let s: BooksServer;
let client: TestClient;
let agent: string;
let orgId: string;
beforeAll(async () => {
  s = await booksServer('2026-07-01');
  const org = await freshOrg(s.runtime, 'rep');
  orgId = org.orgId;
  client = new TestClient(s.app, org.adminKey);
  agent = (await client.mint({ tier: 'agent' }, 'reports agent')).apiKey;
  await buildQuarter();
}, 120_000);
afterAll(() => s.close());

const at = (date: string) => s.clock.set(date);
const MISSING_JOURNAL = 'jnl_doesnotexist0000';

async function buildQuarter() {
  at('2026-07-01');
  const hire = await client.ok('books.onboardingStart', {
    person: 'Sam Lee',
    role: 'Designer',
    startDate: '2026-07-01',
    rate: { basis: 'ANNUAL', amountCents: 7_800_000, hoursPerWeek: 38 },
  });
  const onb = hire.onboarding.id;
  await client.ok('books.onboardingAdvance', { id: onb, step: 'tfn', data: { tfn: '123 456 782', claimsTaxFreeThreshold: true } });
  await client.ok('books.onboardingAdvance', { id: onb, step: 'super', data: { fundName: 'AustralianSuper', usi: 'STA0100AU', memberNumber: 'M-1' } });
  await client.ok('books.onboardingAdvance', { id: onb, step: 'bank', data: { bsb: '062-000', accountNumber: '10987654', accountName: 'S Lee' } });
  await withSignature(client, agent, 'books.onboardingAdvance', {
    id: onb,
    step: 'contract',
    data: { contractRef: 'contracts/sam.pdf', signedOn: '2026-07-01' },
  });

  at('2026-07-10');
  const a = (await client.ok('books.invoiceDraft', { payeeName: 'Harbour Cafe', description: 'Brand refresh', totalCents: 110_000, dueDays: 14 })).invoice;
  await client.ok('books.invoiceSend', { id: a.id });
  at('2026-07-15');
  const office = (
    await client.ok('books.billCapture', { supplierName: 'Office Co', reference: 'OC-1', issueDate: '2026-07-15', dueDate: '2026-08-15', totalCents: 33_000 })
  ).bill;
  await approveFlaggedBill(client, agent, office.id);
  at('2026-07-20');
  const laptop = (
    await client.ok('books.billCapture', {
      supplierName: 'Tech Store',
      reference: 'TS-9',
      issueDate: '2026-07-20',
      dueDate: '2026-09-20',
      lines: [{ description: 'Laptop', account: '720', amountCents: 330_000 }],
    })
  ).bill;
  await approveFlaggedBill(client, agent, laptop.id);
  at('2026-07-31');
  const run = await client.ok('books.payrollDraft', { periodStart: '2026-07-01', periodEnd: '2026-07-31', payDate: '2026-07-31' });
  await withSignature(client, agent, 'books.payrollSign', { runId: run.payRun.id });
  at('2026-08-01');
  await client.ok('books.invoiceRecordPayment', { id: a.id, amountCents: 50_000 });
  at('2026-08-05');
  const b = (await client.ok('books.invoiceDraft', { payeeName: 'Blue Wren', description: 'Logo', totalCents: 55_000, dueDays: 30 })).invoice;
  await client.ok('books.invoiceSend', { id: b.id });
  await client.ok('books.invoiceCreditNote', { id: b.id, amountCents: 11_000, reason: 'Discount' });
  at('2026-08-10');
  await client.ok('books.journalPost', {
    date: '2026-08-10',
    narration: 'Bank fees',
    lines: [
      { account: '404', amountCents: 1_500 },
      { account: '090', amountCents: -1_500 },
    ],
  });
  at('2026-08-20');
  await withSignature(client, agent, 'books.billScheduleRun', { payDate: '2026-08-20', billIds: [office.id] });
  at('2026-09-15');
  const c = (await client.ok('books.invoiceDraft', { payeeName: 'Harbour Cafe', description: 'Menus', totalCents: 220_000, dueDays: 30 })).invoice;
  await client.ok('books.invoiceSend', { id: c.id });
  at('2026-09-30');
  await client.ok('books.assetDepreciationRun', { periodEnd: '2026-09-30' });
  at('2026-10-15');
  await checkInvariants(s.runtime.db, orgId);
}

// ---- an independent reading of the books -------------------------------------------------------

async function allPages(method: string, key: string, params: Record<string, unknown> = {}): Promise<any[]> {
  const out: any[] = [];
  let cursor = 0;
  for (;;) {
    const page = await client.ok(method, { ...params, cursor, limit: 200 });
    out.push(...page[key]);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
}

interface Line {
  date: string;
  source: string;
  account: string;
  amount: number;
  taxCode: string | null;
  tax: number;
}

async function ledgerLines(): Promise<Line[]> {
  const journals = await allPages('books.journals', 'journals');
  return journals.flatMap((j) =>
    j.lines.map((l: any) => ({ date: j.date, source: j.source.kind, account: l.account, amount: l.amountCents, taxCode: l.taxCode, tax: l.taxCents })),
  );
}

async function accountTypes(): Promise<Map<string, string>> {
  return new Map((await allPages('books.accounts', 'accounts')).map((a) => [a.code, a.type]));
}

const sumBy = (lines: Line[], f: (l: Line) => number) => lines.reduce((s, l) => s + f(l), 0);

function bucket(daysOverdue: number): string {
  return daysOverdue <= 0 ? 'current' : daysOverdue <= 30 ? '1-30' : daysOverdue <= 60 ? '31-60' : daysOverdue <= 90 ? '61-90' : '90+';
}

const report = async (params: Record<string, unknown>) => expectOk('books.reports', await client.rpc('books.reports', params));

describe('books.reports, recomputed from the journals', () => {
  it('trial balance: every account balance, debits equal credits', async () => {
    const lines = await ledgerLines();
    const tb = await report({ report: 'trialBalance', asOf: '2026-10-15' });
    const expected = new Map<string, number>();
    for (const l of lines) expected.set(l.account, (expected.get(l.account) ?? 0) + l.amount);
    const got = new Map(tb.lines.map((r: any) => [r.account, r.debitCents - r.creditCents]));
    expect(got).toEqual(new Map([...expected].filter(([, v]) => v !== 0)));
    expect(tb.totalDebitCents).toBe(tb.totalCreditCents);
    expect(tb.totalDebitCents).toBeGreaterThan(0);
    // As at a date before anything happened, nothing.
    expect((await report({ report: 'trialBalance', asOf: '2026-06-30' })).lines).toEqual([]);
  });

  it('profit and loss for the quarter', async () => {
    const types = await accountTypes();
    const q = (await ledgerLines()).filter((l) => l.date >= '2026-07-01' && l.date <= '2026-09-30');
    const pl = await report({ report: 'profitAndLoss', from: '2026-07-01', to: '2026-09-30' });
    const income =
      0 -
      sumBy(
        q.filter((l) => types.get(l.account) === 'REVENUE'),
        (l) => l.amount,
      );
    const expenses = sumBy(
      q.filter((l) => types.get(l.account) === 'EXPENSE'),
      (l) => l.amount,
    );
    expect(pl.income.totalCents).toBe(income);
    expect(pl.expenses.totalCents).toBe(expenses);
    expect(pl.netProfitCents).toBe(income - expenses);
    // Sales net of GST: (110000 + 55000 - 11000 + 220000) * 10/11 = 340000.
    expect(pl.income.lines).toEqual([{ account: '200', name: 'Sales', amountCents: 340_000 }]);
    expect(pl.expenses.lines.map((l: any) => l.account)).toEqual(['404', '416', '429', '477', '478']);
  });

  it('balance sheet: assets = liabilities + equity, each section from the journals', async () => {
    const types = await accountTypes();
    const lines = await ledgerLines();
    const bs = await report({ report: 'balanceSheet', asOf: '2026-10-15' });
    const of = (...t: string[]) =>
      sumBy(
        lines.filter((l) => t.includes(types.get(l.account)!)),
        (l) => l.amount,
      );
    expect(bs.assets.totalCents).toBe(of('BANK', 'CURRENT_ASSET', 'FIXED_ASSET'));
    expect(bs.liabilities.totalCents).toBe(0 - of('CURRENT_LIABILITY'));
    expect(bs.equity.totalCents).toBe(0 - of('EQUITY', 'REVENUE', 'EXPENSE'));
    expect(bs.balanced).toBe(true);
    expect(bs.assets.totalCents).toBe(bs.liabilities.totalCents + bs.equity.totalCents);
  });

  it('aged receivables and payables: the documents still owed, by days past due', async () => {
    const asOf = '2026-10-15';
    const invoices = (await allPages('books.invoices', 'invoices')).filter((i) => i.status === 'AUTHORISED');
    const ar = await report({ report: 'agedReceivables', asOf });
    const arExpected: Record<string, number> = { current: 0, '1-30': 0, '31-60': 0, '61-90': 0, '90+': 0 };
    for (const i of invoices) arExpected[bucket(i.daysOverdue)] += i.amountDueCents;
    expect(ar.totals).toEqual(arExpected);
    // Invoice A: 60000 due 24 Jul (83 days); B: 44000 due 4 Sep (41 days); C: 220000 due 15 Oct (current).
    expect(arExpected).toEqual({ current: 220_000, '1-30': 0, '31-60': 44_000, '61-90': 60_000, '90+': 0 });
    expect(ar.totalCents).toBe(invoices.reduce((t, i) => t + i.amountDueCents, 0));

    const bills = (await allPages('books.bills', 'bills')).filter((b) => b.status === 'AUTHORISED');
    const ap = await report({ report: 'agedPayables', asOf });
    const apExpected: Record<string, number> = { current: 0, '1-30': 0, '31-60': 0, '61-90': 0, '90+': 0 };
    for (const b of bills) apExpected[bucket(Math.round((Date.parse(asOf) - Date.parse(b.dueDate)) / 86_400_000))] += b.amountDueCents;
    expect(ap.totals).toEqual(apExpected);
    expect(apExpected).toEqual({ current: 0, '1-30': 330_000, '31-60': 0, '61-90': 0, '90+': 0 }); // the laptop, due 20 Sep
    // Both agree with the control accounts.
    const tb = await report({ report: 'trialBalance', asOf });
    const balance = (code: string) => tb.lines.find((l: any) => l.account === code)!;
    expect(balance('610').debitCents).toBe(ar.totalCents);
    expect(balance('800').creditCents).toBe(ap.totalCents);
  });

  it('BAS summary: every label from the tax-coded journal lines of the quarter', async () => {
    const types = await accountTypes();
    const q = (await ledgerLines()).filter((l) => l.date >= '2026-07-01' && l.date <= '2026-09-30');
    const onBas = (l: Line) => ['GST', 'GST_FREE', 'INPUT_TAXED'].includes(l.taxCode ?? '');
    const sales = q.filter((l) => types.get(l.account) === 'REVENUE' && onBas(l));
    const capital = q.filter((l) => ['710', '720'].includes(l.account) && onBas(l));
    const nonCapital = q.filter((l) => types.get(l.account) === 'EXPENSE' && onBas(l));
    const payroll = q.filter((l) => l.source === 'pay_run' || l.source === 'pay_run_recall');
    const expected = {
      G1: 0 - sumBy(sales, (l) => l.amount + l.tax),
      G2: 0,
      G3:
        0 -
        sumBy(
          sales.filter((l) => l.taxCode === 'GST_FREE'),
          (l) => l.amount,
        ),
      G10: sumBy(capital, (l) => l.amount + l.tax),
      G11: sumBy(nonCapital, (l) => l.amount + l.tax),
      '1A':
        0 -
        sumBy(
          sales.filter((l) => l.taxCode === 'GST'),
          (l) => l.tax,
        ),
      '1B': sumBy(
        [...capital, ...nonCapital].filter((l) => l.taxCode === 'GST'),
        (l) => l.tax,
      ),
      W1: sumBy(
        payroll.filter((l) => l.account === '477'),
        (l) => l.amount,
      ),
      W2:
        0 -
        sumBy(
          payroll.filter((l) => l.account === '825'),
          (l) => l.amount,
        ),
    };
    const bas = await report({ report: 'basSummary', from: '2026-07-01', to: '2026-09-30' });
    expect(bas.labels).toEqual(expected);
    expect(bas.netAmountCents).toBe(expected['1A'] + expected.W2 - expected['1B']);
    // By hand: sales 110000 + 55000 - 11000 + 220000; GST 10000 + 5000 - 1000 + 20000; purchases 33000 and the
    // 330000 laptop (GST 3000 + 30000); a full month of $78,000 a year = a twelfth, $6,500.00 (the contract's
    // month; it was 31/365 of the year, $6,624.66, before that rule). The bank fee was a manual journal, and manual
    // journals are not on the BAS.
    expect(bas.labels).toMatchObject({ G1: 374_000, '1A': 34_000, G10: 330_000, G11: 33_000, '1B': 33_000, W1: 650_000 });
    expect(bas.lodgement).toBeNull();
    // Prepared and held: the summary says HELD, never lodged.
    const prepared = await client.ok('books.taxPrepare', { periodStart: '2026-07-01', periodEnd: '2026-09-30' });
    await client.ok('books.taxHold', { id: prepared.lodgement.id, reason: 'Check the laptop coding' });
    const held = await report({ report: 'basSummary', from: '2026-07-01', to: '2026-09-30' });
    expect(held.lodgement).toEqual({ id: prepared.lodgement.id, status: 'HELD' });
  });

  it('payroll summary and asset register agree with the wage and asset accounts', async () => {
    const lines = await ledgerLines();
    const pr = await report({ report: 'payrollSummary', from: '2026-07-01', to: '2026-09-30' });
    const wages = lines.filter((l) => l.source === 'pay_run');
    expect(pr.totals).toEqual({
      grossCents: sumBy(
        wages.filter((l) => l.account === '477'),
        (l) => l.amount,
      ),
      paygCents:
        0 -
        sumBy(
          wages.filter((l) => l.account === '825'),
          (l) => l.amount,
        ),
      superCents:
        0 -
        sumBy(
          wages.filter((l) => l.account === '826'),
          (l) => l.amount,
        ),
      netCents:
        0 -
        sumBy(
          wages.filter((l) => l.account === '804'),
          (l) => l.amount,
        ),
    });
    expect(pr.employees).toHaveLength(1);
    expect(pr.employees[0]).toMatchObject({ name: 'Sam Lee', grossCents: pr.totals.grossCents });

    const reg = await report({ report: 'assetRegister', asOf: '2026-10-15' });
    const balance = (code: string) =>
      sumBy(
        lines.filter((l) => l.account === code),
        (l) => l.amount,
      );
    expect(reg.totals.costCents).toBe(balance('720'));
    expect(reg.totals.accumulatedDepreciationCents).toBe(0 - balance('721'));
    expect(reg.totals.bookValueCents).toBe(balance('720') + balance('721'));
    expect(reg.assets).toHaveLength(1);
    expect(reg.assets[0]).toMatchObject({ name: 'Laptop', costCents: 300_000, status: 'REGISTERED' });
  });

  it('bad input names the field; another org sees none of it', async () => {
    await refused(client, 'books.reports', { report: 'profitAndLoss', from: '2026-07-01' }, 'BAD_REQUEST', { message: 'to: required' });
    await refused(client, 'books.reports', { report: 'trialBalance', asOf: '31/10/2026' }, 'BAD_REQUEST', { message: /^asOf: / });
    await refused(client, 'books.reports', { report: 'cashFlow' }, 'BAD_REQUEST', { message: /^report: / });
    await refused(client, 'books.journals', { account: '999' }, 'BAD_REQUEST', { message: /^account: / });
    await refused(client, 'books.journals', { journalId: MISSING_JOURNAL.replace('jnl_', 'inv_') }, 'BAD_REQUEST', { message: /^journalId: / });
    await refused(client, 'books.accounts', { asOf: 'today' }, 'BAD_REQUEST', { message: /^asOf: / });
    await refused(client, 'books.accounts', { limit: 0 }, 'BAD_REQUEST', { message: /^limit: / });
    expect((await client.ok('books.journals', { journalId: MISSING_JOURNAL })).journals).toEqual([]);
    const stranger = await freshOrg(s.runtime, 'rep2');
    const other = new TestClient(s.app, stranger.adminKey);
    expect((await other.ok('books.reports', { report: 'trialBalance' })).lines).toEqual([]);
    expect((await other.ok('books.journals', {})).journals).toEqual([]);
    expect((await other.ok('books.accounts', {})).accounts.every((a: any) => a.balanceCents === 0)).toBe(true);
  });

  it('accounts and journals page with cursor and filter', async () => {
    const first = await client.ok('books.accounts', { limit: 5 });
    expect(first.accounts).toHaveLength(5);
    expect(first.nextCursor).toBe(5);
    const all = await allPages('books.accounts', 'accounts');
    expect(all.map((a) => a.code)).toContain('960');
    const bank = all.find((a) => a.code === '090');
    const lines = await ledgerLines();
    expect(bank.balanceCents).toBe(
      sumBy(
        lines.filter((l) => l.account === '090'),
        (l) => l.amount,
      ),
    );
    const arJournals = await allPages('books.journals', 'journals', { account: '610' });
    expect(arJournals.every((j) => j.lines.some((l: any) => l.account === '610'))).toBe(true);
    const manual = await client.ok('books.journals', { sourceKind: 'manual' });
    expect(manual.journals).toHaveLength(1);
    expect(manual.journals[0].lines.map((l: any) => [l.account, l.amountCents])).toEqual([
      ['404', 1500],
      ['090', -1500],
    ]);
    const aug = await allPages('books.journals', 'journals', { dateFrom: '2026-08-01', dateTo: '2026-08-31' });
    expect(aug.every((j) => j.date >= '2026-08-01' && j.date <= '2026-08-31')).toBe(true);
    expect(aug.length).toBeGreaterThan(2);
  });
});
