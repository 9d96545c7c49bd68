import type { z } from 'zod';
import type { Payslip as PayslipSchema } from '../../../protocol/methods/books/payroll.js';
import { addDays, daysInclusive } from '../dates.js';
import { formatCents } from '../money.js';
import { periodLabel } from './model.js';
import { payFrequency, type PayFrequency } from './payg.js';
import { baseRule, basePeriodText, superBaseText } from './super-base.js';

type Payslip = z.infer<typeof PayslipSchema>;

/** A payslip's terms in its view: how its gross follows the contract, and what its super was computed on. */

export interface PayslipTermsRow {
  days_employed: number;
  pay_basis: 'ANNUAL' | 'HOURLY';
  rate_cents: number;
  hours_per_week: number;
  unpaid_leave_hours: number;
  unpaid_leave_cents: number;
  gross_cents: number;
  period_pay_cents: number | null;
  super_rate_bp: number | null;
  super_base_cents: number | null;
  super_base_per: 'QUARTER' | 'FINANCIAL_YEAR' | null;
  super_base_start: string | null;
  super_base_end: string | null;
  super_earlier_cents: number | null;
  super_earnings_cents: number | null;
}

/** The columns, as run-model.ts selects them. */
export const PAYSLIP_TERMS_COLUMNS = `period_pay_cents, super_rate_bp, super_base_cents, super_base_per, super_base_start::text AS super_base_start,
  super_base_end::text AS super_base_end, super_earlier_cents, super_earnings_cents`;

const PERIOD_WORD: Record<PayFrequency, string> = { WEEKLY: 'week', FORTNIGHTLY: 'fortnight', MONTHLY: 'month' };
const SHARE: Record<PayFrequency, string> = { WEEKLY: 'a 52nd', FORTNIGHTLY: 'a 26th', MONTHLY: 'a twelfth' };

export function earningsTerms(s: PayslipTermsRow, run: { period_start: string; period_end: string }): Payslip['earnings'] {
  if (s.period_pay_cents === null) return null;
  const frequency = payFrequency(run.period_start, run.period_end);
  const periodDays = daysInclusive(run.period_start, run.period_end);
  const word = PERIOD_WORD[frequency];
  const reasons: ('STARTED_IN_PERIOD' | 'UNPAID_LEAVE')[] = [];
  if (s.days_employed < periodDays) reasons.push('STARTED_IN_PERIOD');
  if (s.unpaid_leave_cents > 0) reasons.push('UNPAID_LEAVE');
  const contract =
    s.pay_basis === 'ANNUAL'
      ? `${formatCents(s.rate_cents)} a year: ${SHARE[frequency]} is ${formatCents(s.period_pay_cents)}`
      : `${formatCents(s.rate_cents)} an hour for ${s.hours_per_week} h a week (52 weeks a year): ${SHARE[frequency]} of the year is ${formatCents(s.period_pay_cents)}`;
  const parts = [`a ${word} of ${contract}`];
  if (reasons.includes('STARTED_IN_PERIOD')) {
    const first = addDays(run.period_end, 1 - s.days_employed);
    const start = periodLabel(first, first);
    parts.push(
      `started part-way (employed ${s.days_employed} of the ${word}'s ${periodDays} calendar days, from ${start}): paid ${s.days_employed}/${periodDays} of it`,
    );
  } else {
    parts.push(`the whole ${word} is paid`);
  }
  if (reasons.includes('UNPAID_LEAVE')) {
    const rate = s.pay_basis === 'ANNUAL' ? `the salary's hourly equivalent (a year / 52 / ${s.hours_per_week} h)` : 'the hourly rate';
    parts.push(`less ${s.unpaid_leave_hours} h unpaid leave at ${rate}: ${formatCents(s.unpaid_leave_cents)}`);
  }
  return {
    rule: reasons.length ? 'PART_PERIOD' : 'FULL_PERIOD',
    reasons,
    periodPayCents: s.period_pay_cents,
    explanation: `${parts.join('; ')}; gross ${formatCents(s.gross_cents)}`,
  };
}

export function superBaseTerms(s: PayslipTermsRow, payDate: string): Payslip['superBase'] {
  if (s.super_rate_bp === null || s.super_base_cents === null || s.super_base_per === null || s.super_base_start === null || s.super_base_end === null)
    return null;
  const { row, provisional } = baseRule(payDate);
  const terms = {
    rateBasisPoints: s.super_rate_bp,
    baseCents: s.super_base_cents,
    per: s.super_base_per,
    start: s.super_base_start,
    end: s.super_base_end,
    provisional,
  };
  const calc = { earlierCents: s.super_earlier_cents ?? 0, earningsCents: s.super_earnings_cents ?? 0, superCents: 0, grossCents: s.gross_cents };
  return {
    rateBasisPoints: terms.rateBasisPoints,
    earningsCents: calc.earningsCents,
    earlierEarningsCents: calc.earlierCents,
    baseCents: terms.baseCents,
    per: terms.per,
    periodStart: terms.start,
    periodEnd: terms.end,
    explanation: superBaseText(calc, terms),
    law: provisional
      ? `no base is recorded for ${basePeriodText(terms)} yet: the ${row.from} to ${row.to} base (${row.law}) applied as a floor, earnings under it only`
      : `${row.law}; base for ${basePeriodText(terms)}`,
  };
}
