import { divRound, formatCents } from '../money.js';

/*
 * A PAYG withholding schedule as the ATO publishes it (Schedule 1, NAT 1004): per scale, rows of
 * [weekly earnings x less than (dollars) | null for the open last row, a, b], withholding y = a * x - b where x
 * is the weekly earnings in whole dollars plus 99 cents, rounded to the nearest dollar (50 cents up). Fortnightly
 * and monthly pays go through their weekly equivalent exactly as the schedule's "Working out the weekly
 * earnings" prescribes (see payWithholdingDollars). Scale 4 (no TFN) is a flat rate, not coefficients.
 */

/** [x is under this many dollars (null: no bound, the last row), a, b]. */
export type PaygRow = readonly [number | null, number, number];

/** The coefficient scales of Schedule 1: 1 no tax-free threshold, 2 threshold claimed, 3 foreign resident, 5 full and 6 half Medicare levy exemption. */
export const COEFFICIENT_SCALES = ['1', '2', '3', '5', '6'] as const;
export type CoefficientScale = (typeof COEFFICIENT_SCALES)[number];
/** Every scale the product withholds on: the coefficient scales and scale 4 (no TFN declared, a flat rate). */
export const PAYG_SCALES = ['1', '2', '3', '4', '5', '6'] as const;
export type PaygScale = (typeof PAYG_SCALES)[number];
export const RESIDENCIES = ['RESIDENT', 'FOREIGN'] as const;
export type Residency = (typeof RESIDENCIES)[number];

/** Scale 4: the flat rate withheld when no TFN is declared, for a resident and a foreign resident. */
export interface NoTfnRates {
  resident: number;
  foreign: number;
}

/**
 * One of the ATO's worked amounts: `withheld` whole dollars from a pay of `grossCents` at `frequency` on `scale`
 * (scale 4 names the payee's `residency`). Files of the old shape `{scale, weeklyEarnings, withheld}` are read as WEEKLY.
 */
export interface PaygSample {
  scale: PaygScale;
  frequency: PayFrequency;
  grossCents: number;
  withheld: number;
  residency?: Residency;
}

export interface PaygScheduleData {
  /** The income year(s) it was issued for, e.g. `2026-27`. */
  label: string;
  /** First and last payment dates it applies to (YYYY-MM-DD). */
  from: string;
  to: string;
  /** Where the coefficients were taken from, and when the ATO published them. */
  source: string;
  published: string;
  scales: Record<CoefficientScale, readonly PaygRow[]> & { '4': NoTfnRates };
  samples: readonly PaygSample[];
}

export type PayFrequency = 'WEEKLY' | 'FORTNIGHTLY' | 'MONTHLY';

/** `ATO Schedule 1 2026-27 (from 2026-07-01)`: how payslips and pay runs name it. */
export const scheduleName = (s: Pick<PaygScheduleData, 'label' | 'from'>): string => `ATO Schedule 1 ${s.label} (from ${s.from})`;

/** Coefficients have at most 4 decimals: scaled by 10,000 the formula runs in exact integers. */
const SCALE = 10_000;
const scaled = (v: number): number => Math.round(v * SCALE);

/** Weekly withholding in whole dollars on weekly earnings of `weeklyDollars` (cents already dropped). */
export function weeklyWithholdingDollars(rows: readonly PaygRow[], weeklyDollars: number): number {
  if (!Number.isSafeInteger(weeklyDollars) || weeklyDollars < 0) throw new Error(`weekly earnings ${weeklyDollars} must be whole dollars >= 0`);
  const xCents = weeklyDollars * 100 + 99;
  const row = rows.find(([bound]) => bound === null || xCents < bound * 100);
  if (!row) throw new Error('a PAYG scale must end with an open row');
  const [, a, b] = row;
  // y * 1,000,000 = a * 10^4 * x * 10^2 - b * 10^4 * 10^2, rounded to whole dollars (halves away from zero).
  return Math.max(0, divRound(scaled(a) * xCents - scaled(b) * 100, SCALE * 100));
}

/**
 * Withholding in whole dollars from one pay of `grossCents`, per Schedule 1 "Working out the weekly earnings":
 * weekly - the whole dollars; fortnightly - half the pay, cents ignored, weekly amount times 2; monthly - the
 * pay (plus one cent if it ends in 33 cents) times 3/13, cents ignored, weekly amount times 13/3 rounded to the
 * dollar.
 */
export function payWithholdingDollars(rows: readonly PaygRow[], grossCents: number, frequency: PayFrequency): number {
  if (!Number.isSafeInteger(grossCents) || grossCents < 0) throw new Error(`gross ${grossCents} must be whole cents >= 0`);
  switch (frequency) {
    case 'WEEKLY':
      return weeklyWithholdingDollars(rows, Math.floor(grossCents / 100));
    case 'FORTNIGHTLY':
      return weeklyWithholdingDollars(rows, Math.floor(grossCents / 200)) * 2;
    case 'MONTHLY': {
      const cents = grossCents % 100 === 33 ? grossCents + 1 : grossCents;
      return divRound(weeklyWithholdingDollars(rows, Math.floor((cents * 3) / 1300)) * 13, 3);
    }
  }
}

/**
 * Scale 4 (no TFN declared): `rate` of the pay, cents ignored both in the pay and in the result (Schedule 1,
 * "Rounding of withholding amounts": scale 4 ignores cents instead of rounding), whatever the pay frequency.
 */
export function noTfnWithholdingDollars(rate: number, grossCents: number): number {
  if (!Number.isSafeInteger(grossCents) || grossCents < 0) throw new Error(`gross ${grossCents} must be whole cents >= 0`);
  return Math.floor((Math.floor(grossCents / 100) * scaled(rate)) / SCALE);
}

/** The dollars `schedule` withholds for a sample (or any pay) described by scale, frequency, gross and residency. */
export function scheduleWithholdingDollars(schedule: Pick<PaygScheduleData, 'scales'>, s: Omit<PaygSample, 'withheld'>): number {
  if (s.scale === '4') return noTfnWithholdingDollars(s.residency === 'FOREIGN' ? schedule.scales['4'].foreign : schedule.scales['4'].resident, s.grossCents);
  return payWithholdingDollars(schedule.scales[s.scale], s.grossCents, s.frequency);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (v: unknown): v is string => typeof v === 'string' && DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));
const fourDecimals = (v: number): boolean => Math.abs(v * SCALE - Math.round(v * SCALE)) < 1e-6;

const FREQUENCIES: readonly PayFrequency[] = ['WEEKLY', 'FORTNIGHTLY', 'MONTHLY'];

/**
 * A schedule file as the operator gives it, checked: dates, every scale present (1, 2, 3, 5 and 6 as coefficient
 * rows, 4 as its resident and foreign rates), bounds whole dollars and strictly increasing with the last row open,
 * coefficients of at most 4 decimals with 0 <= a < 1, weekly withholding never falling as earnings rise nor
 * exceeding them (up to $10,000 a week), and every sample reproduced. Throws an Error naming the field and the problem.
 */
export function parseSchedule(raw: unknown): PaygScheduleData {
  const o = raw as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error('a schedule must be a JSON object');
  if (typeof o.label !== 'string' || !/^\d{4}-\d{2}$/.test(o.label))
    throw new Error(`label: must name the income year as YYYY-YY, got ${JSON.stringify(o.label)}`);
  if (!isDate(o.from)) throw new Error(`from: must be a date YYYY-MM-DD, got ${JSON.stringify(o.from)}`);
  if (!isDate(o.to)) throw new Error(`to: must be a date YYYY-MM-DD, got ${JSON.stringify(o.to)}`);
  if (o.to < o.from) throw new Error(`to: ${o.to} is before from ${o.from}`);
  if (typeof o.source !== 'string' || !/^https:\/\//.test(o.source)) throw new Error('source: must be the https address the coefficients were taken from');
  if (!isDate(o.published)) throw new Error(`published: must be the ATO's publication date YYYY-MM-DD, got ${JSON.stringify(o.published)}`);
  const scalesIn = o.scales as Record<string, unknown>;
  if (typeof scalesIn !== 'object' || scalesIn === null)
    throw new Error('scales: must map each scale ("1", "2", "3", "5", "6") to its rows and "4" to {resident, foreign}');
  const rows = {} as Record<CoefficientScale, PaygRow[]>;
  for (const scale of COEFFICIENT_SCALES) rows[scale] = parseRows(scalesIn[scale], `scales.${scale}`);
  const scales = { ...rows, '4': parseNoTfnRates(scalesIn['4']) };
  const samplesIn = o.samples ?? [];
  if (!Array.isArray(samplesIn)) throw new Error('samples: must be a list of {scale, frequency, grossCents, withheld}');
  const samples = samplesIn.map((s: unknown, i): PaygSample => {
    const sample = parseSample(s, `samples.${i}`);
    const got = scheduleWithholdingDollars({ scales }, sample);
    if (got !== sample.withheld) {
      throw new Error(
        `samples.${i}: scale ${sample.scale}${sample.residency ? ` (${sample.residency})` : ''} on a ${sample.frequency} pay of ${formatCents(sample.grossCents)} computes $${got}, the ATO's sample says $${sample.withheld}; check the coefficients`,
      );
    }
    return sample;
  });
  return { label: o.label, from: o.from, to: o.to, source: o.source, published: o.published, scales, samples };
}

/** A sample row: `{scale, frequency, grossCents, withheld, residency?}`, or the old `{scale, weeklyEarnings, withheld}` (WEEKLY). */
export function parseSample(raw: unknown, where: string): PaygSample {
  const s = raw as Record<string, unknown>;
  if (typeof s !== 'object' || s === null) throw new Error(`${where}: must be {scale, frequency, grossCents, withheld}`);
  const scale = String(s.scale) as PaygScale;
  if (!PAYG_SCALES.includes(scale)) throw new Error(`${where}.scale: must be one of ${PAYG_SCALES.join(', ')}`);
  const old = s.frequency === undefined && s.grossCents === undefined && s.weeklyEarnings !== undefined;
  if (old && (!Number.isSafeInteger(s.weeklyEarnings) || (s.weeklyEarnings as number) < 0))
    throw new Error(`${where}.weeklyEarnings: must be whole dollars >= 0`);
  const frequency = old ? 'WEEKLY' : (s.frequency as PayFrequency);
  if (!FREQUENCIES.includes(frequency)) throw new Error(`${where}.frequency: must be one of ${FREQUENCIES.join(', ')}`);
  const grossCents = old ? (s.weeklyEarnings as number) * 100 : s.grossCents;
  if (!Number.isSafeInteger(grossCents) || (grossCents as number) < 0) throw new Error(`${where}.grossCents: must be whole cents >= 0`);
  if (!Number.isSafeInteger(s.withheld) || (s.withheld as number) < 0) throw new Error(`${where}.withheld: must be whole dollars >= 0`);
  const sample: PaygSample = { scale, frequency, grossCents: grossCents as number, withheld: s.withheld as number };
  if (scale === '4') {
    const residency = (s.residency ?? 'RESIDENT') as Residency;
    if (!RESIDENCIES.includes(residency)) throw new Error(`${where}.residency: must be RESIDENT or FOREIGN (scale 4 only)`);
    sample.residency = residency;
  } else if (s.residency !== undefined) throw new Error(`${where}.residency: only scale 4 samples name a residency`);
  return sample;
}

function parseNoTfnRates(v: unknown): NoTfnRates {
  const r = v as Record<string, unknown>;
  if (typeof r !== 'object' || r === null || Array.isArray(r))
    throw new Error('scales.4: missing; scale 4 (no TFN) needs {"resident": rate, "foreign": rate}, e.g. 0.47 and 0.45');
  for (const k of ['resident', 'foreign'] as const) {
    const rate = r[k];
    if (typeof rate !== 'number' || !(rate > 0 && rate < 1) || !fourDecimals(rate))
      throw new Error(`scales.4.${k}: must be a rate 0 < rate < 1 of at most 4 decimals, got ${JSON.stringify(rate)}`);
  }
  return { resident: r.resident as number, foreign: r.foreign as number };
}

function parseRows(v: unknown, where: string): PaygRow[] {
  if (!Array.isArray(v) || v.length === 0) throw new Error(`${where}: missing; every coefficient scale (${COEFFICIENT_SCALES.join(', ')}) needs its rows`);
  const rows = v.map((r: unknown, i): PaygRow => {
    if (!Array.isArray(r) || r.length !== 3) throw new Error(`${where}[${i}]: must be [lessThan | null, a, b]`);
    const [bound, a, b] = r as [unknown, unknown, unknown];
    const last = i === v.length - 1;
    if (last ? bound !== null : !(Number.isSafeInteger(bound) && (bound as number) > 0)) {
      throw new Error(`${where}[${i}]: ${last ? 'the last row must be open (lessThan null)' : 'lessThan must be whole dollars > 0'}`);
    }
    if (typeof a !== 'number' || !(a >= 0 && a < 1) || !fourDecimals(a))
      throw new Error(`${where}[${i}]: a must be a rate 0 <= a < 1 of at most 4 decimals, got ${JSON.stringify(a)}`);
    if (typeof b !== 'number' || !Number.isFinite(b) || Math.abs(b) >= 10_000 || !fourDecimals(b))
      throw new Error(`${where}[${i}]: b must be dollars of at most 4 decimals, got ${JSON.stringify(b)}`);
    return [bound as number | null, a, b];
  });
  for (let i = 1; i < rows.length - 1; i++) {
    if ((rows[i][0] as number) <= (rows[i - 1][0] as number))
      throw new Error(`${where}[${i}]: lessThan ${rows[i][0]} must be above the row before (${rows[i - 1][0]})`);
  }
  // Plausible: withholding never falls as weekly earnings rise, and never exceeds them.
  let previous = 0;
  for (let dollars = 0; dollars <= 10_000; dollars++) {
    const y = weeklyWithholdingDollars(rows, dollars);
    if (y < previous) throw new Error(`${where}: withholding falls from $${previous} to $${y} at $${dollars} a week; check the coefficients`);
    if (y > dollars + 1) throw new Error(`${where}: withholding $${y} exceeds weekly earnings of $${dollars}; check the coefficients`);
    previous = y;
  }
  return rows;
}
