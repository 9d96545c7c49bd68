import { badRequest } from '../../../protocol/errors.js';
import { daysInclusive, monthEnd } from '../dates.js';
import { payWithholdingDollars, type PayFrequency, type PaygScheduleData } from '../rates/payg-schedule.js';

/*
 * PAYG withholding on a payslip: the ATO's Schedule 1 in force on the pay date (domain/books/rates), applied
 * for the run's pay frequency as the schedule prescribes. Schedule 1 covers weekly, fortnightly, monthly and
 * quarterly pays; pay runs here are at most 31 days, so a period of 7 days is weekly, 14 fortnightly, and a
 * whole calendar month monthly. The frequency is the run's, not the days an employee worked in it: a new
 * starter's first fortnightly pay is withheld as a fortnightly pay.
 */

export type { PayFrequency } from '../rates/payg-schedule.js';

/** The pay frequency of a period, or BAD_REQUEST naming the period when Schedule 1 prescribes none for it. */
export function payFrequency(periodStart: string, periodEnd: string): PayFrequency {
  const days = daysInclusive(periodStart, periodEnd);
  if (days === 7) return 'WEEKLY';
  if (days === 14) return 'FORTNIGHTLY';
  if (periodStart.slice(8) === '01' && periodEnd === monthEnd(periodStart)) return 'MONTHLY';
  throw badRequest(
    'periodEnd',
    `${periodStart} to ${periodEnd} is ${days} days; PAYG withholding (ATO Schedule 1) is prescribed for weekly (7 days), fortnightly (14 days) or monthly (a whole calendar month) pays`,
  );
}

/** PAYG withheld, in cents, from `grossCents` paid at `frequency` under `schedule` (scale 2 if the threshold is claimed). */
export function withholdingCents(schedule: PaygScheduleData, grossCents: number, frequency: PayFrequency, claimsTaxFreeThreshold: boolean): number {
  if (grossCents === 0) return 0;
  const dollars = payWithholdingDollars(schedule.scales[claimsTaxFreeThreshold ? '2' : '1'], grossCents, frequency);
  // Never more than was paid (the top rate is under 100%, so this only guards tiny pays).
  return Math.min(grossCents, dollars * 100);
}
