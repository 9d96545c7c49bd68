import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../../../helpers/harness.js';
import { context, govOrg, task, type GovOrg } from '../escalation/setup.js';
import { ok, rpc } from '../../../helpers/calls.js';
import { setRights } from '../../../helpers/people.js';

/*
 * Races, on PostgreSQL only (PGlite runs one connection: calls cannot overlap there, so this file is skipped on
 * it). Accept and cancel lock the subject, then the offer: of the two at once, one wins and the other meets the
 * changed status (CONFLICT). Two offers of one subject at once: one offers, the other finds it offered (CONFLICT).
 */

let o: GovOrg;
beforeAll(async () => {
  if (!onPostgres) return;
  o = await govOrg();
  await setRights(o.s, [{ area: 'race', decidedBy: 'humans' }]);
});
afterAll(() => o?.s.close());

describe.skipIf(!onPostgres)('handoff races (PostgreSQL)', () => {
  it('accept and cancel at once: exactly one wins, the other gets CONFLICT, and the task agrees with the winner', async () => {
    for (let round = 0; round < 6; round++) {
      const t = await task(o.s, o.agentA.key);
      const h = (await ok(o.s, 'handoff.offer', { subject: { kind: 'task', id: t.id }, to: o.agentB.id, brief: 'race' }, o.agentA.key)).handoff;
      const [accept, cancel] = await Promise.all([
        rpc(o.s, 'handoff.accept', { handoffId: h.id }, o.agentB.key),
        rpc(o.s, 'handoff.cancel', { handoffId: h.id, reason: 'race' }, o.agentA.key),
      ]);
      const outcomes = [accept, cancel].map((r) => (r.body.ok ? 'ok' : r.body.error.code));
      expect(outcomes.sort()).toEqual(['CONFLICT', 'ok']);
      const ctx = await context(o.s, t.id);
      if (accept.body.ok) expect(ctx.task).toMatchObject({ assignee: o.agentB.id, claimedBy: null });
      else expect(ctx.task).toMatchObject({ claimedBy: o.agentA.id, assignee: null });
    }
  });

  it('two offers of one task at once: one is offered, the other CONFLICT', async () => {
    const t = await task(o.s, o.agentA.key);
    const offers = await Promise.all(
      [o.agentB.id, o.mia.id].map((to) => rpc(o.s, 'handoff.offer', { subject: { kind: 'task', id: t.id }, to, brief: 'race' }, o.agentA.key)),
    );
    expect(offers.map((r) => (r.body.ok ? 'ok' : r.body.error.code)).sort()).toEqual(['CONFLICT', 'ok']);
  });
});
