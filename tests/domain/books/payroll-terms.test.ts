import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payForDays, payForHours, periodPayCents } from '../../../domain/books/payroll/payslips.js';
import { superOn } from '../../../domain/books/payroll/super-base.js';
import { importSchedule, loadedSchedules } from '../../../domain/books/rates/index.js';
import { DATABASE_URL } from '../../helpers/harness.js';
import { freshDatabase } from '../../multiprocess/harness.js';
import { booksServer, type BooksServer } from './setup.js';
import { refused } from '../../helpers/calls.js';
import { payrollKit, type Desk } from './payroll-kit.js';

/*
 * A salary pays what the contract says (a full month a twelfth, a fortnight a 26th, a week a 52nd; part periods
 * by calendar days), and super stops at the maximum contribution base: per quarter to 30 June 2026, per
 * financial year from 1 July 2026, counting only the earnings of posted runs.
 */

let s: BooksServer;
let k: ReturnType<typeof payrollKit>;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  k = payrollKit(s);
});
afterAll(() => s.close());

const annual = (dollars: number, hoursPerWeek = 38) => ({ basis: 'ANNUAL', amountCents: dollars * 100, hoursPerWeek });
const month = (start: string, end: string) => ({ periodStart: start, periodEnd: end, payDate: end });
const slipOf = (run: any, employeeId: string) => run.payslips.find((p: any) => p.employee.id === employeeId);

describe('the contract pays by the period', () => {
  const salary = { pay_basis: 'ANNUAL' as const, rate_cents: 7_800_000, hours_per_week: 38 };
  const wage = { pay_basis: 'HOURLY' as const, rate_cents: 4_500, hours_per_week: 20 };

  it('a full week is a 52nd, a fortnight a 26th, a month a twelfth, whatever the days in the month', () => {
    expect([periodPayCents(salary, 'WEEKLY'), periodPayCents(salary, 'FORTNIGHTLY'), periodPayCents(salary, 'MONTHLY')]).toEqual([150_000, 300_000, 650_000]);
    // 28, 30 and 31 days of a calendar month all pay $6,500.00.
    expect([28, 30, 31].map((days) => payForDays(salary, 'MONTHLY', days, days))).toEqual([650_000, 650_000, 650_000]);
    // Before: 7,800,000 * 14 / 365 = 299,178 for a fortnight; the contract's 26th is 300,000.
    expect(payForDays(salary, 'FORTNIGHTLY', 14, 14)).toBe(300_000);
  });

  it('a part period pays its share of the period by calendar days', () => {
    // Started on the 16th of a 30-day month: 15/30 of $6,500 = $3,250.00; 10 of a fortnight's 14 days: 300,000 * 10 / 14.
    expect(payForDays(salary, 'MONTHLY', 15, 30)).toBe(325_000);
    expect(payForDays(salary, 'FORTNIGHTLY', 10, 14)).toBe(214_286);
  });

  it('hourly staff: the rate for hoursPerWeek over 52 weeks, so a month is 52/12 weeks', () => {
    expect([periodPayCents(wage, 'WEEKLY'), periodPayCents(wage, 'FORTNIGHTLY'), periodPayCents(wage, 'MONTHLY')]).toEqual([90_000, 180_000, 390_000]);
    expect(payForHours(wage, 800)).toBe(36_000);
  });

  it("unpaid leave: a salary's hour is a year / 52 / hours a week, so a week's hours of leave is exactly a week's pay", () => {
    // $78,000 / 52 / 38 = $39.4737 an hour; 7.6 h = $300.00; 38 h = $1,500.00 = periodPayCents(WEEKLY).
    expect(payForHours(salary, 760)).toBe(30_000);
    expect(payForHours(salary, 3_800)).toBe(periodPayCents(salary, 'WEEKLY'));
  });

  it('super up to the base: what is left of it after the earlier earnings', () => {
    const t = { baseCents: 6_250_000, rateBasisPoints: 1_200 };
    expect(superOn(5_000_000, 0, t)).toEqual({ earlierCents: 0, earningsCents: 5_000_000, superCents: 600_000 });
    expect(superOn(5_000_000, 5_000_000, t)).toEqual({ earlierCents: 5_000_000, earningsCents: 1_250_000, superCents: 150_000 });
    expect(superOn(5_000_000, 10_000_000, t)).toEqual({ earlierCents: 10_000_000, earningsCents: 0, superCents: 0 });
  });
});

describe('payslips say how their gross follows the contract', () => {
  it('$95,000 a year pays $7,916.67 every full month (30, 31 and 28 days); a start on the 16th pays 15/30 of November', async () => {
    const d = await k.desk();
    const ann = await k.hire(d, { person: 'Ann Full', startDate: '2026-10-01', rate: annual(95_000) });
    const bo = await k.hire(d, { person: 'Bo Part', startDate: '2026-11-16', rate: annual(95_000) });
    const nov = await k.draft(d, month('2026-11-01', '2026-11-30'));
    expect(slipOf(nov, ann.id)).toMatchObject({
      daysEmployed: 30,
      grossCents: 791_667,
      earnings: { rule: 'FULL_PERIOD', reasons: [], periodPayCents: 791_667 },
    });
    expect(slipOf(nov, ann.id).earnings.explanation).toMatch(
      /^a month of \$95,000\.00 a year: a twelfth is \$7,916\.67; the whole month is paid; gross \$7,916\.67$/,
    );
    // 9,500,000 * 15 / (12 * 30) = 395,833.33.
    expect(slipOf(nov, bo.id)).toMatchObject({
      daysEmployed: 15,
      grossCents: 395_833,
      earnings: { rule: 'PART_PERIOD', reasons: ['STARTED_IN_PERIOD'], periodPayCents: 791_667 },
    });
    expect(slipOf(nov, bo.id).earnings.explanation).toContain("employed 15 of the month's 30 calendar days, from 16 Nov 2026");
    for (const period of [month('2026-12-01', '2026-12-31'), month('2027-02-01', '2027-02-28')]) {
      const run = await k.draft(d, period);
      expect(run.payslips.map((p: any) => [p.grossCents, p.earnings.rule])).toEqual([
        [791_667, 'FULL_PERIOD'],
        [791_667, 'FULL_PERIOD'],
      ]);
      await d.client.ok('books.payrollRecall', { runId: run.id });
    }
    await k.invariants(d);
  });

  it('unpaid leave makes a part period at the hourly equivalent, and says so', async () => {
    const d = await k.desk();
    const jo = await k.hire(d, { person: 'Jo Leave', startDate: '2026-10-01' });
    const leave = (await d.client.ok('books.leaveRequest', { employeeId: jo.id, kind: 'UNPAID', startDate: '2026-11-20', endDate: '2026-11-20', hours: 7.6 }))
      .leave;
    await d.client.ok('books.leaveApprove', { id: leave.id, decision: 'approve' });
    const slip = (await k.draft(d, { periodStart: '2026-11-15', periodEnd: '2026-11-28', payDate: '2026-11-29' })).payslips[0];
    // $78,000: a fortnight 300,000 less 7.6 h at $78,000 / 52 / 38 = 30,000.
    expect(slip).toMatchObject({
      unpaidLeaveCents: 30_000,
      grossCents: 270_000,
      superCents: 32_400,
      earnings: { rule: 'PART_PERIOD', reasons: ['UNPAID_LEAVE'], periodPayCents: 300_000 },
    });
    expect(slip.earnings.explanation).toContain("less 7.6 h unpaid leave at the salary's hourly equivalent (a year / 52 / 38 h): $300.00");
  });
});

describe('super stops at the maximum contribution base', () => {
  /** Pat $600,000 a year ($50,000 a month), Max $3,000,000 a year ($250,000 a month), both from `start`. */
  async function highEarners(start: string, kit = k): Promise<{ d: Desk; pat: any; max: any }> {
    const d = await kit.desk();
    const pat = await kit.hire(d, { person: 'Pat High', startDate: start, rate: annual(600_000) });
    const max = await kit.hire(d, { person: 'Max Higher', startDate: start, rate: annual(3_000_000) });
    return { d, pat, max };
  }
  const supers = (run: any, ...ids: string[]) => ids.map((id) => [slipOf(run, id).superBase.earningsCents, slipOf(run, id).superCents]);

  it('before 1 July 2026, per quarter ($62,500 in 2025-26): two runs split the base, the third pays none', async () => {
    const { d, pat, max } = await highEarners('2026-04-01');
    const apr = await k.posted(d, month('2026-04-01', '2026-04-30'));
    // Pat: all $50,000 is under the base: 12% = $6,000. Max: $62,500 of $250,000: $7,500.
    expect(supers(apr, pat.id, max.id)).toEqual([
      [5_000_000, 600_000],
      [6_250_000, 750_000],
    ]);
    expect(slipOf(apr, max.id).superBase).toMatchObject({
      rateBasisPoints: 1_200,
      baseCents: 6_250_000,
      per: 'QUARTER',
      periodStart: '2026-04-01',
      periodEnd: '2026-06-30',
      earlierEarningsCents: 0,
    });
    expect(slipOf(apr, max.id).superBase.explanation).toBe(
      '12% of $62,500.00 of the $250,000.00 gross: $0.00 was already paid in the quarter 1 Apr – 30 Jun 2026, and no super guarantee is owed above the maximum contribution base of $62,500.00 for the quarter 1 Apr – 30 Jun 2026',
    );
    expect(slipOf(apr, max.id).superBase.law).toMatch(/s 15/);
    const may = await k.posted(d, month('2026-05-01', '2026-05-31'));
    // Pat: $50,000 paid in April leaves $12,500 of the base: $1,500.
    expect(supers(may, pat.id, max.id)).toEqual([
      [1_250_000, 150_000],
      [0, 0],
    ]);
    expect(slipOf(may, pat.id).superBase.earlierEarningsCents).toBe(5_000_000);
    const jun = await k.draft(d, month('2026-06-01', '2026-06-30'));
    expect(supers(jun, pat.id, max.id)).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(jun.superCents).toBe(0);
    await k.invariants(d);
  });

  it('from 1 July 2026, per financial year ($270,830 for 2026-27): a new quarter does not reset it', async () => {
    const { d, pat, max } = await highEarners('2026-07-01');
    const jul = await k.posted(d, month('2026-07-01', '2026-07-31'));
    expect(supers(jul, pat.id, max.id)).toEqual([
      [5_000_000, 600_000],
      [25_000_000, 3_000_000],
    ]);
    expect(slipOf(jul, max.id).superBase).toMatchObject({ baseCents: 27_083_000, per: 'FINANCIAL_YEAR', periodStart: '2026-07-01', periodEnd: '2027-06-30' });
    expect(slipOf(jul, max.id).superBase.law).toMatch(/s 10A\(5\).*No\. 57 of 2025/);
    const aug = await k.posted(d, month('2026-08-01', '2026-08-31'));
    // Max: $270,830 - $250,000 = $20,830 left: 12% = $2,499.60. (Per quarter it would have been nothing.)
    expect(supers(aug, pat.id, max.id)).toEqual([
      [5_000_000, 600_000],
      [2_083_000, 249_960],
    ]);
    const oct = await k.draft(d, month('2026-10-01', '2026-10-31'));
    // A new quarter: Max stays at nothing for the rest of the year (per quarter he would have had $7,500 again).
    expect(supers(oct, pat.id, max.id)).toEqual([
      [5_000_000, 600_000],
      [0, 0],
    ]);
    await k.invariants(d);
  });

  it("a recalled run's earnings do not count; a draft whose base changed since cannot be signed until drafted again", async () => {
    const { d, pat } = await highEarners('2026-04-01');
    const apr = await k.posted(d, month('2026-04-01', '2026-04-30'));
    const may = await k.draft(d, month('2026-05-01', '2026-05-31'));
    expect(slipOf(may, pat.id).superCents).toBe(150_000);
    s.clock.set('2026-04-20');
    try {
      expect((await d.client.ok('books.payrollRecall', { runId: apr.id })).payRun.status).toBe('RECALLED');
    } finally {
      s.clock.set('2026-11-02');
    }
    // The May draft was computed with April's $50,000 paid; April is recalled, so its super is now short.
    await refused(d.client, 'books.payrollSign', { runId: may.id }, 'CONFLICT', {
      message:
        /Pat High's super of \$1,500\.00 was drafted with \$50,000\.00 already paid in the quarter 1 Apr – 30 Jun 2026; posted runs now show \$0\.00 .* makes it \$6,000\.00 .*recall this draft \(books\.payrollRecall\) and draft the period again/,
    });
    await d.client.ok('books.payrollRecall', { runId: may.id });
    const again = await k.draft(d, month('2026-05-01', '2026-05-31'));
    expect(slipOf(again, pat.id)).toMatchObject({ superCents: 600_000, superBase: { earlierEarningsCents: 0, earningsCents: 5_000_000 } });
    expect((await k.signed(d, 'books.payrollSign', { runId: again.id })).payRun.status).toBe('POSTED');
    await k.invariants(d);
  });

  it('past the last recorded year (2027-28 has no base yet) the latest base is a floor: super under it is paid, a payslip reaching it is refused', async () => {
    // A 2027-28 PAYG schedule, so only the missing base stops the run: the 2026-27 coefficients re-dated (a test
    // stand-in). An import covers 2027-28 for every org of its database: test files share one (a worker's on
    // PGlite, the run's on PostgreSQL), so this runs on a database of its own and no other file sees it.
    const own = DATABASE_URL ? await freshDatabase(DATABASE_URL, 'wops_terms') : undefined;
    const s2 = await booksServer('2026-11-02', own ? { databaseUrl: own.url } : { inMemory: true });
    const k2 = payrollKit(s2);
    try {
      const current = (await loadedSchedules(s2.runtime.db)).find((x) => x.from === '2026-07-01');
      await importSchedule(s2.runtime.db, {
        ...current,
        label: '2027-28',
        from: '2027-07-01',
        to: '2028-06-30',
        source: 'https://test-fixture.invalid/2027-28-stand-in',
      });
      await pastTheLastYear(k2);
    } finally {
      await s2.close();
      await own?.drop();
    }
  });

  async function pastTheLastYear(k: ReturnType<typeof payrollKit>) {
    const { d, pat, max } = await highEarners('2027-07-01', k);
    const july = month('2027-07-01', '2027-07-31');
    // Max's $250,000 in July fits under the 2026-27 base of $270,830; August would pass it.
    const jul = await k.posted(d, july);
    expect(supers(jul, pat.id, max.id)).toEqual([
      [5_000_000, 600_000],
      [25_000_000, 3_000_000],
    ]);
    expect(slipOf(jul, max.id).superBase).toMatchObject({ baseCents: 27_083_000, per: 'FINANCIAL_YEAR', periodStart: '2027-07-01', periodEnd: '2028-06-30' });
    expect(slipOf(jul, max.id).superBase.law).toMatch(
      /^no base is recorded for the financial year 1 Jul 2027 – 30 Jun 2028 yet: the 2026-07-01 to 2027-06-30 base/,
    );
    await refused(d.client, 'books.payrollDraft', month('2027-08-01', '2027-08-31'), 'CONFLICT', {
      message:
        /^payDate: Max Higher's earnings in the financial year 1 Jul 2027 – 30 Jun 2028 would pass \$270,830\.00, the latest maximum contribution base recorded \(2027-28 has none yet\)/,
    });
  }
});
