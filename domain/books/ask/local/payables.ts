import type { Bill } from '../../../../protocol/methods/books/payables.js';
import type { Draft } from '../../../../ai-gateway/types.js';
import { DraftBuilder, countOf, list, more, nameOf, plural, record, safeText, sumOf, valueOf } from '../../../../ai-gateway/local/compose.js';
import { cannot, contactsNamed, namedParty, simpleName, type AskContext } from './context.js';
import { bills } from './reads.js';

/*
 * "Which bills are due?", "What's on hold?": one read, books.bills (every status), then
 * - owed: approved (AUTHORISED) bills with money due: total, count, the overdue part;
 * - due: those not on hold, soonest due first, with what a payment run would pay;
 * - held: bills put on hold (with the reason), and draft bills whose approval needs a human signature
 *   (PB-B1: ABOVE FLOOR or NEW PAYEE) or is simply still to do.
 * The focus decides the order; every section with something in it is reported.
 */

const rec = (x: { id: string }) => record(x.id);

export async function payables(ctx: AskContext, focus: 'all' | 'due' | 'held' | 'overdue'): Promise<Draft> {
  const { items, truncated } = await bills(ctx.tools);
  let all = items;
  const contacts = [...new Map(items.map((x) => [x.contact.id, x.contact])).values()];
  const named = contactsNamed(ctx.q, contacts);
  const party = namedParty(ctx.question);
  if (party && !named.some((c) => simpleName(c.name).includes(simpleName(party)) || simpleName(party).includes(simpleName(c.name)))) {
    return cannot(`No supplier named "${party}" was found in this org's books (books.bills lists no bill from them).`);
  }
  const b = new DraftBuilder();
  if (named.length) {
    const ids = new Set(named.map((c) => c.id));
    all = items.filter((x) => ids.has(x.contact.id));
    b.note(`Supplier${named.length > 1 ? 's' : ''} asked about: ${list(named.map(nameOf))}.`, named.map(rec));
  }
  const owed = all.filter((x) => x.status === 'AUTHORISED' && x.amountDueCents > 0).sort(byDue);
  const payable = owed.filter((x) => !x.onHold);
  const onHold = all.filter((x) => x.onHold && (x.status === 'AUTHORISED' || x.status === 'DRAFT')).sort(byDue);
  const drafts = all.filter((x) => x.status === 'DRAFT' && !x.onHold).sort(byDue);
  const overdue = owed.filter((x) => x.daysOverdue > 0);

  const sections: Record<'owed' | 'due' | 'held' | 'drafts' | 'overdue', () => void> = {
    owed: () => {
      if (owed.length === 0) {
        const n = b.fact(countOf(owed, rec), (v) => `Approved bills with money due: ${v}.`);
        b.say(`As at ${ctx.today} no approved bill has money due (${plural(n, 'bill')}).`);
        return;
      }
      const total = b.fact(sumOf(owed, rec, 'amountDueCents'), (v) => `Owed to suppliers on approved bills: ${v}.`);
      const n = b.fact(countOf(owed, rec), (v) => `Approved bills with money due: ${v}.`);
      b.say(`As at ${ctx.today} we owe suppliers ${total} on ${plural(n, 'approved bill')}.`);
    },
    overdue: () => {
      if (overdue.length === 0) {
        const n = b.fact(countOf(overdue, rec), (v) => `Overdue bills: ${v}.`);
        b.say(`Overdue bills: ${n} (none of the approved bills is past its due date).`);
        return;
      }
      const sum = b.fact(sumOf(overdue, rec, 'amountDueCents'), (v) => `Overdue on bills: ${v}.`);
      const { parts, omitted } = b.each(overdue, 2, (x) => describe(b, x, true));
      b.say(`Overdue: ${sum}: ${parts.join('; ')}${more(omitted, 'books.bills')}.`);
    },
    due: () => {
      if (payable.length === 0) return;
      const sum = b.fact(sumOf(payable, rec, 'amountDueCents'), (v) => `Due on approved bills not on hold: ${v}.`);
      const { parts, omitted } = b.each(payable, 1, (x) => describe(b, x, false));
      b.say(`Due for payment (approved, not on hold), soonest first, ${sum} in all: ${parts.join('; ')}${more(omitted, 'books.bills')}.`);
    },
    held: () => {
      if (onHold.length === 0) {
        const n = b.fact(countOf(onHold, rec), (v) => `Bills on hold: ${v}.`);
        b.say(`Bills on hold: ${n} (none is on hold).`);
        return;
      }
      const sum = b.fact(sumOf(onHold, rec, 'amountDueCents'), (v) => `On hold: ${v}.`);
      const n = b.fact(countOf(onHold, rec), (v) => `Bills on hold: ${v}.`);
      const { parts, omitted } = b.each(onHold, 2, (x) => {
        const why = safeText(x.holdReason, 'reason on the bill');
        b.note(`${refOf(x)} (${nameOf(x.contact)}) is on hold: ${why}.`, [rec(x)]);
        return `${describe(b, x, false)}, held: ${why}`;
      });
      b.say(
        `On hold (left out of payment runs until released with books.billApprove), ${plural(n, 'bill')}, ${sum}: ${parts.join('; ')}${more(omitted, 'books.bills with onHold true')}.`,
      );
    },
    drafts: () => {
      if (drafts.length === 0) return;
      const signed = drafts.filter((x) => x.heldReason);
      const plain = drafts.filter((x) => !x.heldReason);
      const sum = b.fact(sumOf(drafts, rec, 'totalCents'), (v) => `Draft bills awaiting approval: ${v}.`);
      const { parts, omitted } = b.each([...signed, ...plain], 2, (x) => {
        if (!x.heldReason) return `${describe(b, x, false, 'totalCents')}, to approve`;
        b.note(`${refOf(x)} (${nameOf(x.contact)}) needs a human signature to approve: ${x.heldReason} (rule PB-B1).`, [rec(x)]);
        return `${describe(b, x, false, 'totalCents')}, needs a human signature to approve (${x.heldReason})`;
      });
      b.say(`Awaiting approval (drafts, not yet owed in the books), ${sum}: ${parts.join('; ')}${more(omitted, 'books.bills with status DRAFT')}.`);
    },
  };
  const order: (keyof typeof sections)[] =
    focus === 'held'
      ? ['held', 'drafts', 'owed', 'due']
      : focus === 'overdue'
        ? ['overdue', 'owed', 'held']
        : focus === 'due'
          ? ['owed', 'due', 'held', 'drafts']
          : ['owed', 'due', 'held', 'drafts'];
  if (focus !== 'overdue' && overdue.length > 0 && !order.includes('overdue')) order.splice(1, 0, 'overdue');
  for (const s of order) sections[s]();
  if (b.claimCount === 0) return cannot("I found no bills in this org's books to report on.");
  if (truncated) b.say('The bill list is longer than I read through, so these totals may be incomplete.');
  return b.build();
}

/** A bill's supplier reference, or its id when the reference would read as a number. */
const refOf = (x: Bill) => safeText(x.reference, x.id);

const byDue = (a: Bill, b: Bill) => a.dueDate.localeCompare(b.dueDate) || a.id.localeCompare(b.id);

function describe(b: DraftBuilder, x: Bill, withDays: boolean, field: 'amountDueCents' | 'totalCents' = 'amountDueCents'): string {
  const amount = b.fact(valueOf(x, rec(x), field), (v) => `${refOf(x)} (${nameOf(x.contact)}): ${v} ${field === 'totalCents' ? 'total' : 'due'}.`);
  let s = `${refOf(x)} from ${nameOf(x.contact)} ${amount} due ${x.dueDate}`;
  if (withDays && x.daysOverdue > 0) s += `, ${b.fact(valueOf(x, rec(x), 'daysOverdue', 'days'), (v) => `${refOf(x)} is ${v} days overdue.`)} days overdue`;
  return s;
}
