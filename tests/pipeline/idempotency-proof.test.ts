import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { method } from '../../protocol/contract.js';
import { proofFields } from '../../protocol/schema.js';
import { handler, type MethodHandler } from '../../domain/core/handler.js';
import { testServer, type TestServer } from '../helpers/harness.js';
import { expectError } from '../helpers/frames.js';
import { headOf } from '../helpers/ledger.js';

/*
 * Spec, idempotency rule 8: a held result is the cached result for its key; after approval the retry must use
 * the proof plus a fresh key, and replaying the old key returns the hold frame again. The proof fields are not
 * part of the params a key is bound to (as the payloadHash leaves them out); any other change still is.
 */
const act = handler(
  method({
    summary: 'stand-in signature act',
    events: ['books.payroll.sign'],
    hold: { completion: 'retry' },
    params: z.strictObject({ runId: z.string(), amountCents: z.number().int(), ...proofFields }),
    example: { runId: 'run_1', amountCents: 100 },
  }),
  async (ctx, p) => {
    const proof = await ctx.requireSignature({ actionClass: 'books.payroll_sign', subjectId: p.runId, summary: `Pay run ${p.runId}`, params: p });
    await ctx.emit('books.payroll.sign', p.runId, { runId: p.runId, approvalId: proof.approvalId });
    return { runId: p.runId, status: 'POSTED' };
  },
);

let s: TestServer;
let agentKey: string;
beforeAll(async () => {
  s = await testServer({ extraHandlers: new Map<string, MethodHandler>([['books.payrollSign', act]]) });
  agentKey = (await s.client.mint({ tier: 'agent' }, 'payroll agent')).apiKey;
});
afterAll(() => s.close());

describe('a held act and its key', () => {
  it('the old key with the proof added replays the hold frame; with other act params it is BAD_REQUEST', async () => {
    const held = await s.client.rpc('books.payrollSign', { runId: 'r8', amountCents: 1200 }, { key: agentKey, idem: 'held-key' });
    expect(held.body.result.status).toBe('approval_required');
    const seq = (await headOf(s.runtime.db, s.org.orgId)).seq;
    for (const proof of [{ approvalId: 'apr_0123456789abcdef' }, { signatureToken: 'apr_0123456789abcdef.00' }]) {
      const again = await s.client.rpc('books.payrollSign', { runId: 'r8', amountCents: 1200, ...proof }, { key: agentKey, idem: 'held-key' });
      expect(again.headers['idempotent-replay']).toBe('true');
      expect(again.raw).toBe(held.raw);
    }
    expectError(
      await s.client.rpc('books.payrollSign', { runId: 'r8', amountCents: 9999, approvalId: 'apr_0123456789abcdef' }, { key: agentKey, idem: 'held-key' }),
      'BAD_REQUEST',
      /^x-idempotency-key: already used for books\.payrollSign with different params/,
    );
    expect((await headOf(s.runtime.db, s.org.orgId)).seq).toBe(seq);
  });
});
