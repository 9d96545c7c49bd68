import { CHART } from '../../../protocol/methods/books/chart.js';
import { ledger as c } from '../../../protocol/methods/books/ledger.js';
import { handler } from '../../core/handler.js';
import { today } from '../dates.js';
import { accountTotals } from './balances.js';

/** The chart with balances. The chart is code, so the cursor is a position in code order. */
export const accounts = handler(c.accounts, async (ctx, p) => {
  const totals = await accountTotals(ctx.q, ctx.orgId, { to: p.asOf ?? today(ctx.deps) });
  const slice = CHART.slice(p.cursor, p.cursor + p.limit);
  return {
    accounts: slice.map((a) => {
      const t = totals.get(a.code) ?? { debits: 0, credits: 0, balance: 0 };
      return {
        code: a.code,
        name: a.name,
        type: a.type,
        defaultTaxCode: a.defaultTaxCode,
        control: a.control ?? null,
        tax: a.tax === true,
        debitsCents: t.debits,
        creditsCents: t.credits,
        balanceCents: t.balance,
      };
    }),
    nextCursor: p.cursor + p.limit < CHART.length ? p.cursor + p.limit : null,
  };
});
