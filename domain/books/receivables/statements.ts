import type { z } from 'zod';
import { receivables as c, type Statement } from '../../../protocol/methods/books/receivables.js';
import type { Queryable } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { getContact } from '../contacts.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { bucketFor, emptyBuckets, overdueDays } from './ageing.js';

/** Open-item statements as at a date, rebuilt from documents, payments and credit notes dated by then. */

interface OpenItemRow {
  invoice_id: string;
  number: string | null;
  contact_id: string;
  contact_name: string;
  issue_date: string;
  due_date: string;
  total_cents: number;
  balance_cents: number;
}

/**
 * Invoices issued by `asOf` and not voided, with their balance at `asOf` (total less payments and credits dated
 * by then), where that balance is above zero. Also the source of the aged receivables report.
 */
export async function openReceivablesAt(q: Queryable, orgId: string, asOf: string, contactId?: string): Promise<OpenItemRow[]> {
  const rows = await q.query<OpenItemRow>(
    `SELECT i.invoice_id, i.number, i.contact_id, c.name AS contact_name, i.issue_date, i.due_date, i.total_cents,
            (i.total_cents
              - coalesce((SELECT sum(amount_cents) FROM books_payments p WHERE p.org_id = i.org_id AND p.doc_kind = 'invoice' AND p.doc_id = i.invoice_id AND p.date <= $2), 0)
              - coalesce((SELECT sum(amount_cents) FROM books_credit_notes n WHERE n.org_id = i.org_id AND n.invoice_id = i.invoice_id AND n.date <= $2), 0)
            )::bigint AS balance_cents
       FROM books_invoices i JOIN books_contacts c ON c.org_id = i.org_id AND c.contact_id = i.contact_id
      WHERE i.org_id = $1 AND i.status IN ('AUTHORISED', 'PAID') AND i.issue_date <= $2 AND ($3::text IS NULL OR i.contact_id = $3)
      ORDER BY c.name, i.due_date, i.n`,
    [orgId, asOf, contactId ?? null],
  );
  return rows.filter((r) => r.balance_cents > 0);
}

export function buildStatements(rows: OpenItemRow[], asOf: string): z.infer<typeof Statement>[] {
  const byContact = new Map<string, z.infer<typeof Statement>>();
  for (const r of rows) {
    let statement = byContact.get(r.contact_id);
    if (!statement) {
      statement = { contact: { id: r.contact_id, name: r.contact_name }, lines: [], buckets: emptyBuckets(), totalDueCents: 0 };
      byContact.set(r.contact_id, statement);
    }
    const daysOverdue = overdueDays(r.due_date, asOf);
    const bucket = bucketFor(daysOverdue);
    statement.lines.push({
      invoiceId: r.invoice_id,
      number: r.number,
      issueDate: r.issue_date,
      dueDate: r.due_date,
      totalCents: r.total_cents,
      balanceCents: r.balance_cents,
      daysOverdue,
      bucket,
    });
    statement.buckets[bucket] += r.balance_cents;
    statement.totalDueCents += r.balance_cents;
  }
  return [...byContact.values()];
}

export const statementRun = handler(c.statementRun, async (ctx, p) => {
  if (p.contactId) await getContact(ctx.q, ctx.orgId, p.contactId);
  const statements = buildStatements(await openReceivablesAt(ctx.q, ctx.orgId, p.asOf, p.contactId), p.asOf);
  const totalDueCents = statements.reduce((s, st) => s + st.totalDueCents, 0);
  const runId = newId('stm');
  await ctx.q.query('INSERT INTO books_statement_runs (org_id, run_id, as_of, contact_id, statements, created_by) VALUES ($1, $2, $3, $4, $5, $6)', [
    ctx.orgId,
    runId,
    p.asOf,
    p.contactId ?? null,
    JSON.stringify(statements),
    ctx.principal.id,
  ]);
  return finish(
    ctx,
    {
      kind: 'books.statement.run',
      entityId: runId,
      payload: { runId, asOf: p.asOf, contactId: p.contactId ?? null, statements: statements.length, totalDueCents },
    },
    { runId, asOf: p.asOf, statements, totalDueCents, changed: true },
    `Statement run ${runId} as at ${p.asOf}: ${statements.length} customer${statements.length === 1 ? '' : 's'} owing ${formatCents(totalDueCents)}`,
  );
});
