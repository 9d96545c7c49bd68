import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '../../../../protocol/registry.js';
import { SCOPES } from '../../../../protocol/scopes.js';
import { METHOD_HANDLERS } from '../../../../domain/deployed.js';
import { PEOPLE_LANE } from '../../../../domain/people/member/lane.js';
import * as people from '../../../../domain/people/index.js';
import type { Family } from '../../../../domain/core/family.js';
import { notificationFamily } from '../../../../domain/notification/index.js';
import { testServer, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, head } from '../../../helpers/calls.js';

/*
 * The people agent lane (domain/people/member/lane.ts) walked over every deployed people-family write: with an agent key
 * holding every scope, a `runs` act runs, a `holds` act (and a `holdsWhen` act whose condition is met: it acts on
 * a human) answers a hold and changes nothing, a `refused` act is GOVERNANCE_NOT_READY and changes nothing; with
 * the org's human admin key every act runs. The table must name every deployed people-family write, and agree
 * with each contract's hold declaration, so a new method cannot be missed.
 */

// The writes the people module's descriptors (and notification's) deploy: the settings methods other modules deploy
// (company, secrets, design tokens) are tested with agent keys in those modules' tests.
const descriptors = Object.values(people).filter((v): v is Family => typeof v === 'object' && v !== null && 'methods' in v);
const PEOPLE_DEPLOYED = new Set([...descriptors, notificationFamily].flatMap((f) => [...(f.methods?.keys() ?? [])]));

let s: TestServer;
let agentKey: string;
let agentId: string;
let ownerId: string;
let n = 0;
const uniq = (p: string) => `${p}${++n}${Date.now().toString(36)}`;

beforeAll(async () => {
  s = await testServer();
  const agent = await s.client.mint({ scopes: [...SCOPES], principalKind: 'agent' }, 'Ops Agent');
  agentKey = agent.apiKey;
  agentId = agent.principal.id;
  ownerId = (await s.client.get('org/whoami')).body.principal.id;
});
afterAll(() => s.close());

type Who = 'agent' | 'human';
const admin = (method: string, params: unknown) => s.client.ok(method, params);
/** A human member without access (directory only). */
const human = async (extra: Record<string, unknown> = {}) => (await admin('member.create', { name: `Tom Okafor ${uniq('')}`, ...extra })).member.id as string;
const keyed = async (tier: string) => s.client.mint({ tier }, uniq(`${tier} `));
const team = async () => (await admin('team.create', { name: uniq('Team ') })).team.id as string;
const section = async (memberId: string) => (await admin('profile.addSection', { memberId, title: 'About', body: 'Hello' })).section.id as string;
async function upload(key: string): Promise<string> {
  const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: (n * 7) % 255, g: 40, b: 90 } } })
    .png()
    .toBuffer();
  const res = await s.app.inject({
    method: 'PUT',
    url: '/api/v1/blobs',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
    payload: png,
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().result.sha256;
}
async function pending(): Promise<{ pairingId: string; code: string }> {
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/v1/pairing.request',
    payload: { params: { orgSlug: s.org.slug, agentName: uniq('bot ') } },
    remoteAddress: `10.9.${n % 250}.${++n % 250}`,
  });
  const { pairingId, code } = res.json().result;
  return { pairingId, code };
}

/**
 * Each write's call: params making a fresh act that changes something, for the agent (who) or the human admin,
 * acting on a human where the row's condition is about one. `off`: an agent's call where a holdsWhen condition is
 * false, which runs.
 */
const CASES: Record<string, { call: (who: Who) => Promise<Record<string, unknown>>; off?: () => Promise<Record<string, unknown>> }> = {
  'member.create': { call: async () => ({ name: uniq('New Hire ') }) },
  'member.update': {
    call: async () => ({ memberId: await human(), title: 'Head of Finance' }),
    off: async () => ({ memberId: (await keyed('agent')).principal.id, title: 'Clerk' }),
  },
  'member.archive': {
    call: async () => ({ memberId: await human() }),
    off: async () => {
      const bot = await keyed('agent');
      await admin('settings.revokeApiKey', { keyId: bot.keyId });
      return { memberId: bot.principal.id };
    },
  },
  'member.assignTeam': {
    call: async () => ({ memberId: await human(), teamIds: [await team()] }),
    off: async () => {
      const bot = (await keyed('agent')).principal.id;
      await admin('member.assignTeam', { memberId: bot, teamIds: [await team()] });
      return { memberId: bot, teamIds: [] };
    },
  },
  'member.reassignReporting': {
    call: async () => {
      const from = await human();
      await human({ managerId: from });
      return { fromManagerId: from, toManagerId: await human() };
    },
    off: async () => {
      const from = await human();
      const bot = (await keyed('agent')).principal.id;
      await admin('member.update', { memberId: bot, managerId: from });
      return { fromManagerId: from, toManagerId: await human() };
    },
  },
  'member.savePosition': { call: async () => ({ memberId: await human({ managerId: await human() }), position: 0 }) },
  'member.resetPositions': { call: async () => ({}) },
  'team.create': { call: async () => ({ name: uniq('Squad ') }) },
  'team.update': { call: async () => ({ teamId: await team(), name: uniq('Renamed ') }) },
  'team.delete': {
    call: async () => {
      const t = await team();
      await human({ teamIds: [t] });
      return { teamId: t };
    },
    off: async () => ({ teamId: await team() }),
  },
  'hierarchy.set': {
    call: async () => {
      const [a, b] = [await human(), await human()];
      return { lines: [{ memberId: a, managerId: b }], expectedRevision: (await s.client.get('hierarchy', { depth: 1 })).body.revision };
    },
  },
  'profile.update': {
    call: async () => ({ memberId: await human(), headline: 'Month-end close' }),
    off: async () => ({ memberId: agentId, headline: uniq('Bot ') }),
  },
  'profile.updateAvatar': {
    call: async (who) => ({ memberId: await human(), blob: await upload(who === 'agent' ? agentKey : s.org.adminKey) }),
    off: async () => ({ memberId: agentId, blob: await upload(agentKey) }),
  },
  'profile.addSection': {
    call: async () => ({ memberId: await human(), title: 'About', body: 'Hi' }),
    off: async () => ({ memberId: agentId, title: 'About me', body: 'Bot' }),
  },
  'profile.updateSection': {
    call: async () => ({ sectionId: await section(await human()), title: 'Renamed' }),
    off: async () => ({ sectionId: await section(agentId), title: uniq('Mine ') }),
  },
  'profile.deleteSection': { call: async () => ({ sectionId: await section(await human()) }), off: async () => ({ sectionId: await section(agentId) }) },
  'persona.generateAgentId': { call: async () => ({ name: uniq('Desk Bot '), role: 'Clerk', goal: 'Pay bills', sponsorId: ownerId }) },
  'persona.editField': {
    call: async () => ({
      agentId: (await admin('persona.generateAgentId', { name: uniq('Bot '), role: 'Clerk', goal: 'Pay bills', sponsorId: ownerId })).agent.id,
      field: 'goal',
      value: 'Chase invoices',
    }),
  },
  'persona.regenerate': {
    // A human's model mode would call a model: the human runs template mode, which is what a human may do alone anyway.
    call: async (who) => ({
      agentId: (await admin('persona.generateAgentId', { name: uniq('Bot '), role: 'Clerk', goal: 'Pay bills', sponsorId: ownerId })).agent.id,
      mode: who === 'agent' ? 'model' : 'template',
    }),
    off: async () => ({
      agentId: (await admin('persona.generateAgentId', { name: uniq('Bot '), role: 'Clerk', goal: 'Pay bills', sponsorId: ownerId })).agent.id,
      mode: 'template',
    }),
  },
  'user.deactivate': { call: async () => ({ userId: (await keyed('member')).principal.id, reason: 'left', transferTo: ownerId }) },
  'user.updateRole': {
    call: async () => ({ userId: (await keyed('viewer')).principal.id, role: 'admin' }),
    off: async () => ({ userId: (await keyed('member')).principal.id, role: 'viewer' }),
  },
  'admin.deactivate': {
    call: async () => ({ memberId: (await keyed('member')).principal.id, reason: 'x' }),
    off: async () => ({ memberId: (await keyed('agent')).principal.id, reason: 'x' }),
  },
  'admin.reactivate': {
    call: async () => {
      const m = (await keyed('member')).principal.id;
      await admin('admin.deactivate', { memberId: m, reason: 'x' });
      return { memberId: m };
    },
  },
  'invitation.create': { call: async () => ({ email: `${uniq('dan')}@example.com`, role: 'member' }) },
  'invitation.resend': {
    call: async () => ({ invitationId: (await admin('invitation.create', { email: `${uniq('ann')}@example.com`, role: 'member' })).invitation.id }),
  },
  'invitation.revoke': {
    call: async () => ({ invitationId: (await admin('invitation.create', { email: `${uniq('bo')}@example.com`, role: 'member' })).invitation.id }),
  },
  'notification.updatePreferences': {
    call: async () => ({ target: await human(), events: { mention: 'digest' } }),
    off: async () => ({ events: { mention: n++ % 2 ? 'digest' : 'off' } }),
  },
  'billing.update': {
    call: async (who) => ({ plan: 'team', seats: 100_000 + (who === 'agent' ? 1 : 2), agentSeats: 100_000, contact: `${uniq('b')}@example.com` }),
  },
  'org.create': { call: async () => ({ slug: uniq('child-'), name: 'Child' }) },
  'org.delete': {
    call: async () => {
      const slug = uniq('gone-');
      return { orgId: (await admin('org.create', { slug, name: 'Gone' })).orgId, confirmSlug: slug };
    },
  },
  'org.mintApiKey': { call: async () => ({ name: 'new key', tier: 'admin' }) },
  'settings.mintApiKey': { call: async () => ({ name: 'new key', tier: 'admin' }) },
  'org.revokeApiKey': { call: async () => ({ keyId: (await keyed('member')).keyId }), off: async () => ({ keyId: (await keyed('agent')).keyId }) },
  'settings.revokeApiKey': { call: async () => ({ keyId: (await keyed('member')).keyId }), off: async () => ({ keyId: (await keyed('agent')).keyId }) },
  'settings.renameApiKey': { call: async () => ({ keyId: (await keyed('member')).keyId, name: uniq('renamed ') }) },
  'pairing.approve': { call: async () => ({ ...(await pending()), tier: 'agent' }) },
};

const deployedWrites = [...METHODS.values()]
  .filter((m) => PEOPLE_DEPLOYED.has(m.name) && m.mutating && METHOD_HANDLERS.has(m.name))
  .map((m) => m.name)
  .sort();
const walked = Object.keys(PEOPLE_LANE).filter((m) => !METHODS.get(m)?.preAuth);

describe('the people agent lane table', () => {
  it('names every deployed people-family write, and nothing else', () => {
    expect(Object.keys(PEOPLE_LANE).sort()).toEqual(deployedWrites);
    expect(Object.keys(CASES).sort()).toEqual(walked.sort());
  });

  it('agrees with every contract: a hold is declared exactly where the lane holds', () => {
    for (const [name, lane] of Object.entries(PEOPLE_LANE)) {
      const declared = METHOD_HANDLERS.get(name)!.contract.hold;
      expect(declared !== undefined, `${name}: lane ${lane.agent}, contract hold ${JSON.stringify(declared)}`).toBe(
        lane.agent === 'holds' || lane.agent === 'holdsWhen',
      );
    }
    expect(PEOPLE_LANE['pairing.request'].agent).toBe('runs');
  });
});

async function outcome(name: string, params: Record<string, unknown>, key: string | undefined) {
  const before = await head(s.client);
  const res = await s.client.rpc(name, params, { key });
  const kinds = (await eventsAfter(s.client, before)).map((e) => e.kind);
  if (!res.body.ok) return { what: res.body.error.code as string, kinds, res };
  return { what: res.body.result?.status === 'approval_required' ? 'hold' : 'ran', kinds, res };
}

describe.each(walked.map((m) => [m, PEOPLE_LANE[m].agent] as const))('%s (agent: %s)', (name, lane) => {
  it('an agent key: runs, holds (changing nothing but the hold event) or is refused, as the table says', async () => {
    const got = await outcome(name, await CASES[name].call('agent'), agentKey);
    const want = lane === 'runs' ? 'ran' : lane === 'refused' ? 'GOVERNANCE_NOT_READY' : 'hold';
    expect(got.what, `${name}: ${got.res.raw.slice(0, 400)}`).toBe(want);
    if (want === 'hold') {
      expect(got.kinds).toEqual([`${name.split('.')[0]}.signature.hold`]);
      const completion = METHOD_HANDLERS.get(name)!.contract.hold!.completion;
      // release: the server filed the approval; retry: the agent files it.
      expect(got.res.body.result.approval.completion).toBe(completion);
      expect(Boolean(got.res.body.result.approval.approvalId), `${name} ${completion}`).toBe(completion === 'release');
      if (completion === 'release') {
        // A human's approve runs the held act in that decision: its own event follows, naming the approval.
        const approvalId = got.res.body.result.approval.approvalId;
        const before = await head(s.client);
        const decided = await s.client.rpc('approval.resolve', { approvalId, decision: 'approve' });
        expect(decided.body.ok, `${name}: ${decided.raw.slice(0, 400)}`).toBe(true);
        const released = (await eventsAfter(s.client, before)).filter((e) => e.kind !== 'approval.resolved');
        expect(
          released.map((e) => e.payload?.approvalId),
          name,
        ).toContain(approvalId);
      }
    }
    if (want === 'GOVERNANCE_NOT_READY') {
      expect(got.kinds).toEqual([]);
      expect(got.res.body.error.message).toMatch(new RegExp(`^${name.replace('.', '\\.')} is never an agent's act: .+\\. Nothing changed; `));
    }
  });

  it('a human admin key runs it', async () => {
    const got = await outcome(name, await CASES[name].call('human'), undefined);
    expect(got.what, `${name}: ${got.res.raw.slice(0, 400)}`).toBe('ran');
  });

  if (CASES[name].off) {
    it('an agent key runs it when the condition is not met (it acts on no human)', async () => {
      const got = await outcome(name, await CASES[name].off!(), agentKey);
      expect(got.what, `${name}: ${got.res.raw.slice(0, 400)}`).toBe('ran');
    });
  }
});

describe('the reported case: an agent archiving a human', () => {
  it("the demo's agent tier key holds; the human stays until a human approves, then is archived by that decision", async () => {
    const agent = await keyed('agent');
    const tom = await human();
    const got = await outcome('member.archive', { memberId: tom }, agent.apiKey);
    expect(got.what).toBe('hold');
    expect((await s.client.ok('member.get', { memberId: tom })).member.status).toBe('active');
    await s.client.ok('approval.resolve', { approvalId: got.res.body.result.approval.approvalId, decision: 'approve' });
    expect((await s.client.ok('member.get', { memberId: tom })).member.status).toBe('archived');
  });

  it('an agent may not mint a key with any tier or scopes; the message says who does and how an agent gets one', async () => {
    for (const params of [
      { name: 'x', tier: 'agent' },
      { name: 'x', scopes: ['org.read'], principalKind: 'agent' as const },
    ]) {
      const got = await outcome('settings.mintApiKey', params, agentKey);
      expect(got.what).toBe('GOVERNANCE_NOT_READY');
      expect(got.res.body.error.message).toBe(
        `settings.mintApiKey is never an agent's act: it hands the caller a new key (and, without principalId, a new member), and ${agentId} is an agent. Nothing changed; ` +
          'a human admin mints keys (settings.mintApiKey over HTTP or the CLI); a new agent gets its own key by pairing (pairing.request, then a human admin approves it)',
      );
    }
  });
});
