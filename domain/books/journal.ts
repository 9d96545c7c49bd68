import { ApiError } from '../../protocol/errors.js';
import { ACCOUNTS, type TaxCode } from '../../protocol/methods/books/chart.js';
import type { Queryable } from '../../db/types.js';
import { newId } from '../core/ids.js';
import { assertPeriodOpen, booksPolicy } from './policy.js';

/*
 * The general ledger. Every posting goes through postJournal: at least two non-zero lines summing to exactly
 * zero (debits positive, credits negative), accounts of the chart, a date in an open period. The database
 * checks the balance again at commit and refuses any change to a posted journal.
 */

export interface JournalLine {
  account: string;
  amountCents: number;
  /** For lines of a taxable supply: the tax code and the GST belonging to this line (posted on 820 too). */
  taxCode?: TaxCode | null;
  taxCents?: number;
  contactId?: string | null;
  description?: string;
}

export interface NewJournal {
  date: string;
  narration: string;
  sourceKind: string;
  sourceId: string;
  lines: JournalLine[];
  postedBy: string;
  /** The journal this one reverses. */
  reverses?: string;
}

export async function postJournal(q: Queryable, orgId: string, j: NewJournal): Promise<string> {
  const lines = j.lines.filter((l) => l.amountCents !== 0);
  const total = lines.reduce((s, l) => s + l.amountCents, 0);
  for (const l of lines) {
    if (!Number.isSafeInteger(l.amountCents)) throw new Error(`journal line amount ${l.amountCents} is not an integer`);
    if (!ACCOUNTS.has(l.account)) throw new Error(`journal line account ${l.account} is not in the chart`);
  }
  // These are programming errors, not caller errors: every caller builds balanced journals.
  if (lines.length < 2 || total !== 0) throw new Error(`unbalanced journal for ${j.sourceKind} ${j.sourceId}: ${lines.length} lines summing to ${total}`);
  // Held FOR SHARE to commit: a lodgement cannot lock this date until this journal is in (or out).
  assertPeriodOpen(await booksPolicy(q, orgId, { share: true }), j.date, j.narration);
  const journalId = newId('jnl');
  await q.query(
    `WITH j AS (
       INSERT INTO books_journals (org_id, journal_id, date, narration, source_kind, source_id, reverses, posted_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     )
     INSERT INTO books_journal_lines (org_id, journal_id, line_no, account_code, amount_cents, tax_code, tax_cents, contact_id, description)
     SELECT $1, $2, t.line_no, t.account_code, t.amount_cents, t.tax_code, t.tax_cents, t.contact_id, t.description
       FROM unnest($9::int[], $10::text[], $11::bigint[], $12::text[], $13::bigint[], $14::text[], $15::text[])
         AS t(line_no, account_code, amount_cents, tax_code, tax_cents, contact_id, description)`,
    [
      orgId,
      journalId,
      j.date,
      j.narration,
      j.sourceKind,
      j.sourceId,
      j.reverses ?? null,
      j.postedBy,
      lines.map((_, i) => i + 1),
      lines.map((l) => l.account),
      lines.map((l) => l.amountCents),
      lines.map((l) => l.taxCode ?? null),
      lines.map((l) => l.taxCents ?? 0),
      lines.map((l) => l.contactId ?? null),
      lines.map((l) => l.description ?? ''),
    ],
  );
  return journalId;
}

/** A stored journal line, as books_journal_lines holds it. */
export interface JournalLineRow {
  account_code: string;
  amount_cents: number;
  tax_code: TaxCode | null;
  tax_cents: number;
  contact_id: string | null;
  description: string;
}

export async function journalLines(q: Queryable, orgId: string, journalId: string): Promise<JournalLine[]> {
  const rows = await q.query<JournalLineRow>(
    `SELECT account_code, amount_cents, tax_code, tax_cents, contact_id, description
       FROM books_journal_lines WHERE org_id = $1 AND journal_id = $2 ORDER BY line_no`,
    [orgId, journalId],
  );
  return rows.map((r) => ({
    account: r.account_code,
    amountCents: Number(r.amount_cents),
    taxCode: r.tax_code,
    taxCents: Number(r.tax_cents),
    contactId: r.contact_id,
    description: r.description,
  }));
}

/** Post the exact negation of a journal (same lines, signs flipped, tax included) on `date`. */
export async function reverseJournal(
  q: Queryable,
  orgId: string,
  journalId: string,
  r: { date: string; narration: string; sourceKind: string; sourceId: string; postedBy: string },
): Promise<string> {
  const [already] = await q.query<{ journal_id: string }>('SELECT journal_id FROM books_journals WHERE org_id = $1 AND reverses = $2', [orgId, journalId]);
  if (already) throw new ApiError('CONFLICT', `journal ${journalId} was already reversed by ${already.journal_id}`);
  const lines = await journalLines(q, orgId, journalId);
  if (lines.length === 0) throw new Error(`journal ${journalId} has no lines to reverse`);
  return postJournal(q, orgId, {
    ...r,
    reverses: journalId,
    lines: lines.map((l) => ({ ...l, amountCents: 0 - l.amountCents, taxCents: 0 - (l.taxCents ?? 0) })),
  });
}
