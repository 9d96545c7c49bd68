import { ApiError, badRequest, notFound } from '../../../protocol/errors.js';
import { reconciliation as c, type MatchTarget } from '../../../protocol/methods/books/reconciliation.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { registerAsset, isAssetCostAccount } from '../assets/register.js';
import { postJournal } from '../journal.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { assertPeriodOpen, booksPolicy } from '../policy.js';
import { invoiceLabel, loadInvoice, requireOpen } from '../receivables/model.js';
import { settleInvoice } from '../receivables/settle.js';
import { billLabel, loadBill, requirePayable } from '../payables/model.js';
import { reconcilePaymentRun, settleBill } from '../payables/settle.js';
import { loadRun as loadPayRun, runLabel, wagesOwed } from '../payroll/run-model.js';
import { settlePayRun } from '../payroll/settle.js';
import { claimDue, claimLabel, loadClaim } from '../expenses/claims.js';
import { settleClaim } from '../expenses/settle.js';
import { suggestionsFor } from './suggestions.js';
import { checkCodingAccount, codingLabel, directCodingLines, splitGst } from './coding.js';
import {
  DOC_DIRECTION,
  TARGET_ID_FIELD,
  directionOf,
  lineLabel,
  lineView,
  loadLine,
  markReconciled,
  sameTarget,
  storedTarget,
  targetIdOf,
  type FeedLineRow,
  type ResolvedTarget,
} from './model.js';

/*
 * Matching a bank line (matchAccept) and releasing or rejecting a held match (matchHoldResolve). Money against a
 * document goes through that document's settlement function, dated the line date, so bank matching and the
 * explicit payment methods post the same way.
 */

type Mode = 'accept' | 'release';

/** A target that does not fit: bad input when the caller picked it, a conflict when a held match went stale. */
function misfit(mode: Mode, field: string, why: string): ApiError {
  return mode === 'accept'
    ? badRequest(field, why)
    : new ApiError('CONFLICT', `the held match no longer fits: ${why}; reject the hold (decision "reject") and match the line again`);
}

/** Check the target can take the whole line on the line date, before anything is held or posted. Returns its label. */
async function checkFits(ctx: HandlerCtx, row: FeedLineRow, t: ResolvedTarget, mode: Mode): Promise<string> {
  const amount = Math.abs(row.amount_cents);
  assertPeriodOpen(await booksPolicy(ctx.q, ctx.orgId), row.date, `posting ${lineLabel(row)}`);
  if (t.kind === 'account') return codingLabel(t.account, t.taxCode);
  const field = `target.${TARGET_ID_FIELD[t.kind]}`;
  const tooMuch = (due: number, label: string) => misfit(mode, field, `the line's ${formatCents(amount)} is more than the ${formatCents(due)} due on ${label}`);
  const tooEarly = (from: string, label: string, what: string) => misfit(mode, field, `the line is dated ${row.date}, before ${label} ${what} (${from})`);
  const act = mode === 'accept' ? 'matchAccept' : 'matchHoldResolve';
  if (t.kind === 'invoice') {
    const inv = await loadInvoice(ctx.q, ctx.orgId, t.id);
    const label = `invoice ${invoiceLabel(inv)}`;
    const due = requireOpen(inv, act);
    if (amount > due) throw tooMuch(due, label);
    if (inv.issue_date && row.date < inv.issue_date) throw tooEarly(inv.issue_date, label, 'was issued');
    return label;
  }
  if (t.kind === 'bill') {
    const bill = await loadBill(ctx.q, ctx.orgId, t.id);
    const label = `bill ${billLabel(bill)}`;
    const due = requirePayable(bill, act);
    if (amount > due) throw tooMuch(due, label);
    if (row.date < bill.issue_date) throw tooEarly(bill.issue_date, label, 'was issued');
    return label;
  }
  if (t.kind === 'claim') {
    const claim = await loadClaim(ctx.q, ctx.orgId, t.id);
    const label = `expense ${claimLabel(claim)}`;
    if (claim.status !== 'AUTHORISED')
      throw new ApiError(
        'CONFLICT',
        `${act}: ${label} is ${claim.status}${claim.status === 'SUBMITTED' ? '; approve it first (books.expenseApprove)' : ' with nothing owed'}`,
      );
    const due = claimDue(claim);
    if (amount > due) throw tooMuch(due, label);
    if (row.date < claim.date) throw tooEarly(claim.date, label, 'was incurred');
    return label;
  }
  if (t.kind === 'payRun') {
    const run = await loadPayRun(ctx.q, ctx.orgId, t.id);
    const label = runLabel(run);
    if (run.status !== 'POSTED') throw new ApiError('CONFLICT', `${act}: ${label} is ${run.status}; only a POSTED (signed) run has wages to pay`);
    const owed = wagesOwed(run);
    if (owed === 0) throw new ApiError('CONFLICT', `${act}: ${label} has its net wages paid in full; nothing is owed`);
    if (amount > owed) throw tooMuch(owed, label);
    if (row.date < run.period_end) throw tooEarly(run.period_end, label, 'ends');
    return label;
  }
  if (t.kind === 'paymentRun') {
    const [run] = await ctx.q.query<{ total_cents: number; pay_date: string; feed_line_id: string | null }>(
      'SELECT total_cents, pay_date, feed_line_id FROM books_payment_runs WHERE org_id = $1 AND run_id = $2',
      [ctx.orgId, t.id],
    );
    if (!run) throw notFound(`payment run ${t.id}`);
    const label = `payment run ${t.id} (${formatCents(run.total_cents)} on ${run.pay_date})`;
    if (run.feed_line_id) throw new ApiError('CONFLICT', `${act}: ${label} was already reconciled to bank feed line ${run.feed_line_id}`);
    // One bank debit pays the whole run.
    if (amount !== run.total_cents)
      throw misfit(mode, field, `the line's ${formatCents(amount)} is not the ${formatCents(run.total_cents)} total of ${label}; they must be equal`);
    return label;
  }
  throw new Error(`match target kind ${t.kind} is not wired`);
}

interface Posted {
  journalId: string | null;
  paymentId: string | null;
  assetId: string | null;
}

/** Post the match: the document's settlement, or the direct coding journal (and the asset it buys). */
async function postMatch(ctx: HandlerCtx, row: FeedLineRow, t: ResolvedTarget): Promise<Posted> {
  const amountCents = Math.abs(row.amount_cents);
  const settlement = { amountCents, date: row.date, feedLineId: row.line_id };
  const settled = (s: { journalId: string; paymentId: string }): Posted => ({ journalId: s.journalId, paymentId: s.paymentId, assetId: null });
  if (t.kind === 'invoice') return settled(await settleInvoice(ctx, t.id, settlement));
  if (t.kind === 'bill') return settled(await settleBill(ctx, t.id, settlement));
  if (t.kind === 'claim') return settled(await settleClaim(ctx, t.id, settlement));
  if (t.kind === 'payRun') return settled(await settlePayRun(ctx, t.id, settlement));
  if (t.kind === 'paymentRun') {
    // The run already posted each bill's payment: the line only reconciles it.
    await reconcilePaymentRun(ctx, t.id, { amountCents, feedLineId: row.line_id });
    return { journalId: null, paymentId: null, assetId: null };
  }
  if (t.kind !== 'account') throw new Error(`match target kind ${t.kind} is not wired`);
  const what = row.payee ?? row.description;
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date: row.date,
    narration: `Bank line ${row.date} "${what}" coded to ${codingLabel(t.account, t.taxCode)}`,
    sourceKind: 'feed_line',
    sourceId: row.line_id,
    postedBy: ctx.principal.id,
    lines: directCodingLines(row.amount_cents, t.account, t.taxCode, row.description),
  });
  let assetId: string | null = null;
  if (isAssetCostAccount(t.account)) {
    // Cost is the GST-exclusive amount debited to the cost account (money in is never coded to one).
    assetId = await registerAsset(ctx.q, ctx.orgId, {
      name: what,
      costAccount: t.account,
      costCents: splitGst(amountCents, t.taxCode).net,
      purchaseDate: row.date,
      sourceKind: 'feed_line',
      sourceId: row.line_id,
      createdBy: ctx.principal.id,
    });
  }
  return { journalId, paymentId: null, assetId };
}

/** The caller's target with the tax code of a direct coding resolved and the account checked. */
function resolveTarget(t: MatchTarget, row: FeedLineRow): ResolvedTarget {
  if (t.kind === 'account')
    return { kind: 'account', account: t.account, taxCode: checkCodingAccount('target.account', t.account, t.taxCode, directionOf(row.amount_cents)) };
  return { kind: t.kind, id: targetIdOf(t) };
}

const eventPayload = (row: FeedLineRow, t: ResolvedTarget, extra: Record<string, unknown>) => ({
  lineId: row.line_id,
  targetKind: t.kind,
  targetId: t.kind === 'account' ? t.account : t.id,
  taxCode: t.kind === 'account' ? t.taxCode : null,
  amountCents: row.amount_cents,
  ...extra,
});

export const matchAccept = handler(c.matchAccept, async (ctx, p) => {
  const row = await loadLine(ctx.q, ctx.orgId, p.lineId, true);
  const target = resolveTarget(p.target, row);
  const stored = storedTarget(row);
  if (row.status === 'RECONCILED' && stored) {
    if (!sameTarget(stored, target)) {
      throw new ApiError(
        'CONFLICT',
        `${lineLabel(row)} is already RECONCILED to ${describe(stored)}; a reconciled line is not matched again${stored.kind === 'account' ? ' (change its coding with books.lineRecode)' : ''}`,
      );
    }
    return finish(
      ctx,
      { kind: 'books.feed.match', entityId: row.line_id, payload: eventPayload(row, target, { status: row.status, noop: true }) },
      { line: lineView(row), journalId: row.journal_id, paymentId: null, assetId: null, changed: false },
      `${lineLabel(row)} was already reconciled to ${describe(target)}; nothing changed`,
    );
  }
  if (row.status === 'HELD') {
    throw new ApiError(
      'CONFLICT',
      `${lineLabel(row)} is HELD for ${describe(stored as ResolvedTarget)}; use books.matchHoldResolve to approve or reject the hold`,
    );
  }
  const direction = directionOf(row.amount_cents);
  if (target.kind !== 'account' && DOC_DIRECTION[target.kind] !== direction) {
    throw new ApiError(
      'CONFLICT',
      `${lineLabel(row)} is money ${direction}; ${target.kind === 'invoice' ? 'an' : 'a'} ${target.kind} match needs money ${DOC_DIRECTION[target.kind]}`,
    );
  }
  const label = await checkFits(ctx, row, target, 'accept');
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  if (Math.abs(row.amount_cents) > policy.materialityFloorCents) {
    await ctx.q.query(
      `UPDATE books_feed_lines SET status = 'HELD', target_kind = $3, target_id = $4, account_code = $5, tax_code = $6,
              held_at = now(), held_by = $7, updated_at = now()
        WHERE org_id = $1 AND line_id = $2`,
      [
        ctx.orgId,
        row.line_id,
        target.kind,
        'id' in target ? target.id : null,
        target.kind === 'account' ? target.account : null,
        target.kind === 'account' ? target.taxCode : null,
        ctx.principal.id,
      ],
    );
    return finish(
      ctx,
      { kind: 'books.feed.match', entityId: row.line_id, payload: eventPayload(row, target, { status: 'HELD', journalId: null }) },
      { line: lineView(await loadLine(ctx.q, ctx.orgId, row.line_id)), journalId: null, paymentId: null, assetId: null, changed: true },
      `Held ${lineLabel(row)} for ${label}: ${formatCents(Math.abs(row.amount_cents))} is above the ${formatCents(policy.materialityFloorCents)} materiality floor, so nothing is posted until books.matchHoldResolve approves it (a signature act)`,
    );
  }
  const posted = await postMatch(ctx, row, target);
  await markReconciled(ctx.q, ctx.orgId, row.line_id, { target, journalId: posted.journalId, approvalId: null, by: ctx.principal.id });
  return finish(
    ctx,
    { kind: 'books.feed.match', entityId: row.line_id, payload: eventPayload(row, target, { status: 'RECONCILED', ...posted }) },
    { line: lineView(await loadLine(ctx.q, ctx.orgId, row.line_id)), ...posted, changed: true },
    `Reconciled ${lineLabel(row)} to ${label}${posted.journalId ? `: posted ${posted.journalId}` : ''}${posted.assetId ? `, registered fixed asset ${posted.assetId}` : ''}`,
  );
});

/** `invoice inv_…` or `429 General expenses (GST)`, for messages where the document is not loaded. */
function describe(t: ResolvedTarget): string {
  return t.kind === 'account' ? codingLabel(t.account, t.taxCode) : `${t.kind} ${t.id}`;
}

/**
 * What a human signs for a release: the call names only the line, so the payload also carries the held target and
 * amount; an approval given for an earlier hold (another target, before a reject and re-match) does not fit.
 */
const releaseParams = (p: Record<string, unknown>, row: FeedLineRow, target: ResolvedTarget) => ({
  ...p,
  target,
  amountCents: row.amount_cents,
  heldAt: row.held_at,
});

export const matchHoldResolve = handler(c.matchHoldResolve, async (ctx, p) => {
  const row = await loadLine(ctx.q, ctx.orgId, p.lineId, true);
  const target = storedTarget(row);
  if (row.status === 'RECONCILED' && row.held_at && target && p.decision === 'approve') {
    // A replay of a release: nothing posts twice; a proof given anyway is checked (used: refused), not consumed.
    if (Math.abs(row.amount_cents) > (await booksPolicy(ctx.q, ctx.orgId)).materialityFloorCents) {
      await ctx.verifyProof({ actionClass: 'books.match_hold_resolve', subjectId: row.line_id, summary: '', params: releaseParams(p, row, target) });
    }
    return finish(
      ctx,
      { kind: 'books.feed.resolve', entityId: row.line_id, payload: eventPayload(row, target, { decision: p.decision, noop: true }) },
      { line: lineView(row), decision: p.decision, journalId: row.journal_id, paymentId: null, assetId: null, approvalId: row.approval_id, changed: false },
      `${lineLabel(row)} was already released to ${describe(target)}; nothing changed`,
    );
  }
  if (row.status !== 'HELD' || !target) {
    throw new ApiError(
      'CONFLICT',
      row.status === 'RECONCILED'
        ? `${lineLabel(row)} is already resolved: RECONCILED to ${describe(target as ResolvedTarget)}; nothing is held`
        : `${lineLabel(row)} is UNMATCHED, not held; match it with books.matchAccept`,
    );
  }
  const event = (extra: Record<string, unknown>) => ({
    kind: 'books.feed.resolve',
    entityId: row.line_id,
    payload: eventPayload(row, target, { decision: p.decision, ...extra }),
  });
  if (p.decision === 'reject') {
    // Nothing was posted while held, so rejecting moves no money and needs no signature.
    await ctx.q.query(
      `UPDATE books_feed_lines SET status = 'UNMATCHED', target_kind = NULL, target_id = NULL, account_code = NULL, tax_code = NULL,
                held_at = NULL, held_by = NULL, updated_at = now()
          WHERE org_id = $1 AND line_id = $2`,
      [ctx.orgId, row.line_id],
    );
    const back = await loadLine(ctx.q, ctx.orgId, row.line_id);
    const suggested = (await suggestionsFor(ctx.q, ctx.orgId, [back])).get(back.line_id) ?? [];
    return finish(
      ctx,
      event({ journalId: null, approvalId: null }),
      { line: lineView(back, suggested), decision: p.decision, journalId: null, paymentId: null, assetId: null, approvalId: null, changed: true },
      `Rejected the hold of ${lineLabel(row)} for ${describe(target)}: the line is UNMATCHED again and no money moved`,
    );
  }
  // Validated first, so a hold is only ever filed for a release that could run.
  const label = await checkFits(ctx, row, target, 'release');
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  let approvalId: string | null = null;
  if (Math.abs(row.amount_cents) > policy.materialityFloorCents) {
    const proof = await ctx.requireSignature({
      actionClass: 'books.match_hold_resolve',
      subjectId: row.line_id,
      summary: `Release ${formatCents(Math.abs(row.amount_cents))} from the bank line ${row.date} "${row.payee ?? row.description}" to ${label}`,
      params: releaseParams(p, row, target),
    });
    approvalId = proof.approvalId;
  }
  const posted = await postMatch(ctx, row, target);
  await markReconciled(ctx.q, ctx.orgId, row.line_id, { target, journalId: posted.journalId, approvalId, by: ctx.principal.id });
  return finish(
    ctx,
    event({ ...posted, approvalId }),
    { line: lineView(await loadLine(ctx.q, ctx.orgId, row.line_id)), decision: p.decision, ...posted, approvalId, changed: true },
    `Released ${lineLabel(row)} to ${label}${approvalId ? ` under approval ${approvalId}` : ''}${posted.journalId ? `: posted ${posted.journalId}` : ''}${posted.assetId ? `, registered fixed asset ${posted.assetId}` : ''}`,
  );
});
