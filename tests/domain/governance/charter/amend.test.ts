import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approved, held, ok, otherOrg, refused } from '../../../helpers/calls.js';
import { appended, charterGet, govOrg, type GovOrg } from './setup.js';
import { proposal, record } from '../decision/setup.js';
import { setRights } from '../../../helpers/people.js';

/* charter.amend, and governance's acceptance scenario 4 end to end. */

let o: GovOrg;
beforeAll(async () => {
  o = await govOrg();
  // adopt is governance-gated: rights must be declared (the area charter falls to the default: humans decide).
  await setRights(o.s, [{ area: 'pricing', decidedBy: 'humans' }]);
});
afterAll(() => o.s.close());

/** A charter decision with an amendment, adopted by the CEO (humans decide the area charter by default). */
async function adoptedAmendment(amendment: unknown, driverKey = o.staff.key) {
  const d = await proposal(o.s, driverKey, 'charter', { amendment });
  await ok(o.s, 'decision.adopt', { decisionId: d.id, version: 1 }, o.ceo.key);
  return d;
}

describe('scenario 4: charter.amend of an adopted decision; agents hold; stale baseVersion', () => {
  it('amend -> one version; again -> changed:false; an agent’s updateClauses or its own autonomy -> hold; stale baseVersion -> CONFLICT', async () => {
    const { s, ceo, agent } = o;
    const sec = (await ok(s, 'charter.addSection', { key: 'conduct', heading: 'Conduct', clauses: [{ text: 'Be kind.' }] })).section;
    const base = (await charterGet(s)).charter;

    const d = await adoptedAmendment({
      baseVersion: base.version,
      ops: [
        { op: 'update', params: { mission: 'Honest books for every small firm.' } },
        {
          op: 'updateClauses',
          params: { sectionId: sec.id, clauses: [{ id: sec.clauses[0].id, text: 'Be kind and candid.' }, { text: 'Disagree, then commit.' }] },
        },
        { op: 'addSection', params: { key: 'money', heading: 'Money', clauses: [{ text: 'Two humans sign every wire.' }] } },
        { op: 'editColleagueField', params: { principalId: agent.id, field: 'autonomy', value: 'supervised' } },
      ],
    });

    // An agent applies it: the decision was the human act; one new version, method amend, naming the decision.
    const events = await appended(s, async () => {
      const r = await ok(s, 'charter.amend', { decisionId: d.id }, agent.key);
      expect(r).toMatchObject({
        changed: true,
        decisionId: d.id,
        ops: 4,
        charter: { version: base.version + 1, parentHash: base.contentHash, mission: 'Honest books for every small firm.' },
      });
    });
    expect(events.map((e) => [e.kind, e.payload.version, e.payload.decisionId, e.payload.ops])).toEqual([
      ['charter.document.amend', base.version + 1, d.id, 4],
    ]);
    const after = await charterGet(s);
    expect(after.history[0]).toMatchObject({ version: base.version + 1, method: 'amend', decisionId: d.id, binding: true });
    expect(after.charter.sections.find((x: any) => x.id === sec.id).clauses.map((c: any) => c.text)).toEqual(['Be kind and candid.', 'Disagree, then commit.']);
    expect(after.charter.colleagues.find((c: any) => c.principalId === agent.id).autonomy).toBe('supervised');
    expect((await record(s, d.id)).decision.amendmentApplied).toMatchObject({ charterVersion: base.version + 1 });

    // Again: changed:false, its one event noop.
    const again = await appended(s, async () => expect((await ok(s, 'charter.amend', { decisionId: d.id })).changed).toBe(false));
    expect(again.map((e) => [e.kind, e.payload.noop, e.payload.appliedVersion])).toEqual([['charter.document.amend', true, base.version + 1]]);

    // The agent's own clause edit holds; so does its own autonomy (now supervised by the amendment).
    const clauses = await held(s, 'charter.updateClauses', { sectionId: sec.id, clauses: [{ text: 'Agents decide.' }] }, { key: agent.key });
    expect(clauses).toMatchObject({ actionClass: 'charter.update_clauses' });
    const autonomy = await held(s, 'charter.editColleagueField', { principalId: agent.id, field: 'autonomy', value: 'delegated' }, { key: agent.key });
    const approvalId = await approved(s, autonomy, agent.key, ceo.key);
    expect(
      (await ok(s, 'charter.editColleagueField', { principalId: agent.id, field: 'autonomy', value: 'delegated', approvalId }, agent.key)).colleague.autonomy,
    ).toBe('delegated');

    // A stale baseVersion: CONFLICT naming the head, nothing appended.
    const head = (await charterGet(s)).charter;
    await refused(s, 'charter.updateSection', { sectionId: sec.id, heading: 'Behaviour', baseVersion: base.version }, 'CONFLICT', {
      message: new RegExp(`^the charter is at version ${head.version} \\(content ${head.contentHash.slice(0, 12)}\\), not ${base.version}`),
    });
    // An applied amendment answers changed:false whatever the head (a replay), before any baseVersion check.
    expect((await ok(s, 'charter.amend', { decisionId: d.id, baseVersion: base.version })).changed).toBe(false);
  });
});

describe('charter.amend misuse', () => {
  it('not adopted, no amendment, closed: CONFLICT naming the state; another org’s or unknown decision: NOT_FOUND; missing scope', async () => {
    const { s, staff, ceo, reader } = o;
    const open = await proposal(s, staff.key, 'charter', { amendment: { ops: [{ op: 'update', params: { title: 'Draft' } }] } });
    await refused(s, 'charter.amend', { decisionId: open.id }, 'CONFLICT', {
      message: `decision D-${open.number} (${open.id}) is proposed, not adopted: its amendment applies once it is adopted (decision.adopt)`,
    });
    await ok(s, 'decision.reverse', { decisionId: open.id, reason: 'Not now.' }, staff.key);
    await refused(s, 'charter.amend', { decisionId: open.id }, 'CONFLICT', { message: /is withdrawn, not adopted: .*never applies/ });
    const plain = await proposal(s, staff.key, 'charter');
    await ok(s, 'decision.adopt', { decisionId: plain.id, version: 1 }, ceo.key);
    await refused(s, 'charter.amend', { decisionId: plain.id }, 'CONFLICT', { message: /carries no amendment/ });
    const foreign = (await (await otherOrg(s)).ok<any>('decision.propose', { title: 't', area: 'charter', decision: 'd' })).decision;
    for (const id of [foreign.id, 'dec_unknown000000'])
      await refused(s, 'charter.amend', { decisionId: id }, 'NOT_FOUND', { message: `decision ${id} not found` });
    await refused(s, 'charter.amend', { decisionId: plain.id }, 'FORBIDDEN_SCOPE', { key: reader.key });
    await refused(s, 'charter.amend', { decisionId: 'nope' }, 'BAD_REQUEST', { message: /^decisionId: / });
  });

  it('an op stale against the head: CONFLICT naming the op; three-way: what it edits changed since its base version', async () => {
    const { s } = o;
    const sec = (await ok(s, 'charter.addSection', { key: 'tools', heading: 'Tools', clauses: [{ text: 'Use the ledger.' }] })).section;
    const v = (await charterGet(s)).charter.version;
    const d = await adoptedAmendment({ baseVersion: v, ops: [{ op: 'updateClauses', params: { sectionId: sec.id, clauses: [{ text: 'Use the books.' }] } }] });
    // Someone edits the same section's clauses after the decision was written: the merge conflicts.
    await ok(s, 'charter.updateClauses', { sectionId: sec.id, clauses: [{ text: 'Use the general ledger.' }] });
    await refused(s, 'charter.amend', { decisionId: d.id }, 'CONFLICT', {
      message: new RegExp(`op 0 \\(updateClauses\\) is stale against charter version ${v + 1}: what it edits changed since version ${v}`),
    });
    // An edit elsewhere does not: a second decision on another section still merges.
    const other = (await ok(s, 'charter.addSection', { key: 'people', heading: 'People' })).section;
    const w = (await charterGet(s)).charter.version;
    const d2 = await adoptedAmendment({ baseVersion: w, ops: [{ op: 'updateSection', params: { sectionId: other.id, body: 'We hire slowly.' } }] });
    await ok(s, 'charter.update', { title: 'Retitled meanwhile' });
    expect((await ok(s, 'charter.amend', { decisionId: d2.id })).changed).toBe(true);

    // Without a base version, ops that no longer apply are stale; params that do not fit the method too.
    await ok(s, 'charter.deleteSection', { sectionId: other.id });
    const gone = await adoptedAmendment({ ops: [{ op: 'updateSection', params: { sectionId: other.id, heading: 'Staff' } }] });
    await refused(s, 'charter.amend', { decisionId: gone.id }, 'CONFLICT', { message: /op 0 \(updateSection\) is stale .*was deleted in charter version/ });
    const taken = await adoptedAmendment({ ops: [{ op: 'addSection', params: { key: 'tools', heading: 'Tools again' } }] });
    await refused(s, 'charter.amend', { decisionId: taken.id }, 'CONFLICT', { message: /op 0 \(addSection\) is stale .*section key "tools" is taken/ });
    const bad = await adoptedAmendment({
      ops: [
        { op: 'update', params: { title: 'ok' } },
        { op: 'reorderSections', params: { order: 'all' } },
      ],
    });
    await refused(s, 'charter.amend', { decisionId: bad.id }, 'CONFLICT', {
      message: /op 1 \(reorderSections\) is stale .*its params do not fit charter.reorderSections: order: expected array/,
    });
    const future = await adoptedAmendment({ baseVersion: 9_999, ops: [{ op: 'update', params: { title: 'Later' } }] });
    await refused(s, 'charter.amend', { decisionId: future.id }, 'CONFLICT', {
      message: /written against charter version 9999, but the charter is at version/,
    });
  });
});
