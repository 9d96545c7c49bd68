import { beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYED } from '../../../domain/deployed.js';
import { describeApproval } from '../../../gateway/inbox/describe.js';
import { paygScale, withholding, type PaygDeclaration } from '../../../domain/books/payroll/payg.js';
import { noTfnWithholdingDollars } from '../../../domain/books/rates/payg-schedule.js';
import { ATO_2026_27 } from '../../../domain/books/rates/schedules/ato-2026-27.js';
import { expectError } from '../../helpers/frames.js';
import { allEvents } from '../../helpers/harness.js';
import { payrollKit, type Desk } from './payroll-kit.js';
import { booksServer, idem, type BooksServer } from './setup.js';

/*
 * The employee's PAYG declaration picks the Schedule 1 scale (NAT 1004's order: no TFN 4, foreign resident 3, no
 * threshold 1, Medicare levy exemption FULL 5 / HALF 6, else 2), and the pay date picks the schedule: the same
 * fortnight paid 30 June 2026 is withheld under 2024-25 and paid 1 July 2026 under 2026-27. Each figure below is
 * worked by hand: a $78,000 salary's full fortnight is $3,000 (a 26th); half of it is $1,500, x = 1500.99.
 */

let s: BooksServer;
let k: ReturnType<typeof payrollKit>;
beforeAll(async () => {
  s = await booksServer();
  k = payrollKit(s);
});

/** Onboard to ACTIVE with the tfn step's `data` as given (a full fortnight before the test dates). */
async function hire(d: Desk, person: string, data: Record<string, unknown>) {
  const { onboarding } = await k.start(d, { person, startDate: '2024-06-01' });
  const tfn = await d.client.ok('books.onboardingAdvance', { id: onboarding.id, step: 'tfn', data });
  await d.client.ok('books.onboardingAdvance', {
    id: onboarding.id,
    step: 'super',
    data: { fundName: 'AustralianSuper', usi: 'STA0100AU', memberNumber: 'M-1' },
  });
  await d.client.ok('books.onboardingAdvance', { id: onboarding.id, step: 'bank', data: { bsb: '062-000', accountNumber: '10987654', accountName: person } });
  await k.signed(d, 'books.onboardingAdvance', { id: onboarding.id, step: 'contract', data: { contractRef: 'offer.pdf', signedOn: '2024-05-20' } });
  return tfn;
}

const fortnightPaid = (payDate: string) => {
  const end = new Date(Date.parse(`${payDate}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  const start = new Date(Date.parse(`${end}T00:00:00Z`) - 13 * 86_400_000).toISOString().slice(0, 10);
  return { periodStart: start, periodEnd: end, payDate };
};

const bySlip = (run: any) => Object.fromEntries(run.payslips.map((p: any) => [p.employee.name, [p.grossCents, p.paygScale, p.paygCents, p.paygScaleReason]]));

describe('the scale of a declaration, and scale 4', () => {
  const d = (over: Partial<PaygDeclaration> = {}): PaygDeclaration => ({
    tfnProvided: true,
    residency: 'RESIDENT',
    claimsTaxFreeThreshold: true,
    medicareLevyVariation: 'NONE',
    ...over,
  });

  it("follows NAT 1004's order: no TFN 4 before foreign 3 before no threshold 1 before FULL 5 / HALF 6, else 2", () => {
    expect(paygScale(d({ tfnProvided: false, residency: 'FOREIGN', claimsTaxFreeThreshold: false, medicareLevyVariation: 'FULL' })).scale).toBe('4');
    expect(paygScale(d({ residency: 'FOREIGN', claimsTaxFreeThreshold: false, medicareLevyVariation: 'FULL' })).scale).toBe('3');
    expect(paygScale(d({ claimsTaxFreeThreshold: false, medicareLevyVariation: 'FULL' })).scale).toBe('1');
    expect(paygScale(d({ medicareLevyVariation: 'FULL' })).scale).toBe('5');
    expect(paygScale(d({ medicareLevyVariation: 'HALF' })).scale).toBe('6');
    expect(paygScale(d()).scale).toBe('2');
  });

  it('scale 4 ignores cents in the pay and in the result, whatever the frequency', () => {
    // $1,000.99 -> $1,000 * 47% = $470; foreign 45% = $450. $87.50 -> $87 * 0.47 = 40.89 -> $40.
    expect(withholding(ATO_2026_27, 100_099, 'MONTHLY', d({ tfnProvided: false }))).toEqual({
      cents: 47_000,
      scale: '4',
      reason: 'scale 4: no TFN declared, resident 47%',
    });
    expect(withholding(ATO_2026_27, 100_099, 'WEEKLY', d({ tfnProvided: false, residency: 'FOREIGN' })).cents).toBe(45_000);
    expect(noTfnWithholdingDollars(0.47, 8_750)).toBe(40);
  });
});

describe('the declaration at the tfn step', () => {
  it('records TFN or none, residency, threshold and Medicare levy variation; the view shows it with its scale, TFN masked', async () => {
    const d = await k.desk();
    const none = await hire(d, 'No Tfn', { tfn: null });
    expect(none.employee).toMatchObject({ tfn: null, claimsTaxFreeThreshold: false });
    expect(none.employee.declaration).toEqual({
      tfnProvided: false,
      residency: 'RESIDENT',
      claimsTaxFreeThreshold: false,
      medicareLevyVariation: 'NONE',
      paygScale: '4',
      paygScaleReason: 'scale 4: no TFN declared, resident',
    });
    expect(none.message).toMatch(
      /^Step tfn of onboarding onb_\w+ \(No Tfn\) done \(PAYG scale 4: no TFN declared, resident\); still to do: super, bank, contract/,
    );
    // Existing callers: {tfn, claimsTaxFreeThreshold} is a resident with no variation.
    const old = await hire(d, 'Old Caller', { tfn: '123 456 782', claimsTaxFreeThreshold: true });
    expect(old.employee).toMatchObject({
      tfn: '••••••782',
      declaration: { tfnProvided: true, residency: 'RESIDENT', medicareLevyVariation: 'NONE', paygScale: '2' },
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ tfn: '123456782', claimsTaxFreeThreshold: false, residency: 'FOREIGN' }, '3'],
      [{ tfn: '123456782', claimsTaxFreeThreshold: false, medicareLevyVariation: 'FULL' }, '1'],
      [{ tfn: '123456782', claimsTaxFreeThreshold: true, medicareLevyVariation: 'FULL' }, '5'],
      [{ tfn: '123456782', claimsTaxFreeThreshold: true, medicareLevyVariation: 'HALF' }, '6'],
      [{ tfn: null, residency: 'FOREIGN' }, '4'],
    ];
    for (const [data, scale] of cases) expect((await hire(d, `Case ${scale}`, data)).employee.declaration.paygScale, JSON.stringify(data)).toBe(scale);
    // The ledger never carries the TFN.
    const events = (await allEvents(d.client)).filter((e) => e.kind === 'books.onboarding.advance');
    expect(events.find((e) => e.payload.step === 'tfn' && e.payload.tfnProvided === false)?.payload).toMatchObject({ residency: 'RESIDENT', paygScale: '4' });
    expect(JSON.stringify(events)).not.toMatch(/123456782/);
  });

  it('refuses a declaration that is not one: a TFN without the threshold answer, a foreign resident claiming it or a Medicare variation', async () => {
    const d = await k.desk();
    const { onboarding } = await k.start(d);
    const advance = (data: Record<string, unknown>) => d.client.rpc('books.onboardingAdvance', { id: onboarding.id, step: 'tfn', data }, { idem: idem() });
    expectError(await advance({ tfn: '123456782' }), 'BAD_REQUEST', /^data\.claimsTaxFreeThreshold: required with a TFN/);
    expectError(await advance({ claimsTaxFreeThreshold: true }), 'BAD_REQUEST', /^data\.tfn: required/);
    expectError(
      await advance({ tfn: '123456782', claimsTaxFreeThreshold: true, residency: 'FOREIGN' }),
      'BAD_REQUEST',
      /a foreign resident cannot claim the tax-free threshold/,
    );
    expectError(
      await advance({ tfn: null, residency: 'FOREIGN', medicareLevyVariation: 'HALF' }),
      'BAD_REQUEST',
      /the Medicare levy does not apply to a foreign resident/,
    );
    expectError(await advance({ tfn: '123456782', claimsTaxFreeThreshold: true, residency: 'ALIEN' }), 'BAD_REQUEST', /^data\.residency/);
  });
});

describe('the pay date picks the schedule, the declaration the scale', () => {
  it.each([
    // 2024-25: scale 1 0.32 * 1500.99 - 65.7202 = 414.60 -> 415 * 2; scale 2 0.32 * 1500.99 - 176.5769 = 303.74 -> 304 * 2;
    // scale 4: 47% of $3,000 = $1,410 (cents ignored).
    ['2026-06-30', 'ATO Schedule 1 2024-25 (from 2024-07-01)', 83_000, 60_800],
    // 2026-27: scale 1 0.32 * 1500.99 - 71.6508 = 408.67 -> 409 * 2; scale 2 0.32 * 1500.99 - 181.7319 = 298.58 -> 299 * 2.
    ['2026-07-01', 'ATO Schedule 1 2026-27 (from 2026-07-01)', 81_800, 59_800],
  ])('paid %s: %s, scales 1, 2 and 4', async (payDate, schedule, scale1, scale2) => {
    const d = await k.desk();
    await hire(d, 'A One', { tfn: '123456782', claimsTaxFreeThreshold: false });
    await hire(d, 'B Two', { tfn: '123456782', claimsTaxFreeThreshold: true });
    await hire(d, 'C Four', { tfn: null });
    const res = await d.client.ok('books.payrollDraft', fortnightPaid(payDate));
    const run = res.payRun;
    expect(run).toMatchObject({ paygSchedule: schedule, paygScales: ['1', '2', '4'], paygCents: scale1 + scale2 + 141_000 });
    expect(bySlip(run)).toEqual({
      'A One': [300_000, '1', scale1, 'scale 1: tax-free threshold not claimed'],
      'B Two': [300_000, '2', scale2, 'scale 2: tax-free threshold claimed'],
      'C Four': [300_000, '4', 141_000, 'scale 4: no TFN declared, resident 47%'],
    });
    expect(res.message).toContain(
      `(PAYG under ${schedule}, scale 1: tax-free threshold not claimed (1 staff); scale 2: tax-free threshold claimed (1 staff); scale 4: no TFN declared, resident 47% (1 staff))`,
    );
    await k.invariants(d);
  });

  it('foreign resident -> 3, no TFN foreign -> 4 at 45%, Medicare levy FULL -> 5 and HALF -> 6 (2026-27)', async () => {
    const d = await k.desk();
    await hire(d, 'F Three', { tfn: '123456782', claimsTaxFreeThreshold: false, residency: 'FOREIGN' });
    await hire(d, 'F Four', { tfn: null, residency: 'FOREIGN' });
    await hire(d, 'M Five', { tfn: '123456782', claimsTaxFreeThreshold: true, medicareLevyVariation: 'FULL' });
    await hire(d, 'M Six', { tfn: '123456782', claimsTaxFreeThreshold: true, medicareLevyVariation: 'HALF' });
    const run = (await d.client.ok('books.payrollDraft', fortnightPaid('2026-11-15'))).payRun;
    expect(run.paygScales).toEqual(['3', '4', '5', '6']);
    expect(bySlip(run)).toEqual({
      // 0.30 * 1500.99 - 0.30 = 450.00 -> 450 * 2.
      'F Three': [300_000, '3', 90_000, 'scale 3: foreign resident'],
      // 45% of $3,000.
      'F Four': [300_000, '4', 135_000, 'scale 4: no TFN declared, foreign resident 45%'],
      // 0.30 * 1500.99 - 181.7308 = 268.57 -> 269 * 2.
      'M Five': [300_000, '5', 53_800, 'scale 5: tax-free threshold claimed, full Medicare levy exemption'],
      // 0.31 * 1500.99 - 181.7308 = 283.58 -> 284 * 2.
      'M Six': [300_000, '6', 56_800, 'scale 6: tax-free threshold claimed, half Medicare levy exemption'],
    });
  });

  it('a pay date of 2027-07-01 is refused naming the year to load; nothing is drafted', async () => {
    const d = await k.desk();
    await hire(d, 'B Two', { tfn: '123456782', claimsTaxFreeThreshold: true });
    const res = await d.client.rpc('books.payrollDraft', fortnightPaid('2027-07-01'), { idem: idem() });
    expectError(
      res,
      'CONFLICT',
      /^payDate: no PAYG schedule loaded for payments on 2027-07-01: load the ATO's Schedule 1 for 2027-28 with npm run cli -- payg-import <file> \(loaded: 2024-25 2024-07-01 to 2026-06-30; 2026-27 2026-07-01 to 2027-06-30/,
    );
  });
});

describe('where each PAYG figure came from', () => {
  it('the signature, the inbox, the signed message and payrollSummary name the schedule and the scales', async () => {
    const d = await k.desk();
    await hire(d, 'B Two', { tfn: '123456782', claimsTaxFreeThreshold: true });
    await hire(d, 'C Four', { tfn: null });
    const run = (await d.client.ok('books.payrollDraft', fortnightPaid('2026-11-15'))).payRun;
    const held = await d.client.rpc('books.payrollSign', { runId: run.id }, { key: d.agent, idem: idem() });
    const summary = held.body.result.approval.subject.summary;
    const payg =
      '; PAYG $2,008.00 under ATO Schedule 1 2026-27 (from 2026-07-01), scale 2: tax-free threshold claimed (1 staff); scale 4: no TFN declared, resident 47% (1 staff)';
    expect(summary).toMatch(
      new RegExp(`^Pay run 1–14 Nov 2026: 2 staff, gross \\$6,000\\.00, net \\$3,992\\.00, paid 2026-11-15${payg.replace(/[$().]/g, '\\$&')}$`),
    );
    const facts = Object.fromEntries(
      describeApproval(
        { actionClass: 'books.payroll_sign', subject: { summary }, heldAct: { method: 'books.payrollSign', params: { runId: run.id } } },
        DEPLOYED.holdActs,
      ).facts.map((f) => [f.label, f.value]),
    );
    expect(facts).toMatchObject({
      'PAYG withheld': '$2,008.00',
      'PAYG schedule': 'ATO Schedule 1 2026-27 (from 2026-07-01)',
      'PAYG scales': 'scale 2: tax-free threshold claimed (1 staff); scale 4: no TFN declared, resident 47% (1 staff)',
    });
    const approvalId = await k.approve(d, held.body.result);
    const signed = await d.client.ok('books.payrollSign', { runId: run.id, approvalId }, { key: d.agent, idem: idem() });
    expect(signed.message).toContain(payg);
    const report = await d.client.ok('books.reports', { report: 'payrollSummary', from: '2026-11-01', to: '2026-11-30' });
    expect(report.runs[0]).toMatchObject({ paygSchedule: 'ATO Schedule 1 2026-27 (from 2026-07-01)', paygScales: ['2', '4'], paygCents: 200_800 });
    expect(report.employees.map((e: any) => [e.name, e.paygBy])).toEqual([
      ['B Two', [{ schedule: 'ATO Schedule 1 2026-27 (from 2026-07-01)', scale: '2', reason: 'scale 2: tax-free threshold claimed', paygCents: 59_800 }]],
      ['C Four', [{ schedule: 'ATO Schedule 1 2026-27 (from 2026-07-01)', scale: '4', reason: 'scale 4: no TFN declared, resident 47%', paygCents: 141_000 }]],
    ]);
  });
});

describe('a declaration made again', () => {
  it('a TFN given later ends scale 4 for runs drafted from then; the same declaration again changes nothing; the TFN never reaches the ledger', async () => {
    const d = await k.desk();
    const hired = await hire(d, 'Late Tfn', { tfn: null });
    const id = hired.onboarding.id;
    const first = (await d.client.ok('books.payrollDraft', fortnightPaid('2026-10-15'))).payRun;
    expect(bySlip(first)['Late Tfn'].slice(0, 3)).toEqual([300_000, '4', 141_000]);

    const given = await d.client.ok('books.onboardingAdvance', { id, step: 'tfn', data: { tfn: '123 456 782', claimsTaxFreeThreshold: true } });
    expect(given.changed).toBe(true);
    expect(given.message).toMatch(
      /^Recorded Late Tfn's new TFN declaration from \d{4}-\d\d-\d\d: PAYG moves from scale 4 \(no TFN declared, resident\) to scale 2 \(tax-free threshold claimed\) for pay runs drafted from now; a run already drafted keeps its scale/,
    );
    expect(given.employee.declaration).toMatchObject({ tfnProvided: true, paygScale: '2' });
    expect(given.employee.tfn).toBe('••••••782');
    // The run drafted before keeps scale 4 until it is recalled and drafted again.
    const again = await d.client.ok('books.payrollDraft', fortnightPaid('2026-10-15'));
    expect([again.payRun.id, again.changed, bySlip(again.payRun)['Late Tfn'][1]]).toEqual([first.id, false, '4']);
    await d.client.ok('books.payrollRecall', { runId: first.id });
    const redrafted = (await d.client.ok('books.payrollDraft', fortnightPaid('2026-10-15'))).payRun;
    // $1,500 a week -> scale 2 2026-27: 0.32 * 1500.99 - 181.7319 = 298.58 -> $299, twice: $598.
    expect(bySlip(redrafted)['Late Tfn'].slice(0, 3)).toEqual([300_000, '2', 59_800]);

    const replay = await d.client.ok('books.onboardingAdvance', { id, step: 'tfn', data: { tfn: '123456782', claimsTaxFreeThreshold: true } });
    expect(replay.changed).toBe(false);
    const events = await allEvents(d.client);
    expect(JSON.stringify(events)).not.toContain('123456782');
    const change = events.filter((e: any) => e.kind === 'books.onboarding.advance' && e.payload.declarationChange);
    expect(change.map((e: any) => [e.payload.previousPaygScale, e.payload.paygScale])).toEqual([['4', '2']]);
  });
});
