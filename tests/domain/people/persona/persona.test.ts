import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../protocol/hashing.js';
import { allEvents, testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head, otherOrg } from '../../../helpers/calls.js';

/** persona.*: an agent's mandate compiled into one prompt block (migration 028). */

// Planted in every free-text field: no event may show it.
const CANARY = 'CANARY-persona-7f3q';

let s: TestServer;
let reader: string;
let other: TestClient;
let sponsor: { id: string; handle: string };
beforeAll(async () => {
  s = await testServer();
  reader = (await s.client.mint({ tier: 'reader' }, 'reader')).apiKey;
  other = await otherOrg(s);
  const m = expectOk('member.create', await s.client.rpc('member.create', { name: 'Sam Sponsor' })).member;
  sponsor = { id: m.id, handle: m.handle };
});
afterAll(() => s.close());

const err = async (method: string, params: unknown, key?: string) => (await s.client.rpc(method, params, { key })).body.error;
const fields = (extra: Record<string, unknown> = {}) => ({
  name: `Payables ${CANARY}`,
  role: `Accounts payable clerk ${CANARY}`,
  goal: `Capture supplier bills ${CANARY}`,
  backstory: `Hired in the autumn ${CANARY}`,
  tone: `plain ${CANARY}`,
  instructions: [`Never approve a bill yourself ${CANARY}.`, 'Ask your sponsor when a bill is over $5,000.'],
  toolsets: ['books.payables', 'board'],
  sponsorId: sponsor.id,
  ...extra,
});
const generate = async (extra: Record<string, unknown> = {}) =>
  expectOk('persona.generateAgentId', await s.client.rpc('persona.generateAgentId', fields(extra)));

describe('persona.generateAgentId', () => {
  it('creates an agt_ member (active, sponsored, no keys) and persona v1 with its compiled prompt; one event without free text', async () => {
    const boss = expectOk('member.create', await s.client.rpc('member.create', { name: 'Bea Boss' })).member;
    const before = await head(s.client);
    const out = await generate({ managerId: boss.id });
    expect(out.agent).toMatchObject({
      id: expect.stringMatching(/^agt_/),
      kind: 'agent',
      status: 'active',
      handle: 'payables.canary.persona.7f3q',
      managerId: boss.id,
      version: 1,
    });
    expect(out.persona).toMatchObject({
      agentId: out.agent.id,
      version: 1,
      compiledVersion: 1,
      promptStale: false,
      promptSource: 'template',
      toolsets: ['books.payables', 'board'],
    });
    expect(out.persona.promptHash).toBe(sha256Hex(out.persona.prompt));
    expect(out.persona.prompt).toContain(`@${boss.handle}`);
    expect(out.persona.prompt).toContain(`@${sponsor.handle}`);
    expect(out.persona.prompt).toContain(`- Ask your sponsor when a bill is over $5,000.`);
    expect(out.next).toContain(`pairing.approve {pairingId, code, agentId: "${out.agent.id}"}`);
    expect(out.changed).toBe(true);
    const got = expectOk('member.get', await s.client.rpc('member.get', { memberId: out.agent.id }));
    expect(got.access.liveKeys).toBe(0);
    expect(got.persona).toEqual(out.persona);
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => [e.kind, e.entity_id])).toEqual([['persona.agent.generate', out.agent.id]]);
    expect(events[0].payload).toMatchObject({
      agentId: out.agent.id,
      sponsorId: sponsor.id,
      managerId: boss.id,
      version: 1,
      promptHash: out.persona.promptHash,
      instructions: 2,
    });
    expect(JSON.stringify(events)).not.toContain(CANARY);
  });

  it('is idempotent: the same key replays the stored frame and appends nothing', async () => {
    const first = await s.client.rpc('persona.generateAgentId', fields(), { idem: 'gen-1' });
    const seq = await head(s.client);
    const second = await s.client.rpc('persona.generateAgentId', fields(), { idem: 'gen-1' });
    expect(second.body.result).toEqual(first.body.result);
    expect(await head(s.client)).toBe(seq);
  });

  it('bad input -> BAD_REQUEST naming the field; reader -> FORBIDDEN_SCOPE; nothing appended', async () => {
    const foreign = expectOk('member.create', await other.rpc('member.create', { name: 'Foreign' })).member;
    const agent = (await generate()).agent;
    await s.client.ok('member.archive', { memberId: (await s.client.ok('member.create', { name: 'Gone Sponsor' })).member.id }).then(async (r) => {
      expect((await err('persona.generateAgentId', fields({ sponsorId: r.member.id }))).message).toBe(
        `sponsorId: ${r.member.id} is archived; a sponsor must be an active human member`,
      );
    });
    const seq = await head(s.client);
    expect((await err('persona.generateAgentId', fields({ sponsorId: agent.id }))).message).toMatch(/^sponsorId: must be a human member id/);
    expect((await err('persona.generateAgentId', fields({ sponsorId: foreign.id }))).message).toBe(`sponsorId: no member ${foreign.id} in this org`);
    expect((await err('persona.generateAgentId', fields({ sponsorId: undefined }))).message).toMatch(/^sponsorId: /);
    expect((await err('persona.generateAgentId', fields({ toolsets: ['board', 'nope'] }))).message).toMatch(/^toolsets\.1: must be a toolset/);
    expect((await err('persona.generateAgentId', fields({ toolsets: ['board', 'board'] }))).message).toBe('toolsets: must not repeat a toolset');
    expect((await err('persona.generateAgentId', fields({ instructions: ['two\nlines'] }))).message).toMatch(/^instructions\.0: must be one line/);
    expect((await err('persona.generateAgentId', fields({ colour: 'red' }))).message).toMatch(/^colour: unknown field/);
    expect((await err('persona.generateAgentId', fields({ managerId: agent.id.replace('agt_', 'usr_') }))).message).toMatch(/^managerId: no member/);
    expect((await err('persona.editField', { agentId: sponsor.id, field: 'goal', value: 'x' })).message).toMatch(/^agentId: must be an agent id/);
    expect((await err('persona.regenerate', { agentId: sponsor.id })).message).toMatch(/^agentId: must be an agent id/);
    expect((await err('persona.editField', { agentId: agent.id, field: 'role', value: null })).message).toBe('value: role cannot be cleared');
    expect((await err('persona.editField', { agentId: agent.id, field: 'toolsets', value: 'board' })).message).toMatch(/^value: /);
    expect((await err('persona.editField', { agentId: agent.id, field: 'name', value: 'x' })).message).toMatch(/^field: /);
    expect((await err('persona.generateAgentId', fields(), reader)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('persona.editField', { agentId: agent.id, field: 'goal', value: 'x' }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('persona.regenerate', { agentId: agent.id }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });

  it("another org's agent, an agent without a persona, an unknown one -> NOT_FOUND; a human's member.get shows persona null", async () => {
    const theirAdmin = (await other.get('org/whoami')).body.principal.id;
    const theirs = (await other.ok('persona.generateAgentId', { name: 'Theirs', role: 'r', goal: 'g', sponsorId: theirAdmin })).agent.id;
    const bare = (await s.client.mint({ tier: 'agent' }, 'bare agent')).principal.id;
    for (const id of [theirs, bare, 'agt_unknown1']) {
      expect((await err('persona.editField', { agentId: id, field: 'goal', value: 'x' })).code).toBe('NOT_FOUND');
      expect((await err('persona.regenerate', { agentId: id })).code).toBe('NOT_FOUND');
      expect((await err('persona.regenerate', { agentId: id, mode: 'model' })).code).toBe('NOT_FOUND');
    }
    expect(expectOk('member.get', await s.client.rpc('member.get', { memberId: bare })).persona).toBeNull();
    expect(expectOk('member.get', await s.client.rpc('member.get', { memberId: sponsor.id })).persona).toBeNull();
    const who = (await s.client.get('org/whoami')).body;
    expect(who.member).toMatchObject({ id: who.principal.id, kind: 'human', status: 'active' });
    expect(who.persona).toBeNull();
  });
});

describe('persona.editField', () => {
  it('changes one field: version + 1, promptStale; the same value -> changed:false with a noop event; null clears backstory', async () => {
    const { agent, persona } = await generate();
    const before = await head(s.client);
    const edited = expectOk(
      'persona.editField',
      await s.client.rpc('persona.editField', { agentId: agent.id, field: 'goal', value: `Pay on time ${CANARY}`, ifVersion: 1 }),
    );
    expect(edited).toMatchObject({
      changed: true,
      persona: { version: 2, compiledVersion: 1, promptStale: true, goal: `Pay on time ${CANARY}`, prompt: persona.prompt },
    });
    const same = expectOk('persona.editField', await s.client.rpc('persona.editField', { agentId: agent.id, field: 'goal', value: `Pay on time ${CANARY}` }));
    expect(same).toMatchObject({ changed: false, persona: { version: 2 } });
    const cleared = expectOk('persona.editField', await s.client.rpc('persona.editField', { agentId: agent.id, field: 'backstory', value: null }));
    expect(cleared.persona).toMatchObject({ backstory: null, version: 3 });
    const lines = expectOk('persona.editField', await s.client.rpc('persona.editField', { agentId: agent.id, field: 'instructions', value: ['One line.'] }));
    expect(lines.persona).toMatchObject({ instructions: ['One line.'], version: 4 });
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => [e.kind, e.payload.field, e.payload.version, e.payload.noop ?? false])).toEqual([
      ['persona.field.edit', 'goal', 2, false],
      ['persona.field.edit', 'goal', 2, true],
      ['persona.field.edit', 'backstory', 3, false],
      ['persona.field.edit', 'instructions', 4, false],
    ]);
    expect(JSON.stringify(events)).not.toContain(CANARY);
    const stale = await err('persona.editField', { agentId: agent.id, field: 'tone', value: 'dry', ifVersion: 1 });
    expect(stale).toEqual({ code: 'CONFLICT', message: `persona ${agent.id} is at version 4, not 1: read it again and retry with ifVersion 4` });
  });
});

describe('persona.regenerate', () => {
  it('template: recompiles a stale prompt (changed), then the same hash -> changed:false; org facts (teams, manager) enter the prompt', async () => {
    const { agent } = await generate();
    const same = expectOk('persona.regenerate', await s.client.rpc('persona.regenerate', { agentId: agent.id }));
    expect(same).toMatchObject({ changed: false, status: 'unchanged', reason: null, ai: null });
    await s.client.ok('persona.editField', { agentId: agent.id, field: 'tone', value: 'dry and brief' });
    const team = (await s.client.ok('team.create', { name: 'Accounts Payable' })).team;
    await s.client.ok('member.assignTeam', { memberId: agent.id, teamIds: [team.id] });
    const before = await head(s.client);
    const first = expectOk('persona.regenerate', await s.client.rpc('persona.regenerate', { agentId: agent.id, mode: 'template' }));
    expect(first).toMatchObject({
      changed: true,
      status: 'compiled',
      persona: { version: 2, compiledVersion: 2, promptStale: false, promptSource: 'template' },
    });
    expect(first.persona.prompt).toContain('Tone: dry and brief');
    expect(first.persona.prompt).toContain('Teams: Accounts Payable');
    expect(first.persona.promptHash).toBe(sha256Hex(first.persona.prompt));
    const second = expectOk('persona.regenerate', await s.client.rpc('persona.regenerate', { agentId: agent.id }));
    expect(second).toMatchObject({ changed: false, status: 'unchanged', persona: { promptHash: first.persona.promptHash } });
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => [e.kind, e.payload.status, e.payload.noop ?? false])).toEqual([
      ['persona.prompt.regenerate', 'compiled', false],
      ['persona.prompt.regenerate', 'unchanged', true],
    ]);
    expect(events[0].payload).toMatchObject({ agentId: agent.id, mode: 'template', promptHash: first.persona.promptHash, chars: first.persona.prompt.length });
  });

  it('a prompt over 10,000 characters -> CONFLICT naming the field to shorten; nothing changes', async () => {
    const { agent } = await generate();
    const long = Array.from({ length: 25 }, (_, i) => `Rule ${String(i).padStart(2, '0')}: ${'x'.repeat(480)}`);
    await s.client.ok('persona.editField', { agentId: agent.id, field: 'instructions', value: long });
    const seq = await head(s.client);
    const res = await err('persona.regenerate', { agentId: agent.id });
    expect(res.code).toBe('CONFLICT');
    expect(res.message).toMatch(/^instructions: the compiled prompt would be \d+ characters, over the 10000 allowed; shorten instructions/);
    expect(await head(s.client)).toBe(seq);
    expect((await err('persona.generateAgentId', fields({ instructions: long }))).message).toMatch(/^instructions: the compiled prompt would be/);
  });

  it('model, offline (AI_PROVIDER=local): runs through the gateway (audited) and keeps the compiled prompt; a stale prompt -> CONFLICT', async () => {
    const { agent, persona } = await generate();
    const before = await head(s.client);
    const out = expectOk('persona.regenerate', await s.client.rpc('persona.regenerate', { agentId: agent.id, mode: 'model' }));
    expect(out).toMatchObject({
      changed: false,
      status: 'unchanged',
      reason: null,
      persona: { promptHash: persona.promptHash },
      ai: { provider: 'local', auditId: expect.any(String) },
    });
    const audit = (await s.client.get('ops', { limit: 1 })).body.records[0];
    expect(audit).toMatchObject({ id: out.ai.auditId, record: { method: 'persona.regenerate', verdict: 'grounded', provider: 'local' } });
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => [e.kind, e.payload.mode, e.payload.status, e.payload.auditId])).toEqual([
      ['persona.prompt.regenerate', 'model', 'unchanged', out.ai.auditId],
    ]);
    await s.client.ok('persona.editField', { agentId: agent.id, field: 'goal', value: 'New goal' });
    const stale = await err('persona.regenerate', { agentId: agent.id, mode: 'model' });
    expect(stale).toEqual({
      code: 'CONFLICT',
      message: `the prompt of ${agent.id} was compiled from version 1, but the persona is at version 2: call persona.regenerate with mode template first (mode model rewrites the compiled prompt)`,
    });
  });

  it('no event of this file shows a canary', async () => {
    expect(JSON.stringify(await allEvents(s.client))).not.toContain(CANARY);
  });
});
