import { divRound } from '../money.js';

/*
 * A PAYG withholding schedule as the ATO publishes it (Schedule 1, NAT 1004): per scale, rows of
 * [weekly earnings x less than (dollars) | null for the open last row, a, b], withholding y = a * x - b where x
 * is the weekly earnings in whole dollars plus 99 cents, rounded to the nearest dollar (50 cents up). Fortnightly
 * and monthly pays go through their weekly equivalent exactly as the schedule's "Working out the weekly
 * earnings" prescribes (see payWithholdingDollars).
 */

/** [x is under this many dollars (null: no bound, the last row), a, b]. */
export type PaygRow = readonly [number | null, number, number];

/** The scales the product supports: employees claim the tax-free threshold (2) or not (1). */
export const SUPPORTED_SCALES = ['1', '2'] as const;
export type PaygScale = (typeof SUPPORTED_SCALES)[number];

/** One of the ATO's sample data rows: weekly earnings (whole dollars) and the amount withheld (dollars). */
export interface PaygSample {
  scale: PaygScale;
  weeklyEarnings: number;
  withheld: number;
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
  scales: Record<PaygScale, readonly PaygRow[]>;
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

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (v: unknown): v is string => typeof v === 'string' && DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));
const fourDecimals = (v: number): boolean => Math.abs(v * SCALE - Math.round(v * SCALE)) < 1e-6;

/**
 * A schedule file as the operator gives it, checked: dates, every supported scale present, bounds whole dollars
 * and strictly increasing with the last row open, coefficients of at most 4 decimals with 0 <= a < 1, weekly
 * withholding never falling as earnings rise nor exceeding them (up to $10,000 a week), and every sample row
 * reproduced. Throws an Error naming the field and the problem.
 */
export function parseSchedule(raw: unknown): PaygScheduleData {
  const o = raw as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error('a schedule must be a JSON object');
  if (typeof o.label !== 'string' || !/^\d{4}-\d{2}$/.test(o.label)) throw new Error(`label: must name the income year as YYYY-YY, got ${JSON.stringify(o.label)}`);
  if (!isDate(o.from)) throw new Error(`from: must be a date YYYY-MM-DD, got ${JSON.stringify(o.from)}`);
  if (!isDate(o.to)) throw new Error(`to: must be a date YYYY-MM-DD, got ${JSON.stringify(o.to)}`);
  if (o.to < o.from) throw new Error(`to: ${o.to} is before from ${o.from}`);
  if (typeof o.source !== 'string' || !/^https:\/\//.test(o.source)) throw new Error('source: must be the https address the coefficients were taken from');
  if (!isDate(o.published)) throw new Error(`published: must be the ATO's publication date YYYY-MM-DD, got ${JSON.stringify(o.published)}`);
  const scalesIn = o.scales as Record<string, unknown>;
  if (typeof scalesIn !== 'object' || scalesIn === null) throw new Error('scales: must map each scale ("1", "2") to its rows');
  const scales = {} as Record<PaygScale, PaygRow[]>;
  for (const scale of SUPPORTED_SCALES) scales[scale] = parseRows(scalesIn[scale], `scales.${scale}`);
  const samplesIn = o.samples ?? [];
  if (!Array.isArray(samplesIn)) throw new Error('samples: must be a list of {scale, weeklyEarnings, withheld}');
  const samples = samplesIn.map((s: Record<string, unknown>, i): PaygSample => {
    const where = `samples[${i}]`;
    if (!SUPPORTED_SCALES.includes(String(s?.scale) as PaygScale)) throw new Error(`${where}.scale: must be one of ${SUPPORTED_SCALES.join(', ')}`);
    if (!Number.isSafeInteger(s.weeklyEarnings) || (s.weeklyEarnings as number) < 0) throw new Error(`${where}.weeklyEarnings: must be whole dollars >= 0`);
    if (!Number.isSafeInteger(s.withheld) || (s.withheld as number) < 0) throw new Error(`${where}.withheld: must be whole dollars >= 0`);
    const sample = { scale: String(s.scale) as PaygScale, weeklyEarnings: s.weeklyEarnings as number, withheld: s.withheld as number };
    const got = weeklyWithholdingDollars(scales[sample.scale], sample.weeklyEarnings);
    if (got !== sample.withheld) {
      throw new Error(`${where}: scale ${sample.scale} on $${sample.weeklyEarnings} a week computes $${got}, the ATO's sample says $${sample.withheld}; check the coefficients`);
    }
    return sample;
  });
  return { label: o.label, from: o.from, to: o.to, source: o.source, published: o.published, scales, samples };
}

function parseRows(v: unknown, where: string): PaygRow[] {
  if (!Array.isArray(v) || v.length === 0) throw new Error(`${where}: missing; every supported scale (${SUPPORTED_SCALES.join(', ')}) needs its rows`);
  const rows = v.map((r: unknown, i): PaygRow => {
    if (!Array.isArray(r) || r.length !== 3) throw new Error(`${where}[${i}]: must be [lessThan | null, a, b]`);
    const [bound, a, b] = r as [unknown, unknown, unknown];
    const last = i === v.length - 1;
    if (last ? bound !== null : !(Number.isSafeInteger(bound) && (bound as number) > 0)) {
      throw new Error(`${where}[${i}]: ${last ? 'the last row must be open (lessThan null)' : 'lessThan must be whole dollars > 0'}`);
    }
    if (typeof a !== 'number' || !(a >= 0 && a < 1) || !fourDecimals(a)) throw new Error(`${where}[${i}]: a must be a rate 0 <= a < 1 of at most 4 decimals, got ${JSON.stringify(a)}`);
    if (typeof b !== 'number' || !Number.isFinite(b) || Math.abs(b) >= 10_000 || !fourDecimals(b)) throw new Error(`${where}[${i}]: b must be dollars of at most 4 decimals, got ${JSON.stringify(b)}`);
    return [bound as number | null, a, b];
  });
  for (let i = 1; i < rows.length - 1; i++) {
    if ((rows[i][0] as number) <= (rows[i - 1][0] as number)) throw new Error(`${where}[${i}]: lessThan ${rows[i][0]} must be above the row before (${rows[i - 1][0]})`);
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
