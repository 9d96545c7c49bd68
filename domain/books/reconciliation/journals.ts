import { badRequest } from '../../../protocol/errors.js';
import { ACCOUNTS, MANUAL_JOURNAL_FORBIDDEN } from '../../../protocol/methods/books/chart.js';
import { reconciliation as c } from '../../../protocol/methods/books/reconciliation.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { postJournal } from '../journal.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { assertPeriodOpen, booksPolicy } from '../policy.js';

/** Manual journals: balanced, dated in an open period, never on a control or tax account. */

function whyForbidden(code: string): string {
  const a = ACCOUNTS.get(code);
  if (a?.control)
    return `${code} ${a.name} is a control account: only its ${a.control === 'expenseClaims' ? 'expense claims' : a.control === 'wages' ? 'pay runs' : a.control} post to it, so it always equals its subledger`;
  return `${code} ${a?.name} is a tax account: only the tax logic (GST on documents, pay runs, BAS lodgement) posts to it`;
}

export const journalPost = handler(c.journalPost, async (ctx, p) => {
  p.lines.forEach((l, i) => {
    if (MANUAL_JOURNAL_FORBIDDEN.has(l.account)) throw badRequest(`lines.${i}.account`, whyForbidden(l.account));
  });
  const total = p.lines.reduce((s, l) => s + l.amountCents, 0);
  if (total !== 0)
    throw badRequest(
      'lines',
      `debits and credits differ by ${Math.abs(total)} cents (debits ${p.lines.filter((l) => l.amountCents > 0).reduce((s, l) => s + l.amountCents, 0)}, credits ${-p.lines.filter((l) => l.amountCents < 0).reduce((s, l) => s + l.amountCents, 0)}); they must sum to 0`,
    );
  assertPeriodOpen(await booksPolicy(ctx.q, ctx.orgId), p.date, 'journalPost');
  // A manual journal has no source document: its own reference mj_… stands in for one.
  const sourceId = newId('mj');
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date: p.date,
    narration: p.narration,
    sourceKind: 'manual',
    sourceId,
    postedBy: ctx.principal.id,
    lines: p.lines.map((l) => ({ account: l.account, amountCents: l.amountCents, taxCode: 'BAS_EXCLUDED', description: l.description ?? '' })),
  });
  const totalDebitsCents = p.lines.filter((l) => l.amountCents > 0).reduce((s, l) => s + l.amountCents, 0);
  return finish(
    ctx,
    {
      kind: 'books.journal.post',
      entityId: journalId,
      payload: { journalId, date: p.date, lines: p.lines.length, accounts: [...new Set(p.lines.map((l) => l.account))].sort(), totalDebitsCents },
    },
    { journalId, date: p.date, totalDebitsCents, changed: true },
    `Posted manual journal ${journalId} dated ${p.date}: ${p.lines.length} lines, ${formatCents(totalDebitsCents)} debits = credits`,
  );
});
