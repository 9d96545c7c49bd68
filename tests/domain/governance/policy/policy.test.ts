import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { booksServer, type BooksServer } from '../../books/setup.js';
import { approved, eventsAfter, expectOk, head, held, otherOrg, refused } from '../../../helpers/calls.js';
import { onPostgres, type TestClient } from '../../../helpers/harness.js';

/*
 * policy.publish and GET /policy: versions by key, retire, settings applied to the books at publish (the floor
 * raised only with a second human, whoever calls; the promise grace days honoured by receivables), and the rules
 * in force in one read. Includes the policy half of governance's acceptance scenario 6.
 */

let s: BooksServer;
let other: TestClient;
let adminId: string;
let policyAgent: { apiKey: string; principal: { id: string } };
beforeAll(async () => {
  s = await booksServer('2026-11-02');
  other = await otherOrg(s);
  adminId = (await s.client.get('org/whoami')).body.principal.id;
  policyAgent = await s.client.mint({ scopes: ['org.read', 'admin', 'approval.request'], principalKind: 'agent' }, 'policy agent');
});
afterAll(() => s.close());

const rpc = (method: string, params: unknown, key?: string, idem?: string) => s.client.rpc(method, params, { key, idem });
const ok = async (method: string, params: unknown, key?: string) => expectOk(method, await rpc(method, params, key));
const policy = async (query: Record<string, string> = {}, key?: string) => {
  const res = await s.client.get('policy', query, { key });
  expect(res.status, res.raw.slice(0, 300)).toBe(200);
  return res.body;
};

describe('policy.publish: versions by key', () => {
  it('publishes v1; same again: changed:false; a new body: v2; a stale baseVersion: CONFLICT; retire: v3; GET /policy lists it without body, ?key= with body and history', async () => {
    const seq = await head(s.client);
    const v1 = await ok('policy.publish', { key: 'expenses', title: 'Expenses', body: 'Receipts within 30 days.', baseVersion: 0 });
    expect(v1).toMatchObject({
      changed: true,
      policy: {
        key: 'expenses',
        version: 1,
        status: 'published',
        effectiveFrom: '2026-11-02',
        settings: null,
        body: 'Receipts within 30 days.',
        publishedBy: adminId,
      },
    });
    const same = await ok('policy.publish', { key: 'expenses', body: 'Receipts within 30 days.' });
    expect(same.changed).toBe(false);
    const v2 = await ok('policy.publish', { key: 'expenses', body: 'Receipts within 14 days.', effectiveFrom: '2026-12-01', baseVersion: 1 });
    expect(v2.policy).toMatchObject({ version: 2, title: 'Expenses', effectiveFrom: '2026-12-01' });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.version, e.payload.noop ?? false])).toEqual([
      ['policy.version.publish', 1, false],
      ['policy.version.publish', 1, true],
      ['policy.version.publish', 2, false],
    ]);
    expect(events[2].payload).toMatchObject({
      policyId: v1.policy.id,
      status: 'published',
      effectiveFrom: '2026-12-01',
      contentHash: v2.policy.contentHash,
      settings: {},
      approvalId: null,
    });
    await refused(s, 'policy.publish', { key: 'expenses', body: 'x', baseVersion: 1 }, 'CONFLICT', {
      message: `policy ${v1.policy.id} ("expenses") is at version 2, not 1: read it (GET /api/v1/policy?key=expenses) and retry with baseVersion 2`,
    });
    await refused(s, 'policy.publish', { key: 'travel', title: 't', body: 'b', baseVersion: 3 }, 'CONFLICT', {
      message: /^no policy "travel" exists yet \(version 0\)/,
    });

    const retired = await ok('policy.publish', { key: 'expenses', retire: true });
    expect(retired.policy).toMatchObject({ version: 3, status: 'retired', body: 'Receipts within 14 days.' });
    expect((await ok('policy.publish', { key: 'expenses', retire: true })).changed).toBe(false);

    const read = await policy({}, s.agent.apiKey);
    const listed = read.policies.find((p: any) => p.key === 'expenses');
    expect(listed).toMatchObject({ id: v1.policy.id, version: 3, status: 'retired' });
    expect(listed.body).toBeUndefined();
    expect(read.policy).toBeUndefined();
    const one = await policy({ key: 'expenses' });
    expect(one.policy).toMatchObject({ key: 'expenses', body: 'Receipts within 14 days.', version: 3 });
    expect(one.policy.history.map((h: any) => [h.version, h.status])).toEqual([
      [3, 'retired'],
      [2, 'published'],
      [1, 'published'],
    ]);
    const unknown = await s.client.get('policy', { key: 'nope' });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.message]).toEqual([404, 'NOT_FOUND', 'policy nope not found']);
    expect((await other.get('policy', { key: 'expenses' })).status).toBe(404);
  });

  it('misuse: new without title or body, retire unknown, settings beyond the two, a future effectiveFrom with settings, retire with settings, missing scope', async () => {
    await refused(s, 'policy.publish', { key: 'travel', body: 'b' }, 'BAD_REQUEST', { message: 'title: required for a new policy' });
    await refused(s, 'policy.publish', { key: 'travel', title: 't' }, 'BAD_REQUEST', { message: 'body: required for a new policy' });
    await refused(s, 'policy.publish', { key: 'travel', retire: true }, 'NOT_FOUND', { message: 'policy travel not found' });
    await refused(s, 'policy.publish', { key: 'Travel Policy', title: 't', body: 'b' }, 'BAD_REQUEST', { message: /^key: must be 1 to 63 lowercase/ });
    await refused(s, 'policy.publish', { key: 'books', title: 't', body: 'b', settings: { 'books.lockDate': '2026-01-01' } }, 'BAD_REQUEST', {
      message: 'settings.books.lockDate: unknown field',
    });
    await refused(s, 'policy.publish', { key: 'books', title: 't', body: 'b', settings: { 'books.promiseGraceDays': 91 } }, 'BAD_REQUEST', {
      message: /^settings\.books\.promiseGraceDays: must be at most 90/,
    });
    await refused(
      s,
      'policy.publish',
      { key: 'books', title: 't', body: 'b', effectiveFrom: '2026-11-03', settings: { 'books.promiseGraceDays': 5 } },
      'BAD_REQUEST',
      { message: /^effectiveFrom: settings apply at publish, so a version effective from 2026-11-03 \(after today, 2026-11-02\) cannot carry them/ },
    );
    await refused(s, 'policy.publish', { key: 'expenses', retire: true, settings: { 'books.promiseGraceDays': 5 } }, 'BAD_REQUEST', {
      message: /^settings: a retiring version sets nothing/,
    });
    await refused(s, 'policy.publish', { key: 'travel', title: 't', body: 'b' }, 'FORBIDDEN_SCOPE', { key: s.approver.apiKey });
    await refused(s, 'policy.publish', { key: 'travel', title: 't', body: 'b', extra: 1 }, 'BAD_REQUEST', { message: 'extra: unknown field' });
  });

  it('an agent principal’s publish holds for a human; the retry publishes it with the approval', async () => {
    const params = { key: 'agents', title: 'Agents', body: 'Agents escalate within the hour.' };
    const approval = await held(s, 'policy.publish', params, { key: policyAgent.apiKey });
    expect(approval).toMatchObject({ actionClass: 'policy.publish', subject: { kind: 'policy.signature', subjectId: 'agents' } });
    const approvalId = await approved(s, approval, policyAgent.apiKey, s.approver.apiKey);
    const done = await ok('policy.publish', { ...params, approvalId }, policyAgent.apiKey);
    expect(done.policy).toMatchObject({ version: 1, publishedBy: policyAgent.principal.id });
    expect((await policy({ key: 'agents' })).policy.history[0].approvalId).toBe(approvalId);
  });
});

describe('scenario 6 (policy half): raising the floor holds; lowering applies, /policy shows it', () => {
  it('the admin raises the materiality floor: a hold for another human; the admin cannot decide it; the approver does; lowering applies at once', async () => {
    const before = (await policy()).books.materialityFloorCents;
    expect(before).toBe(500_000);
    const raise = {
      key: 'books.floor',
      title: 'Materiality floor',
      body: 'Above $10,000 a human looks.',
      settings: { 'books.materialityFloorCents': 1_000_000 },
    };
    const seq = await head(s.client);
    const approval = await held(s, 'policy.publish', raise);
    expect(approval.deciders).toEqual([s.approver.principal.id]);
    expect((await eventsAfter(s.client, seq)).map((e) => e.kind)).toEqual(['policy.signature.hold']);
    expect((await policy()).books.materialityFloorCents).toBe(500_000);
    const filed = await ok('approval.request', { actionClass: approval.actionClass, payloadHash: approval.payloadHash, subject: approval.subject });
    expect((await rpc('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' })).body.error.code).toBe('CONFLICT');
    await ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, s.approver.apiKey);
    const raised = await ok('policy.publish', { ...raise, approvalId: filed.approvalId });
    expect(raised.policy.settings).toEqual({ 'books.materialityFloorCents': 1_000_000 });
    const event = (await eventsAfter(s.client, seq)).at(-1);
    expect(event.payload).toMatchObject({ settings: { 'books.materialityFloorCents': { from: 500_000, to: 1_000_000 } }, approvalId: filed.approvalId });
    expect((await policy()).books.materialityFloorCents).toBe(1_000_000);

    // Lowering applies at once, for the admin; /policy shows it.
    const lowered = await ok('policy.publish', {
      key: 'books.floor',
      body: 'Above $2,500 a human looks.',
      settings: { 'books.materialityFloorCents': 250_000 },
      baseVersion: 1,
    });
    expect(lowered).toMatchObject({ changed: true, policy: { version: 2 } });
    const read = await policy();
    expect(read.books.materialityFloorCents).toBe(250_000);
    expect(read.policies.find((p: any) => p.key === 'books.floor')).toMatchObject({ version: 2, settings: { 'books.materialityFloorCents': 250_000 } });
    // An agent lowering it still holds (an agent principal's publish always does).
    await held(s, 'policy.publish', { key: 'books.floor', settings: { 'books.materialityFloorCents': 100_000 } }, { key: policyAgent.apiKey });
  });

  it('with no second human who may decide, raising the floor is refused', async () => {
    const res = await other.rpc('policy.publish', { key: 'floor', title: 'Floor', body: 'Higher.', settings: { 'books.materialityFloorCents': 900_000 } });
    expect(res.body.error).toMatchObject({
      code: 'GOVERNANCE_NOT_READY',
      message: expect.stringMatching(/^raising the materiality floor needs a second human/),
    });
    expect((await other.get('policy')).body.books.materialityFloorCents).toBe(500_000);
  });
});

describe('books.promiseGraceDays: set by a policy, honoured by receivables', () => {
  it('with 7 grace days a promise made for 3 Nov is still open on 7 Nov and broken on 11 Nov', async () => {
    await ok('policy.publish', { key: 'receivables', title: 'Receivables', body: 'We give a week’s grace.', settings: { 'books.promiseGraceDays': 7 } });
    expect((await policy()).books.promiseGraceDays).toBe(7);
    const inv = (await s.client.ok('books.invoiceDraft', { payeeName: 'Harbour Cafe', description: 'Bookkeeping', totalCents: 40000, dueDays: 14 })).invoice;
    await s.client.ok('books.invoiceSend', { id: inv.id });
    await s.client.ok('books.invoicePromise', { id: inv.id, date: '2026-11-03' });
    const statusOn = async (date: string) => {
      s.clock.set(date);
      const read = await s.client.ok('books.invoices', { status: 'AUTHORISED', limit: 200 });
      return read.invoices.find((i: any) => i.id === inv.id).promise.status;
    };
    expect(await statusOn('2026-11-07')).toBe('OPEN');
    expect(await statusOn('2026-11-11')).toBe('BROKEN');
    s.clock.set('2026-11-02');
  });
});

describe('GET /policy: the rules in force', () => {
  it('books unchanged, decision rights for anyone, the org’s compact and the caller’s or agentId’s; unknown agent: NOT_FOUND', async () => {
    await ok('governance.set_decision_rights', { rights: [{ area: 'pricing', decidedBy: adminId }] });
    const gen = await ok('persona.generateAgentId', { name: 'Rules Bot', role: 'Clerk', goal: 'Follow the rules', sponsorId: adminId });
    const botKey = (await s.client.mint({ tier: 'agent', principalId: gen.agent.id } as never)).apiKey;
    await ok('compact.upsert', { scope: 'org', terms: { commitments: { agent: ['Be careful.'], sponsor: [] }, limits: { maxOpenHandoffs: 4 } } });
    await ok('compact.upsert', { scope: gen.agent.id, terms: { commitments: { agent: [], sponsor: ['Answer fast.'] }, limits: { monthlySpendCents: 0 } } });

    const mine = await policy({}, botKey);
    expect(Object.keys(mine)).toEqual(['books', 'crm', 'decisionRights', 'policies', 'compacts']);
    expect(mine.crm).toMatchObject({ maxDiscountBps: 1500, maxPaymentDays: 30, minTermMonths: 12, maxTermMonths: 36, shareMaxDays: 90, tokenMaxDays: 30 });
    expect(mine.books).toMatchObject({ gstRateBasisPoints: 1_000, lockDate: null, state: 'NSW', taxInvoiceThresholdCents: 8_250 });
    expect(mine.decisionRights).toEqual({ declared: true, rights: [{ area: 'pricing', decidedBy: adminId }] });
    expect(mine.compacts.org).toMatchObject({ scope: 'org', terms: { limits: { maxOpenHandoffs: 4 } } });
    expect(mine.compacts.agent).toMatchObject({ scope: gen.agent.id, sponsorId: adminId });
    const human = await policy({}, s.approver.apiKey);
    expect(human.compacts.agent).toBeNull();
    expect((await policy({ agentId: gen.agent.id }, s.approver.apiKey)).compacts.agent.scope).toBe(gen.agent.id);
    const unknown = await s.client.get('policy', { agentId: 'agt_unknown000000' });
    expect([unknown.status, unknown.body.error.message]).toEqual([404, 'agent agt_unknown000000 not found']);
    expect((await s.client.get('policy', { agentId: 'usr_x' })).body.error.message).toMatch(/^agentId: must be an agent id/);
    expect((await s.client.get('policy', { colour: 'red' })).body.error.message).toBe('colour: unknown field');
  });
});

describe.skipIf(!onPostgres)('two publishers of a new key (PostgreSQL; PGlite runs calls one at a time, so skipped there)', () => {
  it('both name baseVersion 0: one publishes version 1, the other is a CONFLICT naming it', async () => {
    const results = await Promise.all([1, 2, 3].map((n) => rpc('policy.publish', { key: 'race', title: `Race ${n}`, body: 'b', baseVersion: 0 })));
    expect(results.filter((r) => r.body.ok).length).toBe(1);
    for (const r of results.filter((x) => !x.body.ok))
      expect(r.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/is at version 1, not 0/) });
  });
});
