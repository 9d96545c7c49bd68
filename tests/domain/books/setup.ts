import { expect } from 'vitest';
import type { Queryable } from '../../../db/types.js';
import { HoldResult } from '../../../protocol/frames.js';
import { eventsAfter, fileAndApprove, head, mutate as sharedMutate, type Caller, type FiledApproval, type MutateOptions } from '../../helpers/calls.js';
import { TestClock } from '../../helpers/clock.js';
import { TestClient, testServer, type TestServer } from '../../helpers/harness.js';

/** The books tests' own kit: a server on a settable business clock, the books' checks on top of the shared calls, and the books invariants. */

export interface BooksServer extends TestServer {
  clock: TestClock;
  /** A human approver (approval.decide) and an agent (books.write, approval.request) of the org. */
  approver: { apiKey: string; principal: { id: string } };
  agent: { apiKey: string; principal: { id: string } };
}

/** `opts`: a database of its own (databaseUrl, or inMemory: true for a PGlite one apart from the worker's). */
export async function booksServer(date?: string, opts: { databaseUrl?: string; inMemory?: boolean } = {}): Promise<BooksServer> {
  const clock = new TestClock(date);
  const s = await testServer({ clock, ...opts });
  const approver = await s.client.mint({ tier: 'approver' }, 'finance lead');
  const agent = await s.client.mint({ tier: 'agent' }, 'books agent');
  return { ...s, clock, approver, agent };
}

/**
 * The shared mutate, plus the books' receipt: the result's ledgerId is the event's row_hash prefix and its message
 * quotes it.
 */
export async function mutate(on: Caller, method: string, params: unknown, kind: string, opts: MutateOptions = {}) {
  const done = await sharedMutate(on, method, params, kind, opts);
  expect(done.result.ledgerId).toBe(done.event.row_hash.slice(0, 8));
  expect(done.result.message).toContain(`ledger #${done.result.ledgerId}`);
  return done;
}

/** A signature act called without proof: the hold frame, one books.signature.hold event, nothing else. */
export async function expectHold(client: TestClient, method: string, params: unknown, actionClass: string, opts: { key?: string; idem?: string } = {}) {
  const before = await head(client, opts.key);
  const res = await client.rpc(method, params, opts);
  expect(res.status, res.raw).toBe(200);
  expect(res.body.ok, res.raw).toBe(true);
  const hold = res.body.result;
  expect(HoldResult.safeParse(hold).error?.issues ?? []).toEqual([]);
  expect(hold.approval.actionClass).toBe(actionClass);
  expect(hold.message).toMatch(/held/i);
  const events = await eventsAfter(client, before, opts.key);
  expect(events.map((e) => e.kind)).toEqual(['books.signature.hold']);
  expect(events[0].entity_id).toBe(hold.subjectId);
  return hold;
}

/**
 * File the approval a hold names, have the human approver approve it, and return the approvalId (the agent
 * retries with it). The requester is the agent unless `requesterKey` says otherwise.
 */
export async function approveHold(s: BooksServer, hold: any, requesterKey = s.agent.apiKey, decision: 'approve' | 'reject' = 'approve'): Promise<string> {
  return fileAndApprove(s.client, hold.approval, { requester: requesterKey, approver: s.approver.apiKey, decision });
}

/** What a PB-B1 refusal names to file, read from its message. */
export function refusalApproval(message: string, actionClass: string, subjectId: string): FiledApproval {
  const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(message)?.[1];
  expect(payloadHash, message).toBeDefined();
  return { actionClass, payloadHash: payloadHash!, subject: { kind: 'books.signature', subjectId, summary: actionClass } };
}

let seq = 0;
export const idem = (label = 'k') => `${label}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

/** Ids that are well-formed but exist nowhere. */
export const MISSING = {
  invoice: 'inv_doesnotexist0000',
  bill: 'bill_doesnotexist000',
  claim: 'clm_doesnotexist0000',
  line: 'fl_doesnotexist00000',
  employee: 'emp_doesnotexist0000',
  onboarding: 'onb_doesnotexist0000',
  payRun: 'pay_doesnotexist0000',
  leave: 'lv_doesnotexist00000',
  stp: 'stp_doesnotexist0000',
  lodgement: 'bas_doesnotexist0000',
  asset: 'ast_doesnotexist0000',
  contact: 'con_doesnotexist0000',
};

// ---- invariants ---------------------------------------------------------------------------------

const sum = async (q: Queryable, sql: string, args: unknown[]): Promise<number> => {
  const [row] = await q.query<{ v: string | number | null }>(sql, args);
  return Number(row?.v ?? 0);
};

const tableExists = async (q: Queryable, name: string): Promise<boolean> =>
  (await q.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [name]))[0]?.t !== null;

/**
 * The books invariants, recomputed from the tables (not through the code under test): the trial balance is 0,
 * no journal is unbalanced or has fewer than two lines, and each control account equals its subledger.
 */
export async function checkInvariants(q: Queryable, orgId: string): Promise<void> {
  expect(await sum(q, 'SELECT coalesce(sum(amount_cents), 0)::text AS v FROM books_journal_lines WHERE org_id = $1', [orgId]), 'trial balance').toBe(0);
  const unbalanced = await q.query(
    `SELECT journal_id, sum(amount_cents)::text AS total, count(*)::int AS lines FROM books_journal_lines WHERE org_id = $1
      GROUP BY journal_id HAVING sum(amount_cents) <> 0 OR count(*) < 2`,
    [orgId],
  );
  expect(unbalanced, 'unbalanced journals').toEqual([]);
  const balance = (code: string) =>
    sum(q, 'SELECT coalesce(sum(amount_cents), 0)::text AS v FROM books_journal_lines WHERE org_id = $1 AND account_code = $2', [orgId, code]);

  const ar = await sum(
    q,
    `SELECT coalesce(sum(total_cents - paid_cents - credited_cents), 0)::text AS v FROM books_invoices WHERE org_id = $1 AND status = 'AUTHORISED'`,
    [orgId],
  );
  expect(await balance('610'), '610 = open receivables').toBe(ar);
  if (await tableExists(q, 'books_bills')) {
    const ap = await sum(q, `SELECT coalesce(sum(total_cents - paid_cents), 0)::text AS v FROM books_bills WHERE org_id = $1 AND status = 'AUTHORISED'`, [
      orgId,
    ]);
    expect(0 - (await balance('800')), '800 = open payables').toBe(ap);
  }
  if (await tableExists(q, 'books_expense_claims')) {
    const claims = await sum(
      q,
      `SELECT coalesce(sum(total_cents - paid_cents), 0)::text AS v FROM books_expense_claims WHERE org_id = $1 AND status = 'AUTHORISED'`,
      [orgId],
    );
    expect(0 - (await balance('801')), '801 = approved unpaid claims').toBe(claims);
  }
  if (await tableExists(q, 'books_pay_runs')) {
    const wages = await sum(q, `SELECT coalesce(sum(net_cents - paid_cents), 0)::text AS v FROM books_pay_runs WHERE org_id = $1 AND status = 'POSTED'`, [
      orgId,
    ]);
    expect(0 - (await balance('804')), '804 = posted unpaid net wages').toBe(wages);
  }
}

/**
 * Run a signature act as `agentKey`: when it holds, the agent files the approval, a human approves (`approverKey`,
 * or the client's default key, an org admin), and the agent retries with the proof and a fresh idempotency key.
 * Returns the executed result. Acts that do not hold (a replay, or below the floor) return on the first call.
 */
export async function withSignature(client: TestClient, agentKey: string, method: string, params: Record<string, unknown>, approverKey?: string): Promise<any> {
  const first = await client.ok(method, params, { key: agentKey, idem: idem('sig') });
  if (first.status !== 'approval_required') return first;
  const approvalId = await fileAndApprove(client, first.approval, { requester: agentKey, approver: approverKey });
  return client.ok(method, { ...params, approvalId }, { key: agentKey, idem: idem('sig') });
}

/** PB-B1: billApprove of a flagged bill is refused until a signature backs it; file from the refusal and approve. */
export async function approveFlaggedBill(client: TestClient, agentKey: string, billId: string): Promise<any> {
  const res = await client.rpc('books.billApprove', { id: billId }, { key: agentKey, idem: idem('bill') });
  if (res.body.ok) return res.body.result;
  expect(res.body.error.code, res.raw).toBe('GOVERNANCE_NOT_READY');
  const approvalId = await fileAndApprove(client, refusalApproval(res.body.error.message, 'books.bill_approve', billId), { requester: agentKey });
  return client.ok('books.billApprove', { id: billId, approvalId }, { key: agentKey, idem: idem('bill') });
}
