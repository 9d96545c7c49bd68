import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openAiProvider } from '../../../../ai-gateway/openai/index.js';
import { quoteLines } from '../../../../domain/people/persona/answerer.js';
import { testServer, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head } from '../../../helpers/calls.js';
import { reply, startMockModel, toolResults, type MockModel } from '../../../ai-gateway/mock-openai.js';

/*
 * persona.regenerate mode model against a model endpoint on loopback (the openai provider, plain chat
 * completions): the model reads the agent with member.get and answers a prompt; it is kept only if every
 * instruction line survives verbatim (and the gateway's grounding holds), else status refused and nothing changes.
 */

const CANARY = 'CANARY-model-q8x2';
let s: TestServer;
let mock: MockModel;
let sponsorId: string;
beforeAll(async () => {
  mock = await startMockModel();
  const provider = openAiProvider({
    baseURL: mock.url,
    apiKey: 'test-key',
    model: 'gpt-4o-mini',
    stream: false,
    maxRetries: 0,
    requestTimeoutMs: 5000,
    maxSteps: 4,
  });
  s = await testServer({ aiProvider: provider });
  sponsorId = (await s.client.ok('member.create', { name: 'Sue Sponsor' })).member.id;
});
afterAll(async () => {
  await s.close();
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

const newAgent = async () =>
  (
    await s.client.ok('persona.generateAgentId', {
      name: 'Model Agent',
      role: `Clerk ${CANARY}`,
      goal: `File bills ${CANARY}`,
      instructions: [`Never pay a bill ${CANARY}.`, 'Escalate anything over $5,000 to your sponsor.'],
      sponsorId,
    })
  ).agent.id as string;

/** The model reads the agent, then answers what `rewrite` makes of its compiled prompt, grounded line by line. */
function readThenRewrite(agentId: string, rewrite: (prompt: string) => string[]) {
  mock.script([
    reply({ toolCalls: [{ id: 'call_1', name: 'member_get', arguments: { memberId: agentId } }] }),
    (req) => {
      const { persona } = toolResults(req).at(-1);
      const kept = rewrite(persona.prompt);
      const claims = quoteLines(agentId, kept.filter((l) => persona.prompt.includes(l)).join('\n'));
      return reply({ content: JSON.stringify({ kind: 'answer', answer: kept.join('\n'), claims }) });
    },
  ]);
}

describe('persona.regenerate mode model', () => {
  it('keeps a rewrite that keeps every instruction line: status compiled, source model, audited', async () => {
    const agentId = await newAgent();
    readThenRewrite(agentId, (prompt) => ['Read this mandate before every task.', ...prompt.split('\n')]);
    const before = await head(s.client);
    const out = expectOk('persona.regenerate', await s.client.rpc('persona.regenerate', { agentId, mode: 'model' }));
    expect(out).toMatchObject({
      changed: true,
      status: 'compiled',
      reason: null,
      persona: { promptSource: 'model', promptStale: false, version: 1 },
      ai: { provider: 'openai' },
    });
    expect(out.persona.prompt.startsWith('Read this mandate before every task.\n')).toBe(true);
    expect(mock.requests).toHaveLength(2);
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => [e.kind, e.payload.mode, e.payload.status, e.payload.auditId])).toEqual([
      ['persona.prompt.regenerate', 'model', 'compiled', out.ai.auditId],
    ]);
    expect(JSON.stringify(events)).not.toContain(CANARY);
    // A template regenerate replaces the model's prompt with the deterministic one again.
    const back = expectOk('persona.regenerate', await s.client.rpc('persona.regenerate', { agentId }));
    expect(back).toMatchObject({ changed: true, status: 'compiled', persona: { promptSource: 'template' } });
  });

  it('refuses a rewrite that drops an instruction line: status refused with the reason, nothing changed, one event', async () => {
    const agentId = await newAgent();
    const before = expectOk('member.get', await s.client.rpc('member.get', { memberId: agentId })).persona;
    readThenRewrite(agentId, (prompt) => prompt.split('\n').filter((l) => !l.includes('Escalate')));
    const seq = await head(s.client);
    const out = expectOk('persona.regenerate', await s.client.rpc('persona.regenerate', { agentId, mode: 'model' }));
    expect(out).toMatchObject({ changed: false, status: 'refused', persona: before });
    expect(out.reason).toMatch(new RegExp(`instruction line 2 of ${agentId} is not kept verbatim`));
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.status, e.payload.noop])).toEqual([['persona.prompt.regenerate', 'refused', true]]);
    expect(JSON.stringify(events)).not.toContain('Escalate');
    const audit = (await s.client.get('ops', { limit: 1 })).body.records[0];
    expect(audit.record).toMatchObject({ method: 'persona.regenerate', verdict: 'ungrounded' });
  });

  it('refuses an ungrounded rewrite (a number the persona does not state)', async () => {
    const agentId = await newAgent();
    readThenRewrite(agentId, (prompt) => [...prompt.split('\n'), 'Work 24 hours a day.']);
    const out = expectOk('persona.regenerate', await s.client.rpc('persona.regenerate', { agentId, mode: 'model' }));
    expect(out).toMatchObject({ changed: false, status: 'refused' });
    expect(out.reason).toMatch(/states 24, which is none of the answer's figures/);
  });

  it("an agent's model regenerate holds before any model is called", async () => {
    const agentId = await newAgent();
    const agent = await s.client.mint({ tier: 'agent' }, 'some agent');
    const res = await s.client.rpc('persona.regenerate', { agentId, mode: 'model' }, { key: agent.apiKey });
    expect(res.body.result).toMatchObject({
      status: 'approval_required',
      approval: { actionClass: 'persona.regenerate', subject: { kind: 'persona.signature', subjectId: agentId } },
    });
    expect(mock.requests).toHaveLength(0);
    // Its template regenerate is no mandate write: it runs.
    expect((await s.client.ok('persona.regenerate', { agentId }, { key: agent.apiKey })).status).toBe('unchanged');
  });
});
