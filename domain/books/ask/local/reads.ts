import type { Invoice } from '../../../../protocol/methods/books/receivables.js';
import type { Bill } from '../../../../protocol/methods/books/payables.js';
import type { Toolbox } from '../../../../ai-gateway/types.js';
import type { LedgerEventView } from '../../../../ai-gateway/ledger-events.js';

/*
 * The typed reads the local answerer plans, through the toolbox (so every record it may cite was returned in
 * this ask, as the caller). List reads are paged to the end, up to MAX_PAGES pages.
 */

const PAGE = 200;
const MAX_PAGES = 25;

export interface Listed<T> {
  items: T[];
  /** More pages were left unread (the list is longer than MAX_PAGES pages). */
  truncated: boolean;
}

export async function readAll<T>(tools: Toolbox, name: string, key: string, params: Record<string, unknown> = {}): Promise<Listed<T>> {
  const items: T[] = [];
  let cursor = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = (await tools.call(name, { ...params, cursor, limit: PAGE })) as Record<string, unknown> & { nextCursor: number | null };
    items.push(...(result[key] as T[]));
    if (result.nextCursor === null || result.nextCursor === undefined) return { items, truncated: false };
    cursor = result.nextCursor;
  }
  return { items, truncated: true };
}

export const invoices = (tools: Toolbox, params: Record<string, unknown> = {}) => readAll<Invoice>(tools, 'books.invoices', 'invoices', params);
export const bills = (tools: Toolbox, params: Record<string, unknown> = {}) => readAll<Bill>(tools, 'books.bills', 'bills', params);

export interface Account {
  code: string;
  name: string;
  type: string;
  debitsCents: number;
  creditsCents: number;
  balanceCents: number;
}
export const accounts = (tools: Toolbox, asOf: string) => readAll<Account>(tools, 'books.accounts', 'accounts', { asOf });

export interface TrialBalance {
  report: 'trialBalance';
  asOf: string;
  /** Accounts with a balance, net: one of debitCents or creditCents is 0. */
  lines: { account: string; name: string; debitCents: number; creditCents: number }[];
}
export const trialBalance = async (tools: Toolbox, asOf: string) => (await tools.call('books.reports', { report: 'trialBalance', asOf })) as TrialBalance;

export interface FeedLine {
  id: string;
  date: string;
  amountCents: number;
  description: string;
  status: string;
}

export interface ReportLine {
  account: string;
  name: string;
  amountCents: number;
}
export interface ProfitAndLoss {
  report: 'profitAndLoss';
  from: string;
  to: string;
  income: { lines: ReportLine[]; totalCents: number };
  expenses: { lines: ReportLine[]; totalCents: number };
  netProfitCents: number;
}

export interface PayrollSummary {
  report: 'payrollSummary';
  from: string;
  to: string;
  runs: {
    id: string;
    payDate: string;
    status: string;
    grossCents: number;
    paygCents: number;
    superCents: number;
    netCents: number;
    paygSchedule: string | null;
  }[];
  employees: {
    id: string;
    name: string;
    grossCents: number;
    paygCents: number;
    superCents: number;
    netCents: number;
    paygBy: { schedule: string | null; scale: string | null; reason: string | null; paygCents: number }[];
  }[];
  totals: { grossCents: number; paygCents: number; superCents: number; netCents: number };
}

export interface BasSummary {
  report: 'basSummary';
  from: string;
  to: string;
  lodgement: { id: string; status: string } | null;
}

export type LedgerEvent = LedgerEventView;

/** The newest events (newest first), `limit` of them at most, optionally about one row. */
export async function recentEvents(tools: Toolbox, limit: number, filter: { entityId?: string; family?: string } = {}): Promise<LedgerEvent[]> {
  const out: LedgerEvent[] = [];
  let beforeSeq: number | undefined;
  while (out.length < limit) {
    const page = (await tools.call('ledger.events', { limit: Math.min(100, limit - out.length), ...filter, ...(beforeSeq ? { beforeSeq } : {}) })) as {
      events: LedgerEvent[];
      nextBeforeSeq: number | null;
    };
    out.push(...page.events);
    if (page.nextBeforeSeq === null) break;
    beforeSeq = page.nextBeforeSeq;
  }
  return out;
}
