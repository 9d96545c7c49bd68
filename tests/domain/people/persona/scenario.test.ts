import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head } from '../../../helpers/calls.js';

/*
 * The people group's acceptance scenario 2, "Agent hire": generateAgentId -> pairing.approve {agentId} -> key; a
 * stable whoami prompt hash; the agent's editField instructions -> hold; its sponsor approves; the retry with the
 * approvalId -> version 2; regenerate twice -> changed:false. Plus the agent lane of every persona write.
 */

let s: TestServer;
let sponsor: { apiKey: string; principal: { id: string } };
let approver: { apiKey: string; principal: { id: string } };
beforeAll(async () => {
  s = await testServer();
  sponsor = await s.client.mint({ tier: 'approver' }, 'Sol Sponsor');
  approver = await s.client.mint({ tier: 'approver' }, 'Ann Other');
});
afterAll(() => s.close());

const FROM = `10.${randomBytes(3).join('.')}`;
async function anonymous(params: unknown) {
  const res = await s.app.inject({ method: 'POST', url: '/api/v1/pairing.request', payload: { params }, remoteAddress: FROM });
  return res.json().result;
}
const rpc = (method: string, params: unknown, key?: string, idem?: string) => s.client.rpc(method, params, { key, idem });

/** Pair an agent the way an admin would: the agent asks, the admin approves with the code and agentId, the agent polls. */
async function pair(agentId: string | undefined, agentName = 'payables bot') {
  const p = await anonymous({ orgSlug: s.org.slug, agentName });
  const approved = await rpc('pairing.approve', { pairingId: p.pairingId, code: p.code, ...(agentId ? { agentId } : {}) });
  if (!approved.body.ok) return { error: approved.body.error };
  const claimed = await anonymous({ orgSlug: s.org.slug, pairingId: p.pairingId, pollSecret: p.pollSecret });
  return { approved: approved.body.result, claimed };
}

describe('scenario 2: agent hire', () => {
  it('generate -> pair by agentId -> key; whoami prompt hash stable; held edit approved by the sponsor; regenerate twice', async () => {
    const gen = expectOk(
      'persona.generateAgentId',
      await rpc('persona.generateAgentId', {
        name: 'Payables Bot',
        role: 'Accounts payable clerk',
        goal: 'Capture and route supplier bills',
        instructions: ['Never approve a bill yourself.'],
        toolsets: ['books.payables'],
        sponsorId: sponsor.principal.id,
      }),
    );
    const agentId = gen.agent.id;

    const { approved, claimed } = await pair(agentId);
    expect(approved).toMatchObject({ status: 'approved', agentId });
    expect(claimed).toMatchObject({ status: 'claimed', agentId, apiKey: expect.stringMatching(/^wops_/) });
    const key = claimed.apiKey as string;

    const who = (await s.client.get('org/whoami', {}, { key })).body;
    expect(who).toMatchObject({ principal: { kind: 'agent', id: agentId }, member: { id: agentId, kind: 'agent', handle: 'payables.bot' } });
    expect(who.persona).toEqual({
      version: 1,
      prompt: gen.persona.prompt,
      promptHash: gen.persona.promptHash,
      promptStale: false,
      toolsets: ['books.payables'],
    });
    expect((await s.client.get('org/whoami', {}, { key })).body.persona.promptHash).toBe(gen.persona.promptHash);

    // The agent edits its own instructions: a hold for its sponsor, nothing changed.
    const edit = { agentId, field: 'instructions', value: ['Never approve a bill yourself.', 'Ask Sol when a supplier is new.'] };
    const before = await head(s.client);
    const held = (await rpc('persona.editField', edit, key, 'edit-1')).body.result;
    expect(held).toMatchObject({
      status: 'approval_required',
      approval: {
        actionClass: 'persona.edit_field',
        completion: 'retry',
        subject: { kind: 'persona.signature', subjectId: agentId, summary: 'Change the instructions of the persona of @payables.bot (version 1)' },
      },
    });
    expect((await eventsAfter(s.client, before)).map((e) => [e.kind, e.actor])).toEqual([['persona.signature.hold', agentId]]);
    expect(expectOk('member.get', await rpc('member.get', { memberId: agentId })).persona.version).toBe(1);

    const { actionClass, payloadHash, subject } = held.approval;
    const filed = expectOk('approval.request', await rpc('approval.request', { actionClass, payloadHash, subject }, key));
    expect(filed).toMatchObject({ status: 'pending', deciders: [sponsor.principal.id] });
    // Only the sponsor decides: another approver is refused.
    expect((await rpc('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, approver.apiKey)).body.error.code).toBe('CONFLICT');
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: sponsor.apiKey });

    const done = expectOk('persona.editField', await rpc('persona.editField', { ...edit, approvalId: filed.approvalId }, key, 'edit-2'));
    expect(done).toMatchObject({ changed: true, persona: { version: 2, promptStale: true, instructions: edit.value } });
    const editEvent = (await eventsAfter(s.client, before)).find((e) => e.kind === 'persona.field.edit');
    expect(editEvent.payload).toMatchObject({ agentId, field: 'instructions', version: 2, approvalId: filed.approvalId });
    // The proof is single-use.
    expect((await rpc('persona.editField', { ...edit, value: ['Other.'], approvalId: filed.approvalId }, key, 'edit-3')).body.ok).toBe(false);

    const first = expectOk('persona.regenerate', await rpc('persona.regenerate', { agentId }));
    expect(first).toMatchObject({ changed: true, status: 'compiled', persona: { version: 2, promptStale: false } });
    expect(first.persona.prompt).toContain('- Ask Sol when a supplier is new.');
    for (let i = 0; i < 2; i++)
      expect(expectOk('persona.regenerate', await rpc('persona.regenerate', { agentId }))).toMatchObject({ changed: false, status: 'unchanged' });
    const after = (await s.client.get('org/whoami', {}, { key })).body.persona;
    expect(after).toMatchObject({ version: 2, promptHash: first.persona.promptHash, promptStale: false });
  });

  it("an agent's generateAgentId holds for the sponsor; the retry with the proof creates it", async () => {
    const agent = await s.client.mint({ tier: 'agent' }, 'recruiter agent');
    const params = { name: 'Helper Bot', role: 'Helper', goal: 'Help', sponsorId: sponsor.principal.id };
    const held = (await rpc('persona.generateAgentId', params, agent.apiKey, 'gen-a1')).body.result;
    expect(held).toMatchObject({
      status: 'approval_required',
      approval: { actionClass: 'persona.generate_agent_id', subject: { subjectId: sponsor.principal.id } },
    });
    const { actionClass, payloadHash, subject } = held.approval;
    const filed = await s.client.ok('approval.request', { actionClass, payloadHash, subject }, { key: agent.apiKey });
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: sponsor.apiKey });
    const made = expectOk('persona.generateAgentId', await rpc('persona.generateAgentId', { ...params, approvalId: filed.approvalId }, agent.apiKey, 'gen-a2'));
    expect(made).toMatchObject({ changed: true, agent: { kind: 'agent', status: 'active' }, persona: { version: 1 } });
  });

  it('pairing.approve {agentId}: an agent with a live key, a human id, an unknown agent are refused; pairing without agentId still creates one', async () => {
    const gen = await s.client.ok('persona.generateAgentId', { name: 'Twice Bot', role: 'r', goal: 'g', sponsorId: sponsor.principal.id });
    expect((await pair(gen.agent.id)).claimed.status).toBe('claimed');
    const again = await pair(gen.agent.id);
    expect(again.error).toEqual({
      code: 'CONFLICT',
      message: `agentId: ${gen.agent.id} already has 1 live API key(s); revoke them (settings.revokeApiKey) to pair it again`,
    });
    const human = await pair(sponsor.principal.id);
    expect(human.error.code).toBe('BAD_REQUEST');
    expect(human.error.message).toMatch(/^agentId: must be an agent id/);
    expect((await pair('agt_nobody1')).error.code).toBe('NOT_FOUND');
    // Approved but not claimed yet: a second pairing for the same agent waits for the first.
    const next = await s.client.ok('persona.generateAgentId', { name: 'Waiting Bot', role: 'r', goal: 'g', sponsorId: sponsor.principal.id });
    const p1 = await anonymous({ orgSlug: s.org.slug, agentName: 'w1' });
    await s.client.ok('pairing.approve', { pairingId: p1.pairingId, code: p1.code, agentId: next.agent.id });
    const p2 = await anonymous({ orgSlug: s.org.slug, agentName: 'w2' });
    expect((await rpc('pairing.approve', { pairingId: p2.pairingId, code: p2.code, agentId: next.agent.id })).body.error.message).toBe(
      `agentId: ${next.agent.id} is already bound to approved pairing ${p1.pairingId}, whose key is not claimed yet`,
    );
    const fresh = await pair(undefined, 'brand new');
    expect(fresh.approved.agentId).toMatch(/^agt_/);
    expect(expectOk('member.get', await rpc('member.get', { memberId: fresh.approved.agentId })).persona).toBeNull();
  });
});
