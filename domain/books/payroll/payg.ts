import { ApiError, badRequest } from '../../../protocol/errors.js';
import { daysInclusive, monthEnd } from '../dates.js';
import {
  noTfnWithholdingDollars,
  payWithholdingDollars,
  scheduleName,
  type PayFrequency,
  type PaygScale,
  type PaygScheduleData,
  type Residency,
} from '../rates/payg-schedule.js';

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

export const MEDICARE_LEVY_VARIATIONS = ['NONE', 'HALF', 'FULL'] as const;
export type MedicareLevyVariation = (typeof MEDICARE_LEVY_VARIATIONS)[number];

/** What the employee declared (TFN declaration, Medicare levy variation declaration) that decides the scale. */
export interface PaygDeclaration {
  tfnProvided: boolean;
  residency: Residency;
  claimsTaxFreeThreshold: boolean;
  medicareLevyVariation: MedicareLevyVariation;
}

/**
 * The Schedule 1 scale for a declaration, in NAT 1004's order: no TFN -> 4 (its resident or foreign rate);
 * foreign resident -> 3; threshold not claimed -> 1; full Medicare levy exemption -> 5; half -> 6; else 2.
 * `why` is the declaration in words, e.g. "no TFN declared, resident".
 */
export function paygScale(d: PaygDeclaration): { scale: PaygScale; why: string } {
  if (!d.tfnProvided) return { scale: '4', why: `no TFN declared, ${d.residency === 'FOREIGN' ? 'foreign resident' : 'resident'}` };
  if (d.residency === 'FOREIGN') return { scale: '3', why: 'foreign resident' };
  if (!d.claimsTaxFreeThreshold) return { scale: '1', why: 'tax-free threshold not claimed' };
  if (d.medicareLevyVariation === 'FULL') return { scale: '5', why: 'tax-free threshold claimed, full Medicare levy exemption' };
  if (d.medicareLevyVariation === 'HALF') return { scale: '6', why: 'tax-free threshold claimed, half Medicare levy exemption' };
  return { scale: '2', why: 'tax-free threshold claimed' };
}

export interface Withholding {
  cents: number;
  scale: PaygScale;
  /** `scale 4: no TFN declared, resident 47%`, `scale 2: tax-free threshold claimed`: what payslips show. */
  reason: string;
}

const percent = (rate: number): string => `${Math.round(rate * 10_000) / 100}%`;

/** PAYG withheld from `grossCents` paid at `frequency` under `schedule`, on the scale the declaration gives. */
export function withholding(schedule: PaygScheduleData, grossCents: number, frequency: PayFrequency, d: PaygDeclaration): Withholding {
  const { scale, why } = paygScale(d);
  if (scale === '4') {
    const rate = d.residency === 'FOREIGN' ? schedule.scales['4']?.foreign : schedule.scales['4']?.resident;
    if (rate === undefined) throw missingScale(schedule, scale);
    return { cents: Math.min(grossCents, noTfnWithholdingDollars(rate, grossCents) * 100), scale, reason: `scale 4: ${why} ${percent(rate)}` };
  }
  const rows = schedule.scales[scale];
  if (!rows) throw missingScale(schedule, scale);
  // Never more than was paid (the top rate is under 100%, so this only guards tiny pays).
  const cents = grossCents === 0 ? 0 : Math.min(grossCents, payWithholdingDollars(rows, grossCents, frequency) * 100);
  return { cents, scale, reason: `scale ${scale}: ${why}` };
}

/** A schedule imported before scales 3 to 6 were required lacks them: refused, naming the file to load again. */
const missingScale = (schedule: PaygScheduleData, scale: PaygScale): ApiError =>
  new ApiError(
    'CONFLICT',
    `${scheduleName(schedule)} as loaded has no scale ${scale}; load the ATO's Schedule 1 for ${schedule.label} again with all six scales (npm run cli -- payg-import <file>)`,
  );
