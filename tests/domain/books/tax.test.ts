import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_HANDLERS } from '../../../domain/deployed.js';
import { computeBas } from '../../../domain/books/tax/index.js';
import { one } from '../../../db/types.js';
import type { TestClient } from '../../helpers/harness.js';
import { MISSING, booksServer, expectHold, idem, mutate, type BooksServer } from './setup.js';
import { expectOk, head, otherOrg, refused } from '../../helpers/calls.js';
import { CLAIMS_LODGED, Q3, Q3_LABELS, Q3_NET, TODAY, taxKit, type Org } from './tax-kit.js';

/** Tax: BAS labels, books.taxPrepare, books.taxHold, books.taxReturn and books.taxObligations (lodging: tax-lodge.test.ts). */

let s: BooksServer;
let other: TestClient;
let k: ReturnType<typeof taxKit>;
beforeAll(async () => {
  s = await booksServer(TODAY);
  other = await otherOrg(s);
  k = taxKit(s);
});
afterAll(() => s.close());

describe('BAS labels (computeBas)', () => {
  it('derives every label from the journal lines of the period, by hand', async () => {
    const o = await k.booksOrg();
    await k.quarterActivity(o);
    const bas = await computeBas(s.runtime.db, o.orgId, Q3.periodStart, Q3.periodEnd);
    expect(bas.labels).toEqual(Q3_LABELS);
    expect(bas.netCents).toBe(Q3_NET);
    // October only: the sale of 3 Oct (22000 incl. GST 2000).
    expect(await computeBas(s.runtime.db, o.orgId, '2026-10-01', '2026-10-31')).toEqual({
      labels: { G1: 22000, G2: 0, G3: 0, G10: 0, G11: 0, '1A': 2000, '1B': 0, W1: 0, W2: 0 },
      netCents: 2000,
    });
    await k.invariants(o);
  });

  it.runIf(METHOD_HANDLERS.has('books.billApprove'))('counts an approved bill: capital lines in G10, the rest in G11, its GST in 1B', async () => {
    const o = await k.booksOrg();
    const bill = (
      await o.client.ok('books.billCapture', {
        supplierName: 'Coastal Office Supplies',
        reference: 'SI-1',
        issueDate: '2026-08-01',
        dueDate: '2026-08-31',
        lines: [
          { description: 'Toner', account: '429', amountCents: 44000 },
          { description: 'Laptop', account: '720', amountCents: 242000 },
          { description: 'Bank charges passed on', account: '404', amountCents: 1100 },
        ],
      })
    ).bill;
    // A first bill from a supplier is NEW PAYEE (PB-B1): the refusal names the payload hash to file.
    const res = await o.client.rpc('books.billApprove', { id: bill.id }, { key: o.agent.apiKey });
    const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(res.body.error?.message ?? '')?.[1];
    let params: Record<string, unknown> = { id: bill.id };
    if (payloadHash) {
      const approvalId = await k.approve(o, {
        approval: { actionClass: 'books.bill_approve', payloadHash, subject: { kind: 'books.signature', subjectId: bill.id, summary: 'bill' } },
      });
      params = { id: bill.id, approvalId };
    }
    if (!res.body.ok) await o.client.ok('books.billApprove', params, { idem: idem() });
    const bas = await computeBas(s.runtime.db, o.orgId, Q3.periodStart, Q3.periodEnd);
    // 429: 44000 incl. GST 4000; 720: 242000 incl. GST 22000; 404 input taxed: 1100, no GST.
    expect(bas.labels).toEqual({ G1: 0, G2: 0, G3: 0, G10: 242000, G11: 44000 + 1100, '1A': 0, '1B': 4000 + 22000, W1: 0, W2: 0 });
    expect(bas.netCents).toBe(-26000);
    await k.invariants(o);
  });
});

describe('books.taxPrepare', () => {
  it('snapshots the labels and the net -> PREPARED; posts nothing; a replay changes nothing', async () => {
    const o = await k.booksOrg();
    await k.quarterActivity(o);
    const journals = await k.journalCount(o);
    const { result, event } = await mutate(o.client, 'books.taxPrepare', Q3, 'books.tax.prepare');
    expect(result.changed).toBe(true);
    expect(result.lodgement).toMatchObject({
      status: 'PREPARED',
      periodStart: '2026-07-01',
      periodEnd: '2026-09-30',
      period: '1 Jul–30 Sep 2026',
      labels: Q3_LABELS,
      netCents: Q3_NET,
      lodgedAt: null,
      journalId: null,
    });
    expect(result.lodgement.id).toMatch(/^bas_/);
    expect(result.lodgement.statusNote).toMatch(/awaiting a human signature/);
    expect(result.message).toContain('net $890.00 payable to the ATO');
    expect(event.payload).toMatchObject({ lodgementId: result.lodgement.id, labels: Q3_LABELS, netCents: Q3_NET, previousStatus: null });
    expect(await k.journalCount(o)).toBe(journals);

    const replay = await mutate(o.client, 'books.taxPrepare', Q3, 'books.tax.prepare');
    expect(replay.result).toMatchObject({ changed: false, lodgement: { id: result.lodgement.id, labels: Q3_LABELS } });
    expect(replay.event.payload.noop).toBe(true);
    await k.invariants(o);
  });

  it('re-prepares in place when the books moved: same id, fresh snapshot', async () => {
    const o = await k.booksOrg();
    await k.quarterActivity(o);
    const first = await k.prepared(o);
    await k.sale(o, '2026-09-10', 11000); // GST 1000
    const { result } = await mutate(o.client, 'books.taxPrepare', Q3, 'books.tax.prepare');
    expect(result.changed).toBe(true);
    expect(result.lodgement.id).toBe(first.id);
    expect(result.lodgement.labels).toEqual({ ...Q3_LABELS, G1: Q3_LABELS.G1 + 11000, '1A': Q3_LABELS['1A'] + 1000 });
    expect(result.lodgement.netCents).toBe(Q3_NET + 1000);
    expect(result.message).toMatch(/Re-prepared .*G1 \$2,040\.00 -> \$2,150\.00/);
    const count = await s.runtime.db.query('SELECT 1 FROM books_tax_lodgements WHERE org_id = $1', [o.orgId]);
    expect(count).toHaveLength(1);
  });

  it('refuses bad periods, overlaps and locked periods', async () => {
    const o = await k.booksOrg();
    await refused(o.client, 'books.taxPrepare', { periodStart: '2026-09-30', periodEnd: '2026-07-01' }, 'BAD_REQUEST', {
      message: /^periodEnd: 2026-07-01 is before periodStart/,
    });
    await refused(o.client, 'books.taxPrepare', { periodStart: '2026-07-1', periodEnd: '2026-09-30' }, 'BAD_REQUEST', { message: /^periodStart: / });
    await refused(o.client, 'books.taxPrepare', { periodStart: '2026-07-01' }, 'BAD_REQUEST', { message: 'periodEnd: required' });
    const l = await k.prepared(o);
    const msg = await refused(o.client, 'books.taxPrepare', { periodStart: '2026-08-01', periodEnd: '2026-10-31' }, 'CONFLICT');
    expect(msg).toContain(l.id);
    await refused(o.client, 'books.taxPrepare', { periodStart: '2026-09-30', periodEnd: '2026-09-30' }, 'CONFLICT', {
      message: /overlaps BAS 1 Jul–30 Sep 2026/,
    });
    // A one-day period is a period: it may be prepared when nothing overlaps it.
    await mutate(o.client, 'books.taxPrepare', { periodStart: '2026-10-01', periodEnd: '2026-10-01' }, 'books.tax.prepare');
    // Locked periods (a lodged BAS sets the lock; here set directly) cannot be prepared.
    const p = await k.booksOrg();
    await s.runtime.db.query('UPDATE books_settings SET lock_date = $2 WHERE org_id = $1', [p.orgId, '2026-06-30']);
    await refused(p.client, 'books.taxPrepare', { periodStart: '2026-06-01', periodEnd: '2026-07-31' }, 'CONFLICT', { message: /locked through 2026-06-30/ });
  });
});

describe('books.taxHold and books.taxReturn', () => {
  it('hold: PREPARED -> HELD, said held and never lodged; replay changes nothing; blocks lodging and re-preparing', async () => {
    const o = await k.booksOrg();
    await k.quarterActivity(o);
    const l = await k.prepared(o);
    const { result, event } = await mutate(o.client, 'books.taxHold', { id: l.id, reason: 'Query on the July bills' }, 'books.tax.hold');
    expect(result.lodgement).toMatchObject({ id: l.id, status: 'HELD', holdReason: 'Query on the July bills', lodgedAt: null, labels: Q3_LABELS });
    expect(result.message).toMatch(/held, not lodged/);
    expect(result.lodgement.statusNote).toMatch(/^Held, not lodged/);
    for (const text of [result.message, result.lodgement.statusNote]) expect(text).not.toMatch(CLAIMS_LODGED);
    expect(event.payload).toMatchObject({ lodgementId: l.id, status: 'HELD', reason: 'Query on the July bills' });

    const again = await mutate(o.client, 'books.taxHold', { id: l.id, reason: 'Again' }, 'books.tax.hold');
    expect(again.result).toMatchObject({ changed: false, lodgement: { status: 'HELD', holdReason: 'Query on the July bills' } });
    expect(again.event.payload.noop).toBe(true);

    s.clock.set('2026-10-05');
    const lodging = await refused(o.client, 'books.taxSignLodge', { id: l.id }, 'CONFLICT', { message: /held, not lodged .*books\.taxReturn.*re-prepare/ });
    expect(lodging).not.toMatch(CLAIMS_LODGED);
    s.clock.set(TODAY);
    await refused(o.client, 'books.taxPrepare', Q3, 'CONFLICT', { message: /is held \(Query on the July bills\): return it to the preparer first/ });
    expect((await k.row(o, l.id)).status).toBe('HELD');
    await k.invariants(o);
  });

  it('return: PREPARED or HELD -> DRAFT with the reason; re-prepare brings it back; every call is a new act', async () => {
    const o = await k.booksOrg();
    await k.quarterActivity(o);
    const l = await k.prepared(o);
    await o.client.ok('books.taxHold', { id: l.id, reason: 'Check wages' });
    const { result, event } = await mutate(o.client, 'books.taxReturn', { id: l.id, reason: 'Recode the bank fees' }, 'books.tax.return');
    expect(result.lodgement).toMatchObject({ status: 'DRAFT', returnReason: 'Recode the bank fees' });
    expect(result.lodgement.statusNote).toMatch(/With the preparer \(returned: Recode the bank fees\)/);
    expect(event.payload).toMatchObject({ previousStatus: 'HELD', status: 'DRAFT', reason: 'Recode the bank fees' });
    await refused(o.client, 'books.taxReturn', { id: l.id, reason: 'x' }, 'CONFLICT', { message: /already with the preparer/ });
    await refused(o.client, 'books.taxHold', { id: l.id, reason: 'x' }, 'CONFLICT', { message: /DRAFT/ });
    s.clock.set('2026-10-05');
    await refused(o.client, 'books.taxSignLodge', { id: l.id }, 'CONFLICT', { message: /DRAFT with the preparer/ });
    s.clock.set(TODAY);

    // Re-preparing a DRAFT is a change even with the same figures (it is PREPARED again).
    const again = await mutate(o.client, 'books.taxPrepare', Q3, 'books.tax.prepare');
    expect(again.result).toMatchObject({ changed: true, lodgement: { id: l.id, status: 'PREPARED', labels: Q3_LABELS } });
    expect(again.event.payload.previousStatus).toBe('DRAFT');

    // M only: an idempotency key does not replay a return, each call runs.
    const key = idem('return');
    const first = expectOk('books.taxReturn', await o.client.rpc('books.taxReturn', { id: l.id, reason: 'First' }, { idem: key }));
    await o.client.ok('books.taxPrepare', Q3);
    const before = await head(o.client);
    const second = expectOk('books.taxReturn', await o.client.rpc('books.taxReturn', { id: l.id, reason: 'Second' }, { idem: key }));
    expect(await head(o.client)).toBe(before + 1);
    expect(second.ledgerId).not.toBe(first.ledgerId);
    expect(second.lodgement.returnReason).toBe('Second');
    await k.invariants(o);
  });

  it('missing, other org, bad input', async () => {
    const o = await k.booksOrg();
    const l = await k.prepared(o);
    for (const method of ['books.taxHold', 'books.taxReturn']) {
      await refused(o.client, method, { id: MISSING.lodgement, reason: 'x' }, 'NOT_FOUND', { message: /lodgement bas_doesnotexist0000 not found/ });
      await refused(other, method, { id: l.id, reason: 'x' }, 'NOT_FOUND');
      await refused(o.client, method, { id: 'inv_123', reason: 'x' }, 'BAD_REQUEST', { message: /^id: / });
      await refused(o.client, method, { id: l.id }, 'BAD_REQUEST', { message: 'reason: required' });
      await refused(o.client, method, { id: l.id, reason: '' }, 'BAD_REQUEST', { message: /^reason: / });
    }
    await refused(o.client, 'books.taxSignLodge', { id: MISSING.lodgement }, 'NOT_FOUND');
    await refused(other, 'books.taxSignLodge', { id: l.id }, 'NOT_FOUND');
  });
});

describe('books.taxObligations', () => {
  it('lists BAS, PAYGW, super and STP with due dates: current and previous quarter plus anything overdue or open', async () => {
    const o = await k.booksOrg();
    await k.purchase(o, '2026-03-15', '429', 1100, 'GST'); // Jan–Mar: never prepared, overdue
    await k.payRun(o, '2026-09-15', 500000, 100000, 60000);
    const l = await k.prepared(o);
    await o.client.ok('books.taxHold', { id: l.id, reason: 'Awaiting the July bills' });

    const stp = await stpFixture(o);
    const read = expectOk('books.taxObligations', await o.client.rpc('books.taxObligations', {}));
    const view = read.obligations.map((x: any) => [x.kind, x.periodStart, x.dueDate, x.status, x.amountCents, x.overdue]);
    expect(view).toEqual([
      ['BAS', '2026-01-01', '2026-04-28', 'NOT_PREPARED', -100, true],
      ['BAS', '2026-04-01', '2026-07-28', 'NOT_PREPARED', 0, true],
      ...(stp ? [['STP', '2026-09-15', '2026-09-15', 'ACCEPTED', null, false]] : []),
      // Payday Super: the run paid Tue 15 Sep owes its super 7 business days later (NSW), unpaid and overdue.
      ['SUPER', '2026-09-15', '2026-09-24', 'UNPAID', 60000, true],
      ...(stp ? [['STP', '2026-10-15', '2026-10-15', 'FAILED', null, true]] : []),
      // Jul–Sep: held (snapshot net = W2 100000), PAYGW on the same BAS.
      ['BAS', '2026-07-01', '2026-10-28', 'HELD', 100000, true],
      ['PAYGW', '2026-07-01', '2026-10-28', 'HELD', 100000, true],
      ['BAS', '2026-10-01', '2027-02-28', 'NOT_PREPARED', 0, false],
    ]);
    expect(read.nextCursor).toBeNull();
    const held = read.obligations.find((x: any) => x.kind === 'BAS' && x.status === 'HELD');
    expect(held).toMatchObject({ lodgementId: l.id, estimated: false });
    expect(held.note).toMatch(/held, not lodged \(Awaiting the July bills\)/);
    for (const x of read.obligations.filter((y: any) => y.status === 'HELD')) expect(JSON.stringify(x)).not.toMatch(CLAIMS_LODGED);
    expect(read.obligations[0]).toMatchObject({ estimated: true, lodgementId: null });

    // Pages by position; the pages put together are the whole list.
    const p1 = await o.client.ok('books.taxObligations', { limit: 3 });
    const p2 = await o.client.ok('books.taxObligations', { limit: 3, cursor: p1.nextCursor });
    const p3 = await o.client.ok('books.taxObligations', { limit: 3, cursor: p2.nextCursor });
    expect([...p1.obligations, ...p2.obligations, ...p3.obligations]).toEqual(read.obligations);
    expect(p3.nextCursor).toBeNull();

    // As at 1 Sep: current Jul–Sep, previous Apr–Jun; Jan–Mar (due 28 Apr) still overdue; nothing later.
    const earlier = await o.client.ok('books.taxObligations', { asOf: '2026-09-01' });
    expect(earlier.obligations.filter((x: any) => x.kind === 'BAS').map((x: any) => [x.periodStart, x.overdue])).toEqual([
      ['2026-01-01', true],
      ['2026-04-01', true],
      ['2026-07-01', false],
    ]);
    expect((await other.ok('books.taxObligations', {})).obligations.some((x: any) => x.lodgementId === l.id)).toBe(false);
    await refused(o.client, 'books.taxObligations', { asOf: 'soon' }, 'BAD_REQUEST', { message: /^asOf: / });
    await refused(o.client, 'books.taxObligations', { limit: 0 }, 'BAD_REQUEST', { message: /^limit: / });
    const reader = await o.client.mint({ tier: 'reader' });
    expect((await o.client.rpc('books.taxObligations', {}, { key: reader.apiKey })).status).toBe(200);
  });

  it('a lodged quarter shows LODGED with its net; older lodged quarters drop off', async () => {
    const o = await k.booksOrg();
    await k.sale(o, '2026-05-10', 11000);
    const q2 = await k.prepared(o, { periodStart: '2026-04-01', periodEnd: '2026-06-30' });
    s.clock.set('2026-07-02');
    const hold = await expectHold(o.client, 'books.taxSignLodge', { id: q2.id }, 'books.tax_sign_lodge');
    await o.client.ok('books.taxSignLodge', { id: q2.id, approvalId: await k.approve(o, hold) }, { idem: idem() });
    s.clock.set(TODAY);
    const asAt = async (asOf: string) =>
      (await o.client.ok('books.taxObligations', { asOf })).obligations
        .filter((x: any) => x.kind === 'BAS')
        .map((x: any) => [x.periodStart, x.status, x.amountCents]);
    expect(await asAt('2026-08-01')).toEqual([
      ['2026-04-01', 'LODGED', 1000],
      ['2026-07-01', 'NOT_PREPARED', 0],
    ]);
    expect(await asAt('2026-11-02')).toEqual([
      ['2026-07-01', 'NOT_PREPARED', 0],
      ['2026-10-01', 'NOT_PREPARED', 0],
    ]);
  });
});

/**
 * STP pay events live in the payroll area's table (migration 007). When it is deployed, one accepted event in
 * September, one failed event in October (overdue) and an old accepted one (not shown), for posted pay runs
 * whose net is paid (so 804 stays with its subledger). Rows of this fresh org only. Returns whether it ran.
 */
async function stpFixture(o: Org): Promise<boolean> {
  const [t] = await s.runtime.db.query<{ t: string | null }>(`SELECT to_regclass('books_stp_events')::text AS t`);
  if (!t?.t) return false;
  const run = one(
    await s.runtime.db.query<{ journal_id: string }>(`SELECT journal_id FROM books_journals WHERE org_id = $1 AND source_kind = 'pay_run'`, [o.orgId]),
  );
  const insertRun = (runId: string, payDate: string) =>
    s.runtime.db.query(
      `INSERT INTO books_pay_runs (org_id, run_id, period_start, period_end, pay_date, status, staff_count, gross_cents, payg_cents, super_cents, net_cents, paid_cents, journal_id, created_by)
       VALUES ($1, $2, $3, $3, $3, 'POSTED', 1, 500000, 100000, 60000, 400000, 400000, $4, 'test')`,
      [o.orgId, runId, payDate, run.journal_id],
    );
  const insertStp = (stpId: string, runId: string, status: string, payDate: string) =>
    s.runtime.db.query(
      `INSERT INTO books_stp_events (org_id, stp_id, run_id, kind, status, error, pay_date, financial_year, figures, gross_cents, payg_cents, super_cents, created_by)
       VALUES ($1, $2, $3, 'PAY', $4, $5, $6, '2026-27', '[]', 500000, 100000, 60000, 'test')`,
      [o.orgId, stpId, runId, status, status === 'FAILED' ? 'rejected by the ATO' : null, payDate],
    );
  await insertRun('pay_testsep', '2026-09-15');
  await insertRun('pay_testoct', '2026-10-15');
  await insertStp('stp_testsep', 'pay_testsep', 'ACCEPTED', '2026-09-15');
  await insertStp('stp_testoct', 'pay_testoct', 'FAILED', '2026-10-15');
  await insertStp('stp_testold', 'pay_testsep', 'ACCEPTED', '2026-03-15');
  return true;
}
