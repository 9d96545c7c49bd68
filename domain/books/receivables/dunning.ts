import { ApiError, badRequest } from '../../../protocol/errors.js';
import { CHASE_STEPS, receivables as c } from '../../../protocol/methods/books/receivables.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { today } from '../dates.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { booksPolicy } from '../policy.js';
import { invoiceLabel, invoiceView, loadInvoice, promiseStatus, requireOpen, type InvoiceRow } from './model.js';

/** Dunning: chase steps (2 and 3 need a human signature) and promises to pay, which pause chasing. */

function reminderFor(r: InvoiceRow, step: 1 | 2 | 3, dueCents: number, daysOverdue: number) {
  const tone = CHASE_STEPS[step];
  const owed = `${formatCents(dueCents)} on invoice ${r.number} (due ${r.due_date}${daysOverdue > 0 ? `, ${daysOverdue} days overdue` : ''})`;
  const body = {
    friendly: `Hi ${r.contact_name}, a friendly reminder that ${owed} is awaiting payment. If you have already paid, thank you and please ignore this note.`,
    firm: `Dear ${r.contact_name}, ${owed} remains unpaid despite our earlier reminder. Please pay within 7 days or contact us to arrange payment.`,
    final: `Dear ${r.contact_name}, this is our final notice: ${owed} is still outstanding. Unless it is paid within 7 days we will take further steps to recover it.`,
  }[tone];
  const subject = { friendly: 'Payment reminder', firm: 'Overdue: payment required', final: 'Final notice before recovery' }[tone];
  return { step, tone, subject: `${subject}: ${r.number}`, body };
}

export const invoiceChaseStep = handler(c.invoiceChaseStep, async (ctx, p) => {
  const row = await loadInvoice(ctx.q, ctx.orgId, p.id, true);
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  const now = today(ctx.deps);
  const step = p.step as 1 | 2 | 3;
  const event = (payload: Record<string, unknown>) => ({
    kind: 'books.invoice.chase',
    entityId: row.invoice_id,
    payload: { invoiceId: row.invoice_id, step, ...payload },
  });
  if (step === row.chase_step) {
    // A replay: nothing is sent twice; a proof given anyway is checked (another act's: CONFLICT; used: refused).
    if (step >= 2) await ctx.verifyProof({ actionClass: 'books.invoice_chase_step', subjectId: row.invoice_id, summary: '', params: p });
    const before = invoiceView(row, now, policy);
    return finish(
      ctx,
      event({ noop: true }),
      { invoice: before, reminder: reminderFor(row, step, before.amountDueCents, before.daysOverdue), approvalId: null, changed: false },
      `Step ${step} (${CHASE_STEPS[step]}) was already taken on ${invoiceLabel(row)}; nothing changed`,
    );
  }
  const due = requireOpen(row, 'invoiceChaseStep');
  if (step < row.chase_step) throw new ApiError('CONFLICT', `invoice ${invoiceLabel(row)} is at chase step ${row.chase_step}; steps only move forward`);
  const promise = promiseStatus(row, now, policy);
  if (promise === 'OPEN') {
    throw new ApiError(
      'CONFLICT',
      `chasing ${invoiceLabel(row)} is paused: the customer promised to pay by ${row.promised_date} (promise ${row.promise_id}, open until ${policy.promiseGraceDays} days after)`,
    );
  }
  const view = invoiceView(row, now, policy);
  let approvalId: string | null = null;
  if (step >= 2) {
    // Validated first, so a hold is only ever filed for an act that could run.
    const proof = await ctx.requireSignature({
      actionClass: 'books.invoice_chase_step',
      subjectId: row.invoice_id,
      // Only facts that hold until the act runs: the retry must recompute this exact text (no day count).
      summary: `Step ${step} (${CHASE_STEPS[step]}) reminder to ${row.contact_name} for ${row.number}: ${formatCents(due)} due ${row.due_date}`,
      params: p,
    });
    approvalId = proof.approvalId;
  }
  await ctx.q.query('INSERT INTO books_chases (org_id, chase_id, invoice_id, step, approval_id, created_by) VALUES ($1, $2, $3, $4, $5, $6)', [
    ctx.orgId,
    newId('chs'),
    row.invoice_id,
    step,
    approvalId,
    ctx.principal.id,
  ]);
  await ctx.q.query('UPDATE books_invoices SET chase_step = $3, chased_at = now(), updated_at = now() WHERE org_id = $1 AND invoice_id = $2', [
    ctx.orgId,
    row.invoice_id,
    step,
  ]);
  const invoice = invoiceView(await loadInvoice(ctx.q, ctx.orgId, row.invoice_id), now, policy);
  return finish(
    ctx,
    event({ amountDueCents: due, daysOverdue: view.daysOverdue, approvalId }),
    { invoice, reminder: reminderFor(row, step, due, view.daysOverdue), approvalId, changed: true },
    // Nothing here mails the customer (no email family yet): say what was recorded and what was not done.
    `Chase step ${step} (${CHASE_STEPS[step]}) recorded on ${invoiceLabel(row)} for ${formatCents(due)}${approvalId ? `, signed off under approval ${approvalId}` : ''}; not sent: this server sends no reminders, so the customer has it only once someone sends the reminder text in this result`,
  );
});

export const invoicePromise = handler(c.invoicePromise, async (ctx, p) => {
  const row = await loadInvoice(ctx.q, ctx.orgId, p.id, true);
  const due = requireOpen(row, 'invoicePromise');
  const now = today(ctx.deps);
  if (p.date < now) throw badRequest('date', `${p.date} is in the past; a promise is to pay today or later`);
  if (p.amountCents !== undefined && p.amountCents > due)
    throw badRequest('amountCents', `${p.amountCents} is more than the ${due} cents due on ${invoiceLabel(row)}`);
  const replaced = await ctx.q.query<{ promise_id: string }>(
    `UPDATE books_promises SET status = 'REPLACED', closed_at = now() WHERE org_id = $1 AND invoice_id = $2 AND status = 'OPEN' RETURNING promise_id`,
    [ctx.orgId, row.invoice_id],
  );
  const promiseId = newId('prm');
  await ctx.q.query(
    `INSERT INTO books_promises (org_id, promise_id, invoice_id, promised_date, amount_cents, paid_at_promise_cents, status, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, 'OPEN', $7)`,
    [ctx.orgId, promiseId, row.invoice_id, p.date, p.amountCents ?? null, row.paid_cents, ctx.principal.id],
  );
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  const invoice = invoiceView(await loadInvoice(ctx.q, ctx.orgId, row.invoice_id), now, policy);
  return finish(
    ctx,
    {
      kind: 'books.invoice.promise',
      entityId: row.invoice_id,
      payload: { invoiceId: row.invoice_id, promiseId, date: p.date, amountCents: p.amountCents ?? null, replaced: replaced[0]?.promise_id ?? null },
    },
    { invoice, promise: invoice.promise!, changed: true },
    `${row.contact_name} promised to pay ${p.amountCents ? formatCents(p.amountCents) : `the ${formatCents(due)} due`} on ${invoiceLabel(row)} by ${p.date}; chasing is paused until then`,
  );
});
