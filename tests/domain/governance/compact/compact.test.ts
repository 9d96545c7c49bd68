import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactLimitsOf, maxOpenHandoffsOf } from '../../../../domain/governance/compact/index.js';
import { held, ok, otherOrg, refused, rpc } from '../../../helpers/calls.js';
import { onPostgres, type TestClient } from '../../../helpers/harness.js';
import { appended, govOrg, sponsoredAgent, type GovOrg } from '../charter/setup.js';
import { setRights, type Person } from '../../../helpers/people.js';

/* compact.upsert: terms (humans under the rights; an agent holds for its sponsor), acknowledgement, limits for other families. */

let o: GovOrg;
let other: TestClient;
let bot: Person;
beforeAll(async () => {
  o = await govOrg();
  other = await otherOrg(o.s);
  bot = await sponsoredAgent(o.s, o.cfo.id, 'Payables Bot');
});
afterAll(() => o.s.close());

const terms = (limits: Record<string, number | null> = {}, agent = ['Escalate what I may not decide.'], sponsor = ['Answer within a working day.']) => ({
  commitments: { agent, sponsor },
  limits,
});

describe('compact.upsert: terms', () => {
  it('a human writes an agent’s terms (sponsor: the agent’s own); same terms: changed:false; new terms: version 2; baseVersion checked', async () => {
    const { s, ceo, cfo } = o;
    const params = { scope: bot.id, terms: terms({ monthlySpendCents: 50_000, maxOpenHandoffs: 3 }) };
    const events = await appended(s, async () => {
      const r = await ok(s, 'compact.upsert', params, ceo.key, 'compact-bot-1');
      expect(r).toMatchObject({
        changed: true,
        compact: { scope: bot.id, sponsorId: cfo.id, version: 1, acknowledgedVersion: null, terms: params.terms, id: expect.stringMatching(/^cpt_/) },
      });
    });
    expect(events.map((e) => [e.kind, e.payload.mode, e.payload.version, e.payload.sponsorId])).toEqual([['compact.terms.upsert', 'terms', 1, cfo.id]]);
    expect(events[0].payload).toMatchObject({
      limits: { monthlySpendCents: 50_000, maxOpenHandoffs: 3 },
      commitments: { agent: 1, sponsor: 1 },
      override: false,
      approvalId: null,
    });
    // The same key replays the frame; the same terms under another key: changed:false, noop event.
    const replay = await rpc(s, 'compact.upsert', params, ceo.key, 'compact-bot-1');
    expect(replay.body.result.compact.version).toBe(1);
    const same = await appended(s, async () => expect((await ok(s, 'compact.upsert', params, ceo.key)).changed).toBe(false));
    expect(same.map((e) => e.payload.noop)).toEqual([true]);
    const v2 = await ok(s, 'compact.upsert', { ...params, terms: terms({ monthlySpendCents: 60_000, maxOpenHandoffs: 3 }), baseVersion: 1 }, ceo.key);
    expect(v2.compact.version).toBe(2);
    await refused(s, 'compact.upsert', { ...params, baseVersion: 1 }, 'CONFLICT', {
      key: ceo.key,
      message: `compact ${v2.compact.id} is at version 2, not 1: read it (GET /api/v1/policy) and retry with baseVersion 2`,
    });
  });

  it('an agent’s terms hold for its sponsor; the sponsor approves; the retry writes them with the approval', async () => {
    const { s, cfo, ceo } = o;
    const params = { scope: bot.id, terms: terms({ monthlySpendCents: 0 }) };
    const approval = await held(s, 'compact.upsert', params, { key: bot.key });
    expect(approval).toMatchObject({ actionClass: 'compact.upsert', deciders: [cfo.id], subject: { kind: 'compact.signature', subjectId: bot.id } });
    const filed = await ok(s, 'approval.request', { actionClass: approval.actionClass, payloadHash: approval.payloadHash, subject: approval.subject }, bot.key);
    expect((await rpc(s, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, ceo.key)).body.error.code).toBe('CONFLICT');
    await ok(s, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, cfo.key);
    const done = await appended(s, async () =>
      expect((await ok(s, 'compact.upsert', { ...params, approvalId: filed.approvalId }, bot.key)).compact.version).toBe(3),
    );
    expect(done[0].payload).toMatchObject({ approvalId: filed.approvalId, version: 3 });
  });

  it('the org compact: any human writes it; an agent (even for the org) holds for a human; declared rights compact: owner (the sponsor) decides', async () => {
    const { s, staff, agent, cfo, ceo } = o;
    const org = await ok(s, 'compact.upsert', { scope: 'org', terms: terms({ maxOpenHandoffs: 10, escalationResponseMinutes: 240 }) }, staff.key);
    expect(org.compact).toMatchObject({ scope: 'org', sponsorId: null, version: 1 });
    await held(s, 'compact.upsert', { scope: 'org', terms: terms({ maxOpenHandoffs: 100 }) }, { key: agent.key });

    await setRights(s, [{ area: 'compact', decidedBy: 'owner' }]);
    const mine = { scope: bot.id, terms: terms({ monthlySpendCents: 1 }) };
    expect((await held(s, 'compact.upsert', mine, { key: ceo.key })).deciders).toEqual([cfo.id]);
    expect((await ok(s, 'compact.upsert', mine, cfo.key)).changed).toBe(true);
    await setRights(s, [{ area: 'pricing', decidedBy: 'humans' }]);
  });

  it('misuse: a sponsor that is not a human, no sponsor, unknown or another org’s agent, neither or both modes, missing scope', async () => {
    const { s, agent, reader } = o;
    await refused(s, 'compact.upsert', { scope: bot.id, sponsorId: agent.id, terms: terms() }, 'BAD_REQUEST', { message: 'sponsorId: must be a human' });
    await refused(s, 'compact.upsert', { scope: agent.id, terms: terms() }, 'BAD_REQUEST', {
      message: `sponsorId: ${agent.id} has no sponsor: name the sponsoring human`,
    });
    await refused(s, 'compact.upsert', { scope: bot.id, sponsorId: 'usr_unknown000000', terms: terms() }, 'BAD_REQUEST', {
      message: 'sponsorId: no active human member usr_unknown000000 in this org',
    });
    const foreign = await other.mint({ tier: 'agent' });
    for (const id of [foreign.principal.id, 'agt_unknown000000', o.ceo.id.replace('usr_', 'agt_')]) {
      await refused(s, 'compact.upsert', { scope: id, terms: terms() }, 'NOT_FOUND', { message: `agent ${id} not found` });
    }
    await refused(s, 'compact.upsert', { scope: o.ceo.id, terms: terms() }, 'BAD_REQUEST', { message: /^scope: must be org or an agent id/ });
    await refused(s, 'compact.upsert', { scope: bot.id }, 'BAD_REQUEST', { message: /^terms: give the terms to write, or acknowledgeVersion/ });
    await refused(s, 'compact.upsert', { scope: bot.id, terms: terms(), acknowledgeVersion: 1 }, 'BAD_REQUEST', { message: /^terms: / });
    await refused(s, 'compact.upsert', { scope: bot.id, terms: terms({ maxOpenHandoffs: -1 }) }, 'BAD_REQUEST', {
      message: /^terms\.limits\.maxOpenHandoffs: must be >= 0/,
    });
    await refused(s, 'compact.upsert', { scope: bot.id, terms: { ...terms(), extra: 1 } }, 'BAD_REQUEST', { message: 'terms.extra: unknown field' });
    await refused(s, 'compact.upsert', { scope: bot.id, terms: terms() }, 'FORBIDDEN_SCOPE', { key: reader.key });
  });
});

describe('compact.upsert: acknowledgement (the agent’s own side)', () => {
  it('the agent acknowledges its current version; again: changed:false; a stale version: CONFLICT; someone else: FORBIDDEN_SCOPE', async () => {
    const { s, agent, ceo } = o;
    const current = (await s.client.get('policy', { agentId: bot.id })).body.compacts.agent;
    const events = await appended(s, async () => {
      const r = await ok(s, 'compact.upsert', { scope: bot.id, acknowledgeVersion: current.version }, bot.key);
      expect(r.compact).toMatchObject({ acknowledgedVersion: current.version, acknowledgedAt: expect.any(String) });
    });
    expect(events.map((e) => [e.kind, e.payload.mode, e.payload.acknowledgedVersion])).toEqual([['compact.terms.upsert', 'acknowledge', current.version]]);
    expect((await ok(s, 'compact.upsert', { scope: bot.id, acknowledgeVersion: current.version }, bot.key)).changed).toBe(false);
    await refused(s, 'compact.upsert', { scope: bot.id, acknowledgeVersion: current.version - 1 }, 'CONFLICT', {
      key: bot.key,
      message: new RegExp(`is at version ${current.version}, not ${current.version - 1}`),
    });
    await refused(s, 'compact.upsert', { scope: bot.id, acknowledgeVersion: current.version }, 'CONFLICT', {
      key: agent.key,
      message: `only ${bot.id} acknowledges its own compact (its side of it), with its own key; ${agent.id} may not, and nothing changed`,
    });
    await refused(s, 'compact.upsert', { scope: bot.id, acknowledgeVersion: current.version }, 'CONFLICT', { key: ceo.key });
    await refused(s, 'compact.upsert', { scope: 'org', acknowledgeVersion: 1 }, 'BAD_REQUEST', {
      key: bot.key,
      message: /^acknowledgeVersion: only an agent acknowledges its own compact/,
    });
    await refused(s, 'compact.upsert', { scope: agent.id, acknowledgeVersion: 1 }, 'NOT_FOUND', {
      key: agent.key,
      message: `compact of ${agent.id} not found`,
    });
    await refused(s, 'compact.upsert', { scope: bot.id, acknowledgeVersion: 1, sponsorId: o.cfo.id }, 'BAD_REQUEST', {
      key: bot.key,
      message: /^sponsorId: not with acknowledgeVersion/,
    });
  });
});

describe('limits for other families (compactLimitsOf, maxOpenHandoffsOf)', () => {
  it('an agent’s own limits, each omitted one the org’s, else none', async () => {
    const { s, agent } = o;
    const db = s.runtime.db;
    const limits = await compactLimitsOf(db, s.org.orgId, bot.id);
    // bot's own compact sets monthlySpendCents (1) only; the org sets maxOpenHandoffs and escalationResponseMinutes.
    expect(limits).toEqual({
      monthlySpendCents: 1,
      maxOpenHandoffs: 10,
      escalationResponseMinutes: 240,
      sources: { monthlySpendCents: 'agent', maxOpenHandoffs: 'org', escalationResponseMinutes: 'org' },
    });
    expect(await maxOpenHandoffsOf(db, s.org.orgId, agent.id)).toBe(10);
    await ok(s, 'compact.upsert', { scope: bot.id, terms: terms({ maxOpenHandoffs: null }) }, o.cfo.key);
    expect(await maxOpenHandoffsOf(db, s.org.orgId, bot.id)).toBeNull();
  });
});

describe.skipIf(!onPostgres)('two writers of a new compact (PostgreSQL; PGlite runs calls one at a time, so skipped there)', () => {
  it('both name baseVersion 0: one writes version 1, the other is a CONFLICT naming it', async () => {
    const { s, ceo } = o;
    const fresh = await sponsoredAgent(s, o.cfo.id, 'Race Bot');
    const results = await Promise.all(
      [1, 2, 3].map((n) => rpc(s, 'compact.upsert', { scope: fresh.id, baseVersion: 0, terms: terms({ maxOpenHandoffs: n }) }, ceo.key)),
    );
    expect(results.filter((r) => r.body.ok).length).toBe(1);
    for (const r of results.filter((x) => !x.body.ok))
      expect(r.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/is at version 1, not 0/) });
  });
});
