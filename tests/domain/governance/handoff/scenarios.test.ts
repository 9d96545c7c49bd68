import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { freshOrg, TestClient } from '../../../helpers/harness.js';
import { eventsAfter, head, ok, refused } from '../../../helpers/calls.js';
import { context, daysLater, task } from '../escalation/setup.js';
import { setRights } from '../../../helpers/people.js';

/* Governance's acceptance scenario 5 and the handoff part of scenario 3, end to end over HTTP. */

describe('scenario 3 (handoff part): no rights declared -> handoff.offer answers 423', () => {
  it('handoff.* answer GOVERNANCE_NOT_READY until governance.set_decision_rights, appending nothing', async ({ escalation: o }) => {
    const bare = await freshOrg(o.s.runtime, 'norights');
    const admin = new TestClient(o.s.app, bare.adminKey);
    const t = await admin.ok('board.createTask', { title: 'Unowned work' });
    const agent = await admin.mint({ tier: 'agent' });
    const before = await head(admin);
    const refusedOffer = await admin.rpc('handoff.offer', { subject: { kind: 'task', id: t.id }, to: agent.principal.id, brief: 'Take it.' });
    expect(refusedOffer.status).toBe(423);
    expect(refusedOffer.body.error).toMatchObject({ code: 'GOVERNANCE_NOT_READY', message: expect.stringMatching(/^handoff\.offer is governance-gated/) });
    for (const method of ['handoff.accept', 'handoff.decline', 'handoff.cancel']) {
      const res = await admin.rpc(method, { handoffId: 'hof_0123456789abcdef', ...(method === 'handoff.accept' ? {} : { reason: 'x' }) });
      expect(res.status, method).toBe(423);
    }
    expect(await head(admin)).toBe(before);
  });
});

describe('scenario 5: A offers its claimed task to B; a second offer conflicts; B accepts; an expired offer conflicts', () => {
  it('offer, second offer -> CONFLICT, accept -> assignee B and the claim gone, expired offer -> CONFLICT', async ({ escalation: o }) => {
    const { s, agentA: a, agentB: b } = o;
    await setRights(s, [{ area: 'ops', decidedBy: 'humans' }]);
    const t = await task(s, a.key);
    expect((await context(s, t.id)).task).toMatchObject({ claimedBy: a.id, col: 'doing' });

    const first = (await ok(s, 'handoff.offer', { subject: { kind: 'task', id: t.id }, to: b.id, brief: 'Half done: tests remain.' }, a.key)).handoff;
    expect(first).toMatchObject({ status: 'offered', from: a.id, to: b.id, holderAtOffer: a.id });
    const second = await refused(s, 'handoff.offer', { subject: { kind: 'task', id: t.id }, to: o.mia.id, brief: 'Or you?' }, 'CONFLICT', { key: a.key });
    expect(second).toContain(`task ${t.id} has an open offer already (${first.id} to ${b.id}`);
    expect((await context(s, t.id)).pendingHandoff).toMatchObject({ id: first.id, to: b.id });

    const before = await head(s.client);
    const accepted = await ok(s, 'handoff.accept', { handoffId: first.id }, b.key);
    expect(accepted).toMatchObject({ changed: true, handoff: { status: 'accepted' } });
    // Ownership moved in the same call: one handoff event, and board appended none of its own.
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => e.kind)).toEqual(['handoff.offer.accept']);
    expect(events[0].payload).toMatchObject({ previousHolder: a.id, previousAssignee: null, claimReleased: true, col: 'todo' });
    const after = await context(s, t.id);
    expect(after.task).toMatchObject({ assignee: b.id, claimedBy: null, claimExpiresAt: null, col: 'todo' });
    expect(after.pendingHandoff).toBeNull();
    // A no longer holds it: it cannot offer it again; B can.
    expect(
      await refused(s, 'handoff.offer', { subject: { kind: 'task', id: t.id }, to: o.mia.id, brief: 'x' }, 'GOVERNANCE_NOT_READY', { key: a.key }),
    ).toMatch(/decidedBy owner/);

    // An offer left unanswered past its 72 hours: accepting it is a CONFLICT, and a new offer may be made.
    const late = (await ok(s, 'handoff.offer', { subject: { kind: 'task', id: t.id }, to: a.id, brief: 'Back to you.' }, b.key)).handoff;
    daysLater(o.clock, 3);
    try {
      expect((await context(s, t.id)).pendingHandoff).toBeNull();
      const expired = await refused(s, 'handoff.accept', { handoffId: late.id }, 'CONFLICT', { key: a.key });
      expect(expired).toBe(
        `handoff ${late.id} expired at 2026-11-23T09:00:00.000Z unanswered: it is closed; ${b.id} may offer task ${t.id} again (handoff.offer)`,
      );
      const again = await ok(s, 'handoff.offer', { subject: { kind: 'task', id: t.id }, to: a.id, brief: 'Once more.' }, b.key);
      expect(again.changed).toBe(true);
      const events2 = await eventsAfter(s.client, before);
      expect(events2.at(-1).payload.expiredOffers).toBe(1);
    } finally {
      o.clock.set('2026-11-20');
    }
  });
});
