import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../../../helpers/harness.js';
import { decisionOrg, proposal, type Org } from './setup.js';
import { ok, rpc } from '../../../helpers/calls.js';
import { setRights } from '../../../helpers/people.js';

/*
 * Races, on PostgreSQL only (PGlite runs one connection: calls cannot overlap there, so this file is skipped on
 * it): numbers stay gapless and distinct, one adoption wins, and an act reads the rights under the org row's share
 * lock, so a declaration committing meanwhile is the one it enforces.
 */

let o: Org;
beforeAll(async () => {
  if (!onPostgres) return;
  o = await decisionOrg();
  await setRights(o.s, [{ area: 'race', decidedBy: 'humans' }]);
});
afterAll(() => o?.s.close());

describe.skipIf(!onPostgres)('decision races (PostgreSQL)', () => {
  it('concurrent proposals get distinct, gapless numbers', async () => {
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) => ok(o.s, 'decision.propose', { title: `R${i}`, area: 'race', decision: 'x' }, o.staff.key)),
    );
    const numbers = made.map((m) => m.decision.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => numbers[0] + i));
  });

  it('two deciders adopt at once: one adopts, the other finds it done (changed:false)', async () => {
    const d = await proposal(o.s, o.staff.key, 'race');
    const both = await Promise.all([o.ceo, o.cfo].map((p) => ok(o.s, 'decision.adopt', { decisionId: d.id, version: 1 }, p.key)));
    expect(both.map((b) => b.changed).sort()).toEqual([false, true]);
    const by = both.find((b) => b.changed)!.decision.adopted.by;
    expect(both.every((b) => b.decision.adopted.by === by)).toBe(true);
  });

  it('an adoption waits for a rights declaration in flight and enforces the declared rights', async () => {
    const d = await proposal(o.s, o.staff.key, 'race');
    let adopting: Promise<Awaited<ReturnType<typeof rpc>>> | undefined;
    await o.s.runtime.db.tx(async (q) => {
      await q.query('UPDATE orgs SET decision_rights = $2 WHERE org_id = $1', [o.s.org.orgId, JSON.stringify([{ area: 'race', decidedBy: o.cfo.id }])]);
      adopting = rpc(o.s, 'decision.adopt', { decisionId: d.id, version: 1 }, o.ceo.key);
      await sleep(300);
    });
    const res = await adopting!;
    // The CEO decided under the old rights; under the committed ones only the CFO does: a hold for the CFO.
    expect(res.body.result.status).toBe('approval_required');
    expect(res.body.result.approval.deciders).toEqual([o.cfo.id]);
  });
});
