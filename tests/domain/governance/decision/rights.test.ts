import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { findRight, lookupOrder, type Right } from '../../../../domain/governance/rights.js';
import { approved, err, eventsAfter, expectOk, head, held, ok } from '../../../helpers/calls.js';
import { proposal, record } from './setup.js';
import { setRights } from '../../../helpers/people.js';

/*
 * governance.set_decision_rights with meaning: RAPID fields, selectors checked by place, the lookup order per act
 * kind, and the enforcement (caller decides -> runs; a human would -> hold for them; else FORBIDDEN_SCOPE naming the right).
 */

describe('governance.set_decision_rights: selectors and RAPID', () => {
  it('declares decidedBy, escalateTo, agree, perform and input as given; governance.status echoes them; one event', async ({ decision: o }) => {
    const rights = [
      {
        area: 'pricing',
        decidedBy: o.ceo.id,
        escalateTo: 'humans',
        agree: [o.cfo.id, 'role:finance', 'cfo'],
        perform: ['agents', o.agent.id],
        input: ['anyone'],
      },
      { area: 'handoff', decidedBy: 'owner' },
      { area: '*', decidedBy: 'role:board' },
    ];
    const seq = await head(o.s.client);
    const set = expectOk('governance.set_decision_rights', await o.s.client.rpc('governance.set_decision_rights', { rights }));
    expect(set).toMatchObject({ declared: true, rights, declaredBy: expect.stringMatching(/^usr_/) });
    expect(expectOk('governance.status', await o.s.client.rpc('governance.status', {})).rights).toEqual(rights);
    const events = await eventsAfter(o.s.client, seq);
    expect(events.map((e) => [e.kind, e.payload])).toEqual([['governance.decision_rights.set', { areas: ['pricing', 'handoff', '*'], count: 3 }]]);
  });

  it('a bad selector is BAD_REQUEST naming rights[i].field; groups only in agree, perform, input; one right per area; nothing appended', async ({
    decision: o,
  }) => {
    const good = { area: 'a', decidedBy: 'humans' };
    const seq = await head(o.s.client);
    const cases: [unknown[], RegExp][] = [
      [
        [good, { area: 'b', decidedBy: 'humans' }, { area: 'c', decidedBy: 'owner' }, { area: 'd', decidedBy: 'usr_ü' }],
        /^rights\.3\.decidedBy: "usr_ü" is not a selector/,
      ],
      [[{ area: 'a', decidedBy: 'agents' }], /^rights\.0\.decidedBy: "agents" names a group that only agree, perform and input may use/],
      [[{ area: 'a', decidedBy: 'anyone' }], /^rights\.0\.decidedBy: "anyone" names a group/],
      [[{ area: 'a', decidedBy: 'humans', escalateTo: 'agents' }], /^rights\.0\.escalateTo: /],
      [[{ area: 'a', decidedBy: 'humans', agree: ['humans', 'Not A Role'] }], /^rights\.0\.agree\.1: "Not A Role" is not a selector/],
      [[{ area: 'a', decidedBy: 'humans', perform: ['role:'] }], /^rights\.0\.perform\.0: /],
      [[{ area: 'a', decidedBy: 'humans', input: ['agt_'] }], /^rights\.0\.input\.0: /],
      [[good, { area: 'a', decidedBy: 'owner' }], /^rights\.1\.area: "a" is declared twice \(also rights\.0\)/],
    ];
    for (const [rights, message] of cases) {
      const e = await err(o.s, 'governance.set_decision_rights', { rights });
      expect(e.code).toBe('BAD_REQUEST');
      expect(e.message).toMatch(message);
    }
    expect((await err(o.s, 'governance.set_decision_rights', { rights: [{ ...good, agree: 'humans' }] })).message).toBe(
      'rights.0.agree: expected array, got string',
    );
    expect(await head(o.s.client)).toBe(seq);
  });
});

describe('lookup: first match per act kind', () => {
  const rights: Right[] = [
    { area: '*', decidedBy: 'role:board' },
    { area: 'decision', decidedBy: 'humans' },
    { area: 'pricing', decidedBy: 'usr_ceo' },
    { area: 'pricing.eu', decidedBy: 'usr_eu' },
    { area: 'charter', decidedBy: 'usr_chair' },
    { area: 'charter.updateClauses', decidedBy: 'usr_legal' },
    { area: 'handoff.sales', decidedBy: 'usr_sales' },
  ];
  it('orders: decision a.b; charter.m; handoff.a; compact', () => {
    expect(lookupOrder({ kind: 'decision', key: 'pricing.eu' })).toEqual(['pricing.eu', 'pricing', 'decision', '*']);
    expect(lookupOrder({ kind: 'decision', key: 'a.b.c' })).toEqual(['a.b.c', 'a.b', 'a', 'decision', '*']);
    expect(lookupOrder({ kind: 'charter', key: 'updateClauses' })).toEqual(['charter.updateClauses', 'charter', '*']);
    expect(lookupOrder({ kind: 'handoff', key: 'sales' })).toEqual(['handoff.sales', 'handoff', '*']);
    expect(lookupOrder({ kind: 'handoff' })).toEqual(['handoff', '*']);
    expect(lookupOrder({ kind: 'compact' })).toEqual(['compact', '*']);
  });
  it('finds the first declared area, else the kind default', () => {
    const who = (kind: 'decision' | 'charter' | 'handoff' | 'compact', key?: string) => {
      const r = findRight(rights, { kind, key });
      return [r.matched, r.right.decidedBy];
    };
    expect(who('decision', 'pricing.eu.vat')).toEqual(['pricing.eu', 'usr_eu']);
    expect(who('decision', 'pricing.us')).toEqual(['pricing', 'usr_ceo']);
    expect(who('decision', 'hiring')).toEqual(['decision', 'humans']);
    expect(who('charter', 'updateClauses')).toEqual(['charter.updateClauses', 'usr_legal']);
    expect(who('charter', 'update')).toEqual(['charter', 'usr_chair']);
    expect(who('handoff', 'sales')).toEqual(['handoff.sales', 'usr_sales']);
    expect(who('handoff', 'support')).toEqual(['*', 'role:board']);
    expect(who('compact')).toEqual(['*', 'role:board']);
    const none = findRight([], { kind: 'handoff' });
    expect([none.matched, none.right.decidedBy]).toEqual([null, 'owner']);
    expect(findRight([], { kind: 'compact' }).right.decidedBy).toBe('humans');
  });
});

describe('enforcement on decision acts', () => {
  it('an admin outside the rights adopts by override (event override:true); humans decide by default; agents hold for any human', async ({ decision: o }) => {
    const { s, ceo, staff, agent } = o;
    await setRights(s, [{ area: 'board', decidedBy: ceo.id }]);
    const d = await proposal(s, staff.key, 'board');
    const seq = await head(s.client);
    const byAdmin = await ok(s, 'decision.adopt', { decisionId: d.id, version: 1 });
    expect(byAdmin.decision.adopted).toMatchObject({ override: true, approvalId: null });
    expect((await eventsAfter(s.client, seq))[0].payload).toMatchObject({ override: true });

    // No right matches `misc`: humans decide; a human adopts directly; an agent holds for any human (no deciders named).
    const m = await proposal(s, agent.key, 'misc');
    const approval = await held(s, 'decision.adopt', { decisionId: m.id, version: 1 }, { key: o.agent2.key });
    expect(approval.deciders).toBeUndefined();
    const m2 = await proposal(s, agent.key, 'misc');
    expect((await ok(s, 'decision.adopt', { decisionId: m2.id, version: 1 }, staff.key)).decision.adopted.override).toBe(false);
  });

  it('decidedBy an agent (standard autonomy) or an empty role: FORBIDDEN_SCOPE naming the right; escalateTo humans approve the hold', async ({
    decision: o,
  }) => {
    const { s, ceo, staff, agent, agent2 } = o;
    await setRights(s, [
      { area: 'infra', decidedBy: agent2.id },
      { area: 'legal', decidedBy: 'role:counsel' },
      { area: 'data', decidedBy: agent2.id, escalateTo: ceo.id },
    ]);
    const infra = await proposal(s, agent.key, 'infra');
    const legal = await proposal(s, agent.key, 'legal');
    const seq = await head(s.client);
    const named = await err(s, 'decision.adopt', { decisionId: infra.id, version: 1 }, agent2.key);
    expect(named.code).toBe('GOVERNANCE_NOT_READY');
    expect(named.message).toContain(`the right "infra" (decidedBy ${agent2.id})`);
    const role = await err(s, 'decision.adopt', { decisionId: legal.id, version: 1 }, staff.key);
    expect(role.code).toBe('GOVERNANCE_NOT_READY');
    expect(role.message).toContain('the right "legal" (decidedBy role:counsel)');
    expect(await head(s.client)).toBe(seq);

    const data = await proposal(s, agent.key, 'data');
    const approval = await held(s, 'decision.adopt', { decisionId: data.id, version: 1 }, { key: agent2.key });
    expect(approval.deciders).toEqual([ceo.id]);
    const approvalId = await approved(s, approval, agent2.key, ceo.key);
    expect((await ok(s, 'decision.adopt', { decisionId: data.id, version: 1, approvalId }, agent2.key)).decision.status).toBe('adopted');
  });

  it('owner: the driver decides its decision; another human holds for the driver, if the driver may decide approvals', async ({ decision: o }) => {
    const { s, ceo, cfo, staff } = o;
    await setRights(s, [{ area: 'team', decidedBy: 'owner' }]);
    const mine = await proposal(s, staff.key, 'team');
    expect((await ok(s, 'decision.adopt', { decisionId: mine.id, version: 1 }, staff.key)).decision.adopted.by).toBe(staff.id);
    const cfos = await proposal(s, cfo.key, 'team');
    const approval = await held(s, 'decision.adopt', { decisionId: cfos.id, version: 1 }, { key: ceo.key });
    expect(approval.deciders).toEqual([cfo.id]);
    // Staff (role member) decides its own decision but cannot decide an approval: no hold that would wait forever.
    const theirs = await proposal(s, staff.key, 'team');
    expect((await record(s, theirs.id)).requirements.decider).toEqual({ decidedBy: 'owner', escalateTo: null, humans: [staff.id] });
    const e = await err(s, 'decision.adopt', { decisionId: theirs.id, version: 1 }, ceo.key);
    expect(e.code).toBe('GOVERNANCE_NOT_READY');
    expect(e.message).toContain('no other active human who may decide approvals (role admin or approver) does');
  });

  it('a proof decided by someone who no longer decides (rights changed since the hold) is refused at the retry', async ({ decision: o }) => {
    const { s, ceo, cfo, agent, agent2 } = o;
    await setRights(s, [{ area: 'fleet', decidedBy: ceo.id }]);
    const d = await proposal(s, agent.key, 'fleet');
    const approval = await held(s, 'decision.adopt', { decisionId: d.id, version: 1 }, { key: agent2.key });
    const approvalId = await approved(s, approval, agent2.key, ceo.key);
    await setRights(s, [{ area: 'fleet', decidedBy: cfo.id }]);
    const seq = await head(s.client);
    const e = await err(s, 'decision.adopt', { decisionId: d.id, version: 1, approvalId }, agent2.key);
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toContain(`was decided by ${ceo.id}, who is not among those who decide this act now (${cfo.id})`);
    expect(await head(s.client)).toBe(seq);
    expect((await record(s, d.id)).decision.status).toBe('proposed');
  });
});
