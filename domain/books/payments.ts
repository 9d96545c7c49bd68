import { ACC } from '../../protocol/methods/books/chart.js';
import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { postJournal } from './journal.js';

/**
 * Money moving through the bank against a document: the journal (money in: Dr 090 / Cr the control account;
 * money out: Dr the control account / Cr 090) and the payment row. Each area's settle<Doc> checks the document
 * and updates it around this.
 */
export async function postPayment(
  ctx: HandlerCtx,
  p: {
    docKind: 'invoice' | 'bill' | 'claim' | 'pay_run';
    docId: string;
    direction: 'in' | 'out';
    /** The control account the document sits on (610, 800, 801, 804). */
    account: string;
    amountCents: number;
    date: string;
    narration: string;
    contactId?: string | null;
    description?: string;
    feedLineId?: string;
    paymentRunId?: string;
  },
): Promise<{ paymentId: string; journalId: string }> {
  const paymentId = newId('pmt');
  const signed = p.direction === 'in' ? p.amountCents : -p.amountCents;
  const line = { contactId: p.contactId ?? null, description: p.description };
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date: p.date,
    narration: p.narration,
    sourceKind: 'payment',
    sourceId: paymentId,
    postedBy: ctx.principal.id,
    // Debit first: the bank for money in, the control account for money out.
    lines:
      p.direction === 'in'
        ? [
            { account: ACC.bank, amountCents: signed, ...line },
            { account: p.account, amountCents: -signed, ...line },
          ]
        : [
            { account: p.account, amountCents: -signed, ...line },
            { account: ACC.bank, amountCents: signed, ...line },
          ],
  });
  await ctx.q.query(
    `INSERT INTO books_payments (org_id, payment_id, doc_kind, doc_id, amount_cents, date, journal_id, feed_line_id, payment_run_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [ctx.orgId, paymentId, p.docKind, p.docId, p.amountCents, p.date, journalId, p.feedLineId ?? null, p.paymentRunId ?? null, ctx.principal.id],
  );
  return { paymentId, journalId };
}
