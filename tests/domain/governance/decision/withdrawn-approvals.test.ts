import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { err, held, ok } from '../../../helpers/calls.js';
import { decisionOrg, file, proposal, type Org } from './setup.js';
import { setRights } from '../../../helpers/people.js';

/*
 * A decision closed (withdrawn, reversed, superseded) closes the approvals still pending for acts on it (a relayed
 * signature, an adoption held for its decider), so no human decides a dead item; other decisions' stay pending.
 */

let o: Org;
beforeAll(async () => {
  o = await decisionOrg();
  await setRights(o.s, [{ area: 'pricing', decidedBy: o.ceo.id, agree: [o.cfo.id] }]);
});
afterAll(() => o.s.close());

const status = async (approvalId: string) => (await ok(o.s, 'approval.get', { approvalId })).status;

describe('approvals of a closed decision', () => {
  it('withdrawn by its driver: the pending relayed signature is withdrawn; another decision’s is not', async () => {
    const { s, staff, cfo, agent } = o;
    const d = await proposal(s, staff.key, 'pricing');
    const kept = await proposal(s, staff.key, 'pricing');
    const sign = async (id: string) =>
      (await file(s, await held(s, 'decision.sign', { decisionId: id, version: 1, onBehalfOf: cfo.id }, { key: agent.key }), agent.key)).approvalId;
    const dead = await sign(d.id);
    const live = await sign(kept.id);
    await ok(s, 'decision.reverse', { decisionId: d.id, reason: 'Not needed after all' }, staff.key);
    expect(await status(dead)).toBe('withdrawn');
    expect((await ok(s, 'approval.get', { approvalId: dead })).note).toContain(d.id);
    expect((await err(s, 'approval.resolve', { approvalId: dead, decision: 'approve' }, cfo.key)).message).toMatch(/already withdrawn/);
    expect(await status(live)).toBe('pending');
  });
});
