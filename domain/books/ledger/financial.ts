import { ACCOUNTS, CHART } from '../../../protocol/methods/books/chart.js';
import type { Queryable } from '../../../db/types.js';
import { accountTotals } from './balances.js';

/** Trial balance, profit and loss and balance sheet, from account totals. */

export async function trialBalance(q: Queryable, orgId: string, asOf: string) {
  const totals = await accountTotals(q, orgId, { to: asOf });
  const lines = CHART.flatMap((a) => {
    const balance = totals.get(a.code)?.balance ?? 0;
    return balance === 0 ? [] : [{ account: a.code, name: a.name, debitCents: Math.max(balance, 0), creditCents: Math.max(-balance, 0) }];
  });
  return {
    report: 'trialBalance' as const,
    asOf,
    lines,
    totalDebitCents: lines.reduce((s, l) => s + l.debitCents, 0),
    totalCreditCents: lines.reduce((s, l) => s + l.creditCents, 0),
  };
}

function section(codes: string[], amountOf: (code: string) => number) {
  const lines = codes.flatMap((code) => {
    const amountCents = amountOf(code);
    return amountCents === 0 ? [] : [{ account: code, name: ACCOUNTS.get(code)!.name, amountCents }];
  });
  return { lines, totalCents: lines.reduce((s, l) => s + l.amountCents, 0) };
}

const codesOf = (...types: string[]) => CHART.filter((a) => types.includes(a.type)).map((a) => a.code);

export async function profitAndLoss(q: Queryable, orgId: string, from: string, to: string) {
  const totals = await accountTotals(q, orgId, { from, to });
  const balance = (code: string) => totals.get(code)?.balance ?? 0;
  const income = section(codesOf('REVENUE'), (c) => -balance(c));
  const expenses = section(codesOf('EXPENSE'), balance);
  return { report: 'profitAndLoss' as const, from, to, income, expenses, netProfitCents: income.totalCents - expenses.totalCents };
}

/** There is no year-end close: every profit and loss line up to asOf shows as earnings to date in equity. */
export async function balanceSheet(q: Queryable, orgId: string, asOf: string) {
  const totals = await accountTotals(q, orgId, { to: asOf });
  const balance = (code: string) => totals.get(code)?.balance ?? 0;
  const assets = section(codesOf('BANK', 'CURRENT_ASSET', 'FIXED_ASSET'), balance);
  const liabilities = section(codesOf('CURRENT_LIABILITY'), (c) => -balance(c));
  const retained = section(codesOf('EQUITY'), (c) => -balance(c));
  const earnings = -codesOf('REVENUE', 'EXPENSE').reduce((s, c) => s + balance(c), 0);
  const lines = [...retained.lines, ...(earnings === 0 ? [] : [{ account: 'earnings', name: 'Earnings to date', amountCents: earnings }])];
  const equity = { lines, totalCents: retained.totalCents + earnings };
  return {
    report: 'balanceSheet' as const,
    asOf,
    assets,
    liabilities,
    equity,
    balanced: assets.totalCents === liabilities.totalCents + equity.totalCents,
  };
}
