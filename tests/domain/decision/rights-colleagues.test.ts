import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventsAfter, head } from '../../helpers/calls.js';
import { decisionOrg, err, held, ok, proposal, record, setRights, type Org } from './setup.js';

/*
 * Roles and autonomy come from the charter's colleague records (domain/governance/colleagues.ts), which the
 * charter family fills in later. Until it exists they are stood in for here, so the rights' rules on them run
 * end to end: role selectors, a delegated agent named by id, a supervised agent that holds on every governing act.
 */
const colleagues = vi.hoisted(() => ({
  roles: new Map<string, string[]>(),
  autonomy: new Map<string, 'supervised' | 'standard' | 'delegated'>(),
}));
vi.mock('../../../domain/governance/colleagues.js', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  rolesOf: async (_q: unknown, _org: string, id: string) => [...colleagues.roles].filter(([, ids]) => ids.includes(id)).map(([slug]) => slug),
  roleMembers: async (_q: unknown, _org: string, slug: string) => colleagues.roles.get(slug) ?? [],
  autonomyOf: async (_q: unknown, _org: string, id: string) => colleagues.autonomy.get(id) ?? 'standard',
}));

let o: Org;
beforeAll(async () => {
  o = await decisionOrg();
});
afterAll(() => o.s.close());

describe('charter roles and agent autonomy in the rights', () => {
  it('role:<slug> and a bare slug name the role’s members: as decider, as agree signatory, as the hold’s deciders', async () => {
    const { s, staff, cfo, agent, agent2 } = o;
    // Staff (role member) decides directly but cannot decide approvals: holds go to the CFO alone.
    colleagues.roles.set('counsel', [staff.id, cfo.id]);
    colleagues.roles.set('finance', [cfo.id, agent2.id]);
    await setRights(s, [{ area: 'legal', decidedBy: 'role:counsel', agree: ['finance'] }]);
    const d = await proposal(s, agent.key, 'legal');
    expect((await record(s, d.id)).requirements).toMatchObject({ missingSigners: ['finance'], decider: { humans: [staff.id, cfo.id] } });
    // An agent holding the role endorses for it: agree names it through the role.
    expect((await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, agent2.key)).counts).toBe(true);
    expect((await record(s, d.id)).requirements.missingSigners).toEqual([]);
    const approval = await held(s, 'decision.adopt', { decisionId: d.id, version: 1 }, agent2.key);
    expect(approval.deciders).toEqual([cfo.id]);
    expect((await ok(s, 'decision.adopt', { decisionId: d.id, version: 1 }, staff.key)).decision.adopted).toMatchObject({ by: staff.id, override: false });
  });

  it('an agent named by id decides only when delegated, never its own proposal; a group or role never makes an agent a decider', async () => {
    const { s, ceo, staff, agent, agent2 } = o;
    await setRights(s, [{ area: 'ops', decidedBy: agent2.id, escalateTo: ceo.id }, { area: 'ops.eu', decidedBy: 'role:finance' }]);
    const d = await proposal(s, staff.key, 'ops');
    colleagues.autonomy.set(agent2.id, 'standard');
    expect((await held(s, 'decision.adopt', { decisionId: d.id, version: 1 }, agent2.key)).deciders).toEqual([ceo.id]);
    colleagues.autonomy.set(agent2.id, 'delegated');
    const seq = await head(s.client);
    const adopted = await ok(s, 'decision.adopt', { decisionId: d.id, version: 1 }, agent2.key);
    expect(adopted.decision.adopted).toMatchObject({ by: agent2.id, override: false, approvalId: null });
    expect((await eventsAfter(s.client, seq)).map((e) => e.kind)).toEqual(['decision.record.adopt']);

    const own = await proposal(s, agent2.key, 'ops');
    const e = await err(s, 'decision.adopt', { decisionId: own.id, version: 1 }, agent2.key);
    expect(e.code).toBe('FORBIDDEN_SCOPE');
    expect(e.message).toMatch(/never adopts its own proposal/);
    // agent2 holds role finance, but a role does not make an agent a decider, delegated or not.
    const eu = await proposal(s, staff.key, 'ops.eu');
    expect((await held(s, 'decision.adopt', { decisionId: eu.id, version: 1 }, agent2.key)).deciders).toEqual([o.cfo.id]);
  });

  it('a supervised agent holds on every governing act, even where it would decide as the owner', async () => {
    const { s, ceo, agent } = o;
    await setRights(s, [{ area: 'desk', decidedBy: 'owner', escalateTo: ceo.id }]);
    const d = await proposal(s, agent.key, 'desk');
    await ok(s, 'decision.adopt', { decisionId: d.id, version: 1 });
    colleagues.autonomy.set(agent.id, 'standard');
    const d2 = await proposal(s, agent.key, 'desk');
    await ok(s, 'decision.adopt', { decisionId: d2.id, version: 1 });
    // Standard: the owner (its driver) reverses its adopted decision itself.
    expect((await ok(s, 'decision.reverse', { decisionId: d2.id, reason: 'Done with it.' }, agent.key)).decision.status).toBe('reversed');
    colleagues.autonomy.set(agent.id, 'supervised');
    const approval = await held(s, 'decision.reverse', { decisionId: d.id, reason: 'Done with it.' }, agent.key);
    expect(approval.deciders).toEqual([ceo.id]);
    // With no human to approve, a supervised agent is refused, naming the right.
    await setRights(s, [{ area: 'desk', decidedBy: 'owner' }]);
    const refused = await err(s, 'decision.reverse', { decisionId: d.id, reason: 'Done with it.' }, agent.key);
    expect(refused.code).toBe('FORBIDDEN_SCOPE');
    expect(refused.message).toMatch(/the right "desk" \(decidedBy owner\).*a supervised agent holds on every governing act/);
  });
});
