import { ACCOUNTS } from '../../../protocol/methods/books/chart.js';
import { ledger as c } from '../../../protocol/methods/books/ledger.js';
import { handler } from '../../core/handler.js';
import { pageByN } from '../paging.js';
import type { JournalLineRow } from '../journal.js';

interface JournalRow {
  n: number;
  journal_id: string;
  date: string;
  narration: string;
  source_kind: string;
  source_id: string;
  reverses: string | null;
  reversed_by: string | null;
  posted_by: string;
  posted_at: string;
}

interface LineRow extends JournalLineRow {
  journal_id: string;
  line_no: number;
}

export const journals = handler(c.journals, async (ctx, p) => {
  const { rows, nextCursor } = await pageByN<JournalRow>(
    ctx.q,
    `SELECT * FROM (
       SELECT j.n, j.journal_id, j.date, j.narration, j.source_kind, j.source_id, j.reverses, j.posted_by, j.posted_at,
              (SELECT r.journal_id FROM books_journals r WHERE r.org_id = j.org_id AND r.reverses = j.journal_id) AS reversed_by
         FROM books_journals j
        WHERE j.org_id = $1
          AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM books_journal_lines l WHERE l.org_id = j.org_id AND l.journal_id = j.journal_id AND l.account_code = $2))
          AND ($3::text IS NULL OR j.source_kind = $3) AND ($4::text IS NULL OR j.source_id = $4)
          AND ($5::text IS NULL OR j.journal_id = $5)
          AND ($6::date IS NULL OR j.date >= $6) AND ($7::date IS NULL OR j.date <= $7)
     ) x WHERE true`,
    [ctx.orgId, p.account ?? null, p.sourceKind ?? null, p.sourceId ?? null, p.journalId ?? null, p.dateFrom ?? null, p.dateTo ?? null],
    p,
  );
  const lines = rows.length
    ? await ctx.q.query<LineRow>(
        `SELECT journal_id, line_no, account_code, amount_cents, tax_code, tax_cents, contact_id, description
           FROM books_journal_lines WHERE org_id = $1 AND journal_id = ANY($2::text[]) ORDER BY journal_id, line_no`,
        [ctx.orgId, rows.map((r) => r.journal_id)],
      )
    : [];
  const byJournal = new Map<string, LineRow[]>();
  for (const l of lines) byJournal.set(l.journal_id, [...(byJournal.get(l.journal_id) ?? []), l]);
  return {
    journals: rows.map((r) => ({
      id: r.journal_id,
      date: r.date,
      narration: r.narration,
      source: { kind: r.source_kind, id: r.source_id },
      reverses: r.reverses,
      reversedBy: r.reversed_by,
      postedBy: r.posted_by,
      postedAt: r.posted_at,
      lines: (byJournal.get(r.journal_id) ?? []).map((l) => ({
        lineNo: l.line_no,
        account: l.account_code,
        accountName: ACCOUNTS.get(l.account_code)?.name ?? l.account_code,
        amountCents: l.amount_cents,
        taxCode: l.tax_code,
        taxCents: l.tax_cents,
        contactId: l.contact_id,
        description: l.description,
      })),
    })),
    nextCursor,
  };
});
