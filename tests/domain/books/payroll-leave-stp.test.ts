import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../../helpers/harness.js';
import { MISSING, booksServer, idem, mutate, type BooksServer } from './setup.js';
import { eventsAfter, head, otherOrg, refused } from '../../helpers/calls.js';
import { NOV1, payrollKit } from './payroll-kit.js';

/** Leave (requests against accrued balances, decisions) and Single Touch Payroll events. */

let s: BooksServer;
let other: TestClient;
let k: ReturnType<typeof payrollKit>;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  other = await otherOrg(s);
  k = payrollKit(s);
});
afterAll(() => s.close());

const request = (client: TestClient, employeeId: string, kind: string, startDate: string, endDate: string, hours: number) =>
  client.rpc('books.leaveRequest', { employeeId, kind, startDate, endDate, hours });

describe('books.leaveRequest', () => {
  it('checks ANNUAL leave against 4 weeks a year accrued pro rata, less leave requested or scheduled', async () => {
    const d = await k.desk();
    const jane = await k.hire(d); // 38 h a week from 1 Oct 2026
    // 1 Oct -> 21 Dec is 81 days: 38 * 4 * 81 / 365 = 33.7315 -> 33.73 hours accrued.
    const { result, event } = await mutate(
      d.client,
      'books.leaveRequest',
      { employeeId: jane.id, kind: 'ANNUAL', startDate: '2026-12-21', endDate: '2026-12-24', hours: 30.4 },
      'books.leave.request',
    );
    expect(result.leave).toMatchObject({ employee: { id: jane.id, name: 'Jane Citizen' }, kind: 'ANNUAL', hours: 30.4, status: 'REQUESTED', decidedAt: null });
    expect(result.balance).toEqual({ kind: 'ANNUAL', accruedHours: 33.73, committedHours: 0, availableHours: 33.73 });
    expect(event.payload).toMatchObject({ leaveId: result.leave.id, employeeId: jane.id, kind: 'ANNUAL', hours: 30.4 });
    // By 5 Jan (96 days): 38 * 4 * 96 / 365 = 39.97 accrued, 30.4 committed: 9.57 available.
    const second = await d.client.ok('books.leaveRequest', { employeeId: jane.id, kind: 'ANNUAL', startDate: '2027-01-05', endDate: '2027-01-05', hours: 7.6 });
    expect(second.balance).toEqual({ kind: 'ANNUAL', accruedHours: 39.97, committedHours: 30.4, availableHours: 9.57 });
    // By 6 Jan (97 days): 40.39 accrued, 38 committed: 2.39 available.
    await refused(
      d.client,
      'books.leaveRequest',
      { employeeId: jane.id, kind: 'ANNUAL', startDate: '2027-01-06', endDate: '2027-01-06', hours: 7.6 },
      'CONFLICT',
      { message: 'Jane Citizen has 2.39 hours of ANNUAL leave available on 2027-01-06 (40.39 accrued, 38 already requested or scheduled); 7.6 requested' },
    );
    // A rejected request no longer counts.
    await d.client.ok('books.leaveApprove', { id: result.leave.id, decision: 'reject' });
    expect(
      (await d.client.ok('books.leaveRequest', { employeeId: jane.id, kind: 'ANNUAL', startDate: '2027-01-06', endDate: '2027-01-06', hours: 7.6 })).balance
        .availableHours,
    ).toBe(32.79);
    await k.invariants(d);
  });

  it('PERSONAL accrues 2 weeks a year; UNPAID has no balance', async () => {
    const d = await k.desk();
    const jane = await k.hire(d);
    // 40 days to 10 Nov: 38 * 2 * 40 / 365 = 8.33 -> 8.32 (rounded down).
    const first = await d.client.ok('books.leaveRequest', {
      employeeId: jane.id,
      kind: 'PERSONAL',
      startDate: '2026-11-10',
      endDate: '2026-11-10',
      hours: 7.6,
    });
    expect(first.balance).toEqual({ kind: 'PERSONAL', accruedHours: 8.32, committedHours: 0, availableHours: 8.32 });
    await refused(
      d.client,
      'books.leaveRequest',
      { employeeId: jane.id, kind: 'PERSONAL', startDate: '2026-11-12', endDate: '2026-11-12', hours: 7.6 },
      'CONFLICT',
      { message: /1\.14 hours of PERSONAL leave available/ },
    );
    const unpaid = await d.client.ok('books.leaveRequest', { employeeId: jane.id, kind: 'UNPAID', startDate: '2026-11-16', endDate: '2026-11-27', hours: 76 });
    expect(unpaid).toMatchObject({ balance: null, leave: { kind: 'UNPAID', status: 'REQUESTED' } });
  });

  it('refuses bad ranges and hours, leave before the start date, overlaps, pending staff; missing and other org', async () => {
    const d = await k.desk();
    const jane = await k.hire(d);
    const base = { employeeId: jane.id, kind: 'UNPAID', startDate: '2026-11-16', endDate: '2026-11-16', hours: 7.6 };
    await refused(d.client, 'books.leaveRequest', { ...base, endDate: '2026-11-15' }, 'BAD_REQUEST', { message: /^endDate: .*before startDate/ });
    await refused(d.client, 'books.leaveRequest', { ...base, hours: 0 }, 'BAD_REQUEST', { message: 'hours: must be more than 0' });
    await refused(d.client, 'books.leaveRequest', { ...base, hours: 7.555 }, 'BAD_REQUEST', { message: 'hours: must have at most 2 decimals' });
    await refused(d.client, 'books.leaveRequest', { ...base, hours: 39 }, 'BAD_REQUEST', { message: /^hours: .*at most 38 hours/ });
    await refused(d.client, 'books.leaveRequest', { ...base, kind: 'SICK' }, 'BAD_REQUEST', { message: /^kind: / });
    await refused(d.client, 'books.leaveRequest', { ...base, startDate: '2026-09-30' }, 'BAD_REQUEST', {
      message: /^startDate: .*before Jane Citizen started/,
    });
    await d.client.ok('books.leaveRequest', { ...base, endDate: '2026-11-18', hours: 22.8 });
    await refused(d.client, 'books.leaveRequest', { ...base, startDate: '2026-11-18', endDate: '2026-11-19' }, 'CONFLICT', { message: /overlapping/ });
    const pending = (await k.start(d, { person: 'Pat Pending' })).employee;
    await refused(d.client, 'books.leaveRequest', { ...base, employeeId: pending.id }, 'CONFLICT', { message: /PENDING/ });
    await refused(d.client, 'books.leaveRequest', { ...base, employeeId: MISSING.employee }, 'NOT_FOUND', { message: /employee .* not found/ });
    await refused(other, 'books.leaveRequest', base, 'NOT_FOUND');
  });
});

describe('books.leaveApprove', () => {
  it('approve -> SCHEDULED, the same decision again is a no-op, the other decision is refused', async () => {
    const d = await k.desk();
    const jane = await k.hire(d);
    const leave = (await (await request(d.client, jane.id, 'ANNUAL', '2026-12-21', '2026-12-21', 7.6)).body.result).leave;
    const { result, event } = await mutate(
      d.client,
      'books.leaveApprove',
      { id: leave.id, decision: 'approve', note: 'Enjoy the break' },
      'books.leave.approve',
    );
    expect(result.leave).toMatchObject({ status: 'SCHEDULED', note: 'Enjoy the break' });
    expect(result.leave.decidedBy).toBeTruthy();
    expect(event.payload).toMatchObject({ leaveId: leave.id, decision: 'approve', status: 'SCHEDULED' });
    const again = await mutate(d.client, 'books.leaveApprove', { id: leave.id, decision: 'approve' }, 'books.leave.approve');
    expect(again.result).toMatchObject({ changed: false, leave: { status: 'SCHEDULED', note: 'Enjoy the break' } });
    expect(again.event.payload.noop).toBe(true);
    await refused(d.client, 'books.leaveApprove', { id: leave.id, decision: 'reject' }, 'CONFLICT', { message: /already SCHEDULED; a decision is final/ });
    const rejected = (await (await request(d.client, jane.id, 'UNPAID', '2027-02-01', '2027-02-01', 7.6)).body.result).leave;
    expect((await d.client.ok('books.leaveApprove', { id: rejected.id, decision: 'reject' })).leave.status).toBe('REJECTED');
    await refused(d.client, 'books.leaveApprove', { id: rejected.id, decision: 'approve' }, 'CONFLICT', { message: /already REJECTED/ });
    await refused(d.client, 'books.leaveApprove', { id: leave.id, decision: 'maybe' }, 'BAD_REQUEST', { message: /^decision: / });
    await refused(d.client, 'books.leaveApprove', { id: MISSING.leave, decision: 'approve' }, 'NOT_FOUND', { message: /leave request .* not found/ });
    await refused(other, 'books.leaveApprove', { id: leave.id, decision: 'approve' }, 'NOT_FOUND');
  });

  it('approving unpaid leave inside a drafted run says the draft must be redrafted', async () => {
    const { d, sam } = await k.staffed();
    const run = await k.draft(d);
    const leave = (await (await request(d.client, sam.id, 'UNPAID', '2026-11-10', '2026-11-10', 4)).body.result).leave;
    const approved = await d.client.ok('books.leaveApprove', { id: leave.id, decision: 'approve' });
    expect(approved.message).toContain(`${run.id} (DRAFT) already covers these dates without the deduction`);
  });
});

describe('STP events', () => {
  it('the ATO answers through recordStpResponse; a FAILED event is requeued; in-flight events are refused', async () => {
    const { d } = await k.staffed();
    const run = await k.posted(d);
    const stpId = run.stp.id;
    await refused(d.client, 'books.stpResubmit', { eventId: stpId }, 'CONFLICT', { message: /QUEUED: still in flight/ });
    const before = await head(d.client);
    expect(await k.ato(d, stpId, 'SUBMITTED')).toMatchObject({ status: 'SUBMITTED' });
    expect(await k.ato(d, stpId, 'SUBMITTED')).toMatchObject({ status: 'SUBMITTED' });
    await refused(d.client, 'books.stpResubmit', { eventId: stpId }, 'CONFLICT', { message: /SUBMITTED: still in flight/ });
    expect(await k.ato(d, stpId, 'FAILED', 'CMN.ATO.PAYEVNT.EM92: payee TFN mismatch')).toMatchObject({
      status: 'FAILED',
      error: 'CMN.ATO.PAYEVNT.EM92: payee TFN mismatch',
    });
    const answers = await eventsAfter(d.client, before);
    expect(answers.map((e) => [e.kind, e.actor, e.payload.status])).toEqual([
      ['books.stp.record_response', '', 'SUBMITTED'],
      ['books.stp.record_response', '', 'FAILED'],
    ]);

    const { result, event } = await mutate(d.client, 'books.stpResubmit', { eventId: stpId }, 'books.stp.resubmit');
    expect(result).toMatchObject({ changed: true, stpEvent: { id: stpId, kind: 'PAY', status: 'QUEUED', attempt: 2, error: null, runId: run.id } });
    expect(event.payload).toMatchObject({ stpId, action: 'requeued', attempt: 2, previousError: 'CMN.ATO.PAYEVNT.EM92: payee TFN mismatch' });
    await k.ato(d, stpId, 'ACCEPTED');
    await expect(k.ato(d, stpId, 'FAILED', 'late')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(k.ato(d, MISSING.stp, 'ACCEPTED')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('an ACCEPTED event is followed by an UPDATE with year-to-date figures of its financial year; every call is a new act', async () => {
    const d = await k.desk();
    const jane = await k.hire(d, { startDate: '2026-06-01' });
    const bob = await k.hire(d, { person: 'Bob Hart', startDate: '2026-07-08', rate: { basis: 'HOURLY', amountCents: 3_000, hoursPerWeek: 38 } });
    await k.posted(d, { periodStart: '2026-06-17', periodEnd: '2026-06-30', payDate: '2026-06-30' }); // FY 2025-26: not counted
    const july = await k.posted(d, { periodStart: '2026-07-01', periodEnd: '2026-07-14', payDate: '2026-07-15' });
    await k.posted(d, { periodStart: '2026-07-15', periodEnd: '2026-07-28', payDate: '2026-07-29' });
    await k.draft(d, { periodStart: '2026-07-29', periodEnd: '2026-08-11', payDate: '2026-08-12' }); // a DRAFT: not counted
    await k.ato(d, july.stp.id, 'ACCEPTED');
    const { result, event } = await mutate(d.client, 'books.stpResubmit', { eventId: july.stp.id }, 'books.stp.resubmit');
    // Jane, two full fortnights of $78,000: 2 * 300000 gross (a 26th each: the contract's fortnight), 2 * 59800 PAYG
    // (2026-27 Schedule 1, scale 2), 2 * 36000 super.
    // Bob, $30 * 38 h: 7 of the fortnight's 14 days (8-14 Jul) 114000 gross, withheld as a fortnightly pay (2026-27
    // scale 2 on $570 a week), 13680 super; then a full fortnight 228000 gross, 27360 super: PAYG 43600 in all.
    expect(result.stpEvent).toMatchObject({
      kind: 'UPDATE',
      status: 'QUEUED',
      attempt: 1,
      follows: july.stp.id,
      runId: july.id,
      payDate: '2026-07-15',
      financialYear: '2026-27',
      employees: [
        { employeeId: jane.id, name: 'Jane Citizen', grossCents: 600_000, paygCents: 119_600, superCents: 72_000 },
        { employeeId: bob.id, name: 'Bob Hart', grossCents: 342_000, paygCents: 43_600, superCents: 41_040 },
      ],
      grossCents: 942_000,
      paygCents: 163_200,
      superCents: 113_040,
    });
    expect(event.payload).toMatchObject({ stpId: july.stp.id, action: 'update', updateId: result.stpEvent.id, financialYear: '2026-27', employees: 2 });
    const key = idem('stp');
    const a = await d.client.ok('books.stpResubmit', { eventId: july.stp.id }, { idem: key });
    const b = await d.client.ok('books.stpResubmit', { eventId: july.stp.id }, { idem: key });
    expect(new Set([result.stpEvent.id, a.stpEvent.id, b.stpEvent.id]).size).toBe(3);
    await k.invariants(d);
  });

  it('refuses cancelled events, missing, other org and bad ids', async () => {
    const { d } = await k.staffed();
    const run = await k.posted(d, NOV1);
    await d.client.ok('books.payrollRecall', { runId: run.id });
    await refused(d.client, 'books.stpResubmit', { eventId: run.stp.id }, 'CONFLICT', { message: /CANCELLED/ });
    await expect(k.ato(d, run.stp.id, 'ACCEPTED')).rejects.toMatchObject({ code: 'CONFLICT' });
    await refused(d.client, 'books.stpResubmit', { eventId: MISSING.stp }, 'NOT_FOUND', { message: /STP event .* not found/ });
    await refused(other, 'books.stpResubmit', { eventId: run.stp.id }, 'NOT_FOUND');
    await refused(d.client, 'books.stpResubmit', { eventId: 'pay_1' }, 'BAD_REQUEST', { message: /^eventId: / });
  });
});
