import { ToolError, type Draft } from '../../../../ai-gateway/types.js';
import { DraftBuilder, countOf, event, safeText, valueOf } from '../../../../ai-gateway/local/compose.js';
import { cannot, type AskContext } from './context.js';
import type { Period } from './period.js';
import { recentEvents, type LedgerEvent } from './reads.js';

/*
 * "What happened recently?", "Show the last 5 ledger events", "What happened this week?": ledger.events,
 * newest first: the N asked for (default 10), or for a period how many events it has (up to MAX read) and the
 * newest of them (the N asked for, default 10). Each event listed is cited by its seq and written `#seq`, with
 * its kind, the row it is about, when, and the amount its payload carries, if any. "books" in the question
 * keeps to the books family.
 */

const DEFAULT_LIMIT = 10;
const MAX = 100;
const AMOUNT_FIELDS = ['amountCents', 'totalCents', 'netCents', 'grossCents'];

export async function activity(ctx: AskContext, period: Period | null, limit: number | null): Promise<Draft> {
  let events: LedgerEvent[];
  try {
    events = await recentEvents(ctx.tools, period ? MAX : Math.min(limit ?? DEFAULT_LIMIT, MAX), ctx.q.includes('books') ? { family: 'books' } : {});
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    return cannot(
      `Recent ledger activity comes from the ledger.events read, which was refused for this caller (${safeText(err.message, 'see the scopes of the key')}).`,
    );
  }
  const b = new DraftBuilder();
  const cite = (e: LedgerEvent) => event(e.seq);
  const when = period ? ` from ${period.from} to ${period.to}` : '';
  if (period) {
    // Read back to the period's start: whether the oldest read is still inside it says if there were more.
    const full = events.length === MAX && events[events.length - 1].at.slice(0, 10) >= period.from;
    events = events.filter((e) => e.at.slice(0, 10) >= period.from && e.at.slice(0, 10) <= period.to);
    if (events.length === 0) {
      const none = b.fact(countOf(events, cite), (v) => `Ledger events${when}: ${v}.`);
      b.say(`The ledger has no events${ctx.q.includes('books') ? ' of the books' : ''}${when} (${none} found).`);
      return b.build();
    }
    const all = b.fact(countOf(events, cite), (v) => `Ledger events${when}${full ? ', at least' : ''}: ${v}.`);
    b.say(`The ledger has ${full ? 'at least ' : ''}${all} events${ctx.q.includes('books') ? ' of the books' : ''}${when}.`);
    events = events.slice(0, limit ?? DEFAULT_LIMIT);
  }
  const { parts: lines } = b.each(events, 1, (e) => {
    let s = `#${e.seq} ${e.at.slice(0, 10)} ${e.kind}`;
    if (e.entityId) s += ` on ${safeText(e.entityId, 'a row')}`;
    const field = AMOUNT_FIELDS.find((f) => typeof (e.payload as Record<string, unknown> | null)?.[f] === 'number');
    if (field) {
      s += ` (${b.fact(valueOf(e, cite(e), `payload.${field}`), (v) => `Event #${e.seq} ${e.kind}: ${field} ${v}.`)})`;
    } else {
      b.note(`Event #${e.seq}: ${e.kind}${e.entityId ? ` on ${safeText(e.entityId, 'a row')}` : ''} at ${e.at.slice(0, 10)}.`, [cite(e)]);
    }
    return s;
  });
  const n = b.fact(countOf(events.slice(0, lines.length), cite), (v) => `Ledger events listed${when}: ${v}.`);
  const cut = lines.length < events.length ? ' (the most recent of them: the draft has room for no more)' : '';
  b.say(
    `The ${n === '1' ? 'most recent ledger event' : `${n} most recent ledger events`}${ctx.q.includes('books') ? ' of the books' : ''}${when}, newest first${cut}: ${lines.join('; ')}.`,
  );
  return b.build();
}
