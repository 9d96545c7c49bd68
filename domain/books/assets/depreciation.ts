import type { z } from 'zod';
import { ACC } from '../../../protocol/methods/books/chart.js';
import { assets as c, type DepreciationLine } from '../../../protocol/methods/books/assets.js';
import type { Queryable } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { addDays, daysInclusive } from '../dates.js';
import { postJournal, type JournalLine } from '../journal.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { ASSET_SELECT, assetLabel, type AssetRow } from './model.js';

/*
 * Depreciation by days: straight line (cost - residual) x days / (life x 365); diminishing value (200% / life)
 * opening book value x 2 / life x days / 365. Either is capped so accumulated depreciation never passes
 * cost - residual. A period is depreciated once per asset (books_depreciation is keyed by asset and period end).
 */

/** round(a x b / d), halves away from zero, exact: the products can pass 2^53 on long spans. */
function mulDivRound(a: number, b: number, d: number): number {
  const [x, y] = [BigInt(a) * BigInt(b), BigInt(d)];
  const sign = x < 0n ? -1n : 1n;
  const abs = x < 0n ? -x : x;
  return Number(sign * ((2n * abs + y) / (2n * y)));
}

export interface Charge {
  asset: AssetRow;
  fromDate: string;
  toDate: string;
  days: number;
  amountCents: number;
}

/** What depreciating `a` through `through` charges, or null when nothing is due (not bought yet, done, capped). */
export function chargeThrough(a: AssetRow, through: string): Charge | null {
  const fromDate = a.depreciated_through ? addDays(a.depreciated_through, 1) : a.purchase_date;
  if (a.purchase_date > through || fromDate > through) return null;
  const remaining = a.cost_cents - a.residual_cents - a.accumulated_cents;
  if (remaining <= 0) return null;
  const days = daysInclusive(fromDate, through);
  const yearDays = a.life_years * 365;
  const raw =
    a.method === 'STRAIGHT_LINE'
      ? mulDivRound(a.cost_cents - a.residual_cents, days, yearDays)
      : mulDivRound(a.cost_cents - a.accumulated_cents, 2 * days, yearDays);
  const amountCents = Math.min(raw, remaining);
  return amountCents > 0 ? { asset: a, fromDate, toDate: through, days, amountCents } : null;
}

export function chargeView(ch: Charge): z.infer<typeof DepreciationLine> {
  const accumulated = ch.asset.accumulated_cents + ch.amountCents;
  return {
    assetId: ch.asset.asset_id,
    name: ch.asset.name,
    method: ch.asset.method,
    fromDate: ch.fromDate,
    toDate: ch.toDate,
    days: ch.days,
    amountCents: ch.amountCents,
    accumulatedDepreciationCents: accumulated,
    bookValueCents: ch.asset.cost_cents - accumulated,
  };
}

/** Journal lines of charges: Dr 416 for their total, Cr each asset's accumulated depreciation account. */
export function chargeLines(charges: Charge[], narration: string): JournalLine[] {
  const total = charges.reduce((s, ch) => s + ch.amountCents, 0);
  return [
    { account: ACC.depreciation, amountCents: total, description: narration },
    ...charges.map((ch) => ({
      account: ch.asset.accumulated_account,
      amountCents: 0 - ch.amountCents,
      description: `${assetLabel(ch.asset)} ${ch.fromDate}..${ch.toDate} (${ch.days} days)`,
    })),
  ];
}

/** Record a run (after its journal) and one depreciation row per charge. */
export async function recordCharges(
  q: Queryable,
  orgId: string,
  r: { runId: string; kind: 'RUN' | 'DISPOSAL'; periodEnd: string; journalId: string; createdBy: string },
  charges: Charge[],
): Promise<void> {
  const total = charges.reduce((s, ch) => s + ch.amountCents, 0);
  await q.query(
    `INSERT INTO books_depreciation_runs (org_id, run_id, kind, period_end, journal_id, total_cents, asset_count, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [orgId, r.runId, r.kind, r.periodEnd, r.journalId, total, charges.length, r.createdBy],
  );
  await q.query(
    `INSERT INTO books_depreciation (org_id, asset_id, period_end, from_date, amount_cents, run_id, journal_id)
     SELECT $1, t.asset_id, t.period_end, t.from_date, t.amount_cents, $2, $3
       FROM unnest($4::text[], $5::date[], $6::date[], $7::bigint[]) AS t(asset_id, period_end, from_date, amount_cents)`,
    [
      orgId,
      r.runId,
      r.journalId,
      charges.map((ch) => ch.asset.asset_id),
      charges.map((ch) => ch.toDate),
      charges.map((ch) => ch.fromDate),
      charges.map((ch) => ch.amountCents),
    ],
  );
}

export const assetDepreciationRun = handler(c.assetDepreciationRun, async (ctx, p) => {
  const { periodEnd } = p;
  // Lock the registered assets first (no aggregate may sit under FOR UPDATE), so two runs cannot interleave.
  await ctx.q.query(`SELECT 1 FROM books_assets WHERE org_id = $1 AND status = 'REGISTERED' AND purchase_date <= $2 ORDER BY n FOR UPDATE`, [
    ctx.orgId,
    periodEnd,
  ]);
  const registered = await ctx.q.query<AssetRow>(`${ASSET_SELECT} WHERE a.org_id = $1 AND a.status = 'REGISTERED' AND a.purchase_date <= $2 ORDER BY a.n`, [
    ctx.orgId,
    periodEnd,
  ]);
  const charges = registered.map((a) => chargeThrough(a, periodEnd)).filter((ch): ch is Charge => ch !== null);
  if (charges.length === 0) {
    const why =
      registered.length === 0
        ? `no registered asset was bought on or before ${periodEnd}`
        : `all ${registered.length} registered asset${registered.length === 1 ? ' is' : 's are'} already depreciated through ${periodEnd} (or later, or fully)`;
    return finish(
      ctx,
      { kind: 'books.asset.depreciate', entityId: periodEnd, payload: { periodEnd, assets: 0, totalCents: 0, noop: true } },
      { runId: null, periodEnd, lines: [], totalCents: 0, journalId: null, changed: false },
      `Nothing to depreciate through ${periodEnd}: ${why}; nothing posted`,
    );
  }
  const runId = newId('dep');
  const total = charges.reduce((s, ch) => s + ch.amountCents, 0);
  const narration = `Depreciation through ${periodEnd} (${charges.length} asset${charges.length === 1 ? '' : 's'})`;
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date: periodEnd,
    narration,
    sourceKind: 'depreciation',
    sourceId: runId,
    postedBy: ctx.principal.id,
    lines: chargeLines(charges, narration),
  });
  await recordCharges(ctx.q, ctx.orgId, { runId, kind: 'RUN', periodEnd, journalId, createdBy: ctx.principal.id }, charges);
  const lines = charges.map(chargeView);
  return finish(
    ctx,
    {
      kind: 'books.asset.depreciate',
      entityId: runId,
      payload: {
        runId,
        periodEnd,
        assets: charges.length,
        totalCents: total,
        journalId,
        lines: lines.map((l) => ({ assetId: l.assetId, fromDate: l.fromDate, amountCents: l.amountCents })),
      },
    },
    { runId, periodEnd, lines, totalCents: total, journalId, changed: true },
    `Depreciated ${charges.length} asset${charges.length === 1 ? '' : 's'} through ${periodEnd}: ${formatCents(total)} (Dr 416 / Cr accumulated depreciation) in journal ${journalId}`,
  );
});
