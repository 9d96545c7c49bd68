import { ApiError } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import { reconciliation as c } from '../../../protocol/methods/books/reconciliation.js';
import { handler } from '../../core/handler.js';
import { isAssetCostAccount, registerAsset } from '../assets/register.js';
import { postJournal, type JournalLine } from '../journal.js';
import { finish } from '../outcome.js';
import { assertPeriodOpen, booksPolicy } from '../policy.js';
import { checkCodingAccount, codingLabel, codingSide, splitGst } from './coding.js';
import { directionOf, lineLabel, lineView, loadLine } from './model.js';

/*
 * Recode a line coded directly to an account: one reclass journal dated the line date that reverses the old
 * coding's side (account line with its tax, and its GST) and posts the new side. The bank line itself is untouched;
 * the two 820 lines are netted, so GST moves only when the tax code changes.
 */

export const lineRecode = handler(c.lineRecode, async (ctx, p) => {
  const row = await loadLine(ctx.q, ctx.orgId, p.lineId, true);
  if (row.status !== 'RECONCILED') {
    throw new ApiError(
      'CONFLICT',
      `${lineLabel(row)} is ${row.status}, not reconciled; ${row.status === 'HELD' ? 'resolve the hold with books.matchHoldResolve' : 'code it with books.matchAccept'} instead`,
    );
  }
  if (row.target_kind !== 'account') {
    throw new ApiError(
      'CONFLICT',
      `${lineLabel(row)} is matched to ${row.target_kind} ${row.target_id}, so its coding is that document's; a settled document match is not recoded: fix the document in its own area instead (e.g. a credit note for an invoice)`,
    );
  }
  const from = { account: row.account_code as string, taxCode: row.tax_code as NonNullable<typeof row.tax_code> };
  const to = { account: p.account, taxCode: checkCodingAccount('account', p.account, p.taxCode, directionOf(row.amount_cents)) };
  const event = (extra: Record<string, unknown>) => ({
    kind: 'books.feed.recode',
    entityId: row.line_id,
    payload: { lineId: row.line_id, amountCents: row.amount_cents, from, to, ...extra },
  });
  if (from.account === to.account && from.taxCode === to.taxCode) {
    return finish(
      ctx,
      event({ journalId: null, noop: true }),
      { line: lineView(row), journalId: null, assetId: null, changed: false },
      `${lineLabel(row)} is already coded to ${codingLabel(to.account, to.taxCode)}; nothing changed`,
    );
  }
  if (isAssetCostAccount(from.account)) {
    const [asset] = await ctx.q.query<{ asset_id: string }>(
      `SELECT asset_id FROM books_assets WHERE org_id = $1 AND source_kind = 'feed_line' AND source_id = $2 ORDER BY n DESC LIMIT 1`,
      [ctx.orgId, row.line_id],
    );
    throw new ApiError(
      'CONFLICT',
      `${lineLabel(row)} bought fixed asset ${asset?.asset_id ?? '(unregistered)'} on ${from.account}; an asset purchase is not recoded: dispose of the asset (books.assetDispose) and code a correcting journal instead`,
    );
  }
  assertPeriodOpen(await booksPolicy(ctx.q, ctx.orgId), row.date, `recode of ${lineLabel(row)}`);
  const reason = `Recode ${row.description}`;
  const [oldAccount, oldGst] = codingSide(row.amount_cents, from.account, from.taxCode, reason);
  const [newAccount, newGst] = codingSide(row.amount_cents, to.account, to.taxCode, reason);
  const lines: JournalLine[] = [
    { ...oldAccount, amountCents: 0 - oldAccount.amountCents, taxCents: 0 - (oldAccount.taxCents ?? 0) },
    newAccount,
    { account: ACC.gst, amountCents: newGst.amountCents - oldGst.amountCents, description: `GST moved by the recode of ${row.description}` },
  ];
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date: row.date,
    narration: `Recode of bank line ${row.date} "${row.payee ?? row.description}" from ${codingLabel(from.account, from.taxCode)} to ${codingLabel(to.account, to.taxCode)}`,
    sourceKind: 'recode',
    sourceId: row.line_id,
    postedBy: ctx.principal.id,
    lines,
  });
  let assetId: string | null = null;
  if (isAssetCostAccount(to.account)) {
    assetId = await registerAsset(ctx.q, ctx.orgId, {
      name: row.payee ?? row.description,
      costAccount: to.account,
      costCents: splitGst(Math.abs(row.amount_cents), to.taxCode).net,
      purchaseDate: row.date,
      sourceKind: 'feed_line',
      sourceId: row.line_id,
      createdBy: ctx.principal.id,
    });
  }
  await ctx.q.query('UPDATE books_feed_lines SET account_code = $3, tax_code = $4, updated_at = now() WHERE org_id = $1 AND line_id = $2', [
    ctx.orgId,
    row.line_id,
    to.account,
    to.taxCode,
  ]);
  return finish(
    ctx,
    event({ journalId, assetId }),
    { line: lineView(await loadLine(ctx.q, ctx.orgId, row.line_id)), journalId, assetId, changed: true },
    `Recoded ${lineLabel(row)} from ${codingLabel(from.account, from.taxCode)} to ${codingLabel(to.account, to.taxCode)}: posted ${journalId}${assetId ? `, registered fixed asset ${assetId}` : ''}`,
  );
});
