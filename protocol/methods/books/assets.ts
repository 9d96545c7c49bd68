import { z } from 'zod';
import { method } from '../../contract.js';
import { MAX_CENTS, date, ids, journalRef, outcome, page, pageParams, taxCode } from './common.js';

/*
 * Fixed assets: the register (assets arrive from purchases coded to 710 or 720), depreciation runs and
 * disposals. Cost is GST-exclusive (the amount debited to the cost account).
 */

export const ASSET_STATUSES = ['REGISTERED', 'DISPOSED'] as const;
export const DEPRECIATION_METHODS = ['STRAIGHT_LINE', 'DIMINISHING_VALUE'] as const;

export const Asset = z.strictObject({
  id: z.string().describe('ast_…'),
  name: z.string(),
  costAccount: z.string().describe('710 Office equipment or 720 Computer equipment.'),
  accumulatedAccount: z.string().describe('711 or 721: where its depreciation accumulates.'),
  costCents: z.number().int().describe('GST-exclusive cost.'),
  residualCents: z.number().int().describe('Value left at the end of its life: never depreciated.'),
  purchaseDate: z.string(),
  lifeYears: z.number().int(),
  method: z
    .enum(DEPRECIATION_METHODS)
    .describe('STRAIGHT_LINE ((cost - residual) / life, by days) or DIMINISHING_VALUE (200% / life of the opening book value, by days).'),
  status: z.enum(ASSET_STATUSES),
  accumulatedDepreciationCents: z.number().int().describe('Depreciation charged so far (for a disposed asset: up to its disposal).'),
  bookValueCents: z.number().int().describe('cost - accumulated depreciation (for a disposed asset: at its disposal).'),
  depreciatedThrough: z.string().nullable().describe('Last day depreciated; null before the first run.'),
  disposal: z
    .strictObject({
      date: z.string(),
      proceedsCents: z.number().int().describe('GST-exclusive proceeds.'),
      gainCents: z.number().int().describe('proceeds - book value at disposal: positive a gain (260), negative a loss (416).'),
      journalId: z.string(),
    })
    .nullable(),
  source: z.strictObject({ kind: z.string(), id: z.string() }).describe('What registered it: a bill, a bank line, the demo seed...'),
  createdAt: z.string(),
});
export type Asset = z.infer<typeof Asset>;

export const DepreciationLine = z.strictObject({
  assetId: z.string(),
  name: z.string(),
  method: z.enum(DEPRECIATION_METHODS),
  fromDate: z.string(),
  toDate: z.string(),
  days: z.number().int(),
  amountCents: z.number().int(),
  accumulatedDepreciationCents: z.number().int().describe('After this line.'),
  bookValueCents: z.number().int().describe('After this line.'),
});

export const assets = {
  assetDepreciationRun: method({
    summary:
      'Depreciate every REGISTERED asset bought on or before periodEnd from the day after it was last depreciated (or its purchase date) to periodEnd inclusive: straight line (cost - residual) x days / (life x 365), or diminishing value opening book value x 2 / life x days / 365; never past cost - residual. ' +
      'One row per asset per period and one journal dated periodEnd (Dr 416 / Cr 711 or 721). Assets already depreciated through periodEnd (or later) are skipped, so running again changes nothing; with nothing to depreciate nothing posts.',
    params: z.strictObject({ periodEnd: date('Depreciate through this date, e.g. the month or quarter end.') }),
    result: z.strictObject({
      runId: z.string().nullable().describe('dep_…, or null when nothing was depreciated.'),
      periodEnd: z.string(),
      lines: z.array(DepreciationLine),
      totalCents: z.number().int(),
      journalId: journalRef,
      ...outcome,
    }),
    events: ['books.asset.depreciate'],
    example: { periodEnd: '2026-09-30' },
  }),
  assetDispose: method({
    summary:
      "Dispose of a REGISTERED asset on a date (not before its purchase or its last depreciation; BAD_REQUEST) for GST-inclusive proceeds: depreciates it to the date first, then one journal (source disposal): Dr 711/721 all accumulated depreciation, Cr 710/720 cost, Dr 416 the written-down value, Dr 850 Suspense the proceeds (the sale's bank line is coded against 850 when the money arrives), Cr 260 Other revenue the net proceeds with its tax code and Cr 820 the GST (so the sale is on the BAS: G1, 1A). The gain or loss is net proceeds less book value. " +
      'DISPOSED; disposing again with the same date and proceeds changes nothing, with others it is CONFLICT.',
    params: z.strictObject({
      id: ids.asset(),
      date: date('Disposal date: on or after the purchase date and the day it was last depreciated through, in an open period.'),
      proceedsCents: z
        .number({ message: 'must be an integer number of cents' })
        .int('must be an integer number of cents')
        .min(0, 'must be >= 0 (0 for a write-off)')
        .max(MAX_CENTS, `must be at most ${MAX_CENTS} cents`)
        .describe('Sale proceeds including GST, in cents; 0 for a write-off.'),
      taxCode: taxCode('GST treatment of the sale (default GST: GST = round(proceeds / 11)).').optional(),
    }),
    result: z.strictObject({
      asset: Asset,
      depreciation: DepreciationLine.nullable().describe('The depreciation to the disposal date charged first, if any.'),
      gainCents: z.number().int(),
      journalId: journalRef,
      ...outcome,
    }),
    events: ['books.asset.dispose'],
    example: { id: 'ast_0123456789abcdef', date: '2026-10-15', proceedsCents: 50000 },
  }),
  assets: method({
    summary:
      'The fixed asset register: cost, accumulated depreciation, book value (cost - accumulated), last depreciated through, status, disposal and source, in registration order; filter by status. Pages with cursor/limit.',
    params: z.strictObject({ status: z.enum(ASSET_STATUSES).describe('Only assets in this status.').optional(), ...pageParams }),
    result: page('assets', Asset),
    example: { status: 'REGISTERED', limit: 50 },
  }),
};
