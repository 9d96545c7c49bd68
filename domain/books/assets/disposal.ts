import { ApiError, badRequest } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import { assets as c } from '../../../protocol/methods/books/assets.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { postJournal, type JournalLine } from '../journal.js';
import { formatCents, gstOf } from '../money.js';
import { finish } from '../outcome.js';
import { chargeLines, chargeThrough, chargeView, recordCharges } from './depreciation.js';
import { assetLabel, assetView, bookValue, loadAsset } from './model.js';

/*
 * Disposal: depreciate to the disposal date, then take the asset off the books in the same journal. The sale is a
 * supply like any other: GST-inclusive proceeds, the net on 260 Other revenue with its tax code (so G1 and 1A
 * carry it), GST on 820, the money on 850 Suspense until the sale's bank line is coded there. The written-down
 * value goes to 416, so the profit and loss shows net proceeds less book value: the gain or loss.
 */

export const assetDispose = handler(c.assetDispose, async (ctx, p) => {
  const row = await loadAsset(ctx.q, ctx.orgId, p.id, true);
  const label = assetLabel(row);
  if (row.status === 'DISPOSED') {
    if (row.disposed_date === p.date && row.proceeds_cents === p.proceedsCents) {
      const view = assetView(row);
      return finish(
        ctx,
        { kind: 'books.asset.dispose', entityId: row.asset_id, payload: { assetId: row.asset_id, date: p.date, proceedsCents: p.proceedsCents, noop: true } },
        { asset: view, depreciation: null, gainCents: view.disposal!.gainCents, journalId: row.disposal_journal_id, changed: false },
        `${label} was already disposed of on ${p.date} for ${formatCents(p.proceedsCents)}; nothing changed`,
      );
    }
    throw new ApiError(
      'CONFLICT',
      `${label} was already disposed of on ${row.disposed_date} for ${formatCents(row.proceeds_cents ?? 0)}; it cannot be disposed of again (a correction is a journal)`,
    );
  }
  if (p.date < row.purchase_date) throw badRequest('date', `${p.date} is before ${label} was bought (${row.purchase_date})`);
  if (row.depreciated_through && p.date < row.depreciated_through) {
    throw badRequest('date', `${p.date} is before ${label} was last depreciated (through ${row.depreciated_through}); dispose of it on or after that date`);
  }

  const charge = chargeThrough(row, p.date);
  const accumulated = row.accumulated_cents + (charge?.amountCents ?? 0);
  const book = bookValue({ cost_cents: row.cost_cents, accumulated_cents: accumulated });
  const taxCode = p.taxCode ?? 'GST';
  const gst = taxCode === 'GST' ? gstOf(p.proceedsCents) : 0;
  const net = p.proceedsCents - gst;
  const gain = net - book;
  const narration = `Disposal of ${label} on ${p.date} for ${formatCents(p.proceedsCents)}${gst ? ` incl. GST ${formatCents(gst)}` : ''}`;
  const lines: JournalLine[] = [
    ...(charge ? chargeLines([charge], `Depreciation of ${label} to its disposal on ${p.date}`) : []),
    { account: row.accumulated_account, amountCents: accumulated, description: `Accumulated depreciation of ${label} written back` },
    { account: row.cost_account, amountCents: 0 - row.cost_cents, description: `Cost of ${label} written off` },
    { account: ACC.depreciation, amountCents: book, taxCode: 'BAS_EXCLUDED', description: `Written-down value of ${label} disposed of` },
    { account: ACC.suspense, amountCents: p.proceedsCents, description: `Proceeds of ${label}: code the sale's bank line against 850` },
    { account: ACC.otherRevenue, amountCents: 0 - net, taxCode, taxCents: 0 - gst, description: `Sale of ${label}` },
    { account: ACC.gst, amountCents: 0 - gst, description: `GST on the sale of ${label}` },
  ];
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date: p.date,
    narration,
    sourceKind: 'disposal',
    sourceId: row.asset_id,
    postedBy: ctx.principal.id,
    lines,
  });
  if (charge) {
    await recordCharges(ctx.q, ctx.orgId, { runId: newId('dep'), kind: 'DISPOSAL', periodEnd: p.date, journalId, createdBy: ctx.principal.id }, [charge]);
  }
  await ctx.q.query(
    `UPDATE books_assets SET status = 'DISPOSED', disposed_date = $3, proceeds_cents = $4, disposal_journal_id = $5, disposal_gain_cents = $6
      WHERE org_id = $1 AND asset_id = $2`,
    [ctx.orgId, row.asset_id, p.date, p.proceedsCents, journalId, gain],
  );
  const asset = assetView(await loadAsset(ctx.q, ctx.orgId, row.asset_id));
  const outcome = gain > 0 ? `a gain of ${formatCents(gain)}` : gain < 0 ? `a loss of ${formatCents(0 - gain)}` : 'no gain or loss';
  return finish(
    ctx,
    {
      kind: 'books.asset.dispose',
      entityId: row.asset_id,
      payload: {
        assetId: row.asset_id,
        date: p.date,
        proceedsCents: p.proceedsCents,
        gstCents: gst,
        depreciationCents: charge?.amountCents ?? 0,
        bookValueCents: book,
        gainCents: gain,
        journalId,
      },
    },
    { asset, depreciation: charge ? chargeView(charge) : null, gainCents: gain, journalId, changed: true },
    `Disposed of ${label} on ${p.date} for ${formatCents(p.proceedsCents)}${gst ? ` incl. GST ${formatCents(gst)}` : ''} against a book value of ${formatCents(book)}: ${outcome}; proceeds on 850 until the sale's bank line is coded there; journal ${journalId}`,
  );
});
