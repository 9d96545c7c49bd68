import type { Draft } from '../../../../ai-gateway/types.js';
import { DraftBuilder, account, countOf, plural, record, safeText, sumOf, valueOf } from '../../../../ai-gateway/local/compose.js';
import { cannot, type AskContext } from './context.js';
import { accounts, readAll, type FeedLine } from './reads.js';

/*
 * "What's our cash position?": books.accounts as at today (the bank accounts' balances), then books.feedLines
 * for the bank lines not yet in the books (UNMATCHED, SUGGESTED, and HELD above the materiality floor for a
 * human): the bank has moved by them, the ledger not yet.
 */

export async function cash(ctx: AskContext): Promise<Draft> {
  const chart = await accounts(ctx.tools, ctx.today);
  const banks = chart.items.filter((a) => a.type === 'BANK');
  if (banks.length === 0) return cannot("This org's chart has no bank account, so there is no cash position to report.");
  const pending: FeedLine[] = [];
  for (const status of ['UNMATCHED', 'SUGGESTED', 'HELD']) {
    pending.push(...(await readAll<FeedLine>(ctx.tools, 'books.feedLines', 'feedLines', { status })).items);
  }
  const lines = [...new Map(pending.map((l) => [l.id, l])).values()];

  const b = new DraftBuilder();
  const acct = (a: { code: string }) => account(a.code);
  if (banks.length === 1) {
    const [bank] = banks;
    const v = b.fact(
      valueOf(bank, acct(bank), 'balanceCents'),
      (v) => `${safeText(bank.name, 'The bank account')} (${bank.code}) balance as at ${ctx.today}: ${v}.`,
    );
    b.say(`Cash at bank as at ${ctx.today} is ${v} (account ${bank.code}, ${safeText(bank.name, 'bank')}, from the posted journals).`);
  } else {
    const v = b.fact(sumOf(banks, acct, 'balanceCents'), (v) => `Bank accounts' balances as at ${ctx.today}: ${v}.`);
    const parts = banks.map((a) => `${a.code} ${b.fact(valueOf(a, acct(a), 'balanceCents'), (x) => `Account ${a.code} balance: ${x}.`)}`);
    b.say(`Cash at bank as at ${ctx.today} is ${v} across the bank accounts (${parts.join(', ')}).`);
  }

  if (lines.length === 0) {
    const n = b.fact(
      countOf(lines, (l) => record(l.id)),
      (v) => `Bank lines not yet reconciled: ${v}.`,
    );
    b.say(`Every imported bank line is reconciled (${n} waiting), so the ledger agrees with the bank statement.`);
    return b.build();
  }
  const rec = (l: FeedLine) => record(l.id);
  const n = b.fact(countOf(lines, rec), (v) => `Bank lines not yet reconciled: ${v}.`);
  const parts: string[] = [];
  const moneyIn = lines.filter((l) => l.amountCents > 0);
  const moneyOut = lines.filter((l) => l.amountCents < 0);
  if (moneyIn.length) parts.push(`${b.fact(sumOf(moneyIn, rec, 'amountCents'), (v) => `Unreconciled money in: ${v}.`)} in`);
  if (moneyOut.length) parts.push(`${b.fact(sumOf(moneyOut, rec, 'amountCents'), (v) => `Unreconciled money out (negative): ${v}.`)} out`);
  b.say(`The bank statement also has ${plural(n, 'line')} not yet in the books (${parts.join(', ')}), so the bank itself differs from the ledger by them.`);
  const held = lines.filter((l) => l.status === 'HELD');
  if (held.length) {
    const h = b.fact(countOf(held, rec), (v) => `Bank lines held above the materiality floor: ${v}.`);
    const amount = b.fact(sumOf(held, rec, 'amountCents'), (v) => `Held bank lines total: ${v}.`);
    b.say(
      `Of these, ${plural(h, 'line')} (${amount}) are matches held above the materiality floor, waiting for a human to release them (books.matchHoldResolve).`,
    );
  }
  const biggest = [...lines].sort((a, b) => Math.abs(b.amountCents) - Math.abs(a.amountCents)).slice(0, 3);
  b.say(
    `Largest: ${biggest
      .map(
        (l) =>
          `${b.fact(valueOf(l, rec(l), 'amountCents'), (v) => `Bank line ${l.id} on ${l.date}: ${v}.`)} on ${l.date} (${safeText(l.description, l.id)}, ${l.status.toLowerCase()})`,
      )
      .join('; ')}.`,
  );
  return b.build();
}
