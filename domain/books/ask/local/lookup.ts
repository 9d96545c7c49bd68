import type { Bill } from '../../../../protocol/methods/books/payables.js';
import { currentKind } from '../../../../protocol/events.js';
import type { Invoice } from '../../../../protocol/methods/books/receivables.js';
import { ToolError, type Draft } from '../../../../ai-gateway/types.js';
import type { RecordRef } from './classify.js';
import { DraftBuilder, event, more, nameOf, record, safeText, valueOf } from '../../../../ai-gateway/local/compose.js';
import { cannot, type AskContext } from './context.js';
import { bills, invoices, recentEvents, type LedgerEvent } from './reads.js';

/*
 * "What happened to INV-0003?", "Tell me about bill PW-7781", "status of bill_…": find the record in
 * books.invoices or books.bills by number, supplier reference or id (the reads only return this org's rows),
 * describe it from its fields, and tell its story from ledger.events about that row (newest first, shown
 * oldest first). A record the reads do not return is not in this org's books: say so, never guess.
 */

const TIMELINE = 30;

export async function lookup(ctx: AskContext, ref: RecordRef): Promise<Draft> {
  if (ref.isId && !/^(inv|bill)_/.test(ref.text)) {
    return cannot(`I can look up invoices and bills by number, reference or id; ${ref.text} is another kind of record. Use the typed books reads for it.`);
  }
  const foundInvoices: Invoice[] = [];
  const foundBills: Bill[] = [];
  if (ref.kind === 'invoice' || ref.kind === 'any') {
    const all = (await invoices(ctx.tools)).items;
    foundInvoices.push(
      ...all.filter((i) =>
        ref.isId ? i.id === ref.text : ref.invoiceNo !== undefined ? invoiceNo(i.number) === ref.invoiceNo : i.number?.toLowerCase() === ref.text.toLowerCase(),
      ),
    );
  }
  if (ref.kind === 'bill' || ref.kind === 'any') {
    const all = (await bills(ctx.tools)).items;
    foundBills.push(...all.filter((x) => (ref.isId ? x.id === ref.text : x.reference.toLowerCase() === ref.text.toLowerCase())));
  }
  const shown = ref.isId ? ref.text : ref.text.toUpperCase();
  if (foundInvoices.length + foundBills.length === 0) {
    const what = ref.kind === 'invoice' ? 'invoice' : ref.kind === 'bill' ? 'bill' : 'invoice or bill';
    return cannot(
      `No ${what} ${shown} was found in this org's books (books.${ref.kind === 'bill' ? 'bills' : ref.kind === 'invoice' ? 'invoices' : 'invoices and books.bills'} returned none), so I cannot say what happened to it. Check the number, or whether it belongs to another org.`,
    );
  }
  const b = new DraftBuilder();
  for (const i of foundInvoices.slice(0, 3)) await describeInvoice(ctx, b, i);
  for (const x of foundBills.slice(0, 3)) await describeBill(ctx, b, x);
  if (foundInvoices.length + foundBills.length > 1) b.say('More than one record matches that reference; each is described above.');
  return b.build();
}

const invoiceNo = (n: string | null): number | undefined => {
  const m = n ? /(\d+)$/.exec(n) : null;
  return m ? Number(m[1]) : undefined;
};

async function describeInvoice(ctx: AskContext, b: DraftBuilder, i: Invoice): Promise<void> {
  const label = i.number ?? i.id;
  const cite = record(i.id);
  const total = b.fact(valueOf(i, cite, 'totalCents'), (v) => `${label} total (GST included): ${v}.`);
  const customer = nameOf(i.contact);
  const description = safeText(i.description, '');
  if (i.status === 'DRAFT') {
    b.say(
      `${label} is a DRAFT invoice to ${customer} for ${total}${description ? ` (${description})` : ''}: it has not been sent, so nothing is owed on it yet.`,
    );
  } else if (i.status === 'DELETED') {
    b.say(`${label} was a draft invoice to ${customer} for ${total}; it was deleted (voided as a draft) and never sent.`);
  } else {
    b.say(
      `${label} (${i.id}) to ${customer} for ${total}${description ? ` (${description})` : ''} was issued on ${i.issueDate} and due on ${i.dueDate}; its status is ${i.status}.`,
    );
    const paid = b.fact(valueOf(i, cite, 'amountPaidCents'), (v) => `${label} paid so far: ${v}.`);
    const credited = i.amountCreditedCents !== 0 ? b.fact(valueOf(i, cite, 'amountCreditedCents'), (v) => `${label} credited: ${v}.`) : null;
    const due = b.fact(valueOf(i, cite, 'amountDueCents'), (v) => `${label} still due: ${v}.`);
    let s = `Paid ${paid}${credited ? `, credited ${credited}` : ''}, ${due} still due`;
    if (i.status === 'VOIDED') s = `It was voided (its journal reversed); ${due} is due on it`;
    if (i.daysOverdue > 0) s += `, ${b.fact(valueOf(i, cite, 'daysOverdue', 'days'), (v) => `${label} is ${v} days overdue.`)} days overdue`;
    b.say(`${s}.`);
    if (i.chaseStep > 0) {
      const step = b.fact(valueOf(i, cite, 'chaseStep', 'count'), (v) => `${label}: last reminder step ${v}.`);
      b.say(`The last reminder was step ${step}${i.lastChasedAt ? `, on ${i.lastChasedAt.slice(0, 10)}` : ''}.`);
    }
    if (i.promise) {
      b.note(`${label}: promise to pay by ${i.promise.date}, ${i.promise.status}.`, [cite, record(i.promise.id)]);
      b.say(`The customer's latest promise to pay is by ${i.promise.date} (${i.promise.status}).`);
    }
  }
  await timeline(ctx, b, i.id, label);
}

async function describeBill(ctx: AskContext, b: DraftBuilder, x: Bill): Promise<void> {
  const label = `Bill ${safeText(x.reference, x.id)}`;
  const cite = record(x.id);
  const supplier = nameOf(x.contact);
  const total = b.fact(valueOf(x, cite, 'totalCents'), (v) => `${label} total (GST included): ${v}.`);
  b.say(`${label} (${x.id}) from ${supplier} for ${total} was issued on ${x.issueDate}, due ${x.dueDate}; its status is ${x.status}.`);
  if (x.status === 'AUTHORISED' || x.status === 'PAID') {
    const paid = b.fact(valueOf(x, cite, 'amountPaidCents'), (v) => `${label} paid: ${v}.`);
    const due = b.fact(valueOf(x, cite, 'amountDueCents'), (v) => `${label} still due: ${v}.`);
    let s = `Paid ${paid}, ${due} still due`;
    if (x.daysOverdue > 0) s += `, ${b.fact(valueOf(x, cite, 'daysOverdue', 'days'), (v) => `${label} is ${v} days overdue.`)} days overdue`;
    if (x.runId) s += `; paid by payment run ${x.runId}`;
    b.say(`${s}.`);
  }
  if (x.status === 'DRAFT') {
    b.say(
      x.heldReason
        ? `It is awaiting approval, and approving it needs a human signature (${x.heldReason}, rule PB-B1).`
        : 'It is awaiting approval: nothing is owed on it in the books yet.',
    );
  }
  if (x.onHold) b.say(`It is on hold: ${safeText(x.holdReason, 'see the reason on the bill')}; payment runs leave it out until it is released.`);
  if (x.approvalId) b.say(`Its approval was backed by human approval ${x.approvalId}.`);
  b.note(`${label} is ${x.status}${x.onHold ? ', on hold' : ''}${x.heldReason ? `, flagged ${x.heldReason}` : ''}.`, [cite]);
  await timeline(ctx, b, x.id, label);
}

/** What the ledger recorded about a row, oldest first; skipped (and said) when the caller may not read the ledger. */
async function timeline(ctx: AskContext, b: DraftBuilder, id: string, label: string): Promise<void> {
  let events: LedgerEvent[];
  try {
    events = await recentEvents(ctx.tools, TIMELINE, { entityId: id });
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    b.say(`(The ledger history of ${label} is not shown: ${safeText(err.message, 'the ledger read was refused')}.)`);
    return;
  }
  if (events.length === 0) return;
  const { parts, omitted } = b.each([...events].reverse(), 1, (e) => {
    b.note(`Ledger event #${e.seq}: ${e.kind} on ${e.at.slice(0, 10)}.`, [event(e.seq)]);
    return `#${e.seq} ${e.at.slice(0, 10)} ${verb(e.kind)}`;
  });
  b.say(`Ledger history of ${label}: ${parts.join('; ')}${more(omitted, `ledger.events with entityId ${id}`)}.`);
}

const VERBS: Record<string, string> = {
  'books.invoice.draft': 'drafted',
  'books.invoice.send': 'sent',
  'books.invoice.chase': 'reminder sent',
  'books.invoice.promise': 'promise to pay recorded',
  'books.invoice.credit': 'credit note issued',
  'books.invoice.void': 'voided',
  'books.invoice.record_payment': 'payment recorded',
  'books.bill.capture': 'captured',
  'books.bill.approve': 'approved',
  'books.bill.hold': 'put on hold',
  'books.bill.return': 'returned to the supplier',
  'books.signature.hold': 'held for a human signature',
};
/** An invoice's or bill's events are books events; one appended before a rename reads by its current name. */
const verb = (kind: string) => VERBS[currentKind('books', kind)] ?? kind;
