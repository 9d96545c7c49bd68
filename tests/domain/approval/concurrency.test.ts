import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { method } from '../../../protocol/contract.js';
import { proofFields } from '../../../protocol/schema.js';
import { appendEvent } from '../../../ledger/append.js';
import { authenticate } from '../../../domain/core/auth.js';
import { handler, type MethodHandler } from '../../../domain/core/handler.js';
import { HoldSignal } from '../../../domain/core/holds.js';
import { bindingFor } from '../../../domain/approval/binding.js';
import { holdKeeper } from '../../../domain/approval/keeper.js';
import { lockPayload } from '../../../domain/approval/service.js';
import { signaturePayloadHash } from '../../../domain/approval/signature.js';
import { onPostgres, testServer, type TestServer } from '../../helpers/harness.js';

/*
 * Holds and approval requests of one act at once (PostgreSQL: PGlite has one connection, so its transactions never
 * overlap). Each looked for a pending approval before filing one, with nothing locked: racing holds of one release
 * act filed one approval each. And the keeper recorded the held act after the ledger append: approval.request, which
 * share-locks that row and then appends, deadlocked with it.
 */

const PG = '(PostgreSQL only: skipped on PGlite)';

/** Stand-ins for a family's signature acts: one completing by retry, one by release. */
const retryAct = handler(
  method({
    summary: 'test retry act',
    events: ['books.payroll.sign'],
    hold: { completion: 'retry' },
    params: z.strictObject({ runId: z.string(), ...proofFields }),
    example: { runId: 'run_1' },
  }),
  async (ctx, p) => {
    const proof = await ctx.requireSignature({ actionClass: 'books.payroll_sign', subjectId: p.runId, summary: `Pay run ${p.runId}`, params: p });
    const event = await ctx.emitAndWait('books.payroll.sign', p.runId, { runId: p.runId, approvalId: proof.approvalId });
    return { runId: p.runId, ledgerId: event.ledgerId };
  },
);
const releaseAct = handler(
  method({
    summary: 'test release act',
    events: ['email.sent'],
    hold: { completion: 'release' },
    params: z.strictObject({ messageId: z.string() }),
    example: { messageId: 'm1' },
  }),
  async (ctx, p) => {
    const proof = await ctx.requireSignature({
      actionClass: 'email.send',
      subjectId: p.messageId,
      summary: `Send ${p.messageId}`,
      params: p,
      completion: 'release',
    });
    const event = await ctx.emitAndWait('email.sent', p.messageId, { messageId: p.messageId, proof: proof.approvalId });
    return { messageId: p.messageId, ledgerId: event.ledgerId };
  },
);

let s: TestServer;
let agent: { apiKey: string; principal: { id: string } };
beforeAll(async () => {
  s = await testServer({
    extraHandlers: new Map<string, MethodHandler>([
      ['books.payrollSign', retryAct],
      ['email.send', releaseAct],
    ]),
  });
  agent = await s.client.mint({ tier: 'agent' }, 'racing agent');
});
afterAll(() => s.close());

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const fresh = (prefix: string) => `${prefix}${Date.now().toString(36)}${++n}`;
const approvalsOf = async (payloadHash: string) =>
  (
    await s.runtime.db.query<{ approval_id: string }>('SELECT approval_id FROM approvals WHERE org_id = $1 AND payload_hash = $2', [s.org.orgId, payloadHash])
  ).map((r) => r.approval_id);
const retryRequest = (runId: string) => ({
  actionClass: 'books.payroll_sign',
  payloadHash: signaturePayloadHash('books.payroll_sign', runId, { runId }),
  subject: { kind: 'books.signature', subjectId: runId, summary: `Pay run ${runId}` },
});

describe('one act held and filed at once', () => {
  it.skipIf(!onPostgres)(`two holds of one release act in two transactions file one approval, the second finding the first's ${PG}`, async () => {
    const messageId = fresh('m');
    const params = { messageId };
    const signal = () =>
      new HoldSignal(
        { actionClass: 'email.send', subjectId: messageId, summary: `Send ${messageId}`, params, completion: 'release' },
        signaturePayloadHash('email.send', messageId, params),
      );
    const principal = await authenticate(s.runtime.db, agent.apiKey);
    const hold = (q: Parameters<typeof holdKeeper.hold>[0]) =>
      holdKeeper.hold(q, { orgId: s.org.orgId, principal, method: 'email.send', signal: signal(), deps: s.runtime.deps });
    const order: string[] = [];
    const filed = (r: Awaited<ReturnType<typeof hold>>) => ('result' in r ? r.result.approval.approvalId : undefined);
    const first = s.runtime.db.tx(async (q) => {
      const id = filed(await hold(q));
      order.push('first held');
      await pause(300);
      order.push('first commits');
      return id;
    });
    await pause(100);
    const second = s.runtime.db.tx(async (q) => {
      const id = filed(await hold(q));
      order.push('second held');
      return id;
    });
    const [a, b] = await Promise.all([first, second]);
    expect(order).toEqual(['first held', 'first commits', 'second held']);
    expect(a).toMatch(/^apr_/);
    expect(b).toBe(a);
    expect(await approvalsOf(signal().payloadHash)).toEqual([a]);
  });

  it.skipIf(!onPostgres)(`an act held again while approval.request reads its hold waits for the request, and both commit ${PG}`, async () => {
    const runId = fresh('r');
    await s.client.ok('books.payrollSign', { runId }, { key: agent.apiKey });
    const req = retryRequest(runId);
    const order: string[] = [];
    // As approval.request runs: the payload's lock, the held act share-locked (binding.ts), the ledger append last.
    const request = s.runtime.db.tx(async (q) => {
      await lockPayload(q, s.org.orgId, req.payloadHash);
      await bindingFor(q, s.org.orgId, req);
      order.push('request read the hold');
      await pause(300);
      await appendEvent(q, s.org.orgId, { family: 'approval', kind: 'approval.request.create', entityId: 'apr_race', actor: agent.principal.id, payload: {} });
      order.push('request commits');
    });
    await pause(100);
    const again = await s.client.rpc('books.payrollSign', { runId }, { key: agent.apiKey });
    order.push('held again');
    await request;
    expect(again.body.ok, again.raw.slice(0, 300)).toBe(true);
    expect(again.body.result.status).toBe('approval_required');
    expect(order).toEqual(['request read the hold', 'request commits', 'held again']);
  });

  it.skipIf(!onPostgres).each([1, 2, 3])(`holds of one release act fired at once all answer ok and name one approval (round %i) ${PG}`, async () => {
    const messageId = fresh('m');
    const answers = await Promise.all([1, 2, 3].map(() => s.client.rpc('email.send', { messageId }, { key: agent.apiKey })));
    for (const a of answers) expect(a.body.ok, a.raw.slice(0, 300)).toBe(true);
    const named = new Set(answers.map((a) => a.body.result.approval.approvalId));
    expect(named.size).toBe(1);
    expect(await approvalsOf(signaturePayloadHash('email.send', messageId, { messageId }))).toEqual([...named]);
  });

  it.skipIf(!onPostgres).each([1, 2, 3])(
    `an act held again and its approval requested, each twice at once, all answer ok with one approval (round %i) ${PG}`,
    async () => {
      const runId = fresh('r');
      await s.client.ok('books.payrollSign', { runId }, { key: agent.apiKey });
      const req = retryRequest(runId);
      const answers = await Promise.all([
        s.client.rpc('approval.request', req, { key: agent.apiKey }),
        s.client.rpc('books.payrollSign', { runId }, { key: agent.apiKey }),
        s.client.rpc('approval.request', req, { key: agent.apiKey }),
        s.client.rpc('books.payrollSign', { runId }, { key: agent.apiKey }),
      ]);
      for (const a of answers) expect(a.body.ok, a.raw.slice(0, 300)).toBe(true);
      expect(answers[2].body.result.approvalId).toBe(answers[0].body.result.approvalId);
      expect(await approvalsOf(req.payloadHash)).toEqual([answers[0].body.result.approvalId]);
    },
  );
});
