import type { Queryable } from '../../../db/types.js';

/** Debits, credits and balance per account from the posted journal lines, by journal date. */
export interface AccountTotals {
  debits: number;
  credits: number;
  balance: number;
}

export async function accountTotals(q: Queryable, orgId: string, range: { from?: string; to: string }): Promise<Map<string, AccountTotals>> {
  const rows = await q.query<{ account_code: string; debits: number; credits: number }>(
    `SELECT l.account_code,
            coalesce(sum(l.amount_cents) FILTER (WHERE l.amount_cents > 0), 0)::bigint AS debits,
            coalesce(-sum(l.amount_cents) FILTER (WHERE l.amount_cents < 0), 0)::bigint AS credits
       FROM books_journal_lines l JOIN books_journals j ON j.org_id = l.org_id AND j.journal_id = l.journal_id
      WHERE l.org_id = $1 AND j.date <= $2 AND ($3::date IS NULL OR j.date >= $3)
      GROUP BY l.account_code`,
    [orgId, range.to, range.from ?? null],
  );
  return new Map(rows.map((r) => [r.account_code, { debits: r.debits, credits: r.credits, balance: r.debits - r.credits }]));
}
