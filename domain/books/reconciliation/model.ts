import { notFound } from '../../../protocol/errors.js';
import type { TaxCode } from '../../../protocol/methods/books/chart.js';
import type { FeedLine, MatchTarget } from '../../../protocol/methods/books/reconciliation.js';
import type { Queryable } from '../../../db/types.js';
import { formatCents } from '../money.js';

/** The feed line row, its view, loading with or without the row lock, and how messages name lines and targets. */

export interface FeedLineRow {
  n: number;
  line_id: string;
  bank_txn_id: string;
  date: string;
  amount_cents: number;
  description: string;
  payee: string | null;
  reference: string | null;
  status: 'UNMATCHED' | 'HELD' | 'RECONCILED';
  target_kind: MatchTarget['kind'] | null;
  target_id: string | null;
  account_code: string | null;
  tax_code: TaxCode | null;
  journal_id: string | null;
  held_at: string | null;
  held_by: string | null;
  approval_id: string | null;
  reconciled_at: string | null;
  import_id: string;
  created_at: string;
  updated_at: string;
}

export const LINE_COLUMNS = `n, line_id, bank_txn_id, date, amount_cents, description, payee, reference, status, target_kind, target_id,
  account_code, tax_code, journal_id, held_at, held_by, approval_id, reconciled_at, import_id, created_at, updated_at`;

export type Direction = 'in' | 'out';
export const directionOf = (amountCents: number): Direction => (amountCents > 0 ? 'in' : 'out');

/** The id field of each document target kind (`{kind: 'invoice', invoiceId}`). */
export const TARGET_ID_FIELD = { invoice: 'invoiceId', bill: 'billId', claim: 'claimId', payRun: 'payRunId', paymentRun: 'paymentRunId' } as const;
export type DocTargetKind = keyof typeof TARGET_ID_FIELD;

/** Which way the money of a document match goes: receipts for invoices, payments for everything else. */
export const DOC_DIRECTION: Record<DocTargetKind, Direction> = { invoice: 'in', bill: 'out', claim: 'out', payRun: 'out', paymentRun: 'out' };

/** A direct coding with its tax code resolved, or a document by kind and id. */
export type ResolvedTarget = { kind: 'account'; account: string; taxCode: TaxCode } | { kind: DocTargetKind; id: string };

export function targetIdOf(t: Exclude<MatchTarget, { kind: 'account' }>): string {
  return (t as unknown as Record<string, string>)[TARGET_ID_FIELD[t.kind]];
}

/** The contract shape of a resolved target (what reads show and suggestions carry). */
export function targetView(t: ResolvedTarget): MatchTarget {
  if (t.kind === 'account') return { kind: 'account', account: t.account, taxCode: t.taxCode };
  return { kind: t.kind, [TARGET_ID_FIELD[t.kind]]: t.id } as unknown as MatchTarget;
}

export function storedTarget(r: FeedLineRow): ResolvedTarget | null {
  if (!r.target_kind) return null;
  if (r.target_kind === 'account') return { kind: 'account', account: r.account_code as string, taxCode: r.tax_code as TaxCode };
  return { kind: r.target_kind, id: r.target_id as string };
}

export const sameTarget = (a: ResolvedTarget, b: ResolvedTarget): boolean =>
  a.kind === 'account' && b.kind === 'account'
    ? a.account === b.account && a.taxCode === b.taxCode
    : a.kind === b.kind && 'id' in a && 'id' in b && a.id === b.id;

export function lineView(r: FeedLineRow, suggestions: FeedLine['suggestions'] = []): FeedLine {
  const target = storedTarget(r);
  return {
    id: r.line_id,
    bankTxnId: r.bank_txn_id,
    date: r.date,
    amountCents: r.amount_cents,
    direction: directionOf(r.amount_cents),
    description: r.description,
    payee: r.payee,
    reference: r.reference,
    status: r.status === 'UNMATCHED' && suggestions.length > 0 ? 'SUGGESTED' : r.status,
    target: target ? targetView(target) : null,
    journalId: r.journal_id,
    heldAt: r.held_at,
    heldBy: r.held_by,
    approvalId: r.approval_id,
    reconciledAt: r.reconciled_at,
    importId: r.import_id,
    suggestion: suggestions[0] ?? null,
    suggestions: suggestions.slice(0, 3),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The line, locked for the call's transaction when `lock` (every mutation locks before it reads state). */
export async function loadLine(q: Queryable, orgId: string, lineId: string, lock = false): Promise<FeedLineRow> {
  const [row] = await q.query<FeedLineRow>(`SELECT ${LINE_COLUMNS} FROM books_feed_lines WHERE org_id = $1 AND line_id = $2${lock ? ' FOR UPDATE' : ''}`, [
    orgId,
    lineId,
  ]);
  if (!row) throw notFound(`bank feed line ${lineId}`);
  return row;
}

/** `the bank line 2026-11-03 -$110.00 "OFFICEWORKS"`: how messages name a line. */
export const lineLabel = (r: Pick<FeedLineRow, 'date' | 'amount_cents' | 'payee' | 'description'>): string =>
  `the bank line ${r.date} ${formatCents(r.amount_cents)} "${r.payee ?? r.description}"`;

/** Move a line to RECONCILED with its match (held_at stays as the record of an earlier hold). */
export async function markReconciled(
  q: Queryable,
  orgId: string,
  lineId: string,
  m: { target: ResolvedTarget; journalId: string | null; approvalId: string | null; by: string },
): Promise<void> {
  const t = m.target;
  await q.query(
    `UPDATE books_feed_lines SET status = 'RECONCILED', target_kind = $3, target_id = $4, account_code = $5, tax_code = $6,
            journal_id = $7, approval_id = $8, reconciled_at = now(), reconciled_by = $9, updated_at = now()
      WHERE org_id = $1 AND line_id = $2`,
    [
      orgId,
      lineId,
      t.kind,
      'id' in t ? t.id : null,
      t.kind === 'account' ? t.account : null,
      t.kind === 'account' ? t.taxCode : null,
      m.journalId,
      m.approvalId,
      m.by,
    ],
  );
}
