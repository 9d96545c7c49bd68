import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import type { TestClient } from '../../helpers/harness.js';
import { MISSING, booksServer, expectHold, idem, mutate, type BooksServer } from './setup.js';
import { otherOrg, refused } from '../../helpers/calls.js';
import { BANK, CONTRACT, NOV1, NOV2, RATE, SUPER, TFN, payrollKit } from './payroll-kit.js';

let s: BooksServer;
let other: TestClient;
let k: ReturnType<typeof payrollKit>;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  other = await otherOrg(s);
  k = payrollKit(s);
});
afterAll(() => s.close());

/** A journal line without tax (wages are not a taxable supply). */
const line = (account_code: string, amount_cents: number) => ({ account_code, amount_cents, tax_code: null, tax_cents: 0 });

// ---- onboarding ---------------------------------------------------------------------------------

describe('books.onboardingStart', () => {
  it('creates a PENDING employee and onboarding with four steps to do; posts nothing', async () => {
    const d = await k.desk();
    const { result, event } = await mutate(
      d.client,
      'books.onboardingStart',
      { person: ' Jane  Citizen ', role: 'Bookkeeper', startDate: '2026-11-09', rate: { basis: 'HOURLY', amountCents: 4_500 }, email: 'jane@example.com' },
      'books.onboarding.start',
    );
    expect(result.employee).toMatchObject({
      name: 'Jane Citizen',
      status: 'PENDING',
      startDate: '2026-11-09',
      rate: { basis: 'HOURLY', amountCents: 4_500, hoursPerWeek: 38 },
      tfn: null,
      bank: null,
      super: null,
    });
    expect(result.onboarding).toMatchObject({ status: 'PENDING', employee: { id: result.employee.id }, contract: null, completedAt: null });
    expect(result.onboarding.steps).toEqual(['tfn', 'super', 'bank', 'contract'].map((step) => ({ step, done: false, doneAt: null })));
    expect(event.payload).toMatchObject({ onboardingId: result.onboarding.id, employeeId: result.employee.id, amountCents: 4_500, hoursPerWeek: 38 });
    expect(result.message).toContain('$45.00 an hour, 38 h/week');
    expect(await k.journalCount(d)).toBe(0);
    await k.invariants(d);
  });

  it('refuses bad input naming the field', async () => {
    const ok = { person: 'X', role: 'Y', startDate: '2026-11-09', rate: RATE };
    await refused(s.client, 'books.onboardingStart', { ...ok, person: '' }, 'BAD_REQUEST', { message: /^person: / });
    await refused(s.client, 'books.onboardingStart', { ...ok, person: '   ' }, 'BAD_REQUEST', { message: 'person: must not be blank' });
    await refused(s.client, 'books.onboardingStart', { ...ok, startDate: 'soon' }, 'BAD_REQUEST', { message: /^startDate: / });
    await refused(s.client, 'books.onboardingStart', { ...ok, rate: undefined }, 'BAD_REQUEST', { message: 'rate: required' });
    await refused(s.client, 'books.onboardingStart', { ...ok, rate: { ...RATE, hoursPerWeek: 61 } }, 'BAD_REQUEST', { message: /^rate\.hoursPerWeek: / });
    await refused(s.client, 'books.onboardingStart', { ...ok, rate: { basis: 'HOURLY', amountCents: 1_000_001 } }, 'BAD_REQUEST', {
      message: 'rate.amountCents: must be at most 1000000 cents for HOURLY pay',
    });
    await refused(s.client, 'books.onboardingStart', { ...ok, rate: { ...RATE, basis: 'DAILY' } }, 'BAD_REQUEST', { message: /^rate\.basis: / });
    await refused(s.client, 'books.onboardingStart', { ...ok, email: 'not-mail' }, 'BAD_REQUEST', { message: /^email: / });
  });
});

describe('books.onboardingAdvance', () => {
  it('tfn, super and bank run without proof; TFN and account masked, never in events; a done step is a no-op', async () => {
    const d = await k.desk();
    const { onboarding } = await k.start(d);
    const tfn = await mutate(d.client, 'books.onboardingAdvance', { id: onboarding.id, step: 'tfn', data: TFN }, 'books.onboarding.advance');
    expect(tfn.result.employee).toMatchObject({ tfn: '••••••782', claimsTaxFreeThreshold: true, status: 'PENDING' });
    expect(tfn.result.onboarding.steps[0]).toMatchObject({ step: 'tfn', done: true });
    expect(tfn.result.message).toMatch(/still to do: super, bank, contract/);
    const bank = await mutate(d.client, 'books.onboardingAdvance', { id: onboarding.id, step: 'bank', data: BANK }, 'books.onboarding.advance');
    expect(bank.result.employee.bank).toEqual({ bsb: '062000', accountNumber: '••••7654', accountName: 'J Citizen' });
    const sup = await mutate(d.client, 'books.onboardingAdvance', { id: onboarding.id, step: 'super', data: SUPER }, 'books.onboarding.advance');
    expect(sup.result.employee.super).toEqual(SUPER);
    for (const e of [tfn.event, bank.event, sup.event]) {
      const text = JSON.stringify(e.payload);
      for (const secret of ['123456782', '10987654', '062000', 'M-55501']) expect(text).not.toContain(secret);
    }
    expect(JSON.stringify(tfn.result)).not.toContain('123456782');
    const [stored] = await s.runtime.db.query<{ tfn: string; bank_account: string }>('SELECT tfn, bank_account FROM books_employees WHERE employee_id = $1', [
      tfn.result.employee.id,
    ]);
    expect(stored).toEqual({ tfn: '123456782', bank_account: '10987654' });
    // A replay (the same declaration, spaced differently) changes nothing; other details are a new declaration
    // (payg-declaration.test.ts) or a new fund (payday-super-law.test.ts).
    const again = await mutate(
      d.client,
      'books.onboardingAdvance',
      { id: onboarding.id, step: 'tfn', data: { ...TFN, tfn: '123-456-782' } },
      'books.onboarding.advance',
    );
    expect(again.result).toMatchObject({ changed: false, employee: { claimsTaxFreeThreshold: true } });
    expect(again.event.payload.noop).toBe(true);
  });

  it('the contract step holds without proof, runs on a human approval and completes the onboarding; the proof is bound to its onboarding', async () => {
    const d = await k.desk();
    const { onboarding } = await k.start(d, { startDate: '2026-11-09' });
    const second = (await k.start(d, { person: 'Ann Other' })).onboarding;
    for (const [step, data] of [
      ['tfn', TFN],
      ['super', SUPER],
      ['bank', BANK],
    ] as const)
      await d.client.ok('books.onboardingAdvance', { id: onboarding.id, step, data });
    const params = { id: onboarding.id, step: 'contract', data: CONTRACT };
    const hold = await expectHold(d.client, 'books.onboardingAdvance', params, 'books.onboarding_advance', { key: d.agent, idem: idem() });
    expect(hold.subjectId).toBe(onboarding.id);
    expect(hold.approval.subject.summary).toBe(
      'Employment contract contracts/offer.pdf for Jane Citizen as Bookkeeper, starting 2026-11-09 at $78,000.00 a year, 38 h/week',
    );
    const [unchanged] = await s.runtime.db.query<{ contract_done_at: string | null; status: string }>(
      'SELECT contract_done_at, status FROM books_onboardings WHERE onboarding_id = $1',
      [onboarding.id],
    );
    expect(unchanged).toEqual({ contract_done_at: null, status: 'PENDING' });

    const approvalId = await k.approve(d, hold);
    await refused(d.client, 'books.onboardingAdvance', { id: second.id, step: 'contract', data: CONTRACT, approvalId }, 'CONFLICT', {
      message: /subject/,
      key: d.agent,
      idem: idem(),
    });
    const { result, event } = await mutate(d.client, 'books.onboardingAdvance', { ...params, approvalId }, 'books.onboarding.advance', {
      key: d.agent,
      idem: idem(),
    });
    expect(result).toMatchObject({
      approvalId,
      changed: true,
      onboarding: { status: 'COMPLETED', contract: { contractRef: 'contracts/offer.pdf', signedOn: '2026-09-20', approvalId } },
      employee: { status: 'ACTIVE' },
    });
    expect(result.onboarding.completedAt).not.toBeNull();
    expect(event.payload).toMatchObject({ step: 'contract', completed: true, approvalId, employeeStatus: 'ACTIVE' });
    const replay = await mutate(d.client, 'books.onboardingAdvance', params, 'books.onboarding.advance', { key: d.agent, idem: idem() });
    expect(replay.result).toMatchObject({ changed: false, approvalId });
    await refused(d.client, 'books.onboardingAdvance', { ...params, approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /already used/,
      key: d.agent,
      idem: idem(),
    });
    // The contract can come first: the onboarding stays PENDING until the rest is done.
    const first = await k.signed(d, 'books.onboardingAdvance', { id: second.id, step: 'contract', data: CONTRACT });
    expect(first).toMatchObject({ onboarding: { status: 'PENDING' }, employee: { status: 'PENDING' } });
    expect(first.message).toMatch(/still to do: tfn, super, bank/);
  });

  it('refuses bad data per step, unknown steps, future signing, proof fields off the contract step; missing and other org', async () => {
    const { onboarding } = await s.client.ok('books.onboardingStart', { person: 'Val', role: 'Clerk', startDate: '2026-11-09', rate: RATE });
    const id = onboarding.id;
    await refused(s.client, 'books.onboardingAdvance', { id, step: 'tfn', data: { tfn: '123456789', claimsTaxFreeThreshold: true } }, 'BAD_REQUEST', {
      message: /^data\.tfn: .*check digit/,
    });
    await refused(s.client, 'books.onboardingAdvance', { id, step: 'tfn', data: { tfn: '123456782' } }, 'BAD_REQUEST', {
      message: 'data.claimsTaxFreeThreshold: required with a TFN: true or false, as the TFN declaration says',
    });
    await refused(s.client, 'books.onboardingAdvance', { id, step: 'super', data: { ...SUPER, usi: '!' } }, 'BAD_REQUEST', { message: /^data\.usi: / });
    await refused(s.client, 'books.onboardingAdvance', { id, step: 'bank', data: { ...BANK, bsb: '12' } }, 'BAD_REQUEST', { message: /^data\.bsb: / });
    await refused(s.client, 'books.onboardingAdvance', { id, step: 'bank', data: TFN }, 'BAD_REQUEST', { message: /^data\./ });
    await refused(s.client, 'books.onboardingAdvance', { id, step: 'contract', data: { contractRef: 'c', signedOn: '2026-02-30' } }, 'BAD_REQUEST', {
      message: /^data\.signedOn: /,
    });
    await refused(s.client, 'books.onboardingAdvance', { id, step: 'contract', data: { contractRef: 'c', signedOn: '2026-11-03' } }, 'BAD_REQUEST', {
      message: /^data\.signedOn: .*future/,
    });
    await refused(s.client, 'books.onboardingAdvance', { id, step: 'payslip', data: {} }, 'BAD_REQUEST', { message: /^step: / });
    await refused(s.client, 'books.onboardingAdvance', { id, step: 'tfn', data: TFN, approvalId: 'apr_x1' }, 'BAD_REQUEST', {
      message: 'approvalId: unknown field',
    });
    await refused(s.client, 'books.onboardingAdvance', { id: 'emp_1', step: 'tfn', data: TFN }, 'BAD_REQUEST', { message: /^id: / });
    await refused(s.client, 'books.onboardingAdvance', { id: MISSING.onboarding, step: 'tfn', data: TFN }, 'NOT_FOUND', { message: /onboarding .* not found/ });
    await refused(other, 'books.onboardingAdvance', { id, step: 'tfn', data: TFN }, 'NOT_FOUND');
  });
});

// ---- pay runs -----------------------------------------------------------------------------------

describe('books.payrollDraft', () => {
  it('drafts a payslip per active employee employed in the period; the same draft again is a no-op', async () => {
    const { d, jane, sam } = await k.staffed();
    await k.start(d, { person: 'Pending Pat' });
    await k.hire(d, { person: 'Later Lou', startDate: '2026-12-01' });
    const { result, event } = await mutate(d.client, 'books.payrollDraft', NOV1, 'books.payroll.draft');
    const run = result.payRun;
    // Jane, a full fortnight of $78,000: a 26th, gross 300000 (the contract's pay; it was 14/365 of a year, 299178,
    // before the rule changed: docs/decisions/0050-salary-super-base-dated-rules.md, "A salary pays what the contract says"); super 36000.
    // Sam, 5-14 Nov = 10 of the fortnight's 14 days of $45 * 20 h * 2 = $1,800: gross 128571, withheld as a fortnightly
    // pay (the run's frequency, not his 10 days); super 128571 * 12% = 15428.52 -> 15429.
    // PAYG under the 2026-27 Schedule 1 (2026-27 scale 2 on $1,500 a week, scale 1 on $642 a week).
    expect(run.payslips.map((p: any) => [p.employee.id, p.daysEmployed, p.taxScale, p.grossCents, p.paygCents, p.superCents, p.netCents])).toEqual([
      [jane.id, 14, 'TAX_FREE_THRESHOLD', 300_000, 59_800, 36_000, 240_200],
      [sam.id, 10, 'NO_TAX_FREE_THRESHOLD', 128_571, 26_600, 15_429, 101_971],
    ]);
    expect(run.payslips.map((p: any) => [p.earnings.rule, p.earnings.reasons])).toEqual([
      ['FULL_PERIOD', []],
      ['PART_PERIOD', ['STARTED_IN_PERIOD']],
    ]);
    expect(run).toMatchObject({
      status: 'DRAFT',
      staffCount: 2,
      grossCents: 428_571,
      paygCents: 86_400,
      superCents: 51_429,
      netCents: 342_171,
      paidCents: 0,
      unpaidCents: 0,
      stp: null,
      journalId: null,
    });
    expect(result.journalId).toBeNull();
    expect(event.payload).toMatchObject({ runId: run.id, staffCount: 2, grossCents: 428_571, netCents: 342_171 });
    expect(await k.journalCount(d)).toBe(0);
    const again = await mutate(d.client, 'books.payrollDraft', NOV1, 'books.payroll.draft');
    expect(again.result).toMatchObject({ changed: false, payRun: { id: run.id } });
    expect(again.event.payload.noop).toBe(true);
    await k.invariants(d);
  });

  it('deducts scheduled unpaid leave at the hourly equivalent', async () => {
    const { d, sam } = await k.staffed();
    const leave = (await d.client.ok('books.leaveRequest', { employeeId: sam.id, kind: 'UNPAID', startDate: '2026-11-20', endDate: '2026-11-20', hours: 8 }))
      .leave;
    await d.client.ok('books.leaveApprove', { id: leave.id, decision: 'approve' });
    const run = await k.draft(d, NOV2);
    // A full fortnight: 4500 * 20 * 2 = 180000, less 8 h * $45 = 36000 -> 144000; weekly $720 on the 2026-27 scale 1
    // -> $316 a fortnight; super 17280; net 112400.
    expect(run.payslips.find((p: any) => p.employee.id === sam.id)).toMatchObject({
      unpaidLeaveHours: 8,
      unpaidLeaveCents: 36_000,
      grossCents: 144_000,
      paygCents: 31_600,
      superCents: 17_280,
      netCents: 112_400,
    });
  });

  it('refuses bad periods, overlapping runs and an org without active staff', async () => {
    const { d } = await k.staffed();
    await refused(d.client, 'books.payrollDraft', { ...NOV1, periodEnd: '2026-10-31' }, 'BAD_REQUEST', { message: /^periodEnd: .*before periodStart/ });
    await refused(d.client, 'books.payrollDraft', { ...NOV1, payDate: '2026-11-13' }, 'BAD_REQUEST', { message: /^payDate: / });
    await refused(d.client, 'books.payrollDraft', { periodStart: '2026-11-01', periodEnd: '2026-12-02', payDate: '2026-12-02' }, 'BAD_REQUEST', {
      message: /^periodEnd: .*at most 31 days/,
    });
    await refused(d.client, 'books.payrollDraft', { ...NOV1, payDate: 'Friday' }, 'BAD_REQUEST', { message: /^payDate: / });
    const run = await k.draft(d);
    await refused(d.client, 'books.payrollDraft', { periodStart: '2026-11-08', periodEnd: '2026-11-21', payDate: '2026-11-22' }, 'CONFLICT', {
      message: new RegExp(`${run.id}.*DRAFT.*overlaps`),
    });
    await refused(d.client, 'books.payrollDraft', { ...NOV1, payDate: '2026-11-16' }, 'CONFLICT', { message: /overlaps/ });
    await refused((await k.desk()).client, 'books.payrollDraft', NOV1, 'CONFLICT', { message: /no ACTIVE staff/ });
  });
});

describe('books.payrollSign', () => {
  it('holds without proof; signed, it posts line by line and queues STP; replays post nothing; the proof is bound to its run', async () => {
    const { d } = await k.staffed();
    const run = await k.draft(d);
    const hold = await expectHold(d.client, 'books.payrollSign', { runId: run.id }, 'books.payroll_sign', { key: d.agent, idem: idem() });
    expect(hold.approval.subject.summary).toBe(
      'Pay run 1–14 Nov 2026: 2 staff, gross $4,285.71, net $3,421.71, paid 2026-11-15; PAYG $864.00 under ATO Schedule 1 2026-27 (from 2026-07-01), scale 1: tax-free threshold not claimed (1 staff); scale 2: tax-free threshold claimed (1 staff)',
    );
    expect(await k.journalCount(d)).toBe(0);
    expect((await d.client.ok('books.payrollDraft', NOV1)).payRun.status).toBe('DRAFT');

    const approvalId = await k.approve(d, hold);
    const { result, event } = await mutate(d.client, 'books.payrollSign', { runId: run.id, approvalId }, 'books.payroll.sign', { key: d.agent, idem: idem() });
    expect(result).toMatchObject({ changed: true, approvalId, payRun: { status: 'POSTED', unpaidCents: 342_171, approvalId, journalId: result.journalId } });
    expect(await k.lines(result.journalId)).toEqual([
      line('477', 428_571),
      line('478', 51_429),
      line('825', -86_400),
      line('826', -51_429),
      line('804', -342_171),
    ]);
    expect(await k.journalHead(result.journalId)).toMatchObject({ date: '2026-11-15', source_kind: 'pay_run', source_id: run.id });
    expect(result.payRun.stp).toMatchObject({
      kind: 'PAY',
      status: 'QUEUED',
      attempt: 1,
      payDate: '2026-11-15',
      financialYear: '2026-27',
      grossCents: 428_571,
      paygCents: 86_400,
      superCents: 51_429,
    });
    expect(result.payRun.stp.employees).toHaveLength(2);
    expect(event.payload).toMatchObject({ runId: run.id, journalId: result.journalId, approvalId, stpId: result.payRun.stp.id });
    await k.invariants(d);

    const replay = await mutate(d.client, 'books.payrollSign', { runId: run.id }, 'books.payroll.sign', { key: d.agent, idem: idem() });
    expect(replay.result).toMatchObject({ changed: false, journalId: result.journalId });
    await refused(d.client, 'books.payrollSign', { runId: run.id, approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /already used/,
      key: d.agent,
      idem: idem(),
    });
    expect(await k.journalCount(d)).toBe(1);
    // The proof was consumed with the act: single-use, and bound to this run.
    const proof = one(await s.runtime.db.query<{ consumed_at: string | null }>('SELECT consumed_at FROM approvals WHERE approval_id = $1', [approvalId]));
    expect(proof.consumed_at).not.toBeNull();
    const next = await k.draft(d, NOV2);
    await refused(d.client, 'books.payrollSign', { runId: next.id, approvalId }, 'CONFLICT', { message: /subject/, key: d.agent, idem: idem() });
    expect(await k.journalCount(d)).toBe(1);
  });

  it('refuses deleted and recalled runs, missing, other org and bad ids', async () => {
    const { d } = await k.staffed();
    const deleted = await k.draft(d);
    await d.client.ok('books.payrollRecall', { runId: deleted.id });
    await refused(d.client, 'books.payrollSign', { runId: deleted.id }, 'CONFLICT', { message: /DELETED/ });
    const run = await k.posted(d);
    await d.client.ok('books.payrollRecall', { runId: run.id });
    await refused(d.client, 'books.payrollSign', { runId: run.id }, 'CONFLICT', { message: /RECALLED/ });
    await refused(d.client, 'books.payrollSign', { runId: MISSING.payRun }, 'NOT_FOUND', { message: /pay run .* not found/ });
    await refused(other, 'books.payrollSign', { runId: run.id }, 'NOT_FOUND');
    await refused(d.client, 'books.payrollSign', { runId: 'inv_1' }, 'BAD_REQUEST', { message: /^runId: / });
  });
});

describe('books.payrollRecall', () => {
  it('deletes a draft (no journal); recalling again changes nothing', async () => {
    const { d } = await k.staffed();
    const run = await k.draft(d);
    const { result } = await mutate(d.client, 'books.payrollRecall', { runId: run.id }, 'books.payroll.recall');
    expect(result).toMatchObject({ changed: true, journalId: null, payRun: { status: 'DELETED' } });
    const again = await mutate(d.client, 'books.payrollRecall', { runId: run.id }, 'books.payroll.recall');
    expect(again.result.changed).toBe(false);
    expect(await k.journalCount(d)).toBe(0);
    expect((await k.draft(d)).id).not.toBe(run.id);
  });

  it('recalls a posted run before its pay date: exact reversal, STP cancelled, the period free again', async () => {
    const { d } = await k.staffed();
    const run = await k.posted(d);
    const { result, event } = await mutate(d.client, 'books.payrollRecall', { runId: run.id }, 'books.payroll.recall');
    expect(result.payRun).toMatchObject({ status: 'RECALLED', recallJournalId: result.journalId, unpaidCents: 0, stp: { status: 'CANCELLED' } });
    const original = await k.lines(run.journalId);
    expect(await k.lines(result.journalId)).toEqual(original.map((l) => ({ ...l, amount_cents: 0 - l.amount_cents })));
    expect(await k.journalHead(result.journalId)).toMatchObject({
      source_kind: 'pay_run_recall',
      source_id: run.id,
      reverses: run.journalId,
      date: '2026-11-15',
    });
    expect(event.payload).toMatchObject({ status: 'RECALLED', cancelledStp: [run.stp.id] });
    await k.invariants(d);
    expect((await mutate(d.client, 'books.payrollRecall', { runId: run.id }, 'books.payroll.recall')).result.changed).toBe(false);
    expect((await k.draft(d)).status).toBe('DRAFT');
  });

  it('refuses once the pay date arrives, once wages are paid, once the ATO accepted STP; missing and other org', async () => {
    const { d } = await k.staffed();
    const due = await k.posted(d);
    s.clock.set('2026-11-15');
    try {
      await refused(d.client, 'books.payrollRecall', { runId: due.id }, 'CONFLICT', { message: /due to be paid on 2026-11-15 \(today is 2026-11-15\)/ });
    } finally {
      s.clock.set('2026-11-02');
    }
    // The day before its pay date it could still be recalled.
    s.clock.set('2026-11-14');
    try {
      expect((await d.client.ok('books.payrollRecall', { runId: due.id })).payRun.status).toBe('RECALLED');
    } finally {
      s.clock.set('2026-11-02');
    }
    const paid = await k.posted(d, NOV2);
    await k.payWages(d, paid.id, 100, '2026-11-28');
    await refused(d.client, 'books.payrollRecall', { runId: paid.id }, 'CONFLICT', { message: /\$1\.00 of net wages already paid/ });
    const filed = await k.posted(d, { periodStart: '2026-11-29', periodEnd: '2026-12-12', payDate: '2026-12-13' });
    await k.ato(d, filed.stp.id, 'ACCEPTED');
    await refused(d.client, 'books.payrollRecall', { runId: filed.id }, 'CONFLICT', { message: new RegExp(`accepted STP event ${filed.stp.id}`) });
    await refused(d.client, 'books.payrollRecall', { runId: MISSING.payRun }, 'NOT_FOUND');
    await refused(other, 'books.payrollRecall', { runId: filed.id }, 'NOT_FOUND');
    await k.invariants(d);
  });
});

describe('settlePayRun (bank matching pays net wages)', () => {
  it('posts Dr 804 / Cr 090 in parts with a payment row; refuses more than owed, drafts and dates before the period ends', async () => {
    const { d } = await k.staffed();
    const run = await k.posted(d);
    const part = await k.payWages(d, run.id, 300_000);
    expect(await k.lines(part.journalId)).toEqual([line('804', 300_000), line('090', -300_000)]);
    expect(part.label).toContain(run.id);
    await k.invariants(d);
    await expect(k.payWages(d, run.id, 42_172)).rejects.toMatchObject({ code: 'BAD_REQUEST', message: /^amountCents: / });
    await expect(k.payWages(d, run.id, 100, '2026-11-13')).rejects.toMatchObject({ code: 'BAD_REQUEST', message: /^date: / });
    await k.payWages(d, run.id, 42_171);
    const [row] = await s.runtime.db.query<{ paid_cents: number; status: string }>('SELECT paid_cents, status FROM books_pay_runs WHERE run_id = $1', [run.id]);
    expect(row).toEqual({ paid_cents: 342_171, status: 'POSTED' });
    const payments = await s.runtime.db.query<{ doc_kind: string; amount_cents: number }>(
      'SELECT doc_kind, amount_cents FROM books_payments WHERE doc_id = $1 ORDER BY n',
      [run.id],
    );
    expect(payments).toEqual([
      { doc_kind: 'pay_run', amount_cents: 300_000 },
      { doc_kind: 'pay_run', amount_cents: 42_171 },
    ]);
    await expect(k.payWages(d, run.id, 1)).rejects.toMatchObject({ code: 'CONFLICT' });
    const later = await k.draft(d, NOV2);
    await expect(k.payWages(d, later.id, 1, '2026-11-29')).rejects.toMatchObject({ code: 'CONFLICT', message: /DRAFT/ });
    await expect(k.payWages(d, MISSING.payRun, 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await k.invariants(d);
  });
});
