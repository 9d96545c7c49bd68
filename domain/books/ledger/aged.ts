import type { Queryable } from '../../../db/types.js';
import { bucketFor, emptyBuckets, overdueDays, type Bucket } from '../receivables/ageing.js';
import { openReceivablesAt } from '../receivables/statements.js';

/** Aged receivables and payables as at a date: balances at that date by days past due. */

interface OpenItem {
  id: string;
  number: string | null;
  contact_id: string;
  contact_name: string;
  due_date: string;
  balance_cents: number;
}

function age(items: OpenItem[], asOf: string) {
  const contacts = new Map<string, { contact: { id: string; name: string }; buckets: Record<Bucket, number>; totalCents: number; documents: any[] }>();
  const totals = emptyBuckets();
  for (const it of items) {
    let row = contacts.get(it.contact_id);
    if (!row) {
      row = { contact: { id: it.contact_id, name: it.contact_name }, buckets: emptyBuckets(), totalCents: 0, documents: [] };
      contacts.set(it.contact_id, row);
    }
    const daysOverdue = overdueDays(it.due_date, asOf);
    const bucket = bucketFor(daysOverdue);
    row.documents.push({ id: it.id, number: it.number, dueDate: it.due_date, balanceCents: it.balance_cents, daysOverdue, bucket });
    row.buckets[bucket] += it.balance_cents;
    row.totalCents += it.balance_cents;
    totals[bucket] += it.balance_cents;
  }
  const list = [...contacts.values()].sort((a, b) => a.contact.name.localeCompare(b.contact.name));
  return { contacts: list, totals, totalCents: list.reduce((s, r) => s + r.totalCents, 0) };
}

export async function agedReceivables(q: Queryable, orgId: string, asOf: string) {
  const rows = await openReceivablesAt(q, orgId, asOf);
  return {
    report: 'agedReceivables' as const,
    asOf,
    ...age(
      rows.map((r) => ({ ...r, id: r.invoice_id })),
      asOf,
    ),
  };
}

/** Bills approved by asOf (issued by then and not voided or deleted), less payments dated by then. */
export async function agedPayables(q: Queryable, orgId: string, asOf: string) {
  const rows = await q.query<OpenItem>(
    `SELECT b.bill_id AS id, b.reference AS number, b.contact_id, c.name AS contact_name, b.due_date,
            (b.total_cents - coalesce((SELECT sum(amount_cents) FROM books_payments p
                                        WHERE p.org_id = b.org_id AND p.doc_kind = 'bill' AND p.doc_id = b.bill_id AND p.date <= $2), 0))::bigint AS balance_cents
       FROM books_bills b JOIN books_contacts c ON c.org_id = b.org_id AND c.contact_id = b.contact_id
      WHERE b.org_id = $1 AND b.status IN ('AUTHORISED', 'PAID') AND b.issue_date <= $2
      ORDER BY c.name, b.due_date, b.n`,
    [orgId, asOf],
  );
  return {
    report: 'agedPayables' as const,
    asOf,
    ...age(
      rows.filter((r) => r.balance_cents > 0),
      asOf,
    ),
  };
}
