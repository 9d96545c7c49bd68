import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { method } from '../../../protocol/contract.js';
import { HoldResult } from '../../../protocol/frames.js';
import { handler, type MethodHandler } from '../../../domain/core/handler.js';
import { signaturePayloadHash } from '../../../domain/approval/signature.js';
import { one } from '../../../db/types.js';
import { eventsAfter, head } from '../../helpers/calls.js';
import { testServer, type TestServer } from '../../helpers/harness.js';

/*
 * Release mode through the pipeline, with a stand-in for a family's act that is idempotent (I) and leaves the
 * company (the shape of email.send): it writes a marker row before asking for proof (a hold must undo it), holds
 * for every caller in release mode, names its deciders from the params, lets a human amend `to`, and refuses
 * when its marker already exists (the state moved on).
 */
const sendContract = method({
  summary: 'test release act',
  events: ['email.sent'],
  hold: { completion: 'release' },
  params: z.strictObject({
    messageId: z.string().regex(/^[a-z0-9]+$/),
    to: z.string().email(),
    subject: z.string().max(100),
    reviewer: z.string().optional(),
  }),
  example: { messageId: 'm1', to: 'a@example.com', subject: 'hello' },
});
const marker = (messageId: string) => `agt_sent${messageId}`;
const send = handler(sendContract, async (ctx, p) => {
  const [already] = await ctx.q.query('SELECT 1 FROM principals WHERE org_id = $1 AND principal_id = $2', [ctx.orgId, marker(p.messageId)]);
  if (already) throw new (await import('../../../protocol/errors.js')).ApiError('CONFLICT', `message ${p.messageId} was already sent`);
  await ctx.q.query('INSERT INTO principals (org_id, principal_id, kind, name) VALUES ($1, $2, $3, $4)', [
    ctx.orgId,
    marker(p.messageId),
    'agent',
    `to ${p.to}`,
  ]);
  const proof = await ctx.requireSignature({
    actionClass: 'email.send',
    subjectId: p.messageId,
    summary: `Send "${p.subject}" to ${p.to}`,
    params: p,
    completion: 'release',
    amendable: ['to', 'subject'],
    ...(p.reviewer ? { deciders: [p.reviewer] } : {}),
  });
  const event = await ctx.emitAndWait('email.sent', p.messageId, { messageId: p.messageId, proof: proof.approvalId });
  return { messageId: p.messageId, sent: true, ledgerId: event.ledgerId };
});

let s: TestServer;
let agent: { apiKey: string; keyId: string; principal: { id: string } };
let approver: { apiKey: string; principal: { id: string } };
let second: { apiKey: string; principal: { id: string } };
const sentTo = async (messageId: string) =>
  (await s.runtime.db.query<{ name: string }>('SELECT name FROM principals WHERE org_id = $1 AND principal_id = $2', [s.org.orgId, marker(messageId)]))[0]
    ?.name ?? null;

beforeAll(async () => {
  s = await testServer({ extraHandlers: new Map<string, MethodHandler>([['email.send', send]]) });
  agent = await s.client.mint({ tier: 'agent' }, 'mail agent');
  approver = await s.client.mint({ tier: 'approver' }, 'Dana Approver');
  second = await s.client.mint({ tier: 'approver' }, 'Sam Second');
});
afterAll(() => s.close());

async function hold(messageId: string, extra: Record<string, unknown> = {}, key = agent.apiKey, idem = `send-${messageId}`) {
  const res = await s.client.rpc('email.send', { messageId, to: 'client@example.com', subject: 'Quote', ...extra }, { key, idem });
  expect(res.status, res.raw).toBe(200);
  expect(HoldResult.safeParse(res.body.result).error?.issues ?? []).toEqual([]);
  return res;
}

describe('release mode', () => {
  it('holds with the family’s names, files the approval as the caller, and a replay of the key returns the stored frame', async () => {
    const before = await head(s.client);
    const res = await hold('m1');
    const r = res.body.result;
    expect(r.approval).toMatchObject({
      actionClass: 'email.send',
      payloadHash: signaturePayloadHash('email.send', 'm1', { messageId: 'm1', to: 'client@example.com', subject: 'Quote' }),
      subject: { kind: 'email.signature', subjectId: 'm1', summary: 'Send "Quote" to client@example.com' },
      completion: 'release',
      amendable: ['to', 'subject'],
    });
    const events = await eventsAfter(s.client, before);
    expect(events).toMatchObject([
      {
        family: 'email',
        kind: 'email.signature.hold',
        entity_id: 'm1',
        actor: agent.principal.id,
        payload: { completion: 'release', approvalId: r.approval.approvalId },
      },
    ]);
    expect(await sentTo('m1')).toBeNull();
    const filed = await s.client.ok('approval.get', { approvalId: r.approval.approvalId });
    expect(filed).toMatchObject({ status: 'pending', requestedBy: agent.principal.id, completion: 'release', heldAct: { method: 'email.send' } });
    const row = one(
      await s.runtime.db.query<{ requested_key: string }>('SELECT requested_key FROM approvals WHERE org_id = $1 AND approval_id = $2', [
        s.org.orgId,
        r.approval.approvalId,
      ]),
    );
    expect(row.requested_key).toBe(agent.keyId);

    const replay = await hold('m1');
    expect(replay.raw).toBe(res.raw);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(await head(s.client)).toBe(events[0].seq);
    // The same act held again under a new key: the pending approval is the one decision.
    const again = await hold('m1', {}, agent.apiKey, 'send-m1-again');
    expect(again.body.result.approval.approvalId).toBe(r.approval.approvalId);
    expect((await s.client.ok('approval.list', { status: 'pending' })).approvals.filter((a: any) => a.subject.subjectId === 'm1')).toHaveLength(1);
  });

  it('approve with an amendment runs the act in the decision, as the requester, with the approval as its proof', async () => {
    const approvalId = (await hold('m2')).body.result.approval.approvalId;
    const before = await head(s.client);
    const decided = await s.client.ok(
      'approval.resolve',
      { approvalId, decision: 'approve', amendments: { to: 'boss@example.com' } },
      { key: approver.apiKey },
    );
    const final = { messageId: 'm2', to: 'boss@example.com', subject: 'Quote' };
    expect(decided).toMatchObject({
      status: 'approved',
      used: true,
      released: { params: final, payloadHash: signaturePayloadHash('email.send', 'm2', final), amended: ['to'] },
    });
    expect(await sentTo('m2')).toBe('to boss@example.com');
    const events = await eventsAfter(s.client, before);
    expect(events).toMatchObject([
      { family: 'email', kind: 'email.sent', actor: agent.principal.id, payload: { proof: approvalId, approvalId } },
      { family: 'approval', kind: 'approval.request.approve', actor: approver.principal.id, payload: { released: { seq: events[0].seq, amended: ['to'] } } },
    ]);
    // Names and hashes only in the decision's event: the amended value is not there.
    expect(JSON.stringify(events[1].payload)).not.toContain('boss@example.com');
    // No token: the decision ran the act, there is nothing to retry.
    expect(decided.signatureToken).toBeUndefined();
    const retried = await s.client.rpc('email.send', { ...final, approvalId }, { key: agent.apiKey, idem: 'retry-m2' });
    expect(retried.body.ok).toBe(false);
  });

  it('unamended, the act runs with the held params and records no amended field', async () => {
    const approvalId = (await hold('m3')).body.result.approval.approvalId;
    const decided = await s.client.ok('approval.resolve', { approvalId, decision: 'approve' }, { key: approver.apiKey });
    expect(decided.released).toMatchObject({
      params: { messageId: 'm3', to: 'client@example.com', subject: 'Quote' },
      payloadHash: decided.payloadHash,
      amended: [],
    });
    expect(await sentTo('m3')).toBe('to client@example.com');
  });

  it('rejection releases nothing; a failing release is refused with CONFLICT and records nothing', async () => {
    const rejected = (await hold('m4')).body.result.approval.approvalId;
    await s.client.ok('approval.resolve', { approvalId: rejected, decision: 'reject' }, { key: approver.apiKey });
    expect(await sentTo('m4')).toBeNull();

    const approvalId = (await hold('m5')).body.result.approval.approvalId;
    await s.runtime.db.query('INSERT INTO principals (org_id, principal_id, kind, name) VALUES ($1, $2, $3, $4)', [
      s.org.orgId,
      marker('m5'),
      'agent',
      'sent elsewhere',
    ]);
    const before = await head(s.client);
    const res = await s.client.rpc('approval.resolve', { approvalId, decision: 'approve' }, { key: approver.apiKey });
    expect(res.body.error).toEqual({
      code: 'CONFLICT',
      message: `approval ${approvalId} was not decided: releasing email.send failed: CONFLICT: message m5 was already sent. Nothing changed; amend it or reject it`,
    });
    expect(await head(s.client)).toBe(before);
    expect(await s.client.ok('approval.get', { approvalId })).toMatchObject({ status: 'pending', used: false, decidedBy: null });
  });

  it('an amendment the act’s schema refuses, or of a field not amendable, is BAD_REQUEST; a retry approval takes none', async () => {
    const approvalId = (await hold('m6')).body.result.approval.approvalId;
    const bad = await s.client.rpc('approval.resolve', { approvalId, decision: 'approve', amendments: { to: 'not an address' } }, { key: approver.apiKey });
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    expect(bad.body.error.message).toMatch(/^amendments: to: /);
    const notAmendable = await s.client.rpc(
      'approval.resolve',
      { approvalId, decision: 'approve', amendments: { messageId: 'other' } },
      { key: approver.apiKey },
    );
    expect(notAmendable.body.error).toEqual({ code: 'BAD_REQUEST', message: 'amendments.messageId: not amendable; a human may amend only to, subject' });
    expect(await sentTo('m6')).toBeNull();
    // A retry-mode (books) approval takes no amendments.
    const unbound = await s.client.ok(
      'approval.request',
      { actionClass: 'books.note_thing', payloadHash: 'a'.repeat(64), subject: { kind: 'books.note', subjectId: 'x', summary: 'note' } },
      { key: agent.apiKey },
    );
    const refused = await s.client.rpc(
      'approval.resolve',
      { approvalId: unbound.approvalId, decision: 'approve', amendments: { x: 1 } },
      { key: approver.apiKey },
    );
    expect(refused.body.error.code).toBe('BAD_REQUEST');
    expect(refused.body.error.message).toMatch(/^amendments: approval .* is not a release approval/);
  });

  it('deciders: only the named human decides; never an agent, never the requester, even a human one', async () => {
    const named = (await hold('m7', { reviewer: second.principal.id })).body.result;
    expect(named.approval.deciders).toEqual([second.principal.id]);
    const approvalId = named.approval.approvalId;
    const other = await s.client.rpc('approval.resolve', { approvalId, decision: 'approve' }, { key: approver.apiKey });
    expect(other.status).toBe(409);
    expect(other.body.error).toEqual({
      code: 'CONFLICT',
      message: `approval ${approvalId} may be decided only by Sam Second (${second.principal.id}); ${approver.principal.id} is not among them, so nothing changed: one of them decides it`,
    });
    expect((await s.client.rpc('approval.resolve', { approvalId, decision: 'approve' }, { key: agent.apiKey })).body.error.code).toBe('FORBIDDEN_SCOPE');
    expect(await sentTo('m7')).toBeNull();
    await s.client.ok('approval.resolve', { approvalId, decision: 'approve' }, { key: second.apiKey });
    expect(await sentTo('m7')).toBe('to client@example.com');

    // A human's own release hold: that human may not decide it, even when named.
    const mine = (await hold('m8', { reviewer: approver.principal.id }, s.org.adminKey)).body.result.approval.approvalId;
    const self = await s.client.rpc('approval.resolve', { approvalId: mine, decision: 'approve' });
    expect(self.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/another human must decide it/) });
    await s.client.ok('approval.resolve', { approvalId: mine, decision: 'approve' }, { key: approver.apiKey });
    expect(await sentTo('m8')).toBe('to client@example.com');
  });

  it('a revoked requester key releases nothing: the approve is refused, a reject still records', async () => {
    const temp = await s.client.mint({ tier: 'agent' }, 'short-lived agent');
    const approvalId = (await hold('m9', {}, temp.apiKey)).body.result.approval.approvalId;
    await s.client.ok('settings.revokeApiKey', { keyId: temp.keyId });
    const res = await s.client.rpc('approval.resolve', { approvalId, decision: 'approve' }, { key: approver.apiKey });
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.message).toMatch(/no longer valid/);
    expect(await sentTo('m9')).toBeNull();
    expect((await s.client.ok('approval.resolve', { approvalId, decision: 'reject' }, { key: approver.apiKey })).status).toBe('rejected');
  });
});
