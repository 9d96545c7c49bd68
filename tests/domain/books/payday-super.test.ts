import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBusinessDays, holidayOn, isBusinessDay } from '../../../domain/books/calendar.js';
import { loadRunView } from '../../../domain/books/payroll/run-model.js';
import { setBooksState } from '../../../domain/books/settings.js';
import { PAYDAY_RULE, QUARTERLY_RULE, superDueDate } from '../../../domain/books/tax/model.js';
import { one } from '../../../db/types.js';
import { payrollKit } from './payroll-kit.js';
import { booksServer, checkInvariants, type BooksServer } from './setup.js';
import { ack, brief, payRun as kitPayRun, paySuper as kitPaySuper, superAsAt, desk as superDesk, type Desk, type Slip } from './super-kit.js';

/*
 * Payday Super (issues 14, 27): from 1 July 2026 each pay run's super is due 7 business days after its pay date
 * (20 for an employee's first pay in the org), business days skipping weekends and any day that is a public holiday
 * throughout any state or territory, wherever the org is; before, 28 days after the quarter. Super counts when the
 * fund receives it: overdue from the day after the due date unless received by then. payday-super-law.test.ts has
 * the calendar's holidays, fund changes, re-employment and out-of-cycle runs.
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
    expect(superDueDate('2026-12-23')).toBe('2027-01-06');
    expect(superDueDate('2026-12-23', true)).toBe('2027-01-25');
    // Easter 2027: Good Friday 26 Mar and Easter Monday 29 Mar are skipped.
    expect(superDueDate('2027-03-24')).toBe('2027-04-06');
    // Labour Day 5 Oct is a holiday throughout NSW (and ACT, SA; QLD's King's Birthday): not a business day for a
    // Victorian employer either, under the law's definition.
    expect(superDueDate('2026-09-30')).toBe('2026-10-12');
    expect(superDueDate('2026-09-30')).toBe('2026-10-12');
    // A first pay across Australia Day (Tue 26 Jan 2027).
    expect(superDueDate('2027-01-04', true)).toBe('2027-02-02');
    // The boundary: 30 June 2026 is the last quarterly pay date (28 days after the quarter), 1 July the first Payday Super one.
    expect(superDueDate('2026-06-30')).toBe('2026-07-28');
    expect(superDueDate('2026-06-30', true)).toBe('2026-07-28');
    expect(superDueDate('2026-07-01')).toBe('2026-07-10');
    expect(addBusinessDays('NSW', '2026-07-03', 1)).toBe('2026-07-06');
  });
});

// ---- obligations from pay runs --------------------------------------------------------------------

const desk = () => superDesk(s);
const payRun = (d: Desk, periodStart: string, periodEnd: string, payDate: string, slips: Slip[]) => kitPayRun(s, d, periodStart, periodEnd, payDate, slips);
const paySuper = (d: Desk, amountCents: number, date: string) => kitPaySuper(s, d, amountCents, date);

describe('books.taxObligations: super by pay run', () => {
  it('a quarter around Christmas: per-run due dates with holidays skipped, a first pay at 20 days, overdue on the 8th business day, paying clears', async () => {
    const d = await desk();
    const jane = await k.hire(d, { startDate: '2026-09-17' });
    const sam = await k.hire(d, { person: 'Sam Lee', role: 'Junior', startDate: '2026-12-10' });
    const r1 = await payRun(d, '2026-09-17', '2026-09-30', '2026-09-30', [{ employee: jane, superCents: 30_000 }]); // Jane's first pay
    const r2 = await payRun(d, '2026-10-01', '2026-10-14', '2026-10-14', [{ employee: jane, superCents: 30_000 }]);
    const r3 = await payRun(d, '2026-12-10', '2026-12-23', '2026-12-23', [
      { employee: jane, superCents: 30_000 },
      { employee: sam, superCents: 15_000 },
    ]); // Sam's first
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
    expect(christmas.note).toContain(
      "skips Christmas Day 2026-12-25 (all states), Boxing Day (substitute day) 2026-12-28 (ACT, NSW, NT, QLD, VIC, WA), Proclamation Day 2026-12-28 (SA), Boxing Day 2026-12-28 (TAS), New Year's Day 2027-01-01 (all states)",
    );
    expect(christmas).toMatchObject({ dueRule: 'PAYDAY', estimated: false, sentCents: 0, receivedCents: 0 });
    expect(christmas.holidaysSkipped.map((h: any) => h.date)).toEqual(['2026-12-25', '2026-12-28', '2026-12-28', '2026-12-28', '2027-01-01']);
    expect(jan6.find(key(r1)).note).toMatch(
      /first contributions for Jane Citizen: .*first contribution: due 20 business days after payday; skips Labour Day 2026-10-05 \(ACT, NSW, SA\), King's Birthday 2026-10-05 \(QLD\)\)/,
    );

    // 7 Jan, the 8th business day: overdue.
    const jan7 = await superAsAt(d, '2027-01-07');
    expect(jan7.find((x: any) => x.key === `SUPER ${r3}`)).toMatchObject({ status: 'UNPAID', overdue: true });
    expect(jan7.find((x: any) => x.key === `SUPER ${r3}`).note).toContain('overdue since 2027-01-06');

    // Sent on 8 Jan, settling the oldest due first: r2, r1, Jane's on r3, $50 of Sam's first pay. Sent is not
    // received: super counts when the fund receives it, so what was due stays overdue.
    const line1 = await paySuper(d, 95_000, '2027-01-08');
    const jan8 = await superAsAt(d, '2027-01-08');
    expect(brief(jan8)).toEqual([
      ['SUPER RUN', '2026-10-14', '2026-10-23', 30_000, 'SENT', true],
      ['SUPER RUN first pay', '2026-09-30', '2026-10-29', 30_000, 'SENT', true],
      ['SUPER RUN', '2026-12-23', '2027-01-06', 30_000, 'SENT', true],
      ['SUPER RUN first pay', '2026-12-23', '2027-01-25', 15_000, 'SENT', false],
    ]);
    expect(jan8[2]).toMatchObject({ sentCents: 30_000, receivedCents: 0, receivedOn: null, dueRule: 'PAYDAY' });
    expect(jan8[2].note).toContain('$300.00 sent by 2027-01-08, $0.00 received; overdue since 2027-01-06: no receipt from the funds is recorded for $300.00');
    expect(jan8[3]).toMatchObject({ sentCents: 5_000, receivedCents: 0, overdue: false, dueRule: 'FIRST_CONTRIBUTION' });
    expect(jan8[3].note).toContain('it counts when the fund receives it: record the fund’s acknowledgement with books.receiptsRegister');
    // As at the day before it was sent nothing changed: the books as at a date.
    expect((await superAsAt(d, '2027-01-07')).filter((x: any) => x.overdue && x.status === 'UNPAID')).toHaveLength(3);

    // The fund acknowledges all of it on 12 Jan: the three already due were received late and stay overdue.
    s.clock.set('2027-01-31');
    expect((await ack(d, line1, 95_000, '2027-01-12')).receipt).toMatchObject({ gstCents: 0, flags: [], link: { kind: 'super', id: line1 } });
    const jan12 = await superAsAt(d, '2027-01-12');
    expect(brief(jan12)).toEqual([
      ['SUPER RUN', '2026-10-14', '2026-10-23', 30_000, 'RECEIVED', true],
      ['SUPER RUN', '2026-12-23', '2027-01-06', 30_000, 'RECEIVED', true],
      ['SUPER RUN first pay', '2026-12-23', '2027-01-25', 15_000, 'SENT', false],
    ]);
    expect(jan12[1].note).toContain('received by the funds 2027-01-12, after its due date 2027-01-06: late');
    expect(jan12[2]).toMatchObject({ sentCents: 5_000, receivedCents: 5_000 });
    // Sam's first pay: the rest sent 20 Jan, received 22 Jan, before its due date 25 Jan: not overdue, ever.
    await ack(d, await paySuper(d, 10_000, '2027-01-20'), 10_000, '2027-01-22');
    for (const asOf of ['2027-01-22', '2027-01-26', '2027-03-01']) {
      expect((await superAsAt(d, asOf)).find(key(`${r3} first`))).toMatchObject({ status: 'RECEIVED', overdue: false, receivedOn: '2027-01-22' });
    }
    expect((await superAsAt(d, '2027-01-26')).find(key(`${r3} first`)).note).toContain('received by the funds 2027-01-22, on time');
    s.clock.set('2027-01-06');

    // The payroll summary names each run's rule and due dates; the run itself names its rule.
    const summary = await d.client.ok('books.reports', { report: 'payrollSummary', from: '2026-12-01', to: '2026-12-31' });
    expect(summary.runs).toEqual([
      expect.objectContaining({
        id: r3,
        superCents: 45_000,
        superRule: PAYDAY_RULE,
        superDue: [
          { dueDate: '2027-01-06', amountCents: 30_000, firstPay: false },
          { dueDate: '2027-01-25', amountCents: 15_000, firstPay: true },
        ],
      }),
    ]);
    const view = await loadRunView(s.runtime.db, d.orgId, r3);
    expect(view.superRule).toBe(PAYDAY_RULE);
    expect(view.payslips.map((p) => [p.employee.name, p.superRule])).toEqual([
      ['Jane Citizen', 'Payday Super: due 7 business days after payday'],
      ['Sam Lee', 'Payday Super, first contribution: due 20 business days after payday'],
    ]);
    expect((await loadRunView(s.runtime.db, d.orgId, r1)).payslips[0].superRule).toBe('Payday Super, first contribution: due 20 business days after payday');
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
    expect(later.map((x: any) => [x.dueDate, x.overdue])).toEqual([
      ['2026-07-10', true],
      ['2026-07-28', false],
    ]);
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

  it("the org's state: an operator sets it, ledgered, and GET /policy shows it; Payday Super due dates do not depend on it", async () => {
    const d = await desk();
    const jane = await k.hire(d, { startDate: '2026-09-01' });
    await payRun(d, '2026-09-01', '2026-09-14', '2026-09-16', [{ employee: jane, superCents: 10_000 }]);
    await payRun(d, '2026-09-17', '2026-09-30', '2026-09-30', [{ employee: jane, superCents: 10_000 }]);
    expect((await d.client.get('policy')).body.books.state).toBe('NSW');
    const due = async () => (await superAsAt(d, '2026-10-01')).map((x: any) => x.dueDate);
    // The first pay (16 Sep): 20 business days, past AFL Grand Final Friday (VIC), King's Birthday (WA) and Labour Day.
    expect(await due()).toEqual(['2026-10-12', '2026-10-19']);
    expect(await setBooksState(s.runtime.db, d.slug, 'VIC')).toEqual({ state: 'VIC', previous: 'NSW' });
    expect((await d.client.get('policy')).body.books.state).toBe('VIC');
    // The law's business days are the same wherever the employer is: the state moves no Payday Super due date.
    expect(await due()).toEqual(['2026-10-12', '2026-10-19']);
    const event = one(
      await s.runtime.db.query<{ kind: string; actor: string; payload: any }>(
        `SELECT kind, actor, payload FROM events WHERE org_id = $1 AND kind = 'books.settings.set_state'`,
        [d.orgId],
      ),
    );
    expect({ ...event, payload: JSON.parse(event.payload) }).toMatchObject({
      kind: 'books.settings.set_state',
      actor: '',
      payload: { state: 'VIC', previous: 'NSW', by: 'system' },
    });
    await expect(setBooksState(s.runtime.db, d.slug, 'Victoria')).rejects.toThrow(/^--state: must be one of ACT, NSW/);
  });
});
