import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { freshOrg, TestClient } from '../../../helpers/harness.js';
import { err, eventsAfter, head, held, ok, rpc } from '../../../helpers/calls.js';
import { file, proposal, record } from './setup.js';
import { setRights } from '../../../helpers/people.js';

/* Governance's acceptance scenarios 1, 2 and the decision parts of 3, end to end over HTTP. */

describe('scenario 1: rights {pricing: usr_ceo, agree usr_cfo}; proposal, signature, held adoption decided by the CEO', () => {
  it('agent proposes (replay: no new event); adopt -> CONFLICT naming the CFO; CFO signs; adopt holds; CFO resolve refused; CEO approves; retry adopts; reuse refused', async ({
    decision: o,
  }) => {
    const { s, ceo, cfo, agent, agent2 } = o;
    await setRights(s, [{ area: 'pricing', decidedBy: ceo.id, agree: [cfo.id] }]);

    // The pricing agent proposes; the same call under the same key replays the stored frame and appends nothing.
    const params = { title: 'EU list prices +5%', area: 'pricing', decision: 'Raise EU list prices by 5% from Q3.' };
    const first = await rpc(s, 'decision.propose', params, agent.key, 'propose-pricing-1');
    const at = await head(s.client);
    const replay = await rpc(s, 'decision.propose', params, agent.key, 'propose-pricing-1');
    expect(replay.raw).toBe(first.raw);
    expect(await head(s.client)).toBe(at);
    const d = first.body.result.decision;
    expect(d).toMatchObject({ status: 'proposed', version: 1, driver: agent.id, number: expect.any(Number) });

    // Another agent (the coordinator) adopts: the CFO has not signed.
    const adopt = { decisionId: d.id, version: 1 };
    const missing = await err(s, 'decision.adopt', adopt, agent2.key);
    expect(missing.code).toBe('CONFLICT');
    expect(missing.message).toContain(`lacks the agree signature of ${cfo.id}`);
    expect((await record(s, d.id)).requirements).toMatchObject({
      right: 'pricing',
      missingSigners: [cfo.id],
      ready: false,
      decider: { decidedBy: ceo.id, humans: [ceo.id] },
    });

    const signed = await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, cfo.key);
    expect(signed).toMatchObject({ changed: true, counts: true, signature: { signer: cfo.id, signerKind: 'human', version: 1, current: true } });

    // The coordinator agent does not decide pricing: a hold for the CEO alone.
    const before = await head(s.client);
    const approval = await held(s, 'decision.adopt', adopt, { key: agent2.key });
    expect(approval).toMatchObject({ actionClass: 'decision.adopt', deciders: [ceo.id], subject: { kind: 'decision.signature', subjectId: d.id } });
    expect((await eventsAfter(s.client, before)).map((e) => [e.kind, e.actor])).toEqual([['decision.signature.hold', agent2.id]]);
    expect((await record(s, d.id)).decision.status).toBe('proposed');

    const filed = await file(s, approval, agent2.key);
    const byCfo = await err(s, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, cfo.key);
    expect(byCfo.code).toBe('CONFLICT');
    expect(byCfo.message).toContain(ceo.id);
    await ok(s, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, ceo.key);

    const done = await ok(s, 'decision.adopt', { ...adopt, approvalId: filed.approvalId }, agent2.key);
    expect(done).toMatchObject({
      changed: true,
      decision: { status: 'adopted', adopted: { version: 1, by: agent2.id, approvalId: filed.approvalId, override: false } },
    });
    const adoptEvent = (await eventsAfter(s.client, before)).find((e) => e.kind === 'decision.record.adopt');
    expect(adoptEvent.payload).toMatchObject({ decisionId: d.id, version: 1, status: 'adopted', approvalId: filed.approvalId, override: false, signatures: 1 });

    // The proof is single-use: offered again it is refused, and nothing changes.
    const again = await err(s, 'decision.adopt', { ...adopt, approvalId: filed.approvalId }, agent2.key);
    expect(again.code).toBe('GOVERNANCE_NOT_READY');
    expect(again.message).toMatch(/already used/);
    // The proposing agent itself never adopts its own proposal.
    const other = await proposal(s, agent.key, 'pricing');
    expect((await err(s, 'decision.adopt', { decisionId: other.id, version: 1 }, agent.key)).code).toBe('GOVERNANCE_NOT_READY');
  });
});

describe('scenario 2: adjustment, re-proposal, stale signature', () => {
  it('requestAdjustment; adopt -> CONFLICT; re-propose v2; sign v1 -> CONFLICT; sign and adopt v2', async ({ decision: o }) => {
    const { s, ceo, cfo, staff } = o;
    await setRights(s, [{ area: 'hiring', decidedBy: ceo.id, agree: [cfo.id] }]);
    const d = await proposal(s, staff.key, 'hiring', { title: 'Hire two engineers' });
    await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, cfo.key);

    const adj = await ok(s, 'decision.requestAdjustment', { decisionId: d.id, version: 1, body: 'Make it one senior engineer.' }, ceo.key);
    expect(adj).toMatchObject({ changed: true, decision: { status: 'adjustment_requested' }, comment: { kind: 'adjustment', version: 1, resolvedAt: null } });
    const blocked = await err(s, 'decision.adopt', { decisionId: d.id, version: 1 }, ceo.key);
    expect(blocked.code).toBe('CONFLICT');
    expect(blocked.message).toMatch(/1 open adjustment request on version 1/);

    const v2 = await ok(s, 'decision.propose', { decisionId: d.id, decision: 'Hire one senior engineer.' }, staff.key);
    expect(v2).toMatchObject({ changed: true, decision: { version: 2, status: 'proposed' } });
    expect(v2.decision.contentHash).not.toBe(d.contentHash);
    const stale = await err(s, 'decision.sign', { decisionId: d.id, version: 1 }, cfo.key);
    expect(stale.code).toBe('CONFLICT');
    expect(stale.message).toMatch(/version 1 of decision D-\d+ .* is stale: it is at version 2/);
    // The CFO's version-1 signature is stale: adoption waits for a signature on version 2.
    expect((await record(s, d.id)).requirements.missingSigners).toEqual([cfo.id]);

    await ok(s, 'decision.sign', { decisionId: d.id, version: 2 }, cfo.key);
    const adopted = await ok(s, 'decision.adopt', { decisionId: d.id, version: 2, outcome: 'Hiring opens Monday.' }, ceo.key);
    expect(adopted.decision).toMatchObject({
      status: 'adopted',
      outcome: 'Hiring opens Monday.',
      adopted: { version: 2, contentHash: v2.decision.contentHash, by: ceo.id },
    });
    const full = await record(s, d.id);
    expect(full.signatures.map((x: any) => [x.version, x.signer, x.current])).toEqual([
      [2, cfo.id, true],
      [1, cfo.id, false],
    ]);
    expect(full.versions.map((v: any) => v.version)).toEqual([1, 2]);
  });
});

describe('scenario 3 (decision parts): no rights -> 423; supersede links both ways; a superseded decision is not reversed', () => {
  it('without rights adopt answers GOVERNANCE_NOT_READY; D2 supersedes D1, both linked; reverse D1 -> CONFLICT', async ({ decision: o }) => {
    const bare = await freshOrg(o.s.runtime, 'norights');
    const admin = new TestClient(o.s.app, bare.adminKey);
    const d = (await admin.ok('decision.propose', { title: 'Open on Sundays', area: 'ops', decision: 'Open the shop on Sundays.' })).decision;
    const refused = await admin.rpc('decision.adopt', { decisionId: d.id, version: 1 });
    expect(refused.status).toBe(423);
    expect(refused.body.error.code).toBe('GOVERNANCE_NOT_READY');
    expect((await admin.rpc('decision.supersede', { decisionId: d.id, version: 1, supersedes: ['dec_0123456789abcdef'] })).status).toBe(423);

    const { s, ceo } = o;
    await setRights(s, [{ area: 'ops', decidedBy: ceo.id }]);
    const d1 = await proposal(s, ceo.key, 'ops', { title: 'Close at 5pm' });
    await ok(s, 'decision.adopt', { decisionId: d1.id, version: 1 }, ceo.key);
    const d2 = await proposal(s, ceo.key, 'ops', { title: 'Close at 6pm' });
    const sup = await ok(s, 'decision.supersede', { decisionId: d2.id, version: 1, supersedes: [d1.id] }, ceo.key);
    expect(sup.decision).toMatchObject({ id: d2.id, status: 'adopted', supersedes: [d1.id] });
    expect(sup.superseded).toMatchObject([{ id: d1.id, status: 'superseded', supersededBy: d2.id }]);
    expect((await record(s, d1.id)).decision).toMatchObject({ status: 'superseded', supersededBy: d2.id });
    expect((await record(s, d2.id)).decision.supersedes).toEqual([d1.id]);

    const reversal = await err(s, 'decision.reverse', { decisionId: d1.id, reason: 'Changed our minds.' }, ceo.key);
    expect(reversal.code).toBe('CONFLICT');
    expect(reversal.message).toContain(`superseded by ${d2.id}`);
  });
});
