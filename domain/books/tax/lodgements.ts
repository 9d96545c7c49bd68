import { ApiError, badRequest } from '../../../protocol/errors.js';
import { tax as c } from '../../../protocol/methods/books/tax.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { finish } from '../outcome.js';
import { booksPolicy } from '../policy.js';
import { computeBas } from './bas.js';
import {
  LODGEMENT_SELECT,
  labelChanges,
  labelsText,
  loadLodgement,
  lockTaxDesk,
  lodgementLabel,
  lodgementView,
  netPhrase,
  periodLabel,
  sameFigures,
  type LodgementRow,
} from './model.js';

/** A BAS from preparation to the preparer and back: prepare, hold, return. Lodging lives in lodge.ts. */

export const taxPrepare = handler(c.taxPrepare, async (ctx, p) => {
  const { periodStart, periodEnd } = p;
  if (periodEnd < periodStart) throw badRequest('periodEnd', `${periodEnd} is before periodStart ${periodStart}`);
  const period = periodLabel(periodStart, periodEnd);
  await lockTaxDesk(ctx.q, ctx.orgId);
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  if (policy.lockDate && periodStart <= policy.lockDate) {
    throw new ApiError(
      'CONFLICT',
      `BAS ${period} overlaps the locked period (the books are locked through ${policy.lockDate} by a lodged BAS); prepare a period starting after ${policy.lockDate}`,
    );
  }
  const overlapping = await ctx.q.query<LodgementRow>(
    `${LODGEMENT_SELECT} WHERE org_id = $1 AND period_start <= $3 AND period_end >= $2 ORDER BY n FOR UPDATE`,
    [ctx.orgId, periodStart, periodEnd],
  );
  const lodged = overlapping.find((r) => r.status === 'LODGED');
  if (lodged) throw new ApiError('CONFLICT', `BAS ${period} overlaps ${lodgementLabel(lodged)}, which is LODGED; a lodged period cannot be prepared again`);
  const same = overlapping.find((r) => r.period_start === periodStart && r.period_end === periodEnd);
  if (same?.status === 'HELD') {
    throw new ApiError(
      'CONFLICT',
      `${lodgementLabel(same)} is held (${same.hold_reason}): return it to the preparer first (books.taxReturn), then re-prepare it`,
    );
  }
  const other = overlapping.find((r) => r !== same);
  if (other) {
    throw new ApiError(
      'CONFLICT',
      `BAS ${period} overlaps ${lodgementLabel(other)} (${other.status}); prepare exactly that period, or choose a period that does not overlap it`,
    );
  }

  const { labels, netCents } = await computeBas(ctx.q, ctx.orgId, periodStart, periodEnd);
  const figures = `${netPhrase(netCents)} (${labelsText(labels)})`;
  if (same?.status === 'PREPARED' && sameFigures(same.labels, labels)) {
    return finish(
      ctx,
      { kind: 'books.tax.prepare', entityId: same.lodgement_id, payload: { lodgementId: same.lodgement_id, periodStart, periodEnd, netCents, noop: true } },
      { lodgement: lodgementView(same), changed: false },
      `${lodgementLabel(same)} is already prepared with these figures, awaiting a human signature to lodge; nothing changed`,
    );
  }
  let lodgementId: string;
  if (same) {
    // Re-prepared in place: same id, fresh snapshot, back to PREPARED (a returned DRAFT or a stale PREPARED).
    lodgementId = same.lodgement_id;
    await ctx.q.query(
      `UPDATE books_tax_lodgements SET status = 'PREPARED', labels = $3, net_cents = $4, prepared_by = $5, prepared_at = now(), updated_at = now()
        WHERE org_id = $1 AND lodgement_id = $2`,
      [ctx.orgId, lodgementId, JSON.stringify(labels), netCents, ctx.principal.id],
    );
  } else {
    lodgementId = newId('bas');
    await ctx.q.query(
      `INSERT INTO books_tax_lodgements (org_id, lodgement_id, period_start, period_end, status, labels, net_cents, prepared_by)
       VALUES ($1, $2, $3, $4, 'PREPARED', $5, $6, $7)`,
      [ctx.orgId, lodgementId, periodStart, periodEnd, JSON.stringify(labels), netCents, ctx.principal.id],
    );
  }
  const row = await loadLodgement(ctx.q, ctx.orgId, lodgementId);
  const moved = same && !sameFigures(same.labels, labels) ? labelChanges(same.labels, labels) : null;
  const how = !same ? 'Prepared' : `Re-prepared (was ${same.status}${moved ? `; changed: ${moved}` : ', figures unchanged'})`;
  return finish(
    ctx,
    {
      kind: 'books.tax.prepare',
      entityId: lodgementId,
      payload: { lodgementId, periodStart, periodEnd, labels, netCents, previousStatus: same?.status ?? null },
    },
    { lodgement: lodgementView(row), changed: true },
    `${how} ${lodgementLabel(row)}: ${figures}; awaiting a human signature to lodge (books.taxSignLodge)`,
  );
});

export const taxHold = handler(c.taxHold, async (ctx, p) => {
  const row = await loadLodgement(ctx.q, ctx.orgId, p.id, true);
  const event = (payload: Record<string, unknown>) => ({
    kind: 'books.tax.hold',
    entityId: row.lodgement_id,
    payload: { lodgementId: row.lodgement_id, ...payload },
  });
  if (row.status === 'HELD') {
    return finish(
      ctx,
      event({ reason: row.hold_reason, noop: true }),
      { lodgement: lodgementView(row), changed: false },
      `${lodgementLabel(row)} is already held, not lodged (${row.hold_reason}); nothing changed`,
    );
  }
  if (row.status === 'DRAFT') {
    throw new ApiError('CONFLICT', `${lodgementLabel(row)} is a DRAFT with the preparer; there is nothing to hold: re-prepare it first (books.taxPrepare)`);
  }
  if (row.status === 'LODGED') throw new ApiError('CONFLICT', `${lodgementLabel(row)} is LODGED (approval ${row.approval_id}); a lodged BAS cannot be held`);
  await ctx.q.query(
    `UPDATE books_tax_lodgements SET status = 'HELD', hold_reason = $3, held_by = $4, held_at = now(), updated_at = now()
      WHERE org_id = $1 AND lodgement_id = $2`,
    [ctx.orgId, row.lodgement_id, p.reason, ctx.principal.id],
  );
  const held = await loadLodgement(ctx.q, ctx.orgId, row.lodgement_id);
  return finish(
    ctx,
    event({ status: 'HELD', reason: p.reason }),
    { lodgement: lodgementView(held), changed: true },
    `${lodgementLabel(row)} is held, not lodged: ${p.reason}. Lodging is blocked until it is returned to the preparer (books.taxReturn) and re-prepared`,
  );
});

export const taxReturn = handler(c.taxReturn, async (ctx, p) => {
  const row = await loadLodgement(ctx.q, ctx.orgId, p.id, true);
  if (row.status === 'DRAFT') {
    throw new ApiError(
      'CONFLICT',
      `${lodgementLabel(row)} is already with the preparer (DRAFT${row.return_reason ? `, returned: ${row.return_reason}` : ''}); re-prepare it with books.taxPrepare`,
    );
  }
  if (row.status === 'LODGED') {
    throw new ApiError(
      'CONFLICT',
      `${lodgementLabel(row)} is LODGED (approval ${row.approval_id}); it cannot be returned: correct a lodged BAS in the next period's BAS`,
    );
  }
  await ctx.q.query(
    `UPDATE books_tax_lodgements SET status = 'DRAFT', return_reason = $3, returned_by = $4, returned_at = now(), updated_at = now()
      WHERE org_id = $1 AND lodgement_id = $2`,
    [ctx.orgId, row.lodgement_id, p.reason, ctx.principal.id],
  );
  const returned = await loadLodgement(ctx.q, ctx.orgId, row.lodgement_id);
  return finish(
    ctx,
    {
      kind: 'books.tax.return',
      entityId: row.lodgement_id,
      payload: { lodgementId: row.lodgement_id, previousStatus: row.status, status: 'DRAFT', reason: p.reason },
    },
    { lodgement: lodgementView(returned), changed: true },
    `Returned ${lodgementLabel(row)} to the preparer (was ${row.status}, now DRAFT): ${p.reason}. Re-prepare it with books.taxPrepare`,
  );
});
