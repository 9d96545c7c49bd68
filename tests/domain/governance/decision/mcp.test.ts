import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectInMemory, structured, toolError } from '../../../mcp/fixtures.js';
import { decisionOrg, type Org } from './setup.js';
import { ok } from '../../../helpers/calls.js';
import { setRights } from '../../../helpers/people.js';

/* The decision family over MCP (the governance desk): its tools and read, and a held adoption completed by a human. */

let o: Org;
beforeAll(async () => {
  o = await decisionOrg();
  await setRights(o.s, [{ area: 'pricing', decidedBy: o.ceo.id, agree: [o.cfo.id] }]);
});
afterAll(() => o.s.close());

describe('decision over MCP', () => {
  it('the governance desk lists the decision tools; an agent proposes, relays a signature and adopts through holds a human decides', async () => {
    const proposer = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'governance' });
    const adopter = await connectInMemory(o.s.runtime, o.agent2.key, { toolsets: 'governance' });
    try {
      const tools = (await proposer.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(
        expect.arrayContaining([
          'decision_propose',
          'decision_sign',
          'decision_adopt',
          'decision_supersede',
          'decision_reverse',
          'decision_comment',
          'decision_requestAdjustment',
          'decision_listComments',
          'decision_list',
        ]),
      );
      const d = structured(
        await proposer.client.callTool({
          name: 'decision_propose',
          arguments: { title: 'Annual plan discount', area: 'pricing', decision: '15% off annual plans.' },
        }),
      ).decision;

      // The CFO's signature relayed by the agent: held for the CFO, who approves; the agent retries.
      const relay = structured(await proposer.client.callTool({ name: 'decision_sign', arguments: { decisionId: d.id, version: 1, onBehalfOf: o.cfo.id } }));
      expect(relay).toMatchObject({
        status: 'approval_required',
        approval: { actionClass: 'decision.sign', deciders: [o.cfo.id] },
        approvalId: expect.stringMatching(/^apr_/),
      });
      await ok(o.s, 'approval.resolve', { approvalId: relay.approvalId, decision: 'approve' }, o.cfo.key);
      const signed = structured(
        await proposer.client.callTool({
          name: 'decision_sign',
          arguments: { decisionId: d.id, version: 1, onBehalfOf: o.cfo.id, approvalId: relay.approvalId },
        }),
      );
      expect(signed).toMatchObject({ changed: true, signature: { signer: o.cfo.id, relayedBy: o.agent.id } });

      // Its own proposal: refused; another agent's adoption holds for the CEO.
      // No scope is missing: a human's decision is (GOVERNANCE_NOT_READY), and the text says who makes it.
      const own = toolError(await proposer.client.callTool({ name: 'decision_adopt', arguments: { decisionId: d.id, version: 1 } }));
      expect(own.code).toBe('GOVERNANCE_NOT_READY');
      expect(own.message).toMatch(/an agent never adopts its own proposal, so nothing changed; a human who decides its area adopts it/);
      // With an approvalId in its params the rule still speaks, not the approval's state.
      const ownWithProof = toolError(
        await proposer.client.callTool({ name: 'decision_adopt', arguments: { decisionId: d.id, version: 1, approvalId: relay.approvalId } }),
      );
      expect(ownWithProof.code).toBe('GOVERNANCE_NOT_READY');
      expect(ownWithProof.message).toMatch(/an agent never adopts its own proposal, so nothing changed; a human who decides its area adopts it/);
      const hold = structured(await adopter.client.callTool({ name: 'decision_adopt', arguments: { decisionId: d.id, version: 1 } }));
      expect(hold).toMatchObject({ status: 'approval_required', approval: { deciders: [o.ceo.id] } });
      await ok(o.s, 'approval.resolve', { approvalId: hold.approvalId, decision: 'approve' }, o.ceo.key);
      const adopted = structured(
        await adopter.client.callTool({ name: 'decision_adopt', arguments: { decisionId: d.id, version: 1, approvalId: hold.approvalId } }),
      );
      expect(adopted.decision).toMatchObject({ status: 'adopted', adopted: { approvalId: hold.approvalId } });

      const listed = structured(await proposer.client.callTool({ name: 'decision_list', arguments: { id: d.id } }));
      expect(listed.requirements).toMatchObject({ missingSigners: [], ready: false });
    } finally {
      await proposer.close();
      await adopter.close();
    }
  });
});
