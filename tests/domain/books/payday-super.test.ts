import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBusinessDays, holidayOn, isBusinessDay } from '../../../domain/books/calendar.js';
import { postJournal } from '../../../domain/books/journal.js';
import { loadRunView } from '../../../domain/books/payroll/run-model.js';
import { setBooksState } from '../../../domain/books/settings.js';
import { PAYDAY_RULE, QUARTERLY_RULE, superDueDate } from '../../../domain/books/tax/model.js';
import { newId } from '../../../domain/ids.js';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { payrollKit } from './payroll-kit.js';
import { feedLine } from './reconciliation-kit.js';
import { booksServer, checkInvariants, type BooksServer } from './setup.js';

/*
 * Payday Super (issue 14): from 1 July 2026 each pay run's super is due 7 business days after its pay date (20
 * for an employee's first pay in the org), business days skipping weekends and the public holidays of Australia
 * and the org's state; before, 28 days after the quarter. Overdue from the day after the due date.
 */

let s: BooksServer;
let k: ReturnType<typeof payrollKit>;
beforeAll(async () => {
  s = await booksServer('2027-01-06');
  k = payrollKit(s);
});
afterAll(() => s.close());

describe('business days and due dates', () => {
  it('public holidays come from the calendar, national and state', () => {
    expect(holidayOn('NSW', '2026-12-25')).toBe('Christmas Day');
    expect(holidayOn('NSW', '2026-12-28')).toMatch(/Boxing Day/); // 26 Dec is a Saturday: Monday substitutes
    expect(holidayOn('NSW', '2027-03-26')).toBe('Good Friday');
    expect(holidayOn('NSW', '2027-03-29')).toBe('Easter Monday');
    expect(holidayOn('NSW', '2026-10-05')).toBe('Labour Day'); // NSW's Labour Day; Victoria's is in March
    expect(holidayOn('VIC', '2026-10-05')).toBeNull();
    expect(holidayOn('VIC', '2026-11-03')).toBe('Melbourne Cup');
    expect(isBusinessDay('NSW', '2026-11-03')).toBe(true);
    expect(isBusinessDay('NSW', '2026-12-26')).toBe(false);
  });

  it('Payday Super: 7 business days after payday, 20 for a first pay; quarterly before 1 July 2026', () => {
    // Christmas: 24 Dec is day 1; 25 and 28 Dec and 1 Jan are holidays -> 6 Jan (day 7), 25 Jan (day 20).
    expect(superDueDate('2026-12-23', 'NSW')).toBe('2027-01-06');
    expect(superDueDate('2026-12-23', 'NSW', true)).toBe('2027-01-25');
    // Easter 2027: Good Friday 26 Mar and Easter Monday 29 Mar are skipped.
    expect(superDueDate('2027-03-24', 'NSW')).toBe('2027-04-06');
    // Labour Day 5 Oct is a holiday in NSW, not in Victoria.
    expect(superDueDate('2026-09-30', 'NSW')).toBe('2026-10-12');
    expect(superDueDate('2026-09-30', 'VIC')).toBe('2026-10-09');
    // A first pay across Australia Day (Tue 26 Jan 2027).
    expect(superDueDate('2027-01-04', 'NSW', true)).toBe('2027-02-02');
    // The boundary: 30 June 2026 is the last quarterly pay date (28 days after the quarter), 1 July the first Payday Super one.
    expect(superDueDate('2026-06-30', 'NSW')).toBe('2026-07-28');
    expect(superDueDate('2026-06-30', 'NSW', true)).toBe('2026-07-28');
    expect(superDueDate('2026-07-01', 'NSW')).toBe('2026-07-10');
    expect(addBusinessDays('NSW', '2026-07-03', 1)).toBe('2026-07-06');
  });
});

// ---- obligations from pay runs --------------------------------------------------------------------

interface Desk {
  client: TestClient;
  orgId: string;
  slug: string;
  agent: string;
  approver: string;
}

async function desk(): Promise<Desk> {
  const org = await freshOrg(s.runtime, 'super');
  const client = new TestClient(s.app, org.adminKey);
  return {
    client,
    orgId: org.orgId,
    slug: org.slug,
    agent: (await client.mint({ tier: 'agent' }, 'agent')).apiKey,
    approver: (await client.mint({ tier: 'approver' }, 'approver')).apiKey,
  };
}

/**
 * A signed pay run as books.payrollSign leaves it (POSTED row, payslips, the journal Dr 477, 478 / Cr 825, 826,
 * 804), recorded directly so these tests do not depend on which PAYG schedules are loaded (payroll.test.ts
 * covers drafting and signing). Gross is 10x the super, PAYG 2x.
 */
async function payRun(d: Desk, periodStart: string, periodEnd: string, payDate: string, slips: { employee: { id: string; name: string }; superCents: number }[]): Promise<string> {
  const runId = newId('pay');
  const sum = (f: (x: { superCents: number }) => number) => slips.reduce((t, x) => t + f(x), 0);
  const [gross, payg, sup] = [sum((x) => x.superCents * 10), sum((x) => x.superCents * 2), sum((x) => x.superCents)];
  await s.runtime.db.tx(async (q) => {
    await q.query(
      `INSERT INTO books_pay_runs (org_id, run_id, period_start, period_end, pay_date, status, staff_count, gross_cents, payg_cents, super_cents, net_cents, created_by)
       VALUES ($1, $2, $3, $4, $5, 'DRAFT', $6, $7, $8, $9, $10, 'test')`,
      [d.orgId, runId, periodStart, periodEnd, payDate, slips.length, gross, payg, sup, gross - payg],
    );
    for (const x of slips) {
      await q.query(
        `INSERT INTO books_payslips (org_id, payslip_id, run_id, employee_id, employee_name, days_employed, pay_basis, rate_cents, hours_per_week,
                claims_tax_free_threshold, gross_cents, payg_cents, super_cents, net_cents)
         VALUES ($1, $2, $3, $4, $5, 14, 'ANNUAL', 7800000, 38, true, $6, $7, $8, $9)`,
        [d.orgId, newId('psl'), runId, x.employee.id, x.employee.name, x.superCents * 10, x.superCents * 2, x.superCents, x.superCents * 8],
      );
    }
    const journalId = await postJournal(q, d.orgId, {
      date: payDate,
      narration: `Pay run ${periodStart}..${periodEnd}`,
      sourceKind: 'pay_run',
      sourceId: runId,
      postedBy: 'test',
      lines: [
        { account: '477', amountCents: gross, description: 'Gross wages' },
        { account: '478', amountCents: sup, description: 'Super guarantee' },
        { account: '825', amountCents: -payg, description: 'PAYG withheld' },
        { account: '826', amountCents: -sup, description: 'Super guarantee payable' },
        { account: '804', amountCents: -(gross - payg), description: 'Net wages payable' },
      ],
    });
    await q.query(`UPDATE books_pay_runs SET status = 'POSTED', journal_id = $3, posted_at = now() WHERE org_id = $1 AND run_id = $2`, [d.orgId, runId, journalId]);
  });
  return runId;
}

/** Super paid to the funds the way it happens: a bank line out, coded to 826. */
async function paySuper(d: Desk, amountCents: number, date: string): Promise<void> {
  const lineId = await feedLine(s, d, -amountCents, { date, description: 'SUPER CLEARING HOUSE' });
  await d.client.ok('books.matchAccept', { lineId, target: { kind: 'account', account: '826' } });
}

const superAsAt = async (d: Desk, asOf: string) =>
  (await d.client.ok('books.taxObligations', { asOf, limit: 200 })).obligations.filter((o: any) => o.kind === 'SUPER');
const brief = (items: any[]) => items.map((o) => [o.key.replace(/pay_\w+/, 'RUN'), o.periodEnd, o.dueDate, o.amountCents, o.status, o.overdue]);

describe('books.taxObligations: super by pay run', () => {
  it('a quarter around Christmas: per-run due dates with holidays skipped, a first pay at 20 days, overdue on the 8th business day, paying clears', async () => {
    const d = await desk();
    const jane = await k.hire(d, { startDate: '2026-09-17' });
    const sam = await k.hire(d, { person: 'Sam Lee', role: 'Junior', startDate: '2026-12-10' });
    const r1 = await payRun(d, '2026-09-17', '2026-09-30', '2026-09-30', [{ employee: jane, superCents: 30_000 }]); // Jane's first pay
    const r2 = await payRun(d, '2026-10-01', '2026-10-14', '2026-10-14', [{ employee: jane, superCents: 30_000 }]);
    const r3 = await payRun(d, '2026-12-10', '2026-12-23', '2026-12-23', [{ employee: jane, superCents: 30_000 }, { employee: sam, superCents: 15_000 }]); // Sam's first
    const key = (id: string) => (x: any) => x.key.startsWith(`SUPER ${id}`);

    // As at 6 Jan 2027 (the 7th business day after 23 Dec): Jane's super on r3 is due today, not yet overdue.
    const jan6 = await superAsAt(d, '2027-01-06');
    expect(brief(jan6)).toEqual([
      ['SUPER RUN', '2026-10-14', '2026-10-23', 30_000, 'UNPAID', true],
      // Shown though its pay date is before the two quarters listed: it is unpaid.
      ['SUPER RUN first pay', '2026-09-30', '2026-10-29', 30_000, 'UNPAID', true],
      ['SUPER RUN', '2026-12-23', '2027-01-06', 30_000, 'UNPAID', false],
      ['SUPER RUN first pay', '2026-12-23', '2027-01-25', 15_000, 'UNPAID', false],
    ]);
    expect(jan6.find(key(r1)).key).toBe(`SUPER ${r1} first pay`);
    expect(jan6.find(key(r2)).key).toBe(`SUPER ${r2}`);
    const christmas = jan6.find((x: any) => x.key === `SUPER ${r3}`);
    expect(christmas.note).toContain('Payday Super: due 7 business days after payday');
    expect(christmas.note).toMatch(/skips Christmas Day 2026-12-25, Boxing Day \(substitute day\) 2026-12-28, New Year's Day 2027-01-01 \(NSW\)/);
    expect(jan6.find(key(r1)).note).toMatch(/20 business days after a new employee's first payday; skips Labour Day 2026-10-05 \(NSW\)/);

    // 7 Jan, the 8th business day: overdue.
    const jan7 = await superAsAt(d, '2027-01-07');
    expect(jan7.find((x: any) => x.key === `SUPER ${r3}`)).toMatchObject({ status: 'UNPAID', overdue: true });
    expect(jan7.find((x: any) => x.key === `SUPER ${r3}`).note).toContain('overdue since 2027-01-06');

    // A payment on 8 Jan settles the oldest due first: r2, r1, then Jane's on r3; 5,000 of Sam's first pay.
    await paySuper(d, 95_000, '2027-01-08');
    const jan8 = await superAsAt(d, '2027-01-08');
    expect(brief(jan8)).toEqual([
      ['SUPER RUN', '2026-10-14', '2026-10-23', 30_000, 'PAID', false],
      ['SUPER RUN', '2026-12-23', '2027-01-06', 30_000, 'PAID', false],
      ['SUPER RUN first pay', '2026-12-23', '2027-01-25', 15_000, 'PART_PAID', false],
    ]);
    expect(jan8[2].note).toContain('$100.00 unpaid ($50.00 paid)');
    // As at the day before the payment nothing changed: the books as at a date.
    expect((await superAsAt(d, '2027-01-07')).filter((x: any) => x.overdue)).toHaveLength(3);
    // Sam's first-pay super overdue the day after its 20th business day, then paid.
    expect((await superAsAt(d, '2027-01-25')).find(key(`${r3} first`))).toMatchObject({ overdue: false });
    expect((await superAsAt(d, '2027-01-26')).find(key(`${r3} first`))).toMatchObject({ status: 'PART_PAID', overdue: true });
    await paySuper(d, 10_000, '2027-01-27');
    expect((await superAsAt(d, '2027-01-27')).find(key(`${r3} first`))).toMatchObject({ status: 'PAID', overdue: false });

    // The payroll summary names each run's rule and due dates; the run itself names its rule.
    const summary = await d.client.ok('books.reports', { report: 'payrollSummary', from: '2026-12-01', to: '2026-12-31' });
    expect(summary.runs).toEqual([
      expect.objectContaining({
        id: r3,
        superCents: 45_000,
        superRule: PAYDAY_RULE,
        superDue: [{ dueDate: '2027-01-06', amountCents: 30_000, firstPay: false }, { dueDate: '2027-01-25', amountCents: 15_000, firstPay: true }],
      }),
    ]);
    const view = await loadRunView(s.runtime.db, d.orgId, r3);
    expect(view.superRule).toBe(PAYDAY_RULE);
    expect(view.payslips.map((p) => [p.employee.name, p.superRule])).toEqual([
      ['Jane Citizen', 'Payday Super: due 7 business days after payday'],
      ['Sam Lee', 'Payday Super, first pay: due 20 business days after payday'],
    ]);
    expect((await loadRunView(s.runtime.db, d.orgId, r1)).payslips[0].superRule).toBe('Payday Super, first pay: due 20 business days after payday');
    await checkInvariants(s.runtime.db, d.orgId);
  });

  it('30 June 2026 stays quarterly, 1 July 2026 is Payday Super; a first pay before July makes later runs ordinary', async () => {
    const d = await desk();
    const jane = await k.hire(d, { startDate: '2026-06-01' });
    const june = await payRun(d, '2026-06-01', '2026-06-14', '2026-06-30', [{ employee: jane, superCents: 20_000 }]);
    const july = await payRun(d, '2026-06-15', '2026-06-28', '2026-07-01', [{ employee: jane, superCents: 21_000 }]);
    expect(brief(await superAsAt(d, '2026-07-10'))).toEqual([
      ['SUPER RUN', '2026-06-28', '2026-07-10', 21_000, 'UNPAID', false],
      ['SUPER 2026-04-01..2026-06-30', '2026-06-30', '2026-07-28', 20_000, 'UNPAID', false],
    ]);
    const later = await superAsAt(d, '2026-07-13');
    expect(later.map((x: any) => [x.dueDate, x.overdue])).toEqual([['2026-07-10', true], ['2026-07-28', false]]);
    expect(later[1].note).toContain(QUARTERLY_RULE);
    const [juneRun, julyRun] = [await loadRunView(s.runtime.db, d.orgId, june), await loadRunView(s.runtime.db, d.orgId, july)];
    expect([juneRun.superRule, juneRun.payslips[0].superRule]).toEqual([QUARTERLY_RULE, QUARTERLY_RULE]);
    // Jane's first pay was 30 June, so 1 July is an ordinary Payday Super pay for her.
    expect([julyRun.superRule, julyRun.payslips[0].superRule]).toEqual([PAYDAY_RULE, 'Payday Super: due 7 business days after payday']);
    const summary = await d.client.ok('books.reports', { report: 'payrollSummary', from: '2026-06-01', to: '2026-07-31' });
    expect(summary.runs.map((r: any) => [r.payDate, r.superRule, r.superDue])).toEqual([
      ['2026-06-30', QUARTERLY_RULE, [{ dueDate: '2026-07-28', amountCents: 20_000, firstPay: false }]],
      ['2026-07-01', PAYDAY_RULE, [{ dueDate: '2026-07-10', amountCents: 21_000, firstPay: false }]],
    ]);
  });

  it("the org's state decides its holidays: an operator sets it, ledgered, and GET /policy shows it", async () => {
    const d = await desk();
    const jane = await k.hire(d, { startDate: '2026-09-01' });
    await payRun(d, '2026-09-01', '2026-09-14', '2026-09-16', [{ employee: jane, superCents: 10_000 }]);
    await payRun(d, '2026-09-17', '2026-09-30', '2026-09-30', [{ employee: jane, superCents: 10_000 }]);
    expect((await d.client.get('policy')).body.books.state).toBe('NSW');
    const due = async () => (await superAsAt(d, '2026-10-01')).map((x: any) => x.dueDate);
    expect(await due()).toEqual(['2026-10-12', '2026-10-15']); // the first pay (16 Sep): 20 business days, past Labour Day
    expect(await setBooksState(s.runtime.db, d.slug, 'VIC')).toEqual({ state: 'VIC', previous: 'NSW' });
    expect((await d.client.get('policy')).body.books.state).toBe('VIC');
    // Victoria: no Labour Day in October, but the AFL Grand Final Friday (25 Sep) is a holiday there.
    expect(await due()).toEqual(['2026-10-09', '2026-10-15']);
    const [event] = await s.runtime.db.query<{ kind: string; actor: string; payload: any }>(
      `SELECT kind, actor, payload FROM events WHERE org_id = $1 AND kind = 'books.settings.state'`,
      [d.orgId],
    );
    expect({ ...event, payload: JSON.parse(event.payload) }).toMatchObject({ kind: 'books.settings.state', actor: '', payload: { state: 'VIC', previous: 'NSW', by: 'system' } });
    await expect(setBooksState(s.runtime.db, d.slug, 'Victoria')).rejects.toThrow(/^--state: must be one of ACT, NSW/);
  });
});
