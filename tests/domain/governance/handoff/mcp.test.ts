import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectInMemory, structured, toolError } from '../../../mcp/fixtures.js';
import { context, govOrg, task, type GovOrg } from '../escalation/setup.js';
import { ok } from '../../../helpers/calls.js';
import { setRights } from '../../../helpers/people.js';

/* Escalations and handoffs over MCP (the governance desk): the tools listed, a held offer a human decides, acceptance. */

let o: GovOrg;
beforeAll(async () => {
  o = await govOrg();
  await setRights(o.s, [{ area: 'handoff.legal', decidedBy: o.lead.id }]);
});
afterAll(() => o.s.close());

describe('escalation and handoff over MCP', () => {
  it('an agent escalates and hands off through tools; a held offer completes after the human approves; the recipient accepts', async () => {
    const a = await connectInMemory(o.s.runtime, o.agentA.key, { toolsets: 'work' });
    const b = await connectInMemory(o.s.runtime, o.agentB.key, { toolsets: 'work' });
    try {
      const tools = (await a.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(
        expect.arrayContaining([
          'escalation_create',
          'escalation_list',
          'escalation_resolve',
          'handoff_offer',
          'handoff_accept',
          'handoff_decline',
          'handoff_cancel',
        ]),
      );

      const e = structured(
        await a.client.callTool({ name: 'escalation_create', arguments: { title: 'Contract clause unclear', reason: 'outside_rights', to: o.lead.id } }),
      ).escalation;
      expect(e).toMatchObject({ level: 1, assignee: o.lead.id });
      expect(
        toolError(await a.client.callTool({ name: 'escalation_resolve', arguments: { escalationId: e.id, outcome: 'dismissed', resolution: 'n/a' } })).code,
      ).toBe('GOVERNANCE_NOT_READY');

      const t = await task(o.s, o.agentA.key);
      const args = { subject: { kind: 'task', id: t.id }, to: o.agentB.id, brief: 'Legal review left.', area: 'legal' };
      const hold = structured(await a.client.callTool({ name: 'handoff_offer', arguments: args }));
      expect(hold).toMatchObject({
        status: 'approval_required',
        approval: { actionClass: 'handoff.offer', deciders: [o.lead.id] },
        approvalId: expect.stringMatching(/^apr_/),
      });
      await ok(o.s, 'approval.resolve', { approvalId: hold.approvalId, decision: 'approve' }, o.lead.key);
      const offered = structured(await a.client.callTool({ name: 'handoff_offer', arguments: { ...args, approvalId: hold.approvalId } })).handoff;
      expect(offered).toMatchObject({ status: 'offered', approvalId: hold.approvalId });

      const accepted = structured(await b.client.callTool({ name: 'handoff_accept', arguments: { handoffId: offered.id } }));
      expect(accepted).toMatchObject({ changed: true, handoff: { status: 'accepted' } });
      expect((await context(o.s, t.id)).task).toMatchObject({ assignee: o.agentB.id, claimedBy: null });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
