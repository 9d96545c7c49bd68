import type { CoefficientScale, PayFrequency, PaygSample } from '../payg-schedule.js';

/**
 * Worked amounts as payg-tax's tests list them: the same pays (gross in cents) for every scale of a year, and per
 * scale and frequency the whole dollars withheld from each, in the same order. Expanded to sample rows.
 */
export function expandWorkedAmounts(
  gross: Record<PayFrequency, readonly number[]>,
  withheld: Record<CoefficientScale, Record<PayFrequency, readonly number[]>>,
): PaygSample[] {
  const out: PaygSample[] = [];
  for (const [scale, byFrequency] of Object.entries(withheld) as [CoefficientScale, Record<PayFrequency, readonly number[]>][]) {
    for (const [frequency, amounts] of Object.entries(byFrequency) as [PayFrequency, readonly number[]][]) {
      if (amounts.length !== gross[frequency].length)
        throw new Error(`worked amounts: scale ${scale} ${frequency} has ${amounts.length} amounts for ${gross[frequency].length} pays`);
      amounts.forEach((w, i) => out.push({ scale, frequency, grossCents: gross[frequency][i], withheld: w }));
    }
  }
  return out;
}

/**
 * Scale 4 (no TFN), resident 47% and foreign resident 45% of a weekly pay, cents ignored: payg-tax's worked
 * amounts (tests/TaxScales/October2020/Nat1004Scale4Test.php at commit 8dd2c535badb3a19909f5bdba77f1d9263a213a9).
 * The rates are the same in the 2024 and 2026 schedules, so both carry these rows.
 */
export const NO_TFN_SAMPLES: readonly PaygSample[] = (
  [
    [87, 40, 39],
    [88, 41, 39],
    [116, 54, 52],
    [370, 173, 166],
    [547, 257, 246],
    [739, 347, 332],
    [931, 437, 418],
    [1845, 867, 830],
    [2307, 1084, 1038],
    [2737, 1286, 1231],
    [3461, 1626, 1557],
  ] as const
).flatMap(([weekly, resident, foreign]): PaygSample[] => [
  { scale: '4', frequency: 'WEEKLY', grossCents: weekly * 100, withheld: resident, residency: 'RESIDENT' },
  { scale: '4', frequency: 'WEEKLY', grossCents: weekly * 100, withheld: foreign, residency: 'FOREIGN' },
]);
