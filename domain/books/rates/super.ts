/*
 * The super guarantee rate by date: Superannuation Guarantee (Administration) Act 1992 s 19(2), the charge
 * percentage of the quarter or (from 1 July 2026, Payday Super) of the payday. 11.5% for 2024-25, 12% from
 * 1 July 2025 and every year after (no further step is legislated).
 */

interface SuperRate {
  from: string;
  basisPoints: number;
}

/** Newest first. */
const SG_RATES: readonly SuperRate[] = [
  { from: '2025-07-01', basisPoints: 1_200 },
  { from: '2024-07-01', basisPoints: 1_150 },
  { from: '2023-07-01', basisPoints: 1_100 },
];

/** The super guarantee rate in basis points (1200 = 12%) for earnings paid on `date` (YYYY-MM-DD). */
export function superGuaranteeRate(date: string): number {
  const rate = SG_RATES.find((r) => date >= r.from);
  if (!rate) throw new Error(`no super guarantee rate is recorded for ${date} (the oldest is from ${SG_RATES[SG_RATES.length - 1].from})`);
  return rate.basisPoints;
}
