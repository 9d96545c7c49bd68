import type { Draft } from '../../../../ai-gateway/types.js';
import { DraftBuilder, account, countOf, nameOf, record, safeText, sumOf, valueOf } from '../../../../ai-gateway/local/compose.js';
import type { AskContext } from './context.js';
import { financialYear, type Period } from './period.js';
import { bills, type ProfitAndLoss, type ReportLine } from './reads.js';

/*
 * "What are our largest expenses?": books.reports profitAndLoss for the period (default: this financial year
 * to date): expense accounts largest first (the top N asked for, default 5) and total expenses; then
 * books.bills for the largest single supplier bills issued in the period (approved or paid).
 */

const DEFAULT_TOP = 5;

export async function expenses(ctx: AskContext, asked: Period | null, top: number | null): Promise<Draft> {
  const fy = financialYear(ctx.today);
  const period = asked ?? { from: fy.from, to: ctx.today };
  const when = `from ${period.from} to ${period.to}`;
  const pl = (await ctx.tools.call('books.reports', { report: 'profitAndLoss', from: period.from, to: period.to })) as ProfitAndLoss;
  const lines = [...pl.expenses.lines].filter((l) => l.amountCents !== 0).sort((a, b) => b.amountCents - a.amountCents || a.account.localeCompare(b.account));
  const b = new DraftBuilder();
  const acct = (l: ReportLine) => account(l.account);

  if (lines.length === 0) {
    const n = b.fact(countOf(lines, acct), (v) => `Expense accounts with postings ${when}: ${v}.`);
    b.say(`No expenses were posted ${when} (${n} expense accounts moved).`);
    return b.build();
  }
  const total = b.fact(sumOf(lines, acct, 'amountCents'), (v) => `Total expenses ${when} (profit and loss): ${v}.`);
  const wanted = lines.slice(0, top ?? DEFAULT_TOP);
  const { parts } = b.each(wanted, 2, (l) => {
    const v = b.fact(valueOf(l, acct(l), 'amountCents'), (v) => `${safeText(l.name, 'Account')} (${l.account}) ${when}: ${v}.`);
    return `${safeText(l.name, 'account')} (${l.account}) ${v}`;
  });
  const k = b.fact(countOf(wanted.slice(0, parts.length), acct), (v) => `Expense accounts listed: ${v}.`);
  b.say(`Expenses ${when} total ${total}. The largest ${k} by account: ${parts.join('; ')}.`);

  const inPeriod = (await bills(ctx.tools)).items.filter(
    (x) => (x.status === 'AUTHORISED' || x.status === 'PAID') && x.issueDate >= period.from && x.issueDate <= period.to,
  );
  const biggest = inPeriod.sort((a, b) => b.totalCents - a.totalCents || a.id.localeCompare(b.id)).slice(0, 3);
  if (biggest.length > 0) {
    const items = biggest.map((x) => {
      const v = b.fact(
        valueOf(x, record(x.id), 'totalCents'),
        (v) => `Bill ${safeText(x.reference, x.id)} from ${nameOf(x.contact)} issued ${x.issueDate}: ${v}.`,
      );
      return `${safeText(x.reference, x.id)} from ${nameOf(x.contact)} ${v} (issued ${x.issueDate}, ${x.status.toLowerCase()})`;
    });
    b.say(`Largest supplier bills issued in the period (GST included): ${items.join('; ')}.`);
  }
  return b.build();
}
