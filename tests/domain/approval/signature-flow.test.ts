import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { method } from '../../../protocol/contract.js';
import { proofFields } from '../../../protocol/schema.js';
import { handler, type MethodHandler } from '../../../domain/core/handler.js';
import { signaturePayloadHash } from '../../../domain/approval/signature.js';
import { allEvents, testServer, type TestServer } from '../../helpers/harness.js';

/*
 * The pipeline's signature machinery, exercised through a stand-in for a signature act (books lands in its
 * own issue). The act writes a marker row BEFORE asking for proof, so a hold must undo it.
 */
const actContract = method({
  summary: 'test signature act',
  events: ['books.payroll.sign'],
  hold: { completion: 'retry' },
  params: z.strictObject({ runId: z.string(), amountCents: z.number().int(), ...proofFields }),
  example: { runId: 'run_1', amountCents: 100 },
});
const act = handler(actContract, async (ctx, p) => {
  await ctx.q.query('INSERT INTO principals (org_id, principal_id, kind, name) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
    ctx.orgId,
    `agt_marker${p.runId.replace(/\W/g, '')}`,
    'agent',
    'marker',
  ]);
  const proof = await ctx.requireSignature({ actionClass: 'books.payroll_sign', subjectId: p.runId, summary: `Pay run ${p.runId}`, params: p });
  const event = await ctx.emitAndWait('books.payroll.sign', p.runId, { runId: p.runId, approvalId: proof.approvalId });
  return { runId: p.runId, status: 'POSTED', ledgerId: event.ledgerId };
});

let s: TestServer;
let agent: { apiKey: string; principal: { id: string } };
let approver: { apiKey: string; principal: { id: string } };
const markerExists = async (runId: string) =>
  (await s.runtime.db.query('SELECT 1 FROM principals WHERE org_id = $1 AND principal_id = $2', [s.org.orgId, `agt_marker${runId}`])).length > 0;

beforeAll(async () => {
  s = await testServer({ extraHandlers: new Map<string, MethodHandler>([['books.payrollSign', act]]) });
  agent = await s.client.mint({ tier: 'agent' }, 'payroll agent');
  approver = await s.client.mint({ tier: 'approver' }, 'finance lead');
});
afterAll(() => s.close());

async function hold(runId: string, idem: string) {
  const res = await s.client.rpc('books.payrollSign', { runId, amountCents: 1200 }, { key: agent.apiKey, idem });
  expect(res.status).toBe(200);
  return res;
}

describe('signature law machinery', () => {
  it('holds without proof: hold frame, one books.signature.hold event, nothing else changed', async () => {
    const before = await s.client.get('snapshot');
    const res = await hold('r1', 'k-r1');
    const r = res.body.result;
    expect(r.status).toBe('approval_required');
    expect(r.approval).toMatchObject({ actionClass: 'books.payroll_sign', subject: { kind: 'books.signature', subjectId: 'r1', summary: 'Pay run r1' } });
    expect(r.approval.payloadHash).toBe(signaturePayloadHash('books.payroll_sign', 'r1', { runId: 'r1', amountCents: 1200 }));
    expect(r.approval.expiresInMs).toBeGreaterThan(0);
    expect(r.subjectId).toBe('r1');
    expect(r.message).toMatch(/approval\.request/);
    const after = await s.client.get('snapshot');
    expect(after.body.head.seq).toBe(before.body.head.seq + 1);
    const events = await allEvents(s.client);
    expect(events.at(-1)).toMatchObject({ kind: 'books.signature.hold', family: 'books', entity_id: 'r1', actor: agent.principal.id });
    expect(await markerExists('r1')).toBe(false);
    // The held frame is the cached result for its key.
    const replay = await s.client.rpc('books.payrollSign', { runId: 'r1', amountCents: 1200 }, { key: agent.apiKey, idem: 'k-r1' });
    expect(replay.raw).toBe(res.raw);
    expect(replay.headers['idempotent-replay']).toBe('true');
  });

  it('hold -> approval.request -> human approve -> retry with proof executes; proof is single-use', async () => {
    const held = (await hold('r2', 'k-r2a')).body.result;
    const filed = await s.client.ok(
      'approval.request',
      { actionClass: held.approval.actionClass, payloadHash: held.approval.payloadHash, subject: held.approval.subject },
      { key: agent.apiKey },
    );
    expect(filed).toMatchObject({ status: 'pending', heldAct: { method: 'books.payrollSign', params: { runId: 'r2', amountCents: 1200 } } });
    expect(filed.url).toMatch(new RegExp(`/approvals/${filed.approvalId}$`));

    // Still pending: the act refuses and changes nothing.
    const early = await s.client.rpc(
      'books.payrollSign',
      { runId: 'r2', amountCents: 1200, approvalId: filed.approvalId },
      { key: agent.apiKey, idem: 'k-r2b' },
    );
    expect(early.body.error).toMatchObject({ code: 'GOVERNANCE_NOT_READY' });
    expect(early.body.error.message).toMatch(/pending/);

    // The agent cannot resolve it, nor can the human who requested it.
    const byAgent = await s.client.rpc('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: agent.apiKey });
    expect(byAgent.status).toBe(403);
    const decided = await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve', note: 'ok' }, { key: approver.apiKey });
    expect(decided.status).toBe('approved');
    expect(decided.signatureToken).toMatch(new RegExp(`^${filed.approvalId}\\.[0-9a-f]{64}$`));

    const done = await s.client.ok('books.payrollSign', { runId: 'r2', amountCents: 1200, approvalId: filed.approvalId }, { key: agent.apiKey, idem: 'k-r2c' });
    expect(done).toMatchObject({ runId: 'r2', status: 'POSTED' });
    expect(await markerExists('r2')).toBe(true);
    const events = await allEvents(s.client);
    expect(events.at(-1)).toMatchObject({ kind: 'books.payroll.sign', entity_id: 'r2' });
    expect(events.at(-1).row_hash.slice(0, 8)).toBe(done.ledgerId);

    const again = await s.client.rpc(
      'books.payrollSign',
      { runId: 'r2', amountCents: 1200, approvalId: filed.approvalId },
      { key: agent.apiKey, idem: 'k-r2d' },
    );
    expect(again.body.error.code).toBe('GOVERNANCE_NOT_READY');
    expect(again.body.error.message).toMatch(/already used/);
    expect((await s.client.ok('approval.get', { approvalId: filed.approvalId }, { key: agent.apiKey })).used).toBe(true);
  });

  it('signatureToken works as proof; a proof for other params or another subject is CONFLICT', async () => {
    const held = (await hold('r3', 'k-r3a')).body.result;
    const filed = await s.client.ok(
      'approval.request',
      { actionClass: held.approval.actionClass, payloadHash: held.approval.payloadHash, subject: held.approval.subject },
      { key: agent.apiKey },
    );
    const decided = await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver.apiKey });

    const otherParams = await s.client.rpc(
      'books.payrollSign',
      { runId: 'r3', amountCents: 999999, signatureToken: decided.signatureToken },
      { key: agent.apiKey, idem: 'k-r3b' },
    );
    expect(otherParams.status).toBe(409);
    expect(otherParams.body.error.code).toBe('CONFLICT');
    const otherSubject = await s.client.rpc(
      'books.payrollSign',
      { runId: 'r9', amountCents: 1200, approvalId: filed.approvalId },
      { key: agent.apiKey, idem: 'k-r3c' },
    );
    expect(otherSubject.body.error.code).toBe('CONFLICT');
    expect(await markerExists('r9')).toBe(false);
    // The failed attempts did not burn the proof.
    const done = await s.client.ok(
      'books.payrollSign',
      { runId: 'r3', amountCents: 1200, signatureToken: decided.signatureToken },
      { key: agent.apiKey, idem: 'k-r3d' },
    );
    expect(done.status).toBe('POSTED');
  });

  it('a rejected approval refuses the act and says so', async () => {
    const held = (await hold('r4', 'k-r4a')).body.result;
    const filed = await s.client.ok(
      'approval.request',
      { actionClass: held.approval.actionClass, payloadHash: held.approval.payloadHash, subject: held.approval.subject },
      { key: agent.apiKey },
    );
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'reject', note: 'wrong period' }, { key: approver.apiKey });
    const res = await s.client.rpc('books.payrollSign', { runId: 'r4', amountCents: 1200, approvalId: filed.approvalId }, { key: agent.apiKey, idem: 'k-r4b' });
    expect(res.body.error.code).toBe('GOVERNANCE_NOT_READY');
    expect(res.body.error.message).toMatch(/rejected/);
    expect(await markerExists('r4')).toBe(false);
  });

  it('an expired approval refuses the act and says so', async () => {
    const held = (await hold('r5', 'k-r5a')).body.result;
    const filed = await s.client.ok(
      'approval.request',
      { actionClass: held.approval.actionClass, payloadHash: held.approval.payloadHash, subject: held.approval.subject },
      { key: agent.apiKey },
    );
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver.apiKey });
    await s.runtime.db.query(`UPDATE approvals SET expires_at = now() - interval '1 second' WHERE approval_id = $1`, [filed.approvalId]);
    const res = await s.client.rpc('books.payrollSign', { runId: 'r5', amountCents: 1200, approvalId: filed.approvalId }, { key: agent.apiKey, idem: 'k-r5b' });
    expect(res.body.error.code).toBe('GOVERNANCE_NOT_READY');
    expect(res.body.error.message).toMatch(/expired/);
  });

  it('a proof from another org is CONFLICT', async () => {
    const other = await testServerOrg();
    const res = await s.client.rpc('books.payrollSign', { runId: 'r6', amountCents: 1, approvalId: other }, { key: agent.apiKey, idem: 'k-r6' });
    expect(res.body.error.code).toBe('CONFLICT');
  });
});

/** An approved approval in a second org, to prove proofs do not cross orgs. */
async function testServerOrg(): Promise<string> {
  const { freshOrg, TestClient } = await import('../../helpers/harness.js');
  const org = await freshOrg(s.runtime);
  const c = new TestClient(s.app, org.adminKey);
  const a = await c.mint({ tier: 'agent' });
  const held = (await c.rpc('books.payrollSign', { runId: 'r6', amountCents: 1 }, { key: a.apiKey })).body.result;
  const filed = await c.ok(
    'approval.request',
    { actionClass: held.approval.actionClass, payloadHash: held.approval.payloadHash, subject: held.approval.subject },
    { key: a.apiKey },
  );
  await c.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' });
  return filed.approvalId;
}
