import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approved, held, ok, otherOrg, refused, rpc } from '../../../helpers/calls.js';
import type { TestClient } from '../../../helpers/harness.js';
import { appended, charterGet, govOrg, type GovOrg } from './setup.js';

/*
 * charter.*: every write's main path, its no-op, its misuse (another org's or unknown id, wrong state, bad input,
 * missing scope: nothing appended), and which edits bind. Acceptance scenario 4 is in amend.test.ts.
 */

let o: GovOrg;
let other: TestClient;
beforeAll(async () => {
  o = await govOrg();
  other = await otherOrg(o.s);
});
afterAll(() => o.s.close());

const headVersion = async () => (await charterGet(o.s)).charter.version as number;

describe('charter.update', () => {
  it('sets title and mission as a new version; same again: changed:false with a noop event; a stale baseVersion is a CONFLICT naming the head', async () => {
    const { s, admin } = o;
    const before = await charterGet(s);
    expect(before.charter).toMatchObject({
      version: 0,
      title: '',
      mission: '',
      sections: [],
      colleagues: [],
      parentHash: null,
      id: expect.stringMatching(/^chr_/),
    });
    const events = await appended(s, async () => {
      const r = await ok(s, 'charter.update', { title: 'Acme charter', mission: 'Bookkeeping for small firms.', baseVersion: 0 });
      expect(r).toMatchObject({
        changed: true,
        charter: { version: 1, title: 'Acme charter', mission: 'Bookkeeping for small firms.', parentHash: null, updatedBy: admin.id },
      });
    });
    expect(events.map((e) => [e.kind, e.payload.version, e.payload.binding])).toEqual([['charter.document.update', 1, true]]);
    expect(events[0].payload).toMatchObject({
      fields: ['title', 'mission'],
      charterId: before.charter.id,
      parentHash: null,
      override: false,
      approvalId: null,
    });

    const same = await appended(s, async () => expect((await ok(s, 'charter.update', { mission: 'Bookkeeping for small firms.' })).changed).toBe(false));
    expect(same.map((e) => [e.kind, e.payload.noop])).toEqual([['charter.document.update', true]]);

    const v1 = (await charterGet(s)).charter;
    const retitled = await ok(s, 'charter.update', { title: 'Acme’s charter', baseVersion: 1 });
    expect(retitled.charter).toMatchObject({ version: 2, parentHash: v1.contentHash });
    await refused(s, 'charter.update', { title: 'x', baseVersion: 1 }, 'CONFLICT', {
      message: /^the charter is at version 2 \(content [0-9a-f]{12}\), not 1: read it \(charter.get \{diffFrom: 1\}\) and retry against baseVersion 2$/,
    });
  });

  it('misuse: bad input names the field; missing scope; nothing appended', async () => {
    const { s, reader } = o;
    await refused(s, 'charter.update', { title: '' }, 'BAD_REQUEST', { message: /^title: / });
    await refused(s, 'charter.update', { mission: 'x'.repeat(20_001) }, 'BAD_REQUEST', { message: /^mission: must be at most 20000/ });
    await refused(s, 'charter.update', { title: 'x', colour: 'red' }, 'BAD_REQUEST', { message: 'colour: unknown field' });
    await refused(s, 'charter.update', { title: 'x', baseVersion: -1 }, 'BAD_REQUEST', { message: /^baseVersion: / });
    await refused(s, 'charter.update', { title: 'x' }, 'FORBIDDEN_SCOPE', { key: reader.key });
  });

  it('an agent may retitle (not binding) but its mission edit holds', async () => {
    const { s, agent } = o;
    expect((await ok(s, 'charter.update', { title: 'Acme charter (agents welcome)' }, agent.key)).changed).toBe(true);
    const approval = await held(s, 'charter.update', { mission: 'Agents run the company.' }, { key: agent.key });
    expect(approval).toMatchObject({ actionClass: 'charter.update', subject: { kind: 'charter.signature' } });
  });
});

describe('charter.addSection', () => {
  it('adds at a position with clauses (binding for an agent: hold), replays its key, refuses a taken key', async () => {
    const { s, agent } = o;
    const a = await ok(s, 'charter.addSection', { key: 'purpose', heading: 'Purpose', body: 'Why we exist.' }, undefined, 'add-purpose');
    expect(a).toMatchObject({
      changed: true,
      section: { key: 'purpose', heading: 'Purpose', body: 'Why we exist.', clauses: [], id: expect.stringMatching(/^sec_/) },
    });
    const replay = await rpc(s, 'charter.addSection', { key: 'purpose', heading: 'Purpose', body: 'Why we exist.' }, undefined, 'add-purpose');
    expect(replay.body.result.section.id).toBe(a.section.id);
    const first = await ok(s, 'charter.addSection', {
      key: 'values',
      heading: 'Values',
      position: 0,
      clauses: [{ text: 'Tell the truth.' }, { text: 'Keep promises.' }],
    });
    expect(first.section.clauses.map((c: any) => c.id)).toEqual([expect.stringMatching(/^cls_/), expect.stringMatching(/^cls_/)]);
    expect((await charterGet(s)).charter.sections.map((x: any) => x.key).slice(0, 2)).toEqual(['values', 'purpose']);

    // Not binding without clauses: the agent adds directly; with clauses it holds.
    expect((await ok(s, 'charter.addSection', { key: 'notes', heading: 'Notes' }, agent.key)).changed).toBe(true);
    expect((await held(s, 'charter.addSection', { key: 'limits', heading: 'Limits', clauses: [{ text: 'No spend.' }] }, { key: agent.key })).actionClass).toBe(
      'charter.add_section',
    );

    await refused(s, 'charter.addSection', { key: 'purpose', heading: 'Again' }, 'CONFLICT', {
      message: `section key "purpose" is taken by section ${a.section.id}: choose another key, or edit that section (charter.updateSection)`,
    });
    await refused(s, 'charter.addSection', { key: 'Bad Key', heading: 'x' }, 'BAD_REQUEST', { message: /^key: must be 1 to 63 lowercase/ });
    await refused(s, 'charter.addSection', { key: 'k', heading: 'x', clauses: [{ id: 'cls_0123456789abcdef', text: 'y' }] }, 'BAD_REQUEST', {
      message: /^clauses\.0\.id: a new section’s clauses take new ids/,
    });
    await refused(s, 'charter.addSection', { key: 'k', heading: 'x', clauses: Array.from({ length: 101 }, () => ({ text: 'c' })) }, 'BAD_REQUEST', {
      message: /^clauses: must list at most 100/,
    });
    await refused(s, 'charter.addSection', { key: 'big', heading: 'Big', body: 'x'.repeat(100_001) }, 'BAD_REQUEST', {
      message: /^body: must be at most 100000/,
    });
  });
});

describe('charter.updateSection and deleteSection', () => {
  it('edits key, heading, body (never binding); a deleted section: update CONFLICT, delete changed:false; unknown or another org’s: NOT_FOUND', async () => {
    const { s, agent } = o;
    const sec = (await ok(s, 'charter.addSection', { key: 'tmp', heading: 'Temporary', clauses: [{ text: 'A clause.' }] })).section;
    const edited = await appended(s, async () => {
      const r = await ok(s, 'charter.updateSection', { sectionId: sec.id, heading: 'Temp', body: 'Body text.' }, agent.key);
      expect(r).toMatchObject({ changed: true, section: { id: sec.id, key: 'tmp', heading: 'Temp', body: 'Body text.' } });
    });
    expect(edited.map((e) => [e.kind, e.entity_id, e.payload.fields, e.payload.binding])).toEqual([
      ['charter.section.update', sec.id, ['heading', 'body'], false],
    ]);
    expect((await ok(s, 'charter.updateSection', { sectionId: sec.id, heading: 'Temp' })).changed).toBe(false);
    await refused(s, 'charter.updateSection', { sectionId: sec.id, key: 'purpose' }, 'CONFLICT', { message: /^section key "purpose" is taken/ });

    // Deleting a section with clauses binds: the agent holds; the admin deletes.
    await held(s, 'charter.deleteSection', { sectionId: sec.id }, { key: agent.key });
    const gone = await appended(s, async () => expect((await ok(s, 'charter.deleteSection', { sectionId: sec.id })).changed).toBe(true));
    expect(gone[0].payload).toMatchObject({ sectionId: sec.id, clauses: 1, binding: true });
    const again = await appended(s, async () => expect((await ok(s, 'charter.deleteSection', { sectionId: sec.id }, agent.key)).changed).toBe(false));
    expect(again.map((e) => [e.kind, e.payload.noop, e.payload.gone])).toEqual([['charter.section.delete', true, true]]);
    const v = await headVersion();
    await refused(s, 'charter.updateSection', { sectionId: sec.id, body: 'x' }, 'CONFLICT', {
      message: `charter section ${sec.id} was deleted in charter version ${v}: add a new section (charter.addSection) instead`,
    });

    const foreign = (await other.ok<any>('charter.addSection', { key: 'theirs', heading: 'Theirs' })).section;
    for (const id of [foreign.id, 'sec_unknown0000000']) {
      await refused(s, 'charter.updateSection', { sectionId: id, body: 'x' }, 'NOT_FOUND', { message: `charter section ${id} not found` });
      await refused(s, 'charter.deleteSection', { sectionId: id }, 'NOT_FOUND');
      await refused(s, 'charter.updateClauses', { sectionId: id, clauses: [] }, 'NOT_FOUND');
    }
    await refused(s, 'charter.updateSection', { sectionId: 'tmp' }, 'BAD_REQUEST', { message: /^sectionId: must be an id of the form sec_/ });
    await refused(s, 'charter.deleteSection', { sectionId: foreign.id }, 'FORBIDDEN_SCOPE', { key: o.reader.key });
  });
});

describe('charter.reorderSections', () => {
  it('puts every section in the given order (not binding); the same order: changed:false; a partial or repeated list: BAD_REQUEST', async () => {
    const { s, agent } = o;
    const ids = (await charterGet(s)).charter.sections.map((x: any) => x.id) as string[];
    const n = ids.length;
    const reversed = [...ids].reverse();
    const r = await ok(s, 'charter.reorderSections', { order: reversed }, agent.key);
    expect(r).toMatchObject({ changed: true, order: reversed });
    expect((await ok(s, 'charter.reorderSections', { order: reversed })).changed).toBe(false);
    await refused(s, 'charter.reorderSections', { order: reversed.slice(1) }, 'BAD_REQUEST', { message: `order: list each of the ${n} sections once` });
    await refused(s, 'charter.reorderSections', { order: [...reversed.slice(1), reversed[1]] }, 'BAD_REQUEST', {
      message: `order: list each of the ${n} sections once`,
    });
    await refused(s, 'charter.reorderSections', { order: [...reversed.slice(1), 'sec_0123456789abcdef'] }, 'BAD_REQUEST', {
      message: `order: list each of the ${n} sections once`,
    });
  });
});

describe('charter.updateClauses', () => {
  it('replaces clauses, keeping ids given; binding: a human runs it, an agent holds and runs with the approval', async () => {
    const { s, ceo, agent } = o;
    const sec = (await ok(s, 'charter.addSection', { key: 'spending', heading: 'Spending', clauses: [{ text: 'No spend above $500.' }] })).section;
    const keep = sec.clauses[0].id;
    const r = await ok(
      s,
      'charter.updateClauses',
      { sectionId: sec.id, clauses: [{ id: keep, text: 'No spend above $1,000.' }, { text: 'Receipts always.' }] },
      ceo.key,
    );
    expect(r.section.clauses).toEqual([
      { id: keep, text: 'No spend above $1,000.' },
      { id: expect.stringMatching(/^cls_/), text: 'Receipts always.' },
    ]);
    expect((await ok(s, 'charter.updateClauses', { sectionId: sec.id, clauses: r.section.clauses }, agent.key)).changed).toBe(false);

    const params = { sectionId: sec.id, clauses: [{ id: keep, text: 'No spend above $2,000.' }] };
    const approval = await held(s, 'charter.updateClauses', params, { key: agent.key });
    expect(approval).toMatchObject({ actionClass: 'charter.update_clauses', subject: { kind: 'charter.signature', subjectId: sec.id } });
    const approvalId = await approved(s, approval, agent.key, ceo.key);
    const done = await appended(s, async () =>
      expect((await ok(s, 'charter.updateClauses', { ...params, approvalId }, agent.key)).section.clauses).toEqual(params.clauses),
    );
    expect(done[0].payload).toMatchObject({ approvalId, binding: true, clauses: 1, previousClauses: 2, kept: 1 });
    expect((await charterGet(s)).history[0]).toMatchObject({ method: 'updateClauses', approvalId, by: agent.id, binding: true });

    await refused(s, 'charter.updateClauses', { sectionId: sec.id, clauses: [{ id: 'cls_0123456789abcdef', text: 'x' }] }, 'BAD_REQUEST', {
      message: `clauses.0.id: no clause cls_0123456789abcdef in section ${sec.id}; omit id for a new clause`,
    });
    await refused(
      s,
      'charter.updateClauses',
      {
        sectionId: sec.id,
        clauses: [
          { id: keep, text: 'a' },
          { id: keep, text: 'b' },
        ],
      },
      'BAD_REQUEST',
      { message: `clauses.1.id: ${keep} is listed twice` },
    );
    await refused(s, 'charter.updateClauses', { sectionId: sec.id, clauses: [{ text: '' }] }, 'BAD_REQUEST', {
      message: /^clauses\.0\.text: must be at least 1/,
    });
  });

  it('follows declared rights: charter.updateClauses decided by the CFO: the CEO holds for the CFO alone; the admin overrides', async () => {
    const { s, ceo, cfo, admin } = o;
    await ok(s, 'governance.set_decision_rights', { rights: [{ area: 'charter.updateClauses', decidedBy: cfo.id }] }, admin.key);
    const sec = (await ok(s, 'charter.addSection', { key: 'risk', heading: 'Risk' })).section;
    const params = { sectionId: sec.id, clauses: [{ text: 'Two humans approve any wire.' }] };
    expect((await held(s, 'charter.updateClauses', params, { key: ceo.key })).deciders).toEqual([cfo.id]);
    const over = await appended(s, async () => expect((await ok(s, 'charter.updateClauses', params, admin.key)).changed).toBe(true));
    expect(over[0].payload).toMatchObject({ override: true });
    await ok(s, 'governance.set_decision_rights', { rights: [{ area: 'pricing', decidedBy: 'humans' }] }, admin.key);
  });
});

describe('charter.editColleagueField', () => {
  it('sets descriptive fields directly (even an agent), authority fields under the rights; one’s own authority holds for another human', async () => {
    const { s, admin, ceo, cfo, agent, agent2 } = o;
    const r = await ok(s, 'charter.editColleagueField', { principalId: agent.id, field: 'title', value: 'Charter clerk' }, agent.key);
    expect(r).toMatchObject({ changed: true, colleague: { principalId: agent.id, title: 'Charter clerk', roles: [], autonomy: null } });
    await ok(s, 'charter.editColleagueField', { principalId: agent.id, field: 'accountabilities', value: ['Keep the charter tidy', 'File holds'] }, agent.key);

    // Authority: the CEO sets the CFO's roles directly; the CFO's own roles hold for another human.
    expect(
      (await ok(s, 'charter.editColleagueField', { principalId: cfo.id, field: 'roles', value: ['finance', 'counsel'] }, ceo.key)).colleague.roles,
    ).toEqual(['finance', 'counsel']);
    const own = await held(s, 'charter.editColleagueField', { principalId: cfo.id, field: 'roles', value: ['finance', 'counsel', 'ceo'] }, { key: cfo.key });
    expect(own.actionClass).toBe('charter.edit_colleague_field');
    // Even the admin, who satisfies any right, holds on its own authority.
    await held(s, 'charter.editColleagueField', { principalId: admin.id, field: 'domains', value: ['everything'] }, { key: admin.key });

    // An agent's own autonomy holds; another agent's too (binding).
    const auto = await held(s, 'charter.editColleagueField', { principalId: agent.id, field: 'autonomy', value: 'delegated' }, { key: agent.key });
    expect(auto.subject.subjectId).toBe(agent.id);
    await held(s, 'charter.editColleagueField', { principalId: agent2.id, field: 'autonomy', value: 'delegated' }, { key: agent.key });
    const set = await appended(s, async () => ok(s, 'charter.editColleagueField', { principalId: agent2.id, field: 'autonomy', value: 'supervised' }, ceo.key));
    expect(set.map((e) => [e.kind, e.entity_id, e.payload.field, e.payload.authority, e.payload.binding])).toEqual([
      ['charter.colleague.edit', agent2.id, 'autonomy', true, true],
    ]);
    expect((await ok(s, 'charter.editColleagueField', { principalId: agent2.id, field: 'autonomy', value: 'supervised' }, ceo.key)).changed).toBe(false);
    expect((await ok(s, 'charter.editColleagueField', { principalId: agent2.id, field: 'reportsTo', value: ceo.id }, ceo.key)).colleague.reportsTo).toBe(
      ceo.id,
    );
  });

  it('misuse: each field’s value, unknown or another org’s member, a loop, no other human to decide one’s own authority', async () => {
    const { s, ceo, agent, agent2 } = o;
    const edit = (principalId: string, field: string, value: unknown) => ({ principalId, field, value });
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'autonomy', 'free'), 'BAD_REQUEST', {
      message: 'value: autonomy must be supervised, standard, delegated or null',
    });
    await refused(s, 'charter.editColleagueField', edit(ceo.id, 'autonomy', 'delegated'), 'BAD_REQUEST', {
      message: `value: autonomy is an agent’s; ${ceo.id} is a human`,
    });
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'roles', ['ok', 'Not A Slug']), 'BAD_REQUEST', { message: /^value\.1: a role is a slug/ });
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'roles', ['a', 'a']), 'BAD_REQUEST', { message: 'value.1: role "a" is listed twice' });
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'roles', 'finance'), 'BAD_REQUEST', {
      message: 'value: roles is a list of texts (or null to clear it)',
    });
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'title', ['a']), 'BAD_REQUEST', {
      message: 'value: title is a text (or null to clear it), not a list',
    });
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'title', 'x'.repeat(201)), 'BAD_REQUEST', {
      message: 'value: title must be at most 200 characters',
    });
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'reportsTo', agent.id), 'BAD_REQUEST', {
      message: `value: ${agent.id} cannot report to itself`,
    });
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'reportsTo', 'boss'), 'BAD_REQUEST', { message: /^value: reportsTo must be a member id/ });
    await ok(s, 'charter.editColleagueField', edit(agent.id, 'reportsTo', agent2.id));
    await refused(s, 'charter.editColleagueField', edit(agent2.id, 'reportsTo', agent.id), 'BAD_REQUEST', { message: /would close a loop/ });
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'colour', 'red'), 'BAD_REQUEST', { message: /^field: must be one of/ });
    const foreign = await other.mint({ tier: 'agent' });
    for (const id of [foreign.principal.id, 'agt_unknown000000']) {
      await refused(s, 'charter.editColleagueField', edit(id, 'title', 'x'), 'NOT_FOUND', { message: `member ${id} not found` });
    }
    await refused(s, 'charter.editColleagueField', edit(agent.id, 'title', 'x'), 'FORBIDDEN_SCOPE', { key: o.reader.key });

    // An org whose only human edits their own authority: no one else may decide it.
    const lone = await other.rpc('charter.editColleagueField', {
      principalId: (await other.get('org/whoami')).body.principal.id,
      field: 'roles',
      value: ['ceo'],
    });
    expect(lone.body.error?.code, lone.raw).toBe('GOVERNANCE_NOT_READY');
    expect(lone.body.error.message).toMatch(/holds for a human other than usr_\w+ \(one’s own authority is decided by another human\)/);
  });
});

describe('scopes', () => {
  it('every charter write needs charter.write; charter.get needs org.read and appends nothing', async () => {
    const { s, reader } = o;
    const writes: [string, object][] = [
      ['charter.update', { title: 'x' }],
      ['charter.addSection', { key: 'x', heading: 'x' }],
      ['charter.updateSection', { sectionId: 'sec_0123456789abcdef', body: 'x' }],
      ['charter.deleteSection', { sectionId: 'sec_0123456789abcdef' }],
      ['charter.reorderSections', { order: [] }],
      ['charter.updateClauses', { sectionId: 'sec_0123456789abcdef', clauses: [] }],
      ['charter.editColleagueField', { principalId: reader.id, field: 'title', value: 'x' }],
      ['charter.amend', { decisionId: 'dec_0123456789abcdef' }],
    ];
    for (const [method, params] of writes)
      await refused(s, method, params, 'FORBIDDEN_SCOPE', {
        key: reader.key,
        message: new RegExp(`missing scope charter.write for ${method.replace('.', '\\.')}`),
      });
    const none = (await s.client.mint({ scopes: [], principalKind: 'agent' })).apiKey;
    await refused(s, 'charter.get', {}, 'FORBIDDEN_SCOPE', { key: none });
    expect(await appended(s, () => charterGet(s, { diffFrom: 0 }, reader.key))).toEqual([]);
  });
});
