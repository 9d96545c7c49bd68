import type { Invoice } from '../../../../protocol/methods/books/receivables.js';
import type { Draft } from '../../../../ai-gateway/types.js';
import { DraftBuilder, countOf, list, more, nameOf, plural, record, sumOf, valueOf } from '../../../../ai-gateway/local/compose.js';
import { cannot, contactsNamed, namedParty, simpleName, type AskContext } from './context.js';
import { invoices } from './reads.js';

/*
 * "What do customers owe?", "Who is overdue?": one read, books.invoices (every status, so a customer with only
 * drafts or paid invoices is still known), then the sent invoices with money due. Owed: the total and count,
 * the overdue part, and each customer's balance with its invoices. Overdue: each overdue invoice, longest
 * overdue first, with days overdue, the last reminder step and any open promise to pay.
 */

const rec = (i: { id: string }) => record(i.id);
/** Invoices listed per customer in the owed answer. */
const PER_CUSTOMER = 3;

export async function receivables(ctx: AskContext, focus: 'owed' | 'overdue'): Promise<Draft> {
  const { items, truncated } = await invoices(ctx.tools);
  let open = items.filter((i) => i.status === 'AUTHORISED' && i.amountDueCents > 0);

  const contacts = [...new Map(items.map((i) => [i.contact.id, i.contact])).values()];
  const named = contactsNamed(ctx.q, contacts);
  const party = namedParty(ctx.question);
  if (party && !named.some((c) => simpleName(c.name).includes(simpleName(party)) || simpleName(party).includes(simpleName(c.name)))) {
    return cannot(`No customer named "${party}" was found in this org's books (books.invoices lists no invoice to them), so I cannot say what they owe.`);
  }
  const b = new DraftBuilder();
  let who = 'customers';
  if (named.length > 0) {
    const ids = new Set(named.map((c) => c.id));
    open = open.filter((i) => ids.has(i.contact.id));
    who = list(named.map(nameOf));
    b.note(`Customer${named.length > 1 ? 's' : ''} asked about: ${who}.`, named.map(rec));
  }
  const overdue = open.filter((i) => i.daysOverdue > 0).sort((a, b) => b.daysOverdue - a.daysOverdue || a.id.localeCompare(b.id));

  if (open.length === 0) {
    const n = b.fact(countOf(open, rec), (v) => `Sent invoices with money due${named.length ? ` from ${who}` : ''}: ${v}.`);
    b.say(
      `As at ${ctx.today}, ${who === 'customers' ? 'no customer owes anything' : `${who} owe${named.length > 1 ? '' : 's'} nothing`} on sent invoices: ${plural(n, 'authorised invoice')} with money due.`,
    );
    return done(b, truncated);
  }

  const total = b.fact(sumOf(open, rec, 'amountDueCents'), (v) => `Amount due on sent invoices${named.length ? ` from ${who}` : ''}: ${v}.`);
  const n = b.fact(countOf(open, rec), (v) => `Sent invoices with money due${named.length ? ` from ${who}` : ''}: ${v}.`);
  const subject = who === 'customers' ? 'customers owe' : `${who} owe${named.length > 1 ? '' : 's'}`;

  if (overdue.length === 0) {
    const none = b.fact(countOf(overdue, rec), (v) => `Overdue invoices: ${v}.`);
    b.say(`As at ${ctx.today}, ${subject} ${total} on ${plural(n, 'sent invoice')}; ${none} of them are overdue.`);
  } else {
    const od = b.fact(sumOf(overdue, rec, 'amountDueCents'), (v) => `Overdue amount: ${v}.`);
    const m = b.fact(countOf(overdue, rec), (v) => `Overdue invoices: ${v}.`);
    b.say(`As at ${ctx.today}, ${subject} ${total} on ${plural(n, 'sent invoice')}, of which ${od} on ${plural(m, 'invoice')} is overdue.`);
  }

  if (focus === 'overdue') {
    if (overdue.length > 0) {
      const { parts, omitted } = b.each(overdue, 4, (i) => describe(b, i, true));
      b.say(`Overdue, longest first: ${parts.join('; ')}${more(omitted, 'books.invoices with overdue true')}.`);
    }
    const current = open.filter((i) => i.daysOverdue === 0);
    if (current.length > 0) {
      const c = b.fact(sumOf(current, rec, 'amountDueCents'), (v) => `Due but not yet overdue: ${v}.`);
      b.say(`Not yet due: ${c}.`);
    }
  } else {
    const byContact = new Map<string, Invoice[]>();
    for (const i of open) byContact.set(i.contact.id, [...(byContact.get(i.contact.id) ?? []), i]);
    const groups = [...byContact.values()].map((docs) => ({ docs, due: docs.reduce((s, i) => s + i.amountDueCents, 0) })).sort((a, b) => b.due - a.due);
    const { parts, omitted } = b.each(groups, 1 + 4 * PER_CUSTOMER, ({ docs }) => {
      const contact = docs[0].contact;
      const sum = b.fact(sumOf(docs, rec, 'amountDueCents'), (v) => `${nameOf(contact)} owes ${v}.`);
      const shown = docs.slice(0, PER_CUSTOMER).map((i) => describe(b, i, false));
      return `${nameOf(contact)} ${sum} (${shown.join('; ')}${docs.length > PER_CUSTOMER ? '; and more' : ''})`;
    });
    b.say(`By customer: ${parts.join('; ')}${more(omitted, 'books.invoices')}.`);
  }
  return done(b, truncated);
}

/** One invoice in a sentence: number, customer, amount due, due date, days overdue, reminders, promise. */
function describe(b: DraftBuilder, i: Invoice, withCustomer: boolean): string {
  const label = i.number ?? i.id;
  const due = b.fact(valueOf(i, rec(i), 'amountDueCents'), (v) => `${label} has ${v} due.`);
  let s = `${label}${withCustomer ? ` (${nameOf(i.contact)})` : ''} ${due} due ${i.dueDate}`;
  if (i.daysOverdue > 0) {
    const days = b.fact(valueOf(i, rec(i), 'daysOverdue', 'days'), (v) => `${label} is ${v} days overdue.`);
    s += `, ${days} days overdue`;
  }
  if (i.chaseStep > 0) {
    const step = b.fact(valueOf(i, rec(i), 'chaseStep', 'count'), (v) => `${label}: reminder step ${v} taken.`);
    s += `, reminder step ${step} sent${i.lastChasedAt ? ` on ${i.lastChasedAt.slice(0, 10)}` : ''}`;
  }
  if (i.promise && i.promise.status === 'OPEN') {
    b.note(`${label}: the customer promised to pay by ${i.promise.date}.`, [rec(i), record(i.promise.id)]);
    s += `, promised by ${i.promise.date}`;
  }
  return s;
}

function done(b: DraftBuilder, truncated: boolean): Draft {
  if (truncated) b.say('The invoice list is longer than I read through, so these totals may be incomplete.');
  return b.build();
}
