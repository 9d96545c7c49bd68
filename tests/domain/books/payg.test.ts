import { describe, expect, it } from 'vitest';
import { tfnValid } from '../../../protocol/methods/books/payroll.js';
import { financialYear, maskTfn, periodLabel } from '../../../domain/books/payroll/model.js';
import { payFrequency, withholding } from '../../../domain/books/payroll/payg.js';
import { weeklyWithholdingDollars as weeklyOn } from '../../../domain/books/rates/payg-schedule.js';
import { ATO_2024_25 } from '../../../domain/books/rates/schedules/ato-2024-25.js';

const weeklyWithholdingDollars = (weekly: number, threshold: boolean) => weeklyOn(ATO_2024_25.scales[threshold ? '2' : '1'], weekly);
import { leaveHundredthsIn, payForDays, payForHours } from '../../../domain/books/payroll/payslips.js';

/*
 * PAYG withholding (ATO Schedule 1, NAT 1004, 2024-25 coefficients): y = a * x - b on x = weekly whole dollars +
 * 0.99, rounded to the dollar. Every expected figure below is worked by hand in its comment.
 */

describe('weekly withholding, scale 2 (tax-free threshold claimed)', () => {
  it.each([
    // x = 0.99 < 361: a = b = 0.
    [0, 0],
    // x = 360.99 < 361: nil.
    [360, 0],
    // x = 361.99 < 500: 0.16 * 361.99 - 57.8462 = 57.9184 - 57.8462 = 0.0722 -> $0.
    [361, 0],
    // x = 400.99: 0.16 * 400.99 - 57.8462 = 64.1584 - 57.8462 = 6.3122 -> $6.
    [400, 6],
    // x = 600.99 < 625: 0.26 * 600.99 - 107.8462 = 156.2574 - 107.8462 = 48.4112 -> $48.
    [600, 48],
    // x = 700.99 < 721: 0.18 * 700.99 - 57.8462 = 126.1782 - 57.8462 = 68.332 -> $68.
    [700, 68],
    // x = 864.99 < 865: 0.189 * 864.99 - 64.3365 = 163.48311 - 64.3365 = 99.14661 -> $99.
    [864, 99],
    // x = 865.99 < 1282: 0.3227 * 865.99 - 180.0385 = 279.454973 - 180.0385 = 99.416473 -> $99.
    [865, 99],
    // x = 1000.99: 0.3227 * 1000.99 - 180.0385 = 323.019473 - 180.0385 = 142.980973 -> $143.
    [1000, 143],
    // x = 1495.99 < 2596: 0.32 * 1495.99 - 176.5769 = 478.7168 - 176.5769 = 302.1399 -> $302.
    [1495, 302],
    // x = 3000.99 < 3653: 0.39 * 3000.99 - 358.3077 = 1170.3861 - 358.3077 = 812.0784 -> $812.
    [3000, 812],
    // x = 4000.99: 0.47 * 4000.99 - 650.6154 = 1880.4653 - 650.6154 = 1229.8499 -> $1,230.
    [4000, 1230],
  ])('$%i a week withholds $%i', (weekly, expected) => {
    expect(weeklyWithholdingDollars(weekly, true)).toBe(expected);
  });
});

describe('weekly withholding, scale 1 (no tax-free threshold)', () => {
  it.each([
    // x = 0.99 < 150: 0.16 * 0.99 - 0.16 = -0.0016 -> never below $0.
    [0, 0],
    // x = 100.99: 0.16 * 100.99 - 0.16 = 16.1584 - 0.16 = 15.9984 -> $16.
    [100, 16],
    // x = 350.99 < 371: 0.2117 * 350.99 - 7.755 = 74.304583 - 7.755 = 66.549583 -> $67.
    [350, 67],
    // x = 500.99 < 515: 0.189 * 500.99 + 0.6702 = 94.68711 + 0.6702 = 95.35731 -> $95.
    [500, 95],
    // x = 899.99 < 932: 0.3227 * 899.99 - 68.2367 = 290.426773 - 68.2367 = 222.190073 -> $222.
    [899, 222],
    // x = 1000.99 < 2246: 0.32 * 1000.99 - 65.7202 = 320.3168 - 65.7202 = 254.5966 -> $255.
    [1000, 255],
    // x = 3000.99 < 3303: 0.39 * 3000.99 - 222.951 = 1170.3861 - 222.951 = 947.4351 -> $947.
    [3000, 947],
    // x = 4000.99: 0.47 * 4000.99 - 487.2587 = 1880.4653 - 487.2587 = 1393.2066 -> $1,393.
    [4000, 1393],
  ])('$%i a week withholds $%i', (weekly, expected) => {
    expect(weeklyWithholdingDollars(weekly, false)).toBe(expected);
  });
});

describe('withholding per pay frequency (Schedule 1, "Working out the weekly earnings")', () => {
  const w = (gross: number, f: 'WEEKLY' | 'FORTNIGHTLY' | 'MONTHLY', threshold = true) =>
    withholding(ATO_2024_25, gross, f, { tfnProvided: true, residency: 'RESIDENT', claimsTaxFreeThreshold: threshold, medicareLevyVariation: 'NONE' }).cents;

  it('a fortnight of $2,000: half is $1,000 -> $143 a week -> $286 a fortnight', () => {
    expect(w(200_000, 'FORTNIGHTLY')).toBe(28_600);
  });

  it('$78,000 a year for a full fortnight: a 26th, gross 300000; half $1,500 -> $304 -> $608', () => {
    const gross = payForDays({ pay_basis: 'ANNUAL', rate_cents: 7_800_000, hours_per_week: 38 }, 'FORTNIGHTLY', 14, 14);
    // 7,800,000 / 26 = 300,000: the contract's fortnight (it was 14/365 of the year, 299,178, before that rule).
    expect(gross).toBe(300_000);
    // x = 1500.99: 0.32 * 1500.99 - 176.5769 = 303.74 -> $304 a week -> $608.
    expect(w(gross, 'FORTNIGHTLY')).toBe(60_800);
  });

  it('a month of $5,000: * 3 / 13 = $1,153.84 -> $1,153 -> $192 a week -> 192 * 13 / 3 = 832 -> $832', () => {
    // x = 1153.99: 0.3227 * 1153.99 - 180.0385 = 372.392573 - 180.0385 = 192.354073 -> $192.
    expect(w(500_000, 'MONTHLY')).toBe(83_200);
  });

  it('a month ending in 33 cents gains a cent first: $3,995.33 -> $3,995.34 * 3 / 13 = $922.0015 -> $922, not $921', () => {
    // x = 922.99: 0.3227 * 922.99 - 180.0385 = 117.810373 -> $118; 118 * 13 / 3 = 511.33 -> $511.
    // Without the cent: $921.99 -> 117.487673 -> $117 -> 507. The rule matters here.
    expect(w(399_533, 'MONTHLY')).toBe(51_100);
  });

  it('a week of $899.70 on scale 1: $899 -> $222', () => {
    expect(w(89_970, 'WEEKLY', false)).toBe(22_200);
  });

  it('nothing earned withholds nothing; refuses nonsense inputs', () => {
    expect(w(0, 'FORTNIGHTLY')).toBe(0);
    expect(() => w(-1, 'FORTNIGHTLY')).toThrow();
    expect(() => w(10.5, 'WEEKLY')).toThrow();
  });

  it('the frequency is the period: 7 days weekly, 14 fortnightly, a whole calendar month monthly; others refused', () => {
    expect(payFrequency('2026-11-01', '2026-11-07')).toBe('WEEKLY');
    expect(payFrequency('2026-11-01', '2026-11-14')).toBe('FORTNIGHTLY');
    expect(payFrequency('2026-02-01', '2026-02-28')).toBe('MONTHLY');
    expect(payFrequency('2026-07-01', '2026-07-31')).toBe('MONTHLY');
    expect(() => payFrequency('2026-11-01', '2026-11-10')).toThrow(/periodEnd: 2026-11-01 to 2026-11-10 is 10 days/);
    expect(() => payFrequency('2026-11-02', '2026-12-01')).toThrow(/whole calendar month/);
  });
});

describe('pay for hours and leave spread over a period', () => {
  it('an hourly wage pays its rate per hour; a salary its year / 52 over its hours a week', () => {
    // 8 hours at $45: $360.
    expect(payForHours({ pay_basis: 'HOURLY', rate_cents: 4_500, hours_per_week: 20 }, 800)).toBe(36_000);
    // A salary's hour is a year / 52 / hours a week: 7,800,000 * 1520 / (52 * 38 * 100) = 60,000 (15.2 h of 38 h is 0.4 of a week).
    expect(payForHours({ pay_basis: 'ANNUAL', rate_cents: 7_800_000, hours_per_week: 38 }, 1_520)).toBe(60_000);
  });

  it('leave spanning the edge of a period counts pro rata by days', () => {
    const leave = { start_date: '2026-11-27', end_date: '2026-12-03', hundredths: 4_000 };
    // 27 and 28 Nov: 2 of its 7 days: 4000 * 2 / 7 = 1142.86 -> 1143 (11.43 hours).
    expect(leaveHundredthsIn(leave, '2026-11-15', '2026-11-28')).toBe(1_143);
    expect(leaveHundredthsIn(leave, '2026-11-29', '2026-12-12')).toBe(2_857);
    expect(leaveHundredthsIn(leave, '2026-11-01', '2026-11-14')).toBe(0);
  });
});

describe('helpers', () => {
  it('checks the TFN check digit (weights 1,4,3,7,5,8,6,9,10; sum % 11 = 0)', () => {
    // 1*1 + 2*4 + 3*3 + 4*7 + 5*5 + 6*8 + 7*6 + 8*9 + 2*10 = 253 = 11 * 23.
    expect(tfnValid('123456782')).toBe(true);
    // ... + 9*10 = 323, 323 % 11 = 4.
    expect(tfnValid('123456789')).toBe(false);
    expect(tfnValid('12345678')).toBe(false);
    expect(maskTfn('123456782')).toBe('••••••782');
  });

  it('names periods and financial years', () => {
    expect(periodLabel('2026-11-01', '2026-11-14')).toBe('1–14 Nov 2026');
    expect(periodLabel('2026-11-25', '2026-12-08')).toBe('25 Nov – 8 Dec 2026');
    expect(periodLabel('2026-12-29', '2027-01-11')).toBe('29 Dec 2026 – 11 Jan 2027');
    expect(financialYear('2026-06-30')).toEqual({ label: '2025-26', start: '2025-07-01', end: '2026-06-30' });
    expect(financialYear('2026-07-01')).toEqual({ label: '2026-27', start: '2026-07-01', end: '2027-06-30' });
    expect(financialYear('2099-12-31').label).toBe('2099-00');
  });
});
