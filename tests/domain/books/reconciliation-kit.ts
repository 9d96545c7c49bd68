import { expect } from 'vitest';
import { one } from '../../../db/types.js';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { checkInvariants, idem, refusalApproval, type BooksServer, withSignature } from './setup.js';
import { expectOk, fileAndApprove } from '../../helpers/calls.js';

/** Helpers of the reconciliation tests: feed lines arrive through the real import, as they do in production. */

export interface Desk {
  client: TestClient;
  orgId: string;
  /** An agent (books.write, approval.request) and a human approver of the org. */
  agent: string;
  approver: string;
}

export const mainDesk = (s: BooksServer): Desk => ({ client: s.client, orgId: s.org.orgId, agent: s.agent.apiKey, approver: s.approver.apiKey });

/** A clean org with its own agent and approver, for figures that must be exactly a test's own. */
export async function freshDesk(s: BooksServer, prefix = 'rec'): Promise<Desk> {
  const org = await freshOrg(s.runtime, prefix);
  const client = new TestClient(s.app, org.adminKey);
  const agent = await client.mint({ tier: 'agent' }, 'agent');
  const approver = await client.mint({ tier: 'approver' }, 'approver');
  return { client, orgId: org.orgId, agent: agent.apiKey, approver: approver.apiKey };
}

export interface CsvRow {
  date: string;
  amount: string;
  description: string;
  payee?: string;
  reference?: string;
  id?: string;
}

const cell = (v: string | undefined) => (v === undefined ? '' : /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export function csvOf(rows: CsvRow[], header = 'Date,Amount,Description,Payee,Reference,Transaction ID'): string {
  return [header, ...rows.map((r) => [r.date, r.amount, r.description, r.payee, r.reference, r.id].map(cell).join(','))].join('\n') + '\n';
}

/** POST the admin import path with `key` (null: no Authorization header). */
export async function postImport(client: TestClient, body: unknown, key: string | null = client.defaultKey) {
  const res = await client.app.inject({
    method: 'POST',
    url: '/api/v1/admin/books.importStatement',
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json(), raw: res.body };
}

const dollars = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

let txn = 0;
/** Import one bank line (through the admin path, as the org's admin) and return its id. */
export async function feedLine(
  s: BooksServer,
  desk: Desk,
  amountCents: number,
  extra: { date?: string; description?: string; payee?: string; reference?: string } = {},
): Promise<string> {
  const id = `T${++txn}-${idem('txn')}`;
  const row = {
    date: extra.date ?? '2026-11-05',
    amount: dollars(amountCents),
    description: extra.description ?? `Line ${txn}`,
    payee: extra.payee,
    reference: extra.reference,
    id,
  };
  const res = await postImport(desk.client, { format: 'csv', content: csvOf([row]) });
  expect(res.status, res.raw).toBe(200);
  expect(res.body.result).toMatchObject({ lines: 1, imported: 1, duplicates: 0 });
  const line = one(
    await s.runtime.db.query<{ line_id: string }>('SELECT line_id FROM books_feed_lines WHERE org_id = $1 AND bank_txn_id = $2', [desk.orgId, id]),
  );
  return line.line_id;
}

/** One line as books.feedLines shows it (the page that starts just before it). */
export async function readLine(s: BooksServer, desk: Desk, lineId: string): Promise<any> {
  const { n } = one(await s.runtime.db.query<{ n: number }>('SELECT n FROM books_feed_lines WHERE org_id = $1 AND line_id = $2', [desk.orgId, lineId]));
  const page = expectOk('books.feedLines', await desk.client.rpc('books.feedLines', { cursor: n - 1, limit: 1 }));
  expect(page.feedLines[0]?.id).toBe(lineId);
  return page.feedLines[0];
}

export const journal = (s: BooksServer, orgId: string, journalId: string) =>
  s.runtime.db.query<{ account_code: string; amount_cents: number; tax_code: string | null; tax_cents: number }>(
    'SELECT account_code, amount_cents, tax_code, tax_cents FROM books_journal_lines WHERE org_id = $1 AND journal_id = $2 ORDER BY line_no',
    [orgId, journalId],
  );

export const journalsOfLine = (s: BooksServer, orgId: string, lineId: string) =>
  s.runtime.db.query<{ journal_id: string; date: string; source_kind: string }>(
    `SELECT j.journal_id, j.date, j.source_kind FROM books_journals j
      WHERE j.org_id = $1 AND (j.source_id = $2 OR j.source_id IN (SELECT payment_id FROM books_payments WHERE org_id = $1 AND feed_line_id = $2)) ORDER BY j.n`,
    [orgId, lineId],
  );

export const journalCount = async (s: BooksServer, orgId: string) =>
  Number(one(await s.runtime.db.query<{ c: number }>('SELECT count(*)::int AS c FROM books_journals WHERE org_id = $1', [orgId])).c);

export const invariants = (s: BooksServer, orgId: string) => checkInvariants(s.runtime.db, orgId);

/** File the approval named by a GOVERNANCE_NOT_READY refusal (PB-B1) and have the human decide it (approve, unless told). */
export const fileRefusal = (desk: Desk, actionClass: string, subjectId: string, refusal: string, decision: 'approve' | 'reject' = 'approve'): Promise<string> =>
  fileAndApprove(desk.client, refusalApproval(refusal, actionClass, subjectId), { requester: desk.agent, approver: desk.approver, decision });

/** File the approval a hold frame names and have the human approve it. */
export const approveHoldOf = (desk: Desk, hold: any): Promise<string> =>
  fileAndApprove(desk.client, hold.approval, { requester: desk.agent, approver: desk.approver });

/** Call a signature act as the agent: hold, human approval, retry with the proof. Returns the result. */
export const signed = (desk: Desk, method: string, params: Record<string, unknown>): Promise<any> =>
  withSignature(desk.client, desk.agent, method, params, desk.approver);
