import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshOrg, testServer, TestClient, type TestServer } from '../../helpers/harness.js';

let s: TestServer;
let agent: { apiKey: string; principal: { id: string } };
let approver: { apiKey: string; principal: { id: string } };
const HASH = 'a'.repeat(64);
const generic = (subjectId: string, summary = `Publish ${subjectId}`) => ({
  actionClass: 'board.publish_plan',
  payloadHash: HASH,
  subject: { kind: 'board.plan', subjectId, summary },
});

beforeAll(async () => {
  s = await testServer();
  agent = await s.client.mint({ tier: 'agent' });
  approver = await s.client.mint({ tier: 'approver' });
});
afterAll(() => s.close());

describe('approval.request', () => {
  it('files a pending approval with one event', async () => {
    const before = (await s.client.get('snapshot')).body.head.seq;
    const a = await s.client.ok('approval.request', generic('plan_1'), { key: agent.apiKey });
    expect(a).toMatchObject({ status: 'pending', requestedBy: agent.principal.id, heldAct: null, used: false, decidedBy: null });
    expect(a.approvalId).toMatch(/^apr_/);
    expect((await s.client.get('snapshot')).body.head.seq).toBe(before + 1);
  });

  it('books.signature needs a matching held act', async () => {
    const res = await s.client.rpc(
      'approval.request',
      { ...generic('pay_x'), actionClass: 'books.payroll_sign', subject: { kind: 'books.signature', subjectId: 'pay_x', summary: 'x' } },
      { key: agent.apiKey },
    );
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(/held act/);
  });

  it('refiling the same pending request gives back the same approval', async () => {
    const a = await s.client.ok('approval.request', generic('plan_2'), { key: agent.apiKey });
    const b = await s.client.ok('approval.request', generic('plan_2'), { key: agent.apiKey });
    expect(b.approvalId).toBe(a.approvalId);
  });

  it('validates fields by name', async () => {
    const bad = await s.client.rpc('approval.request', { ...generic('p'), payloadHash: 'xyz' }, { key: agent.apiKey });
    expect(bad.body.error).toEqual({ code: 'BAD_REQUEST', message: 'payloadHash: must be 64 lowercase hex characters' });
    const missing = await s.client.rpc('approval.request', { actionClass: 'a.b', payloadHash: HASH }, { key: agent.apiKey });
    expect(missing.body.error).toEqual({ code: 'BAD_REQUEST', message: 'subject: required' });
    const reader = await s.client.mint({ tier: 'reader' });
    const forbidden = await s.client.rpc('approval.request', generic('p'), { key: reader.apiKey });
    expect(forbidden.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope approval.request for approval.request' });
  });
});

describe('approval.resolve', () => {
  it('a human approver decides once; a second decision is CONFLICT', async () => {
    const a = await s.client.ok('approval.request', generic('plan_3'), { key: agent.apiKey });
    const r = await s.client.ok('approval.resolve', { approvalId: a.approvalId, decision: 'reject', note: 'not now' }, { key: approver.apiKey });
    expect(r).toMatchObject({ status: 'rejected', decidedBy: approver.principal.id, note: 'not now' });
    expect(r.signatureToken).toBeUndefined();
    const again = await s.client.rpc('approval.resolve', { approvalId: a.approvalId, decision: 'approve' }, { key: approver.apiKey });
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('the requesting human may not decide their own request', async () => {
    const a = await s.client.ok('approval.request', generic('plan_4'));
    const own = await s.client.rpc('approval.resolve', { approvalId: a.approvalId, decision: 'approve' });
    // A rule about who decides, not a missing scope: CONFLICT.
    expect(own.status).toBe(409);
    expect(own.body.error).toEqual({ code: 'CONFLICT', message: expect.stringMatching(/who never decides their own request: another human must decide it$/) });
  });

  it('an agent key lacks approval.decide; an agent principal with the scope is still refused', async () => {
    const a = await s.client.ok('approval.request', generic('plan_5'), { key: approver.apiKey });
    const plain = await s.client.rpc('approval.resolve', { approvalId: a.approvalId, decision: 'approve' }, { key: agent.apiKey });
    expect(plain.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope approval.decide for approval.resolve' });
    const sneaky = await s.client.mint({ scopes: ['approval.decide'], principalKind: 'agent' });
    const res = await s.client.rpc('approval.resolve', { approvalId: a.approvalId, decision: 'approve' }, { key: sneaky.apiKey });
    // The scope is held; a human's decision is what is missing: GOVERNANCE_NOT_READY saying where a human makes it.
    expect(res.status).toBe(423);
    expect(res.body.error).toEqual({
      code: 'GOVERNANCE_NOT_READY',
      message: `approval.resolve records a human's decision and ${sneaky.principal.id} is an agent: a human decides approval ${a.approvalId} in the approval inbox or over HTTP; wait for it (approval.wait)`,
    });
  });

  it('another org’s approval is NOT_FOUND', async () => {
    const other = await freshOrg(s.runtime);
    const oc = new TestClient(s.app, other.adminKey);
    const theirs = await oc.ok('approval.request', generic('plan_x'));
    const res = await s.client.rpc('approval.resolve', { approvalId: theirs.approvalId, decision: 'approve' }, { key: approver.apiKey });
    expect(res.status).toBe(404);
    expect((await s.client.rpc('approval.get', { approvalId: theirs.approvalId })).status).toBe(404);
  });
});

describe('approval.list and approval.get', () => {
  it('pages newest first and filters by status without events', async () => {
    const org = await freshOrg(s.runtime);
    const c = new TestClient(s.app, org.adminKey);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await c.ok('approval.request', generic(`p${i}`))).approvalId);
    const seq = (await c.get('snapshot')).body.head.seq;
    const first = await c.ok('approval.list', { limit: 2 });
    expect(first.approvals).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const rest = await c.ok('approval.list', { limit: 10, cursor: first.nextCursor });
    expect(rest.nextCursor).toBeNull();
    const seen = [...first.approvals, ...rest.approvals].map((a: { approvalId: string }) => a.approvalId);
    expect(new Set(seen)).toEqual(new Set(ids));
    expect((await c.ok('approval.list', { status: 'approved' })).approvals).toHaveLength(0);
    expect((await c.ok('approval.list', { status: 'pending' })).approvals).toHaveLength(5);
    expect((await c.get('snapshot')).body.head.seq).toBe(seq);
    const bad = await c.rpc('approval.list', { cursor: 'nonsense' });
    expect(bad.body.error).toEqual({ code: 'BAD_REQUEST', message: 'cursor: not a cursor returned by approval.list' });
  });

  it('reports expired approvals as expired', async () => {
    const a = await s.client.ok('approval.request', generic('plan_6'), { key: agent.apiKey });
    await s.runtime.db.query(`UPDATE approvals SET expires_at = now() - interval '1 minute' WHERE approval_id = $1`, [a.approvalId]);
    expect((await s.client.ok('approval.get', { approvalId: a.approvalId })).status).toBe('expired');
    const late = await s.client.rpc('approval.resolve', { approvalId: a.approvalId, decision: 'approve' }, { key: approver.apiKey });
    expect(late.body.error.code).toBe('CONFLICT');
  });
});

describe('GET /approval.wait', () => {
  it('returns at once when decided, times out when pending, and wakes on a decision', async () => {
    const a = await s.client.ok('approval.request', generic('plan_7'), { key: agent.apiKey });
    const timedOut = await s.client.get('approval.wait', { approvalId: a.approvalId, timeoutMs: 50 }, { key: agent.apiKey });
    expect(timedOut.status).toBe(200);
    expect(timedOut.body).toMatchObject({ status: 'pending', timedOut: true });

    const started = Date.now();
    const waiting = s.client.get('approval.wait', { approvalId: a.approvalId, timeoutMs: 20_000 }, { key: agent.apiKey });
    await new Promise((r) => setTimeout(r, 100));
    await s.client.ok('approval.resolve', { approvalId: a.approvalId, decision: 'approve' }, { key: approver.apiKey });
    const woke = await waiting;
    expect(woke.body).toMatchObject({ status: 'approved', timedOut: false });
    // A board.plan approval is bound to no held act: it can never be a proof, so no token is minted for it.
    expect(woke.body.signatureToken).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('validates its query and hides other orgs', async () => {
    const bad = await s.client.get('approval.wait', { approvalId: 'apr_x', timeoutMs: 70_000 }, { key: agent.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('timeoutMs: must be at most 50000');
    const missing = await s.client.get('approval.wait', { approvalId: 'apr_doesnotexist', timeoutMs: 0 }, { key: agent.apiKey });
    expect(missing.status).toBe(404);
  });
});
