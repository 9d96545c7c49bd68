import { ApiError } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import { tax as c } from '../../../protocol/methods/books/tax.js';
import { handler } from '../../core/handler.js';
import { addDays, today } from '../dates.js';
import { postJournal, type JournalLine } from '../journal.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { booksPolicy, setLockDate } from '../policy.js';
import { computeBas } from './bas.js';
import {
  labelChanges,
  loadLodgement,
  lockTaxDesk,
  lodgementLabel,
  lodgementView,
  netPhrase,
  sameFigures,
  signSummary,
  type BasLabels,
  type LodgementRow,
} from './model.js';

/** Lodging a prepared BAS: the signature act. Until it runs the lodgement stays PREPARED (or HELD). */

/** Dr 820 by 1A - 1B (a credit when negative), Dr 825 by W2 / Cr 830 by the net; zero lines are dropped. */
function clearingLines(labels: BasLabels, netCents: number, label: string): JournalLine[] {
  const gst = labels['1A'] - labels['1B'];
  return [
    { account: ACC.gst, amountCents: gst, description: `GST for ${label}: 1A ${formatCents(labels['1A'])} less 1B ${formatCents(labels['1B'])}` },
    { account: ACC.paygWithholding, amountCents: labels.W2, description: `PAYG withheld for ${label} (W2)` },
    { account: ACC.atoClearing, amountCents: 0 - netCents, description: `${label}: ${netPhrase(netCents)}` },
  ].filter((l) => l.amountCents !== 0);
}

/** What a human signs: the call plus the prepared figures (a re-preparation makes it another payload). */
const signedParams = (row: LodgementRow, p: Record<string, unknown>) => ({
  ...p,
  periodStart: row.period_start,
  periodEnd: row.period_end,
  labels: row.labels,
  netCents: row.net_cents,
  preparedAt: row.prepared_at,
});

export const taxSignLodge = handler(c.taxSignLodge, async (ctx, p) => {
  await lockTaxDesk(ctx.q, ctx.orgId);
  const row = await loadLodgement(ctx.q, ctx.orgId, p.id, true);
  const label = lodgementLabel(row);
  if (row.status === 'LODGED') {
    await ctx.verifyProof({ actionClass: 'books.tax_sign_lodge', subjectId: row.lodgement_id, summary: '', params: signedParams(row, p) });
    return finish(
      ctx,
      { kind: 'books.tax.lodge', entityId: row.lodgement_id, payload: { lodgementId: row.lodgement_id, noop: true } },
      { lodgement: lodgementView(row), journalId: row.journal_id, approvalId: row.approval_id, changed: false },
      `${label} is already LODGED (approval ${row.approval_id}); nothing changed`,
    );
  }
  if (row.status === 'HELD') {
    throw new ApiError(
      'CONFLICT',
      `${label} is held, not lodged (${row.hold_reason}): lodging is blocked. Return it to the preparer (books.taxReturn) and re-prepare it (books.taxPrepare), then sign`,
    );
  }
  if (row.status === 'DRAFT') {
    throw new ApiError(
      'CONFLICT',
      `${label} is a DRAFT with the preparer${row.return_reason ? ` (returned: ${row.return_reason})` : ''}; re-prepare it (books.taxPrepare) before signing`,
    );
  }
  // Validated first, so a hold is only ever filed for a lodgement that could be lodged.
  if (today(ctx.deps) <= row.period_end) {
    throw new ApiError('CONFLICT', `${label}: the period has not ended (it ends ${row.period_end}); a BAS can be lodged from ${addDays(row.period_end, 1)}`);
  }
  const policy = await booksPolicy(ctx.q, ctx.orgId, { forUpdate: true });
  if (policy.lockDate && row.period_start <= policy.lockDate) {
    throw new ApiError('CONFLICT', `${label} overlaps the locked period (the books are locked through ${policy.lockDate}); it cannot be lodged`);
  }
  // The signed payload carries the prepared figures, so an approval covers exactly what the human read: after a
  // return and re-preparation the payload differs and the old approval no longer fits (CONFLICT).
  const proof = await ctx.requireSignature({
    actionClass: 'books.tax_sign_lodge',
    subjectId: row.lodgement_id,
    summary: signSummary(row),
    params: signedParams(row, p),
  });

  // The human approved these figures: if the books moved since, or the approval showed other figures, refuse.
  const now = await computeBas(ctx.q, ctx.orgId, row.period_start, row.period_end);
  if (!sameFigures(row.labels, now.labels)) {
    throw new ApiError(
      'CONFLICT',
      `${label} no longer matches the books (${labelChanges(row.labels, now.labels)}): the books moved since it was prepared; re-prepare it (books.taxPrepare) and sign the new figures`,
    );
  }
  const lines = clearingLines(row.labels, row.net_cents, `BAS ${row.period_start}..${row.period_end}`);
  // The journal is dated periodEnd, so it posts before the lock moves to periodEnd.
  const journalId =
    lines.length > 0
      ? await postJournal(ctx.q, ctx.orgId, {
          date: row.period_end,
          narration: `${label}: GST and PAYG withholding to the ATO clearing account`,
          sourceKind: 'tax',
          sourceId: row.lodgement_id,
          postedBy: ctx.principal.id,
          lines,
        })
      : null;
  await setLockDate(ctx.q, ctx.orgId, row.period_end);
  await ctx.q.query(
    `UPDATE books_tax_lodgements SET status = 'LODGED', lodged_by = $3, lodged_at = now(), approval_id = $4, journal_id = $5, updated_at = now()
        WHERE org_id = $1 AND lodgement_id = $2`,
    [ctx.orgId, row.lodgement_id, ctx.principal.id, proof.approvalId, journalId],
  );
  const lodgement = lodgementView(await loadLodgement(ctx.q, ctx.orgId, row.lodgement_id));
  return finish(
    ctx,
    {
      kind: 'books.tax.lodge',
      entityId: row.lodgement_id,
      payload: {
        lodgementId: row.lodgement_id,
        periodStart: row.period_start,
        periodEnd: row.period_end,
        netCents: row.net_cents,
        journalId,
        approvalId: proof.approvalId,
        lockDate: row.period_end,
      },
    },
    { lodgement, journalId, approvalId: proof.approvalId, changed: true },
    `Lodged ${label} in the books under approval ${proof.approvalId} (not submitted to the ATO: this server has no ATO channel, so lodge these figures there): ${netPhrase(row.net_cents)}; ${journalId ? `cleared to 830 in journal ${journalId}` : 'nothing to clear'}; the books are locked through ${row.period_end}`,
  );
});
