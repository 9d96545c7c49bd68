import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approved, err, eventsAfter, head, held, ok, otherOrg } from '../../../helpers/calls.js';
import type { TestClient } from '../../../helpers/harness.js';
import { decisionOrg, file, proposal, record, type Org } from './setup.js';
import { setRights } from '../../../helpers/people.js';

/* decision.sign, adopt, supersede and reverse: main paths, holds, no-ops and misuse. */

let o: Org;
let other: TestClient;
let foreign: any;
beforeAll(async () => {
  o = await decisionOrg();
  other = await otherOrg(o.s);
  foreign = (await other.ok('decision.propose', { title: 'Foreign', area: 'x', decision: 'Theirs.' })).decision;
  await setRights(o.s, [
    { area: 'pricing', decidedBy: o.ceo.id, agree: [o.cfo.id] },
    { area: 'ops', decidedBy: o.ceo.id, agree: ['agents'] },
    { area: 'legal', decidedBy: o.cfo.id },
  ]);
});
afterAll(() => o.s.close());

describe('decision.sign', () => {
  it('a human signs; a second time is changed:false; an agent’s own signature counts only where agree names it', async () => {
    const { s, staff, cfo, agent } = o;
    const d = await proposal(s, staff.key, 'pricing');
    const seq = await head(s.client);
    const first = await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, cfo.key);
    expect(first).toMatchObject({ changed: true, counts: true, signature: { signer: cfo.id, relayedBy: null, approvalId: null, contentHash: d.contentHash } });
    const again = await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, cfo.key);
    expect(again).toMatchObject({ changed: false, signature: { id: first.signature.id } });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.signer, e.payload.counts, e.payload.noop])).toEqual([
      ['decision.signature.add', cfo.id, true, undefined],
      ['decision.signature.add', cfo.id, true, true],
    ]);
    // An agent endorses as itself: it does not count for pricing (agree names the CFO), it does for ops (agree: agents).
    expect((await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, agent.key)).counts).toBe(false);
    const opsDecision = await proposal(s, staff.key, 'ops');
    expect((await record(s, opsDecision.id)).requirements.missingSigners).toEqual(['agents']);
    expect((await ok(s, 'decision.sign', { decisionId: opsDecision.id, version: 1 }, agent.key)).signature.signerKind).toBe('agent');
    expect((await record(s, opsDecision.id)).requirements).toMatchObject({ missingSigners: [], ready: true });
  });

  it('an agent relays a human’s signature (onBehalfOf): held for that human alone; their approval makes it theirs, once', async () => {
    const { s, staff, cfo, ceo, agent } = o;
    const d = await proposal(s, staff.key, 'pricing');
    const params = { decisionId: d.id, version: 1, onBehalfOf: cfo.id };
    const approval = await held(s, 'decision.sign', params, { key: agent.key });
    expect(approval).toMatchObject({ actionClass: 'decision.sign', deciders: [cfo.id], subject: { subjectId: d.id } });
    expect(approval.subject.summary).toContain(`(version 1, content ${d.contentHash.slice(0, 12)})`);
    const filed = await file(s, approval, agent.key);
    expect((await err(s, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, ceo.key)).code).toBe('CONFLICT');
    await ok(s, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, cfo.key);
    const signed = await ok(s, 'decision.sign', { ...params, approvalId: filed.approvalId }, agent.key);
    expect(signed).toMatchObject({
      changed: true,
      counts: true,
      signature: { signer: cfo.id, signerKind: 'human', relayedBy: agent.id, approvalId: filed.approvalId },
    });
    expect((await record(s, d.id)).requirements.missingSigners).toEqual([]);
    expect((await err(s, 'decision.sign', { ...params, approvalId: filed.approvalId }, agent.key)).message).toMatch(/already used/);
    // Single use: the same proof for another decision is bound to this one; for this one it is used.
    const d2 = await proposal(s, staff.key, 'pricing');
    expect((await err(s, 'decision.sign', { decisionId: d2.id, version: 1, onBehalfOf: cfo.id, approvalId: filed.approvalId }, agent.key)).code).toBe(
      'CONFLICT',
    );
    await ok(s, 'decision.propose', { decisionId: d.id, title: 'v2' }, staff.key);
    expect((await err(s, 'decision.sign', { decisionId: d.id, version: 2, onBehalfOf: cfo.id, approvalId: filed.approvalId }, agent.key)).code).toBe(
      'CONFLICT',
    );
  });

  it('misuse: onBehalfOf an agent or a stranger, stale or closed, another org’s id, missing scope; nothing appended', async () => {
    const { s, staff, cfo, ceo, agent, agent2, reader } = o;
    const d = await proposal(s, staff.key, 'legal');
    await ok(s, 'decision.propose', { decisionId: d.id, title: 'v2' }, staff.key);
    const closed = await proposal(s, staff.key, 'legal');
    await ok(s, 'decision.adopt', { decisionId: closed.id, version: 1 }, cfo.key);
    const seq = await head(s.client);
    expect((await err(s, 'decision.sign', { decisionId: d.id, version: 2, onBehalfOf: agent2.id }, agent.key)).message).toMatch(/^onBehalfOf: must be usr_…/);
    expect((await err(s, 'decision.sign', { decisionId: d.id, version: 2, onBehalfOf: 'usr_stranger1' }, agent.key)).message).toBe(
      'onBehalfOf: no active human member usr_stranger1 in this org',
    );
    expect((await err(s, 'decision.sign', { decisionId: d.id, version: 2, onBehalfOf: staff.id }, agent.key)).message).toBe(
      `onBehalfOf: ${staff.id} cannot decide approvals (role admin or approver), so cannot approve a relayed signature; they sign by calling decision.sign`,
    );
    expect((await err(s, 'decision.sign', { decisionId: d.id, version: 1 }, ceo.key)).code).toBe('CONFLICT');
    const shut = await err(s, 'decision.sign', { decisionId: closed.id, version: 1 }, ceo.key);
    expect(shut.message).toMatch(/is adopted, so it is closed to signatures/);
    expect((await err(s, 'decision.sign', { decisionId: foreign.id, version: 1 }, ceo.key)).code).toBe('NOT_FOUND');
    expect((await err(s, 'decision.sign', { decisionId: d.id, version: 2 }, reader.key)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('decision.adopt', () => {
  it('the decider adopts the signed current version with outcome and review date; again -> changed:false', async () => {
    const { s, staff, cfo, ceo } = o;
    const d = await proposal(s, staff.key, 'pricing');
    await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, cfo.key);
    const seq = await head(s.client);
    const done = await ok(s, 'decision.adopt', { decisionId: d.id, version: 1, outcome: 'Go.', reviewOn: '2027-01-31' }, ceo.key);
    expect(done.decision).toMatchObject({
      status: 'adopted',
      outcome: 'Go.',
      reviewOn: '2027-01-31',
      adopted: { version: 1, contentHash: d.contentHash, by: ceo.id, override: false },
    });
    const again = await ok(s, 'decision.adopt', { decisionId: d.id, version: 1 }, ceo.key);
    expect(again.changed).toBe(false);
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => e.payload)).toEqual([
      { decisionId: d.id, number: d.number, version: 1, contentHash: d.contentHash, status: 'adopted', signatures: 1, override: false, approvalId: null },
      { decisionId: d.id, number: d.number, version: 1, contentHash: d.contentHash, status: 'adopted', noop: true },
    ]);
  });

  it('misuse: stale, closed, unknown or foreign id, missing scope; nothing appended', async () => {
    const { s, staff, ceo, reader } = o;
    const d = await proposal(s, staff.key, 'legal');
    await ok(s, 'decision.propose', { decisionId: d.id, title: 'v2' }, staff.key);
    const gone = await proposal(s, staff.key, 'legal');
    await ok(s, 'decision.reverse', { decisionId: gone.id, reason: 'x' }, staff.key);
    const seq = await head(s.client);
    expect((await err(s, 'decision.adopt', { decisionId: d.id, version: 1 }, o.cfo.key)).message).toMatch(/is stale: it is at version 2/);
    expect((await err(s, 'decision.adopt', { decisionId: gone.id, version: 1 }, o.cfo.key)).message).toMatch(/is withdrawn: closed is final/);
    for (const id of [foreign.id, 'dec_unknown1']) expect((await err(s, 'decision.adopt', { decisionId: id, version: 1 })).code).toBe('NOT_FOUND');
    expect((await err(s, 'decision.adopt', { decisionId: d.id, version: 2 }, reader.key)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err(s, 'decision.adopt', { decisionId: d.id, version: 2, reviewOn: '31/01/2027' }, ceo.key)).message).toMatch(/^reviewOn: must be a date/);
    expect(await head(s.client)).toBe(seq);
  });
});

describe('decision.supersede', () => {
  it('adopts the new one and closes several targets in one call; again -> changed:false', async () => {
    const { s, staff, cfo } = o;
    const t1 = await proposal(s, staff.key, 'legal');
    const t2 = await proposal(s, staff.key, 'legal');
    for (const t of [t1, t2]) await ok(s, 'decision.adopt', { decisionId: t.id, version: 1 }, cfo.key);
    const n = await proposal(s, staff.key, 'legal');
    const seq = await head(s.client);
    const sup = await ok(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [t1.id, t2.id] }, cfo.key);
    expect(sup.superseded.map((t: any) => [t.id, t.status, t.supersededBy, t.closed.by])).toEqual([
      [t1.id, 'superseded', n.id, cfo.id],
      [t2.id, 'superseded', n.id, cfo.id],
    ]);
    expect(sup.decision).toMatchObject({ status: 'adopted', supersedes: [t1.id, t2.id] });
    expect((await ok(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [t1.id, t2.id] }, cfo.key)).changed).toBe(false);
    expect((await eventsAfter(s.client, seq)).map((e) => [e.kind, e.payload.supersedes, e.payload.noop])).toEqual([
      ['decision.record.supersede', [t1.id, t2.id], undefined],
      ['decision.record.supersede', [t1.id, t2.id], true],
    ]);
  });

  it('the caller must decide each target too: one hold for humans who decide them all, or FORBIDDEN_SCOPE', async () => {
    const { s, staff, cfo, ceo, agent } = o;
    const target = await proposal(s, staff.key, 'legal');
    await ok(s, 'decision.adopt', { decisionId: target.id, version: 1 }, cfo.key);
    const n = await proposal(s, staff.key, 'ops');
    await ok(s, 'decision.sign', { decisionId: n.id, version: 1 }, agent.key);
    // The CEO decides ops but not legal (the CFO does): a hold, yet no single human decides both.
    const refused = await err(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [target.id] }, ceo.key);
    expect(refused.code).toBe('GOVERNANCE_NOT_READY');
    expect(refused.message).toContain(`the right "legal" (decidedBy ${cfo.id})`);
    await setRights(s, [
      { area: 'pricing', decidedBy: ceo.id, agree: [cfo.id] },
      { area: 'ops', decidedBy: ceo.id, agree: ['agents'] },
      { area: 'legal', decidedBy: 'humans' },
    ]);
    const approval = await held(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [target.id] }, { key: o.agent2.key });
    expect(approval.deciders).toEqual([ceo.id]);
    const approvalId = await approved(s, approval, o.agent2.key, ceo.key);
    expect(
      (await ok(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [target.id], approvalId }, o.agent2.key)).decision.adopted.approvalId,
    ).toBe(approvalId);
    await setRights(s, [
      { area: 'pricing', decidedBy: ceo.id, agree: [cfo.id] },
      { area: 'ops', decidedBy: ceo.id, agree: ['agents'] },
      { area: 'legal', decidedBy: cfo.id },
    ]);
  });

  it('misuse: itself, repeats, a target not adopted, another org’s target; nothing appended', async () => {
    const { s, staff, cfo } = o;
    const n = await proposal(s, staff.key, 'legal');
    const open = await proposal(s, staff.key, 'legal');
    const seq = await head(s.client);
    expect((await err(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [n.id] }, cfo.key)).message).toBe(
      `supersedes: cannot include ${n.id}, the decision that supersedes`,
    );
    expect((await err(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [open.id, open.id] }, cfo.key)).message).toBe(
      'supersedes: must not repeat a decision',
    );
    const notAdopted = await err(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [open.id] }, cfo.key);
    expect(notAdopted.code).toBe('CONFLICT');
    expect(notAdopted.message).toMatch(/is proposed, not adopted: only an adopted decision is superseded \(adopt it, or withdraw it/);
    expect((await err(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [foreign.id] }, cfo.key)).code).toBe('NOT_FOUND');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('decision.reverse', () => {
  it('the driver withdraws an open decision; a decider reverses an adopted one; others hold; again -> changed:false', async () => {
    const { s, staff, cfo, agent } = o;
    const d = await proposal(s, agent.key, 'legal');
    const seq = await head(s.client);
    const w = await ok(s, 'decision.reverse', { decisionId: d.id, reason: 'Not needed.' }, agent.key);
    expect(w.decision).toMatchObject({ status: 'withdrawn', closed: { by: agent.id, reason: 'Not needed.' } });
    expect((await ok(s, 'decision.reverse', { decisionId: d.id, reason: 'Again.' }, agent.key)).changed).toBe(false);
    expect((await eventsAfter(s.client, seq)).map((e) => [e.payload.from, e.payload.status, e.payload.noop])).toEqual([
      ['proposed', 'withdrawn', undefined],
      ['withdrawn', 'withdrawn', true],
    ]);

    const a = await proposal(s, staff.key, 'legal');
    await ok(s, 'decision.adopt', { decisionId: a.id, version: 1 }, cfo.key);
    // The agent does not decide legal: its reversal holds for the CFO; the driver (staff) is no decider either.
    expect((await held(s, 'decision.reverse', { decisionId: a.id, reason: 'Wrong.' }, { key: agent.key })).deciders).toEqual([cfo.id]);
    expect((await held(s, 'decision.reverse', { decisionId: a.id, reason: 'Wrong.' }, { key: staff.key })).deciders).toEqual([cfo.id]);
    const r = await ok(s, 'decision.reverse', { decisionId: a.id, reason: 'Wrong.' }, cfo.key);
    expect(r.decision).toMatchObject({ status: 'reversed', adopted: { version: 1 }, closed: { by: cfo.id, reason: 'Wrong.' } });
  });

  it('misuse: superseded, unknown or foreign id, empty reason, missing scope; nothing appended', async () => {
    const { s, staff, cfo, reader } = o;
    const t = await proposal(s, staff.key, 'legal');
    await ok(s, 'decision.adopt', { decisionId: t.id, version: 1 }, cfo.key);
    const n = await proposal(s, staff.key, 'legal');
    await ok(s, 'decision.supersede', { decisionId: n.id, version: 1, supersedes: [t.id] }, cfo.key);
    const seq = await head(s.client);
    expect((await err(s, 'decision.reverse', { decisionId: t.id, reason: 'x' }, cfo.key)).message).toMatch(
      new RegExp(`was superseded by ${n.id}: it is closed; reverse or supersede ${n.id} instead`),
    );
    for (const id of [foreign.id, 'dec_unknown1']) expect((await err(s, 'decision.reverse', { decisionId: id, reason: 'x' })).code).toBe('NOT_FOUND');
    expect((await err(s, 'decision.reverse', { decisionId: n.id, reason: '' }, cfo.key)).message).toMatch(/^reason: /);
    expect((await err(s, 'decision.reverse', { decisionId: n.id, reason: 'x' }, reader.key)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});
