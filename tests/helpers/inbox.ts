import type { TestClient } from './harness.js';
import { fileAndApprove } from './calls.js';
import { BANK, CONTRACT, RATE, SUPER, TFN } from '../domain/books/payroll-kit.js';

/** Shared by the approval inbox tests (tests/gateway/inbox.test.ts, tests/browser/inbox.test.ts). */

export { freePort } from './ports.js';

export interface DraftRun {
  id: string;
  netCents: number;
  staffCount?: number;
  /** The PAYG schedule the run was drafted under, e.g. "ATO Schedule 1 2026-27 (from 2026-07-01)". */
  paygSchedule?: string;
}

/**
 * Real DRAFT pay runs for books.payrollSign in the client's org: the first call hires one employee (her
 * contract is itself a signature act: `hr` holds it, the org's admin approves), each call drafts the next
 * fortnight from 1 Oct 2026.
 */
export function payRuns(client: TestClient, hrAgentKey: string): () => Promise<DraftRun> {
  let hired: Promise<void> | undefined;
  let fortnight = 0;
  const day = (offset: number) => new Date(Date.UTC(2026, 9, 1) + offset * 86_400_000).toISOString().slice(0, 10);
  async function hire() {
    const id = (await client.ok('books.onboardingStart', { person: 'Jane Citizen', role: 'Bookkeeper', startDate: day(0), rate: RATE })).onboarding.id;
    for (const [step, data] of [
      ['tfn', TFN],
      ['super', SUPER],
      ['bank', BANK],
    ] as const)
      await client.ok('books.onboardingAdvance', { id, step, data });
    const contract = { id, step: 'contract', data: CONTRACT };
    const held = await client.ok('books.onboardingAdvance', contract, { key: hrAgentKey });
    const approvalId = await fileAndApprove(client, held.approval, { requester: hrAgentKey });
    await client.ok('books.onboardingAdvance', { ...contract, approvalId }, { key: hrAgentKey });
  }
  return async () => {
    hired ??= hire();
    await hired;
    const first = 14 * fortnight++;
    const period = { periodStart: day(first), periodEnd: day(first + 13), payDate: day(first + 14) };
    return (await client.ok('books.payrollDraft', period)).payRun as DraftRun;
  };
}
