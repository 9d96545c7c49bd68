import { DOC_KINDS, type DocKind, type FeedLine } from '../../../protocol/methods/books/reconciliation.js';
import type { Queryable } from '../../../db/types.js';
import { daysBetween } from '../dates.js';
import { formatCents } from '../money.js';
import { directionOf, targetView, type Direction, type FeedLineRow } from './model.js';

/*
 * Suggestions for unmatched lines. Money in: authorised invoices with money due. Money out: the documents of the
 * areas that are wired as match targets (DOC_KINDS). A candidate must be able to take the whole line (amount due
 * >= |line|, less what held lines already intend to pay it). Ranking: exact amount first, then the smallest
 * difference, then the closest due/pay date, then how much of the contact's name the line mentions.
 */

type Suggestion = FeedLine['suggestions'][number];

export interface Candidate {
  kind: DocKind;
  id: string;
  label: string;
  contact: string | null;
  amountDueCents: number;
  date: string | null;
}

const tableExists = async (q: Queryable, table: string): Promise<boolean> =>
  (await q.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [table]))[0]?.t != null;

type SourceRow = { id: string; contact: string | null; due: number; date: string | null; [k: string]: unknown };

/**
 * Per kind: where its open documents are (read only when the table exists: areas land separately), which way the
 * money goes, how a candidate is named, and whether only the exact amount can settle it (a payment run).
 */
const SOURCES: Record<DocKind, { table: string; direction: Direction; exactOnly?: true; dateWord: string; sql: string; label: (r: SourceRow) => string }> = {
  invoice: {
    table: 'books_invoices',
    direction: 'in',
    dateWord: 'due',
    sql: `SELECT i.invoice_id AS id, i.number, c.name AS contact, (i.total_cents - i.paid_cents - i.credited_cents)::bigint AS due, i.due_date AS date
            FROM books_invoices i JOIN books_contacts c ON c.org_id = i.org_id AND c.contact_id = i.contact_id
           WHERE i.org_id = $1 AND i.status = 'AUTHORISED' AND i.total_cents - i.paid_cents - i.credited_cents > 0`,
    label: (r) => `invoice ${r.number ?? r.id} (${r.contact})`,
  },
  bill: {
    table: 'books_bills',
    direction: 'out',
    dateWord: 'due',
    sql: `SELECT b.bill_id AS id, b.reference, b.total_cents, c.name AS contact, (b.total_cents - b.paid_cents)::bigint AS due, b.due_date AS date
            FROM books_bills b JOIN books_contacts c ON c.org_id = b.org_id AND c.contact_id = b.contact_id
           WHERE b.org_id = $1 AND b.status = 'AUTHORISED' AND b.total_cents - b.paid_cents > 0`,
    label: (r) => `bill ${r.id} (${r.contact}, ref ${r.reference}, ${formatCents(Number(r.total_cents))})`,
  },
  claim: {
    table: 'books_expense_claims',
    direction: 'out',
    dateWord: 'incurred',
    sql: `SELECT c.claim_id AS id, c.merchant, e.name AS contact, (c.total_cents - c.paid_cents)::bigint AS due, c.date
            FROM books_expense_claims c JOIN books_employees e ON e.org_id = c.org_id AND e.employee_id = c.employee_id
           WHERE c.org_id = $1 AND c.status = 'AUTHORISED' AND c.total_cents - c.paid_cents > 0`,
    label: (r) => `expense claim ${r.id} (${r.merchant}, ${r.contact})`,
  },
  payRun: {
    table: 'books_pay_runs',
    direction: 'out',
    dateWord: 'paid',
    sql: `SELECT run_id AS id, NULL AS contact, (net_cents - paid_cents)::bigint AS due, pay_date AS date, period_start, period_end
            FROM books_pay_runs WHERE org_id = $1 AND status = 'POSTED' AND net_cents - paid_cents > 0`,
    label: (r) => `pay run ${r.period_start} to ${r.period_end} (${r.id}), net wages`,
  },
  paymentRun: {
    table: 'books_payment_runs',
    direction: 'out',
    exactOnly: true,
    dateWord: 'paid',
    sql: `SELECT run_id AS id, NULL AS contact, total_cents AS due, pay_date AS date, cardinality(bill_ids) AS bills
            FROM books_payment_runs WHERE org_id = $1 AND feed_line_id IS NULL`,
    label: (r) => `payment run ${r.id} (${r.bills} bill${Number(r.bills) === 1 ? '' : 's'})`,
  },
};

/** Open documents for the directions asked, less what HELD lines already intend to pay each. */
export async function loadCandidates(q: Queryable, orgId: string, directions: Set<Direction>): Promise<Candidate[]> {
  const held = new Map<string, number>();
  const heldRows = await q.query<{ target_kind: string; target_id: string; cents: number }>(
    `SELECT target_kind, target_id, sum(abs(amount_cents))::bigint AS cents FROM books_feed_lines
      WHERE org_id = $1 AND status = 'HELD' AND target_kind <> 'account' GROUP BY target_kind, target_id`,
    [orgId],
  );
  for (const r of heldRows) held.set(`${r.target_kind}:${r.target_id}`, Number(r.cents));
  const out: Candidate[] = [];
  for (const kind of DOC_KINDS) {
    const source = SOURCES[kind];
    if (!directions.has(source.direction) || !(await tableExists(q, source.table))) continue;
    for (const r of await q.query<SourceRow>(source.sql, [orgId])) {
      const due = Number(r.due) - (held.get(`${kind}:${r.id}`) ?? 0);
      if (due > 0) out.push({ kind, id: r.id, label: source.label(r), contact: r.contact, amountDueCents: due, date: r.date });
    }
  }
  return out;
}

const STOP_WORDS = new Set(['pty', 'ltd', 'limited', 'co', 'company', 'the', 'and', 'inc', 'group', 'of', 'au', 'trust', 'services']);
const words = (s: string): string[] =>
  s
    .toLowerCase()
    .replace(/&/g, ' and ')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** Share of the contact name's words (without Pty, Ltd, ...) found in the line's payee, description and reference, 0-100. */
export function contactMatchPercent(contact: string | null, lineText: string): number {
  if (!contact) return 0;
  const all = words(contact);
  const significant = all.filter((w) => !STOP_WORDS.has(w));
  const wanted = significant.length > 0 ? significant : all;
  if (wanted.length === 0) return 0;
  const text = words(lineText);
  const have = new Set(text);
  const joined = text.join('');
  // Banks often squash names ("HARBOURCAFE"): the whole name run together counts as every word found.
  if (wanted.join('').length >= 4 && joined.includes(wanted.join(''))) return 100;
  return Math.round((100 * wanted.filter((w) => have.has(w)).length) / wanted.length);
}

type LineFacts = Pick<FeedLineRow, 'amount_cents' | 'date' | 'payee' | 'description' | 'reference'>;

export function score(line: LineFacts, c: Candidate): Suggestion {
  const amount = Math.abs(line.amount_cents);
  const diff = c.amountDueCents - amount;
  const daysApart = c.date ? Math.abs(daysBetween(c.date, line.date)) : null;
  const contact = contactMatchPercent(c.contact, [line.payee, line.description, line.reference].filter(Boolean).join(' '));
  const reasons = [
    diff === 0
      ? `amount matches the ${formatCents(c.amountDueCents)} due exactly`
      : `${formatCents(amount)} of the ${formatCents(c.amountDueCents)} due (${formatCents(diff)} would stay due)`,
    c.date ? `${SOURCES[c.kind].dateWord} ${c.date}, ${daysApart} day${daysApart === 1 ? '' : 's'} from the line` : 'no date to compare',
    c.contact ? (contact > 0 ? `line mentions ${c.contact} (${contact}%)` : `line does not mention ${c.contact}`) : 'no contact to compare',
  ];
  return {
    kind: c.kind,
    id: c.id,
    label: c.label,
    amountDueCents: c.amountDueCents,
    date: c.date,
    score: { exactAmount: diff === 0, amountDiffCents: diff, daysApart, contactMatchPercent: contact },
    reasons,
    target: targetView({ kind: c.kind, id: c.id }),
  };
}

function compare(a: Suggestion, b: Suggestion): number {
  return (
    Number(b.score.exactAmount) - Number(a.score.exactAmount) ||
    a.score.amountDiffCents - b.score.amountDiffCents ||
    (a.score.daysApart ?? Number.MAX_SAFE_INTEGER) - (b.score.daysApart ?? Number.MAX_SAFE_INTEGER) ||
    b.score.contactMatchPercent - a.score.contactMatchPercent ||
    a.id.localeCompare(b.id)
  );
}

/** The candidates that fit the line's direction and amount, best first. */
export function rank(line: LineFacts, candidates: Candidate[]): Suggestion[] {
  const direction = directionOf(line.amount_cents);
  const amount = Math.abs(line.amount_cents);
  return candidates
    .filter((c) => SOURCES[c.kind].direction === direction && (SOURCES[c.kind].exactOnly ? c.amountDueCents === amount : c.amountDueCents >= amount))
    .map((c) => score(line, c))
    .sort(compare);
}

/** Top 3 suggestions of each UNMATCHED line among `rows` (other lines get none). */
export async function suggestionsFor(q: Queryable, orgId: string, rows: FeedLineRow[]): Promise<Map<string, Suggestion[]>> {
  const open = rows.filter((r) => r.status === 'UNMATCHED');
  const result = new Map<string, Suggestion[]>();
  if (open.length === 0) return result;
  const candidates = await loadCandidates(q, orgId, new Set(open.map((r) => directionOf(r.amount_cents))));
  for (const r of open) result.set(r.line_id, rank(r, candidates).slice(0, 3));
  return result;
}
