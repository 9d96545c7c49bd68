import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { err, eventsAfter, head, held, ok } from '../../../helpers/calls.js';
import { proposal, record, type Org } from './setup.js';
import { setRights } from '../../../helpers/people.js';

/*
 * Roles and autonomy come from the charter's colleague records (charter.editColleagueField, read by
 * domain/governance/colleagues.ts), so the rights' rules on them run end to end: role selectors, a delegated
 * agent named by id, a supervised agent that holds on every governing act. The org's admin writes the records
 * (no charter right is declared: humans decide, and the admin's own record is never edited here).
 */
const colleague = async (o: Org, principalId: string, field: 'roles' | 'autonomy', value: string[] | string) =>
  ok(o.s, 'charter.editColleagueField', { principalId, field, value });

describe('charter roles and agent autonomy in the rights', () => {
  it('role:<slug> and a bare slug name the role’s members: as decider, as agree signatory, as the hold’s deciders', async ({ decision: o }) => {
    const { s, staff, cfo, agent, agent2 } = o;
    // Staff (role member) decides directly but cannot decide approvals: holds go to the CFO alone.
    await colleague(o, staff.id, 'roles', ['counsel']);
    await colleague(o, cfo.id, 'roles', ['counsel', 'finance']);
    await colleague(o, agent2.id, 'roles', ['finance']);
    await setRights(s, [{ area: 'legal', decidedBy: 'role:counsel', agree: ['finance'] }]);
    const d = await proposal(s, agent.key, 'legal');
    // The role's members in id order (charter records), whoever was named first.
    expect((await record(s, d.id)).requirements).toMatchObject({ missingSigners: ['finance'], decider: { humans: [staff.id, cfo.id].sort() } });
    // awaiting=me reads the roles too: the role's signatory sees it, the role's decider only once it is signed.
    const awaiting = async (key: string) => (await s.client.get('decision.list', { awaiting: 'me' }, { key })).body.decisions.map((x: any) => x.id);
    expect(await awaiting(cfo.key)).toEqual([d.id]);
    expect(await awaiting(staff.key)).toEqual([]);
    // An agent holding the role endorses for it: agree names it through the role.
    expect((await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, agent2.key)).counts).toBe(true);
    expect((await record(s, d.id)).requirements.missingSigners).toEqual([]);
    expect(await awaiting(staff.key)).toEqual([d.id]);
    const approval = await held(s, 'decision.adopt', { decisionId: d.id, version: 1 }, { key: agent2.key });
    expect(approval.deciders).toEqual([cfo.id]);
    expect((await ok(s, 'decision.adopt', { decisionId: d.id, version: 1 }, staff.key)).decision.adopted).toMatchObject({ by: staff.id, override: false });
  });

  it('an agent named by id decides only when delegated, never its own proposal; a group or role never makes an agent a decider', async ({ decision: o }) => {
    const { s, ceo, staff, agent2 } = o;
    await setRights(s, [
      { area: 'ops', decidedBy: agent2.id, escalateTo: ceo.id },
      { area: 'ops.eu', decidedBy: 'role:finance' },
    ]);
    const d = await proposal(s, staff.key, 'ops');
    await colleague(o, agent2.id, 'autonomy', 'standard');
    expect((await held(s, 'decision.adopt', { decisionId: d.id, version: 1 }, { key: agent2.key })).deciders).toEqual([ceo.id]);
    await colleague(o, agent2.id, 'autonomy', 'delegated');
    const seq = await head(s.client);
    const adopted = await ok(s, 'decision.adopt', { decisionId: d.id, version: 1 }, agent2.key);
    expect(adopted.decision.adopted).toMatchObject({ by: agent2.id, override: false, approvalId: null });
    expect((await eventsAfter(s.client, seq)).map((e) => e.kind)).toEqual(['decision.record.adopt']);

    const own = await proposal(s, agent2.key, 'ops');
    const e = await err(s, 'decision.adopt', { decisionId: own.id, version: 1 }, agent2.key);
    expect(e.code).toBe('GOVERNANCE_NOT_READY');
    expect(e.message).toMatch(/never adopts its own proposal/);
    // agent2 holds role finance, but a role does not make an agent a decider, delegated or not.
    const eu = await proposal(s, staff.key, 'ops.eu');
    expect((await held(s, 'decision.adopt', { decisionId: eu.id, version: 1 }, { key: agent2.key })).deciders).toEqual([o.cfo.id]);
  });

  it('a supervised agent holds on every governing act, even where it would decide as the owner', async ({ decision: o }) => {
    const { s, ceo, agent } = o;
    await setRights(s, [{ area: 'desk', decidedBy: 'owner', escalateTo: ceo.id }]);
    const d = await proposal(s, agent.key, 'desk');
    await ok(s, 'decision.adopt', { decisionId: d.id, version: 1 });
    await colleague(o, agent.id, 'autonomy', 'standard');
    const d2 = await proposal(s, agent.key, 'desk');
    await ok(s, 'decision.adopt', { decisionId: d2.id, version: 1 });
    // Standard: the owner (its driver) reverses its adopted decision itself.
    expect((await ok(s, 'decision.reverse', { decisionId: d2.id, reason: 'Done with it.' }, agent.key)).decision.status).toBe('reversed');
    await colleague(o, agent.id, 'autonomy', 'supervised');
    const approval = await held(s, 'decision.reverse', { decisionId: d.id, reason: 'Done with it.' }, { key: agent.key });
    expect(approval.deciders).toEqual([ceo.id]);
    // With no human to approve, a supervised agent is refused, naming the right.
    await setRights(s, [{ area: 'desk', decidedBy: 'owner' }]);
    const refused = await err(s, 'decision.reverse', { decisionId: d.id, reason: 'Done with it.' }, agent.key);
    expect(refused.code).toBe('GOVERNANCE_NOT_READY');
    expect(refused.message).toMatch(/the right "desk" \(decidedBy owner\).*a supervised agent holds on every governing act/);
  });
});
