import type { z } from 'zod';
import { ApiError, badRequest, notFound } from '../../../protocol/errors.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import { payables as c, type PaymentRun } from '../../../protocol/methods/books/payables.js';
import type { Queryable } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { today } from '../dates.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { BILL_SELECT, SUMMARY_MAX, amountDue, billLabel, fitSummary, type BillRow } from './model.js';
import { settleBill } from './settle.js';

/** Payment runs: pay a set of approved bills in full on a date, once a human has signed the run. */

/** `brun_` + 16 hex of sha256(payDate, newline, sorted ids): a retry in any order names the same run. */
export const paymentRunId = (payDate: string, billIds: string[]): string => `brun_${sha256Hex(`${payDate}\n${[...billIds].sort().join(',')}`).slice(0, 16)}`;

interface RunRow {
  run_id: string;
  pay_date: string;
  total_cents: number;
  approval_id: string | null;
  feed_line_id: string | null;
  created_at: string;
}

/** The executed run with what it paid on each bill, or null when it has not run. */
export async function loadRun(q: Queryable, orgId: string, runId: string): Promise<z.infer<typeof PaymentRun> | null> {
  const [run] = await q.query<RunRow>(
    'SELECT run_id, pay_date, total_cents, approval_id, feed_line_id, created_at FROM books_payment_runs WHERE org_id = $1 AND run_id = $2',
    [orgId, runId],
  );
  if (!run) return null;
  const paid = await q.query<{
    bill_id: string;
    contact_id: string;
    contact_name: string;
    reference: string;
    amount_cents: number;
    payment_id: string;
    journal_id: string;
  }>(
    `SELECT b.bill_id, b.contact_id, c.name AS contact_name, b.reference, p.amount_cents, p.payment_id, p.journal_id
       FROM books_payments p
       JOIN books_bills b ON b.org_id = p.org_id AND b.bill_id = p.doc_id
       JOIN books_contacts c ON c.org_id = b.org_id AND c.contact_id = b.contact_id
      WHERE p.org_id = $1 AND p.payment_run_id = $2 AND p.doc_kind = 'bill' ORDER BY b.bill_id`,
    [orgId, runId],
  );
  return {
    id: run.run_id,
    payDate: run.pay_date,
    bills: paid.map((r) => ({
      billId: r.bill_id,
      contact: { id: r.contact_id, name: r.contact_name },
      reference: r.reference,
      amountCents: r.amount_cents,
      paymentId: r.payment_id,
      journalId: r.journal_id,
    })),
    totalCents: run.total_cents,
    approvalId: run.approval_id,
    feedLineId: run.feed_line_id,
    createdAt: run.created_at,
  };
}

/** `Pay 3 bills on 2026-11-30: $12,400.00 (Acme $6,000.00 ref SI-1, …)`, listing bills while it fits the approval inbox. */
function runSummary(rows: BillRow[], payDate: string, total: number): string {
  const head = `Pay ${rows.length} bill${rows.length === 1 ? '' : 's'} on ${payDate}: ${formatCents(total)} (`;
  const parts: string[] = [];
  for (const [i, r] of rows.entries()) {
    const part = `${r.contact_name} ${formatCents(amountDue(r))} ref ${r.reference}`;
    const more = rows.length - i - 1;
    const tail = more ? `, and ${more} more)` : ')';
    if (parts.length && head.length + [...parts, part].join(', ').length + tail.length > SUMMARY_MAX) {
      return fitSummary(`${head}${parts.join(', ')}, and ${rows.length - i} more)`);
    }
    parts.push(part);
  }
  return fitSummary(`${head}${parts.join(', ')})`);
}

/** Why a bill cannot be in a run on payDate, or null when it can. */
function blocker(r: BillRow, payDate: string): string | null {
  if (r.status === 'DRAFT') return 'is a DRAFT: approve it first (books.billApprove)';
  if (r.status !== 'AUTHORISED') return `is ${r.status}: nothing is due`;
  if (r.on_hold) return `is on hold (${r.hold_reason}): release it with books.billApprove or leave it out`;
  if (amountDue(r) === 0) return 'has nothing due';
  if (r.issue_date > payDate) return `was issued ${r.issue_date}, after the pay date`;
  return null;
}

export const billScheduleRun = handler(c.billScheduleRun, async (ctx, p) => {
  const billIds = [...p.billIds].sort();
  const runId = paymentRunId(p.payDate, billIds);
  // Locks in id order, so overlapping runs cannot deadlock; the second waits and then sees the bills paid.
  const locked = await ctx.q.query<{ bill_id: string }>(
    'SELECT bill_id FROM books_bills WHERE org_id = $1 AND bill_id = ANY($2::text[]) ORDER BY bill_id FOR UPDATE',
    [ctx.orgId, billIds],
  );
  const found = new Set(locked.map((r) => r.bill_id));
  const missing = billIds.filter((id) => !found.has(id));
  if (missing.length) throw notFound(`bill ${missing.join(', ')}`);

  const event = (payload: Record<string, unknown>) => ({
    kind: 'books.bill.schedule_run',
    entityId: runId,
    payload: { runId, payDate: p.payDate, billIds, ...payload },
  });
  const executed = await loadRun(ctx.q, ctx.orgId, runId);
  if (executed) {
    // A retry of an executed run: no signature needed, nothing paid twice; a proof given anyway is checked.
    await ctx.verifyProof({
      actionClass: 'books.bill_schedule_run',
      subjectId: runId,
      summary: '',
      params: { payDate: p.payDate, billIds, approvalId: p.approvalId, signatureToken: p.signatureToken },
    });
    return finish(
      ctx,
      event({ totalCents: executed.totalCents, approvalId: executed.approvalId, noop: true }),
      { run: executed, changed: false },
      `Payment run ${runId} on ${executed.payDate} was already executed (${formatCents(executed.totalCents)}); nothing paid twice`,
    );
  }
  if (p.payDate < today(ctx.deps)) throw badRequest('payDate', `${p.payDate} is in the past; a payment run pays today or later`);

  const rows = await ctx.q.query<BillRow>(`${BILL_SELECT} WHERE b.org_id = $1 AND b.bill_id = ANY($2::text[]) ORDER BY b.bill_id`, [ctx.orgId, billIds]);
  const problems = rows.flatMap((r) => {
    const why = blocker(r, p.payDate);
    return why ? [`${billLabel(r)} ${why}`] : [];
  });
  if (problems.length) {
    throw new ApiError(
      'CONFLICT',
      `billScheduleRun: ${problems.length} of ${rows.length} bill${rows.length === 1 ? '' : 's'} cannot be paid: ${problems.join('; ')}. Leave them out of billIds or fix them first`,
    );
  }
  const total = rows.reduce((s, r) => s + amountDue(r), 0);
  const proof = await ctx.requireSignature({
    actionClass: 'books.bill_schedule_run',
    subjectId: runId,
    summary: runSummary(rows, p.payDate, total),
    // Normalised: the order the ids came in does not change the payload hash.
    params: { payDate: p.payDate, billIds, approvalId: p.approvalId, signatureToken: p.signatureToken },
  });
  await ctx.q.query(
    'INSERT INTO books_payment_runs (org_id, run_id, pay_date, bill_ids, total_cents, approval_id, created_by) VALUES ($1, $2, $3, $4::text[], $5, $6, $7)',
    [ctx.orgId, runId, p.payDate, billIds, total, proof.approvalId, ctx.principal.id],
  );
  for (const r of rows) await settleBill(ctx, r.bill_id, { amountCents: amountDue(r), date: p.payDate, paymentRunId: runId });
  const run = (await loadRun(ctx.q, ctx.orgId, runId)) as z.infer<typeof PaymentRun>;
  return finish(
    ctx,
    event({ totalCents: total, approvalId: proof.approvalId }),
    { run, changed: true },
    `Payment run ${runId}: recorded ${rows.length} bill${rows.length === 1 ? '' : 's'} as paid on ${p.payDate} for ${formatCents(total)} (Dr 800 / Cr 090 each), signed off under approval ${proof.approvalId}; no money moved: this server makes no bank payments, so pay them from the bank`,
  );
});
