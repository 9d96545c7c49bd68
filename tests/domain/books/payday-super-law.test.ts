import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBusinessDays, addSgBusinessDays, isSgBusinessDay, sgHolidaysBetween, stateWideHolidaysOn } from '../../../domain/books/calendar.js';
import { loadRunView } from '../../../domain/books/payroll/run-model.js';
import { RULE_WORDS } from '../../../domain/books/tax/model.js';
import { one } from '../../../db/types.js';
import { payrollKit } from './payroll-kit.js';
import { feedLine } from './reconciliation-kit.js';
import { booksServer, checkInvariants, type BooksServer } from './setup.js';
import { ack, brief, desk as superDesk, payRun as kitPayRun, paySuper as kitPaySuper, superAsAt, type Desk, type Slip } from './super-kit.js';

/*
 * Payday Super as the law reads (issue 27). Business days: SGAA s 6(1) as amended by Act No. 57 of 2025, read by
 * the ATO's "Payment deadlines for Payday Super" (18 Nov 2025): not a weekend, not a public holiday throughout any
 * state or territory, wherever the employer is. The 20-business-day allowance for first contributions (a new fund,
 * a re-employed employee), out-of-cycle runs, and super counting when the fund receives it.
 */

let s: BooksServer;
let k: ReturnType<typeof payrollKit>;
beforeAll(async () => {
  s = await booksServer('2027-01-06');
  k = payrollKit(s);
});
afterAll(() => s.close());

const desk = () => superDesk(s);
const payRun = (d: Desk, start: string, end: string, payDate: string, slips: Slip[], outOfCycle = false) =>
  kitPayRun(s, d, start, end, payDate, slips, outOfCycle);
const paySuper = (d: Desk, cents: number, date: string) => kitPaySuper(s, d, cents, date);
const only = async (d: Desk, asOf: string, runId: string) => (await superAsAt(d, asOf)).filter((o) => o.key.includes(runId));

describe('the law’s business days', () => {
  it('are the same for every employer: a state-wide holiday anywhere is not one; part-state and evening holidays are', () => {
    // The dates these due dates rely on, 1 July 2026 to 30 June 2027 (weekdays only), from date-holidays 3.37.
    const year = sgHolidaysBetween('2026-06-30', '2027-06-30').map((h) => `${h.date} ${h.name} (${h.states.join(' ')})`);
    expect(year).toEqual([
      '2026-08-03 Picnic Day (NT)',
      '2026-09-25 AFL Grand Final Friday (VIC)',
      "2026-09-28 King's Birthday (WA)",
      '2026-10-05 Labour Day (ACT NSW SA)',
      "2026-10-05 King's Birthday (QLD)",
      '2026-12-25 Christmas Day (ACT NSW NT QLD SA TAS VIC WA)',
      '2026-12-28 Boxing Day (substitute day) (ACT NSW NT QLD VIC WA)',
      '2026-12-28 Proclamation Day (SA)',
      '2026-12-28 Boxing Day (TAS)',
      "2027-01-01 New Year's Day (ACT NSW NT QLD SA TAS VIC WA)",
      '2027-01-26 Australia Day (ACT NSW NT QLD SA TAS VIC WA)',
      '2027-03-01 Labour Day (WA)',
      '2027-03-08 Canberra Day (ACT)',
      '2027-03-08 Adelaide Cup Day (SA)',
      '2027-03-08 Eight Hours Day (TAS)',
      '2027-03-08 Labour Day (VIC)',
      '2027-03-26 Good Friday (ACT NSW NT QLD SA TAS VIC WA)',
      '2027-03-29 Easter Monday (ACT NSW NT QLD SA TAS VIC WA)',
      '2027-04-26 Anzac Day (substitute day) (ACT NSW WA)',
      '2027-04-26 Anzac Day (NT QLD)',
      '2027-05-03 May Day (NT)',
      '2027-05-03 Labour Day (QLD)',
      '2027-05-31 Reconciliation Day (ACT)',
      '2027-06-07 Western Australia Day (WA)',
      "2027-06-14 King's Birthday (ACT NSW NT SA TAS VIC)",
    ]);
    expect(isSgBusinessDay('2026-09-28')).toBe(false); // WA only
    expect(isSgBusinessDay('2026-08-03')).toBe(false); // NT only
    // Part-state: Melbourne Cup Day (non-metropolitan councils substitute their own), Royal Hobart Show Day (not a
    // state holiday at all in the calendar). Evening holidays: Christmas Eve from 6 pm (QLD) or 7 pm (SA, NT).
    expect(stateWideHolidaysOn('2026-11-03')).toEqual([]);
    expect(isSgBusinessDay('2026-11-03')).toBe(true);
    expect(isSgBusinessDay('2026-10-22')).toBe(true);
    expect(isSgBusinessDay('2026-12-24')).toBe(true);
    expect(isSgBusinessDay('2026-12-31')).toBe(true);
    expect(addSgBusinessDays('2026-10-30', 7)).toBe('2026-11-10');
  });

  it('a week with a VIC-only and a WA-only holiday moves an NSW org’s due date; Melbourne Cup Day does not', async () => {
    const d = await desk();
    const jane = await k.hire(d, { startDate: '2026-08-01' });
    await payRun(d, '2026-08-01', '2026-08-14', '2026-08-19', [{ employee: jane, superCents: 10_000 }]); // her first pay
    const sep = await payRun(d, '2026-09-10', '2026-09-23', '2026-09-23', [{ employee: jane, superCents: 20_000 }]);
    const oct = await payRun(d, '2026-10-17', '2026-10-30', '2026-10-30', [{ employee: jane, superCents: 30_000 }]);
    // The NSW calendar alone would give 2 Oct; the law skips 25 Sep (VIC), 28 Sep (WA) and 5 Oct.
    expect(addBusinessDays('NSW', '2026-09-23', 7)).toBe('2026-10-02');
    const [o] = await only(d, '2026-10-01', sep);
    expect(o).toMatchObject({ dueDate: '2026-10-07', dueRule: 'PAYDAY', status: 'UNPAID', overdue: false });
    expect(o.holidaysSkipped).toEqual([
      { date: '2026-09-25', name: 'AFL Grand Final Friday', states: ['VIC'] },
      { date: '2026-09-28', name: "King's Birthday", states: ['WA'] },
      { date: '2026-10-05', name: 'Labour Day', states: ['ACT', 'NSW', 'SA'] },
      { date: '2026-10-05', name: "King's Birthday", states: ['QLD'] },
    ]);
    expect(o.note).toContain("skips AFL Grand Final Friday 2026-09-25 (VIC), King's Birthday 2026-09-28 (WA), Labour Day 2026-10-05 (ACT, NSW, SA)");
    const [cup] = await only(d, '2026-11-02', oct);
    expect(cup).toMatchObject({ dueDate: '2026-11-10', holidaysSkipped: [] });
    // books.ask's tax answer names each open super obligation's rule and the holidays it skipped (in words, no digits).
    const asked = await d.client.ok('books.ask', { question: 'Has the BAS been lodged?' });
    expect(asked.answer).toContain(
      "super for 2026-09-10 to 2026-09-23 due 2026-10-07: seven business days after payday (Payday Super), skipping AFL Grand Final Friday 2026-09-25 (VIC), King's Birthday 2026-09-28 (WA),",
    );
    expect(asked.answer).toContain('due 2026-09-16: twenty business days after payday, a first contribution');
  });
});

describe('first contributions: 20 business days', () => {
  it('a change to a new fund (books.onboardingAdvance super again): the first run paid after it; a member-number fix is not a new fund', async () => {
    const d = await desk();
    const jane = await k.hire(d, { startDate: '2026-09-01' });
    const { onboarding_id: id } = one(
      await s.runtime.db.query<{ onboarding_id: string }>('SELECT onboarding_id FROM books_onboardings WHERE org_id = $1', [d.orgId]),
    );
    await payRun(d, '2026-09-01', '2026-09-14', '2026-09-16', [{ employee: jane, superCents: 10_000 }]);
    const before = await payRun(d, '2026-09-15', '2026-09-28', '2026-09-30', [{ employee: jane, superCents: 10_000 }]);
    s.clock.set('2026-10-06');
    const hostplus = { fundName: 'Hostplus', usi: 'HOS0100AU', memberNumber: 'H-777' };
    const changed = await d.client.ok('books.onboardingAdvance', { id, step: 'super', data: hostplus });
    expect(changed).toMatchObject({ changed: true, employee: { super: hostplus } });
    expect(changed.message).toContain("Changed Jane Citizen's super fund to Hostplus (USI HOS0100AU) from 2026-10-06");
    expect((await d.client.ok('books.onboardingAdvance', { id, step: 'super', data: hostplus })).changed).toBe(false);
    const first = await payRun(d, '2026-09-29', '2026-10-12', '2026-10-14', [{ employee: jane, superCents: 12_000 }]);
    const next = await payRun(d, '2026-10-13', '2026-10-26', '2026-10-28', [{ employee: jane, superCents: 12_000 }]);
    // Same USI, another member number: details corrected, no allowance for the next run.
    s.clock.set('2026-11-02');
    const fix = await d.client.ok('books.onboardingAdvance', { id, step: 'super', data: { ...hostplus, memberNumber: 'H-778' } });
    expect(fix.message).toContain('the fund is the same, so super due dates do not change');
    const after = await payRun(d, '2026-10-27', '2026-11-09', '2026-11-11', [{ employee: jane, superCents: 12_000 }]);

    const dues = async (runId: string) => (await only(d, '2026-12-31', runId)).map((o) => [o.key.replace(/pay_\w+/, 'RUN'), o.dueDate, o.dueRule]);
    expect(await dues(before)).toEqual([['SUPER RUN', '2026-10-12', 'PAYDAY']]);
    expect(await dues(first)).toEqual([['SUPER RUN first pay', '2026-11-11', 'FIRST_CONTRIBUTION']]);
    expect(await dues(next)).toEqual([['SUPER RUN', '2026-11-06', 'PAYDAY']]);
    expect(await dues(after)).toEqual([['SUPER RUN', '2026-11-20', 'PAYDAY']]);
    expect((await only(d, '2026-12-31', first))[0].note).toContain('first contributions for Jane Citizen (new fund Hostplus)');
    expect((await loadRunView(s.runtime.db, d.orgId, first)).payslips[0].superRule).toBe(RULE_WORDS.FIRST_CONTRIBUTION);
    expect((await loadRunView(s.runtime.db, d.orgId, next)).payslips[0].superRule).toBe(RULE_WORDS.PAYDAY);
    const events = await s.runtime.db.query<{ payload: string }>(
      `SELECT payload FROM events WHERE org_id = $1 AND kind = 'books.onboarding.advance' ORDER BY seq`,
      [d.orgId],
    );
    expect(
      events
        .map((e) => JSON.parse(e.payload))
        .filter((p) => p.fundChange)
        .map((p) => [p.newFund, p.changedOn]),
    ).toEqual([
      [true, '2026-10-06'],
      [false, '2026-11-02'],
    ]);
    s.clock.set('2027-01-06');
    await checkInvariants(s.runtime.db, d.orgId);
  });

  it('a re-employed employee (books.onboardingStart rehireOf): the former record ENDS, the new one’s first pay has 20 business days', async () => {
    const d = await desk();
    const jane = await k.hire(d, { startDate: '2026-07-01' });
    await payRun(d, '2026-07-01', '2026-07-14', '2026-07-15', [{ employee: jane, superCents: 10_000 }]);
    const pending = (await k.start(d, { person: 'Pat Doe', startDate: '2026-08-01' })).employee;
    const refused = async (params: Record<string, unknown>) =>
      (
        await d.client.rpc('books.onboardingStart', {
          person: 'Jane Citizen',
          role: 'Bookkeeper',
          rate: { basis: 'ANNUAL', amountCents: 7_800_000 },
          ...params,
        })
      ).body.error;
    expect(await refused({ startDate: '2026-10-01', rehireOf: pending.id })).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('never completed onboarding'),
    });
    expect(await refused({ startDate: '2026-06-01', rehireOf: jane.id })).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^startDate: /),
    });
    expect(await refused({ startDate: '2026-10-01', rehireOf: 'emp_0000000000000000' })).toMatchObject({ code: 'NOT_FOUND' });

    const again = await k.hire(d, { startDate: '2026-10-01', rehireOf: jane.id });
    expect(again).toMatchObject({ status: 'ACTIVE', rehireOf: jane.id });
    const former = one(
      await s.runtime.db.query<{ status: string }>('SELECT status FROM books_employees WHERE org_id = $1 AND employee_id = $2', [d.orgId, jane.id]),
    );
    expect(former.status).toBe('ENDED');
    const run = await payRun(d, '2026-10-01', '2026-10-14', '2026-10-14', [{ employee: again, superCents: 11_000 }]);
    const later = await payRun(d, '2026-10-15', '2026-10-28', '2026-10-28', [{ employee: again, superCents: 11_000 }]);
    const [o] = await only(d, '2026-11-01', run);
    expect(o).toMatchObject({ key: `SUPER ${run} first pay`, dueDate: '2026-11-11', dueRule: 'FIRST_CONTRIBUTION' });
    expect(o.note).toContain('first contributions for Jane Citizen (re-employed)');
    expect((await only(d, '2026-11-01', later))[0]).toMatchObject({ dueDate: '2026-11-06', dueRule: 'PAYDAY' });
  });
});

describe('out-of-cycle runs', () => {
  it('are due 7 business days after the next regular payday, estimated from the pay cycle until one is paid', async () => {
    const d = await desk();
    const jane = await k.hire(d, { startDate: '2026-09-01' });
    const sam = await k.hire(d, { person: 'Sam Lee', startDate: '2026-09-01' });
    await payRun(d, '2026-08-18', '2026-08-31', '2026-09-02', [{ employee: jane, superCents: 1_000 }]);
    await payRun(d, '2026-09-01', '2026-09-14', '2026-09-16', [{ employee: jane, superCents: 10_000 }]);
    // Sam was missed by the regular run: paid out of cycle two days later.
    const ooc = await payRun(d, '2026-09-01', '2026-09-14', '2026-09-18', [{ employee: sam, superCents: 8_000 }], true);
    // It is Sam's first pay: 20 business days from its own payday (21 Oct, past 25 Sep VIC, 28 Sep WA and 5 Oct) is
    // later than the out-of-cycle date, so it wins.
    const [est] = await only(d, '2026-09-20', ooc);
    expect(est).toMatchObject({ key: `SUPER ${ooc} out of cycle first pay`, dueRule: 'FIRST_CONTRIBUTION', dueDate: '2026-10-21', estimated: false });
    // An ordinary out-of-cycle payment for Jane: no regular run after it yet, so the next payday is estimated
    // (16 Sep + 14 days = 30 Sep) and the due date is 7 business days on.
    const bonus = await payRun(d, '2026-09-01', '2026-09-14', '2026-09-18', [{ employee: jane, superCents: 5_000 }], true);
    const [b1] = await only(d, '2026-09-20', bonus);
    expect(b1).toMatchObject({ key: `SUPER ${bonus} out of cycle`, dueRule: 'OUT_OF_CYCLE', dueDate: '2026-10-12', estimated: true });
    expect(b1.note).toContain('estimated 2026-09-30 from the pay cycle: no regular run is paid after it yet');
    // The regular run is paid on 1 Oct: 7 business days after it (5 Oct is not one), no longer estimated.
    const regular = await payRun(d, '2026-09-15', '2026-09-28', '2026-10-01', [
      { employee: jane, superCents: 10_000 },
      { employee: sam, superCents: 8_000 },
    ]);
    const [b2] = await only(d, '2026-10-02', bonus);
    expect(b2).toMatchObject({ dueDate: '2026-10-13', estimated: false });
    expect(b2.note).toContain(`${RULE_WORDS.OUT_OF_CYCLE}, 2026-10-01 (${regular})`);
    const view = await loadRunView(s.runtime.db, d.orgId, bonus);
    expect([view.outOfCycle, view.payslips[0].superRule]).toEqual([true, RULE_WORDS.OUT_OF_CYCLE]);
  });

  it('books.payrollDraft: outOfCycle names its employees, a regular run does not', async () => {
    const d = await desk();
    const draft = async (extra: Record<string, unknown>) =>
      (await d.client.rpc('books.payrollDraft', { periodStart: '2026-11-01', periodEnd: '2026-11-14', payDate: '2026-11-16', ...extra })).body.error;
    expect(await draft({ outOfCycle: true })).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^employeeIds: an out-of-cycle run pays only/),
    });
    expect(await draft({ employeeIds: ['emp_0000000000000000'] })).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^employeeIds: only an out-of-cycle run/),
    });
  });
});

describe('super counts when the fund receives it', () => {
  it('received before the due date is not overdue; quarterly obligations keep their due dates; acknowledgements are checked', async () => {
    const d = await desk();
    s.clock.set('2026-10-31');
    const jane = await k.hire(d, { startDate: '2026-04-01' });
    await payRun(d, '2026-05-01', '2026-05-14', '2026-05-15', [{ employee: jane, superCents: 20_000 }]);
    const july = await payRun(d, '2026-07-01', '2026-07-14', '2026-07-15', [{ employee: jane, superCents: 20_000 }]);
    const line = await paySuper(d, 40_000, '2026-07-20');
    // Refusals: more than the line sent, before it was sent, GST, a line that did not send super.
    const refuse = async (params: Record<string, unknown>, lineId = line) =>
      (
        await d.client.rpc('books.receiptsRegister', {
          supplier: 'AustralianSuper',
          date: '2026-07-22',
          totalCents: 1_000,
          fileRef: 'ack.pdf',
          taxInvoice: false,
          link: { kind: 'super', lineId },
          ...params,
        })
      ).body.error;
    expect(await refuse({ totalCents: 40_001 })).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^totalCents: \$400\.01 is more than the \$400\.00/),
    });
    expect(await refuse({ date: '2026-07-19' })).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^date: /) });
    expect(await refuse({ date: '2026-11-01' })).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('in the future') });
    expect(await refuse({ gstCents: 90 })).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^gstCents: /) });
    const coffee = await feedLine(s, d, -1_200, { date: '2026-07-20' });
    await d.client.ok('books.matchAccept', { lineId: coffee, target: { kind: 'account', account: '429' } });
    expect(await refuse({}, coffee)).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('did not send super') });

    await ack(d, line, 40_000, '2026-07-22');
    // The quarter Apr–Jun 2026 keeps its date (28 Jul); the July run is due 7 business days after 15 Jul (24 Jul).
    const aug = await superAsAt(d, '2026-08-10');
    expect(brief(aug)).toEqual([
      ['SUPER RUN', '2026-07-14', '2026-07-24', 20_000, 'RECEIVED', false],
      ['SUPER 2026-04-01..2026-06-30', '2026-06-30', '2026-07-28', 20_000, 'RECEIVED', false],
    ]);
    expect(aug[1]).toMatchObject({ dueRule: 'QUARTERLY', receivedOn: '2026-07-22', sentCents: 20_000, receivedCents: 20_000 });
    expect(aug[0].key).toBe(`SUPER ${july}`);
    expect(aug[0].note).toContain('received by the funds 2026-07-22, on time');
    s.clock.set('2027-01-06');
    await checkInvariants(s.runtime.db, d.orgId);
  });
});
