import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileAndApprove, head, eventsAfter, held, mutate, ok, refused } from '../../helpers/calls.js';
import { memOrg, type MemOrg } from '../knowledge/kit.js';

/*
 * Acceptance scenario 5 of the design: a proposer's merge -> CONFLICT; a stale
 * replace -> CONFLICT; an agent's SOP publishes after a human's approval.
 */

let o: MemOrg;
beforeAll(async () => {
  o = await memOrg();
});
afterAll(() => o.s.close());

describe('scenario 5: memory and SOP', () => {
  it('two agents amend a shared block: no lost write, the proposer cannot merge, the stale replace is refused', async () => {
    const block = (await ok(o.s, 'memory.author', { label: 'escalations', value: 'Escalate to Mia.', audience: 'org' }, o.mia.key)).block;
    const a = (
      await ok(o.s, 'memory.proposeAmendment', { blockId: block.id, op: 'replace', oldText: 'Mia', newText: 'Max', reason: 'Mia is away.' }, o.agent.key)
    ).amendment;
    const b = (
      await ok(
        o.s,
        'memory.proposeAmendment',
        { blockId: block.id, op: 'replace', oldText: 'to Mia', newText: 'to the on-call', reason: 'Rota.' },
        o.agent2.key,
      )
    ).amendment;
    const c = (
      await ok(o.s, 'memory.proposeAmendment', { blockId: block.id, op: 'append', newText: 'Never after 22:00.', reason: 'Quiet hours.' }, o.agent2.key)
    ).amendment;
    await refused(o.s, 'memory.mergeAmendment', { amendmentId: a.id, decision: 'merge' }, 'CONFLICT', { key: o.agent.key, message: /never its proposer/ });
    await mutate(o.s, 'memory.mergeAmendment', { amendmentId: a.id, decision: 'merge' }, 'memory.amendment.merge', { key: o.mia.key });
    const stale = await refused(o.s, 'memory.mergeAmendment', { amendmentId: b.id, decision: 'merge' }, 'CONFLICT', { key: o.mia.key });
    expect(stale).toMatch(
      new RegExp(`amendment ${b.id} is stale: its oldText is no longer in memory block ${block.id} \\(version 2; proposed on version 1\\)`),
    );
    // An append made on version 1 still merges: appends commute.
    const merged = await mutate(o.s, 'memory.mergeAmendment', { amendmentId: c.id, decision: 'merge' }, 'memory.amendment.merge', { key: o.mia.key });
    expect(merged.result.block).toMatchObject({ version: 3, value: 'Escalate to Max.\nNever after 22:00.' });
    const prompt = (await ok(o.s, 'memory.list', { format: 'prompt' }, o.agent2.key)).prompt;
    expect(prompt).toContain('Escalate to Max.\nNever after 22:00.');
  });

  it("an agent's SOP: drafted alone, activated after a human approves; the ledger has its version hashes", async () => {
    const before = await head(o.s);
    const draft = (
      await ok(
        o.s,
        'sop.create',
        { title: 'Refund request', purpose: 'Refund within policy.', steps: [{ text: 'Check the order', method: 'books.invoiceCreditNote' }] },
        o.agent.key,
      )
    ).sop;
    const approval = await held(o.s, 'sop.update', { sopId: draft.id, ifVersion: 1, status: 'active' }, { key: o.agent.key, holdKind: 'sop.signature.hold' });
    expect(approval).toMatchObject({ actionClass: 'sop.update', subject: { kind: 'sop.signature', subjectId: draft.id } });
    const approvalId = await fileAndApprove(o.s, approval, { requester: o.agent.key, approver: o.owner.key });
    const live = await mutate(o.s, 'sop.update', { sopId: draft.id, ifVersion: 1, status: 'active', approvalId }, 'sop.procedure.update', { key: o.agent.key });
    expect(live.result.sop).toMatchObject({ status: 'active', version: 2 });
    expect(live.result.diff.fields).toEqual(['status']);
    const kinds = (await eventsAfter(o.s, before)).map((e) => [e.kind, e.payload.sha256 ?? null]);
    expect(kinds).toContainEqual(['sop.procedure.create', draft.sha256]);
    expect(kinds).toContainEqual(['sop.procedure.update', live.result.sop.sha256]);
    expect((await ok(o.s, 'sop.list', { status: 'active' }, o.agent2.key)).sops.map((s: any) => s.id)).toContain(draft.id);
  });
});
