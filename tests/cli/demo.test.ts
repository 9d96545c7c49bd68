import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, type DemoResult } from '../../cli/demo.js';
import type { Runtime } from '../../domain/runtime.js';
import { TestClient, testRuntime } from '../helpers/harness.js';
import { buildApp } from '../../gateway/app.js';
import { checkInvariants } from '../domain/books/setup.js';
import { verifyOrgChain } from '../../ledger/verify.js';

/** The demo company: seeded through the API, balanced, and every "try this" waiting in the state it says. */

let runtime: Runtime;
let demo: DemoResult;
let client: TestClient;
let app: Awaited<ReturnType<typeof buildApp>>;
beforeAll(async () => {
  runtime = await testRuntime();
  demo = await seedDemo(runtime, { slug: `demo-${Date.now().toString(36)}` });
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
  client = new TestClient(app, demo.keys.admin);
}, 120_000);
afterAll(async () => {
  await app.close();
  await runtime.close();
});


describe('npm run cli -- demo', () => {
  it('books balance, controls equal subledgers, the chain verifies', async () => {
    await checkInvariants(runtime.db, demo.orgId);
    expect(demo.calls).toBeGreaterThan(100);
    const verdict = await verifyOrgChain(runtime.db, demo.orgId);
    expect(verdict.ok).toBe(true);
    expect(verdict.count).toBeGreaterThan(100);
    const tb = await client.ok('books.reports', { report: 'trialBalance' });
    expect(tb.totalDebitCents).toBe(tb.totalCreditCents);
    const bank = tb.lines.find((l: any) => l.account === '090');
    expect(bank.debitCents).toBeGreaterThan(0);
  });

  it('leaves one of everything waiting, in the state the summary says', async () => {
    const text = demo.summary.join('\n');
    const id = (re: RegExp) => re.exec(text)![1];
    const bas = await client.ok('books.reports', { report: 'basSummary', from: /\((\d{4}-\d\d-\d\d)\.\./.exec(text)![1], to: /\.\.(\d{4}-\d\d-\d\d)\)/.exec(text)![1] });
    expect(bas.lodgement).toMatchObject({ id: id(/taxSignLodge \{"id":"(bas_\w+)"/), status: 'PREPARED' });
    expect(bas.labels.G1).toBeGreaterThan(0);
    expect(bas.labels.W1).toBeGreaterThan(0);
    const bills = (await client.ok('books.bills', { limit: 200 })).bills;
    const changed = bills.find((b: any) => b.id === id(/billApprove \{"id":"(bill_\w+)"/));
    expect(changed).toMatchObject({ status: 'DRAFT', heldReason: 'NEW PAYEE' });
    expect(bills.some((b: any) => b.onHold)).toBe(true);
    const invoices = (await client.ok('books.invoices', { limit: 200 })).invoices;
    expect(invoices.find((i: any) => i.id === id(/invoiceChaseStep \{"id":"(inv_\w+)"/))).toMatchObject({ chaseStep: 1, status: 'AUTHORISED' });
    expect(invoices.some((i: any) => i.status === 'DRAFT')).toBe(true);
    expect(invoices.some((i: any) => i.promise?.status === 'OPEN')).toBe(true);
    expect(invoices.some((i: any) => i.daysOverdue > 30)).toBe(true);
    const unmatched = (await client.ok('books.feedLines', { status: 'UNMATCHED', limit: 200 })).feedLines;
    const suggested = (await client.ok('books.feedLines', { status: 'SUGGESTED', limit: 200 })).feedLines;
    expect(unmatched.length + suggested.length).toBe(2);
    expect((await client.ok('books.feedLines', { status: 'RECONCILED', limit: 200 })).feedLines.length).toBeGreaterThan(15);
    expect((await client.ok('books.assets', {})).assets.map((a: any) => a.costAccount)).toContain('720');
    // Super: every run's paid to the funds through the bank (826) but the latest, unpaid as the summary says.
    const runId = id(/the super of the \d{4}-\d\d pay run \((pay_\w+)\) is unpaid/);
    const due = /is unpaid, (?:overdue since|due) (\d{4}-\d\d-\d\d)/.exec(text)![1];
    const supers = (await client.ok('books.taxObligations', { limit: 200 })).obligations.filter((o: any) => o.kind === 'SUPER');
    expect(supers.filter((o: any) => o.status !== 'PAID').map((o: any) => [o.key, o.dueDate, o.status])).toEqual([[`SUPER ${runId}`, due, 'UNPAID']]);
  });

  it('the waiting acts behave as the summary says: holds and a PB-B1 refusal', async () => {
    const text = demo.summary.join('\n');
    const hold = await client.rpc('books.payrollSign', { runId: /payrollSign \{"runId":"(pay_\w+)"/.exec(text)![1] }, { key: demo.keys.agent, idem: 'try-1' });
    expect(hold.body.result.status).toBe('approval_required');
    const refusal = await client.rpc('books.billApprove', { id: /billApprove \{"id":"(bill_\w+)"/.exec(text)![1] }, { key: demo.keys.agent, idem: 'try-2' });
    expect(refusal.body.error.code).toBe('GOVERNANCE_NOT_READY');
    const stp = await client.rpc('books.stpResubmit', { eventId: /stpResubmit \{"eventId":"(stp_\w+)"/.exec(text)![1] });
    expect(stp.body.ok, stp.raw).toBe(true);
    await checkInvariants(runtime.db, demo.orgId);
  });

  it('refuses to seed into an org that exists', async () => {
    await expect(seedDemo(runtime, { slug: demo.slug })).rejects.toThrow(/already exists/);
  });
});
