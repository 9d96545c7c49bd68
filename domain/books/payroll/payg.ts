import { divRound } from '../money.js';

/*
 * PAYG withholding: the ATO's "Statement of formulas for calculating amounts to be withheld" (Schedule 1,
 * NAT 1004), 2024-25 coefficients, in force from 1 July 2024. The ATO reissues these coefficients each July:
 * replace the two tables below when it does.
 *
 * Weekly withholding y = a * x - b, where x is the weekly earnings in whole dollars plus 99 cents and (a, b) are
 * those of the first row whose bound x is under; y is rounded to the nearest dollar. A period of d days is
 * converted to its weekly equivalent (gross * 7 / d) and back (weekly withholding * d / 7, rounded to the cent).
 */

/** [x is under this (dollars), a, b]; the last row has no bound. */
type Row = readonly [number, number, number];

/** Scale 2: the employee claims the tax-free threshold. */
const SCALE_2: readonly Row[] = [
  [361, 0, 0],
  [500, 0.16, 57.8462],
  [625, 0.26, 107.8462],
  [721, 0.18, 57.8462],
  [865, 0.189, 64.3365],
  [1282, 0.3227, 180.0385],
  [2596, 0.32, 176.5769],
  [3653, 0.39, 358.3077],
  [Infinity, 0.47, 650.6154],
];

/** Scale 1: the tax-free threshold is not claimed. */
const SCALE_1: readonly Row[] = [
  [150, 0.16, 0.16],
  [371, 0.2117, 7.755],
  [515, 0.189, -0.6702],
  [932, 0.3227, 68.2367],
  [2246, 0.32, 65.7202],
  [3303, 0.39, 222.951],
  [Infinity, 0.47, 487.2587],
];

/** Coefficients have at most 4 decimals: scaled by 10,000 the formula runs in exact integers. */
const SCALE = 10_000;
const scaled = (v: number): number => Math.round(v * SCALE);

/** Withholding in whole dollars on weekly earnings of `weeklyDollars` (whole dollars, cents already dropped). */
export function weeklyWithholdingDollars(weeklyDollars: number, claimsTaxFreeThreshold: boolean): number {
  if (!Number.isSafeInteger(weeklyDollars) || weeklyDollars < 0) throw new Error(`weekly earnings ${weeklyDollars} must be whole dollars >= 0`);
  const xCents = weeklyDollars * 100 + 99;
  const table = claimsTaxFreeThreshold ? SCALE_2 : SCALE_1;
  const [, a, b] = table.find(([bound]) => xCents < bound * 100) as Row;
  // y * 1,000,000 = a * 10^4 * x * 10^2 - b * 10^4 * 10^2, rounded to whole dollars (halves away from zero).
  const y = divRound(scaled(a) * xCents - scaled(b) * 100, SCALE * 100);
  return Math.max(0, y);
}

/**
 * PAYG withheld, in cents, from `grossCents` earned over a period of `days` days. The weekly equivalent is
 * gross * 7 / days, of which the whole dollars count.
 */
export function withholdingCents(grossCents: number, days: number, claimsTaxFreeThreshold: boolean): number {
  if (!Number.isSafeInteger(grossCents) || grossCents < 0) throw new Error(`gross ${grossCents} must be whole cents >= 0`);
  if (!Number.isSafeInteger(days) || days < 1) throw new Error(`a pay period of ${days} days`);
  if (grossCents === 0) return 0;
  const grossTimes7 = grossCents * 7;
  const weeklyDollars = (grossTimes7 - (grossTimes7 % (days * 100))) / (days * 100);
  const weekly = weeklyWithholdingDollars(weeklyDollars, claimsTaxFreeThreshold);
  // Never more than was earned (the top rate is under 100%, so this only guards rounding on tiny amounts).
  return Math.min(grossCents, divRound(weekly * 100 * days, 7));
}
