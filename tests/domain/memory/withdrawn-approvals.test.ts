import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileAndApprove, held, mutate, ok, refused } from '../../helpers/calls.js';
import { memOrg, type MemOrg } from '../knowledge/kit.js';

/* An amendment rejected while an agent's merge of it waits for a human: that approval is withdrawn (no dead item in the inbox). */

let o: MemOrg;
beforeAll(async () => {
  o = await memOrg();
});
afterAll(() => o.s.close());

describe('memory.mergeAmendment reject', () => {
  it('closes the approval pending for the agent’s merge of the same amendment', async () => {
    // The agent's shared block (its authoring holds for a human once).
    const params = { label: 'clients', value: 'Acme pays late.', audience: 'org' };
    const authored = await fileAndApprove(o.s, await held(o.s, 'memory.author', params, { key: o.agent.key }), { requester: o.agent.key });
    const block = (await mutate(o.s, 'memory.author', { ...params, approvalId: authored }, 'memory.block.author', { key: o.agent.key })).result.block;
    const amendment = (await ok(o.s, 'memory.proposeAmendment', { blockId: block.id, op: 'append', newText: 'Globex too.', reason: 'Ledger.' }, o.mia.key))
      .amendment;
    const approval = await held(o.s, 'memory.mergeAmendment', { amendmentId: amendment.id, decision: 'merge' }, { key: o.agent.key });
    const { actionClass, payloadHash, subject } = approval;
    const { approvalId } = await ok(o.s, 'approval.request', { actionClass, payloadHash, subject }, o.agent.key);
    expect((await ok(o.s, 'approval.get', { approvalId })).status).toBe('pending');
    await mutate(o.s, 'memory.mergeAmendment', { amendmentId: amendment.id, decision: 'reject' }, 'memory.amendment.reject', { key: o.agent.key });
    expect(await ok(o.s, 'approval.get', { approvalId })).toMatchObject({ status: 'withdrawn', note: expect.stringContaining(amendment.id) });
    await refused(o.s, 'approval.resolve', { approvalId, decision: 'approve' }, 'CONFLICT', { message: /already withdrawn/ });
  });
});
