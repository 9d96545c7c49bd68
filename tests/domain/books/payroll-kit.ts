import { expect } from 'vitest';
import { one, type Queryable } from '../../../db/types.js';
import type { HandlerCtx } from '../../../domain/core/handler.js';
import { settleClaim } from '../../../domain/books/expenses/index.js';
import { recordStpResponse, settlePayRun } from '../../../domain/books/payroll/index.js';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { checkInvariants, idem, type BooksServer } from './setup.js';
import { fileAndApprove } from '../../helpers/calls.js';

/** Helpers of the payroll, leave/STP and expenses tests: clean orgs, hiring, signing, journals, settlement. */

/** A clean org (a pay run takes every active employee of its org) with an agent key; its admin approves. */
export interface Desk {
  client: TestClient;
  orgId: string;
  agent: string;
}

export const RATE = { basis: 'ANNUAL', amountCents: 7_800_000, hoursPerWeek: 38 };
export const TFN = { tfn: '123 456 782', claimsTaxFreeThreshold: true };
export const SUPER = { fundName: 'AustralianSuper', usi: 'STA0100AU', memberNumber: 'M-55501' };
export const BANK = { bsb: '062-000', accountNumber: '10987654', accountName: 'J Citizen' };
export const CONTRACT = { contractRef: 'contracts/offer.pdf', signedOn: '2026-09-20' };
export const NOV1 = { periodStart: '2026-11-01', periodEnd: '2026-11-14', payDate: '2026-11-15' };
export const NOV2 = { periodStart: '2026-11-15', periodEnd: '2026-11-28', payDate: '2026-11-29' };

const asCtx = (q: Queryable, orgId: string) => ({ q, orgId, principal: { id: 'key_bankmatch' } }) as unknown as HandlerCtx;

export function payrollKit(s: BooksServer) {
  const db = s.runtime.db;

  async function desk(): Promise<Desk> {
    const org = await freshOrg(s.runtime, 'pay');
    const client = new TestClient(s.app, org.adminKey);
    return { client, orgId: org.orgId, agent: (await client.mint({ tier: 'agent' }, 'payroll agent')).apiKey };
  }

  /** File and approve the approval a hold names (the agent files, the org's human admin approves). */
  const approve = (d: Desk, hold: any): Promise<string> => fileAndApprove(d.client, hold.approval, { requester: d.agent });

  /** A signature act through hold -> human approval -> retry with the proof. */
  async function signed(d: Desk, method: string, params: Record<string, unknown>) {
    const held = await d.client.rpc(method, params, { key: d.agent, idem: idem() });
    expect(held.body.result?.status, held.raw).toBe('approval_required');
    const approvalId = await approve(d, held.body.result);
    return d.client.ok(method, { ...params, approvalId }, { key: d.agent, idem: idem() });
  }

  const start = (d: Desk, over: Record<string, unknown> = {}) =>
    d.client.ok('books.onboardingStart', { person: 'Jane Citizen', role: 'Bookkeeper', startDate: '2026-10-01', rate: RATE, ...over });

  /** Onboard someone all the way to ACTIVE. */
  async function hire(d: Desk, over: Record<string, unknown> = {}, threshold = true) {
    const id = (await start(d, over)).onboarding.id;
    await d.client.ok('books.onboardingAdvance', { id, step: 'tfn', data: { ...TFN, claimsTaxFreeThreshold: threshold } });
    await d.client.ok('books.onboardingAdvance', { id, step: 'super', data: SUPER });
    await d.client.ok('books.onboardingAdvance', { id, step: 'bank', data: BANK });
    return (await signed(d, 'books.onboardingAdvance', { id, step: 'contract', data: CONTRACT })).employee;
  }

  /** Jane: $78,000 a year, 38 h, scale 2, from 1 Oct. Sam: $45 an hour, 20 h, scale 1, from 5 Nov. */
  async function staffed() {
    const d = await desk();
    const jane = await hire(d);
    const sam = await hire(
      d,
      { person: 'Sam Lee', role: 'Junior', startDate: '2026-11-05', rate: { basis: 'HOURLY', amountCents: 4_500, hoursPerWeek: 20 } },
      false,
    );
    return { d, jane, sam };
  }

  const draft = async (d: Desk, period = NOV1) => (await d.client.ok('books.payrollDraft', period)).payRun;
  const posted = async (d: Desk, period = NOV1) => (await signed(d, 'books.payrollSign', { runId: (await draft(d, period)).id })).payRun;

  return {
    desk,
    approve,
    signed,
    start,
    hire,
    staffed,
    draft,
    posted,
    invariants: (d: Desk) => checkInvariants(db, d.orgId),
    lines: (journalId: string) =>
      db.query<{ account_code: string; amount_cents: number; tax_code: string | null; tax_cents: number }>(
        'SELECT account_code, amount_cents, tax_code, tax_cents FROM books_journal_lines WHERE journal_id = $1 ORDER BY line_no',
        [journalId],
      ),
    journalHead: async (journalId: string) =>
      one(
        await db.query<{ date: string; source_kind: string; source_id: string; reverses: string | null }>(
          'SELECT date, source_kind, source_id, reverses FROM books_journals WHERE journal_id = $1',
          [journalId],
        ),
      ),
    journalCount: async (d: Desk) => one(await db.query<{ n: number }>('SELECT count(*)::int AS n FROM books_journals WHERE org_id = $1', [d.orgId])).n,
    /** What bank matching does when a bank line pays a run's wages or reimburses a claim. */
    payWages: (d: Desk, runId: string, amountCents: number, date = '2026-11-15') => db.tx((q) => settlePayRun(asCtx(q, d.orgId), runId, { amountCents, date })),
    reimburse: (d: Desk, claimId: string, amountCents: number, date = '2026-11-02') =>
      db.tx((q) => settleClaim(asCtx(q, d.orgId), claimId, { amountCents, date })),
    /** The ATO's answer, as an integration reports it. */
    ato: (d: Desk, stpId: string, status: 'SUBMITTED' | 'ACCEPTED' | 'FAILED', error?: string) =>
      db.tx((q) => recordStpResponse(q, d.orgId, stpId, { status, error })),
  };
}
