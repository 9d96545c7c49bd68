import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { approveFlaggedBill, booksServer, checkInvariants, expectHold, idem, type BooksServer, withSignature } from './setup.js';
import { head, refused } from '../../helpers/calls.js';
import { feedLine } from './reconciliation-kit.js';

/*
 * The signature law, end to end, for each of the six acts the spec names: without proof the act holds (hold
 * frame, one books.signature.hold event, nothing else changed); the agent files approval.request; the agent
 * cannot resolve it (no approval.decide), nor can the human who requested one; a human approver approves; the
 * retry with the proof and a fresh idempotency key executes. Then the same proof on another subject of the same
 * kind is CONFLICT, and reusing it is refused.
 */

let s: BooksServer;
beforeAll(async () => {
  s = await booksServer('2026-10-15');
});
afterAll(() => s.close());

interface Org {
  client: TestClient;
  orgId: string;
  agent: string;
  approver: string;
}

async function newOrg(): Promise<Org> {
  const o = await freshOrg(s.runtime, 'sig');
  const client = new TestClient(s.app, o.adminKey);
  const agent = (await client.mint({ tier: 'agent' }, 'agent')).apiKey;
  const approver = (await client.mint({ tier: 'approver' }, 'approver')).apiKey;
  return { client, orgId: o.orgId, agent, approver };
}

/** Each act: how to make a subject for it in an org, and the call that needs a signature. */
interface Act {
  method: string;
  actionClass: string;
  /** Creates a fresh subject and returns the call's params (without proof). */
  subject(o: Org): Promise<Record<string, unknown>>;
  /** The event kind the executed act appends. */
  kind: string;
  /** Checks that the subject did not change while held, and changed once executed. */
  state(o: Org, params: Record<string, unknown>): Promise<unknown>;
}

async function hire(o: Org, name: string): Promise<string> {
  const started = await o.client.ok('books.onboardingStart', {
    person: name,
    role: 'Designer',
    startDate: '2026-07-01',
    rate: { basis: 'ANNUAL', amountCents: 7_800_000, hoursPerWeek: 38 },
  });
  const id = started.onboarding.id;
  await o.client.ok('books.onboardingAdvance', { id, step: 'tfn', data: { tfn: '123 456 782', claimsTaxFreeThreshold: true } });
  await o.client.ok('books.onboardingAdvance', { id, step: 'super', data: { fundName: 'AustralianSuper', usi: 'STA0100AU', memberNumber: 'M-1' } });
  await o.client.ok('books.onboardingAdvance', { id, step: 'bank', data: { bsb: '062-000', accountNumber: '10987654', accountName: name } });
  return id;
}

let period = 0;
let lodgements = 0;
const ACTS: Act[] = [
  {
    method: 'books.payrollSign',
    actionClass: 'books.payroll_sign',
    kind: 'books.payroll.sign',
    async subject(o) {
      if (period === 0) {
        const onb = await hire(o, 'Sam Lee');
        await withSignature(o.client, o.agent, 'books.onboardingAdvance', {
          id: onb,
          step: 'contract',
          data: { contractRef: 'c/sam.pdf', signedOn: '2026-07-01' },
        });
      }
      const month = ['07', '08'][period++ % 2];
      const end = month === '07' ? '2026-07-31' : '2026-08-31';
      const run = await o.client.ok('books.payrollDraft', { periodStart: `2026-${month}-01`, periodEnd: end, payDate: end });
      return { runId: run.payRun.id };
    },
    state: async (o, p) =>
      (await o.client.ok('books.reports', { report: 'payrollSummary', from: '2026-07-01', to: '2026-12-31' })).runs.filter((r: any) => r.id === p.runId).length,
  },
  {
    method: 'books.taxSignLodge',
    actionClass: 'books.tax_sign_lodge',
    kind: 'books.tax.lodge',
    async subject(o) {
      const quarters = [
        ['2026-04-01', '2026-06-30'],
        ['2026-07-01', '2026-09-30'],
      ];
      const [start, end] = quarters[lodgements++ % 2];
      const inv = (await o.client.ok('books.invoiceDraft', { payeeName: 'Harbour Cafe', description: 'Work', totalCents: 110_000, dueDays: 14 })).invoice;
      s.clock.set(start);
      await o.client.ok('books.invoiceSend', { id: inv.id });
      s.clock.set('2026-10-15');
      const prepared = await o.client.ok('books.taxPrepare', { periodStart: start, periodEnd: end });
      return { id: prepared.lodgement.id };
    },
    state: async (o) => (await o.client.ok('books.journals', { sourceKind: 'tax' })).journals.length,
  },
  {
    method: 'books.billScheduleRun',
    actionClass: 'books.bill_schedule_run',
    kind: 'books.bill.schedule_run',
    async subject(o) {
      const bill = (
        await o.client.ok('books.billCapture', {
          supplierName: 'Office Co',
          reference: idem('OC'),
          issueDate: '2026-10-01',
          dueDate: '2026-10-31',
          totalCents: 33_000,
        })
      ).bill;
      await approveFlaggedBill(o.client, o.agent, bill.id);
      return { payDate: '2026-10-20', billIds: [bill.id] };
    },
    state: async (o, p) => (await o.client.ok('books.bills', {})).bills.find((b: any) => b.id === (p.billIds as string[])[0]).status,
  },
  {
    method: 'books.invoiceChaseStep',
    actionClass: 'books.invoice_chase_step',
    kind: 'books.invoice.chase',
    async subject(o) {
      const inv = (await o.client.ok('books.invoiceDraft', { payeeName: 'Slow Payer', description: 'Work', totalCents: 55_000, dueDays: 0 })).invoice;
      await o.client.ok('books.invoiceSend', { id: inv.id });
      await o.client.ok('books.invoiceChaseStep', { id: inv.id, step: 1 });
      return { id: inv.id, step: 2 };
    },
    state: async (o, p) => (await o.client.ok('books.invoices', { limit: 200 })).invoices.find((i: any) => i.id === p.id).chaseStep,
  },
  {
    method: 'books.onboardingAdvance',
    actionClass: 'books.onboarding_advance',
    kind: 'books.onboarding.advance',
    async subject(o) {
      const onb = await hire(o, `Person ${idem('p')}`);
      return { id: onb, step: 'contract', data: { contractRef: 'c/offer.pdf', signedOn: '2026-10-01' } };
    },
    state: async (o, p) => (await s.runtime.db.query('SELECT status FROM books_onboardings WHERE org_id = $1 AND onboarding_id = $2', [o.orgId, p.id]))[0],
  },
  {
    method: 'books.matchHoldResolve',
    actionClass: 'books.match_hold_resolve',
    kind: 'books.feed.resolve',
    async subject(o) {
      const lineId = await feedLine(s, { client: o.client, orgId: o.orgId, agent: o.agent, approver: o.approver }, -660_000, {
        date: '2026-10-10',
        description: 'Fit-out',
      });
      const held = await o.client.ok('books.matchAccept', { lineId, target: { kind: 'account', account: '429' } });
      expect(held.line.status).toBe('HELD');
      return { lineId, decision: 'approve' };
    },
    state: async (o) => (await o.client.ok('books.feedLines', {})).feedLines.map((l: any) => l.status).join(','),
  },
];

describe.each(ACTS)('signature act $method', (act) => {
  it('hold -> approval.request -> human approval -> retry executes; another subject CONFLICT; reuse refused', async () => {
    const o = await newOrg();
    const params = await act.subject(o);
    const other = await act.subject(o);
    const before = await act.state(o, params);

    // Without proof: the hold frame, one hold event, nothing else.
    const hold = await expectHold(o.client, act.method, params, act.actionClass, { key: o.agent, idem: idem() });
    expect(hold.approval.subject.kind).toBe('books.signature');
    expect(hold.approval.expiresInMs).toBeGreaterThan(0);
    expect(await act.state(o, params)).toEqual(before);
    await checkInvariants(s.runtime.db, o.orgId);

    // The agent files; neither the agent nor the requesting human can decide it.
    const filed = await o.client.ok(
      'approval.request',
      { actionClass: hold.approval.actionClass, payloadHash: hold.approval.payloadHash, subject: hold.approval.subject },
      { key: o.agent },
    );
    await refused(o.client, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, 'FORBIDDEN_SCOPE', {
      message: 'missing scope approval.decide for approval.resolve',
      key: o.agent,
    });
    // A human (the admin) calling the act is held just the same, and cannot approve the request they filed.
    const humanHold = await o.client.ok(act.method, other, { idem: idem() });
    expect(humanHold.status).toBe('approval_required');
    const own = await o.client.ok('approval.request', {
      actionClass: humanHold.approval.actionClass,
      payloadHash: humanHold.approval.payloadHash,
      subject: humanHold.approval.subject,
    });
    await refused(o.client, 'approval.resolve', { approvalId: own.approvalId, decision: 'approve' }, 'CONFLICT', { message: /another human must decide/ });
    // Still pending: the retry is refused and changes nothing.
    await refused(o.client, act.method, { ...params, approvalId: filed.approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /pending/,
      key: o.agent,
      idem: idem(),
    });
    await o.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve', note: 'checked' }, { key: o.approver });

    // A valid, unused proof on another subject of the same kind: CONFLICT, and the proof is not burnt.
    await refused(o.client, act.method, { ...other, approvalId: filed.approvalId }, 'CONFLICT', { message: /was filed for/, key: o.agent, idem: idem() });

    // The retry with the proof and a fresh key executes.
    const mark = await head(o.client);
    const done = await o.client.rpc(act.method, { ...params, approvalId: filed.approvalId }, { key: o.agent, idem: idem() });
    expect(done.body.ok, done.raw).toBe(true);
    expect(done.body.result.status).not.toBe('approval_required');
    expect(done.body.result.changed).toBe(true);
    expect(done.body.result.message).toContain(`ledger #${done.body.result.ledgerId}`);
    const events = (await o.client.get('events', { cursor: mark, limit: 10 })).body.events;
    expect(events.map((e: any) => e.kind)).toEqual([act.kind]);
    expect(await act.state(o, params)).not.toEqual(before);
    await checkInvariants(s.runtime.db, o.orgId);
    expect((await o.client.ok('approval.get', { approvalId: filed.approvalId }, { key: o.agent })).used).toBe(true);

    // Reused, on its own subject or another: refused, nothing appended.
    await refused(o.client, act.method, { ...params, approvalId: filed.approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /already used/,
      key: o.agent,
      idem: idem(),
    });
    await refused(o.client, act.method, { ...other, approvalId: filed.approvalId }, 'CONFLICT', { message: /was filed for/, key: o.agent, idem: idem() });
    // The signatureToken form is bound the same way: the token of this approval does not fit the other subject.
    const token = (await o.client.ok('approval.get', { approvalId: filed.approvalId }, { key: o.agent })).signatureToken;
    expect(token).toMatch(/^apr_/);
    await refused(o.client, act.method, { ...other, signatureToken: token }, 'CONFLICT', { key: o.agent, idem: idem() });
  });
});

describe('a rejected approval', () => {
  it('refuses the act, saying it was rejected', async () => {
    const o = await newOrg();
    const params = await ACTS[3].subject(o);
    const hold = await expectHold(o.client, 'books.invoiceChaseStep', params, 'books.invoice_chase_step', { key: o.agent });
    const filed = await o.client.ok(
      'approval.request',
      { actionClass: hold.approval.actionClass, payloadHash: hold.approval.payloadHash, subject: hold.approval.subject },
      { key: o.agent },
    );
    await o.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'reject', note: 'Customer is on a payment plan' }, { key: o.approver });
    await refused(o.client, 'books.invoiceChaseStep', { ...params, approvalId: filed.approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /rejected/,
      key: o.agent,
      idem: idem(),
    });
  });
});
