import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { daysLater } from './setup.js';
import { mutate, ok, refused } from '../../../helpers/calls.js';
import { setRights } from '../../../helpers/people.js';

/* Governance's acceptance scenario 6, its escalation half, end to end over HTTP on the test clock. */

describe('scenario 6 (escalation half): an escalation climbs with the clock; an agent cannot resolve it', () => {
  it('raised at level 1; the test clock past escalateAfter -> level 2 and its assignee; an agent’s resolve -> FORBIDDEN_SCOPE', async ({ escalation: o }) => {
    await setRights(o.s, [{ area: 'pricing', decidedBy: o.mia.id, escalateTo: o.max.id }]);
    const raised = await mutate(
      o.s,
      'escalation.create',
      { title: 'Discount beyond my limit', reason: 'outside_rights', severity: 'low', area: 'pricing' },
      'escalation.case.create',
      { key: o.agentA.key },
    );
    const e = raised.result.escalation;
    expect(e).toMatchObject({ level: 1, assignee: o.mia.id, chain: [o.mia.id, o.max.id, ...o.admins], escalateAfterMinutes: 1440 });

    daysLater(o.clock, 1); // 1440 minutes later: one escalateAfter has passed
    try {
      const [now] = (await ok(o.s, 'escalation.list', { status: 'open', assignedTo: 'me' }, o.max.key)).escalations;
      expect(now).toMatchObject({ id: e.id, level: 2, assignee: o.max.id });
      expect(
        await refused(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'dismissed', resolution: 'Never mind.' }, 'GOVERNANCE_NOT_READY', {
          key: o.agentB.key,
        }),
      ).toMatch(/^an agent never resolves an escalation/);
      const done = await ok(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'directed', resolution: 'Give 10%, no more.' }, o.max.key);
      expect(done.escalation).toMatchObject({ status: 'resolved', level: 2, resolvedBy: o.max.id });
    } finally {
      o.clock.set('2026-11-20');
    }
  });
});
