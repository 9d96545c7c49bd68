import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head, otherOrg } from '../../../helpers/calls.js';

/*
 * The rest of the member record on the chart side (migration 023/024): dotted lines, office, employeeId,
 * externalId and position in member.create/update/get/list and the directory card; member.getEditorOptions;
 * a handle for every principal-creating path.
 */

let s: TestServer;
let other: TestClient;
beforeAll(async () => {
  s = await testServer();
  other = await otherOrg(s);
});
afterAll(() => s.close());

const create = async (params: Record<string, unknown>) => expectOk('member.create', await s.client.rpc('member.create', params)).member;
const update = async (params: Record<string, unknown>) => expectOk('member.update', await s.client.rpc('member.update', params));
const err = async (method: string, params: unknown) => (await s.client.rpc(method, params)).body.error;
const getM = async (memberId: string) => expectOk('member.get', await s.client.rpc('member.get', { memberId })).member;

describe('member fields: dotted lines, office, employeeId, externalId, position', () => {
  it('create and get carry them; update changes and clears them; the directory card shows them', async () => {
    const boss = await create({ name: 'Fields Boss' });
    const side = await create({ name: 'Fields Side' });
    const m = await create({
      name: 'Fields Person',
      managerId: boss.id,
      dottedLineIds: [side.id],
      office: 'Berlin HQ',
      employeeId: 'E-100',
      externalId: 'okta-00u1',
    });
    expect(m).toMatchObject({
      managerId: boss.id,
      dottedLineIds: [side.id],
      office: 'Berlin HQ',
      employeeId: 'E-100',
      externalId: 'okta-00u1',
      position: null,
    });
    expect(await getM(m.id)).toEqual(m);
    const up = await update({ memberId: m.id, office: null, employeeId: 'E-101', dottedLineIds: [] });
    expect(up).toMatchObject({ changed: true, member: { office: null, employeeId: 'E-101', dottedLineIds: [], version: 2 } });
    const same = await update({ memberId: m.id, dottedLineIds: [], employeeId: 'E-101' });
    expect(same.changed).toBe(false);
    const card = (await s.client.get('directory', { q: 'Fields Person' })).body.members.find((c: any) => c.id === m.id);
    expect(card).toMatchObject({ employeeId: 'E-101', externalId: 'okta-00u1', dottedLineIds: [], office: null, position: null });
    const listed = expectOk('member.list', await s.client.rpc('member.list', { managerId: boss.id })).members;
    expect(listed.map((x: any) => [x.id, x.employeeId])).toEqual([[m.id, 'E-101']]);
  });

  it('dotted lines: at most 3, not itself, not its manager, not twice, namable members only: BAD_REQUEST naming the index', async () => {
    const boss = await create({ name: 'Dotted Boss' });
    const m = await create({ name: 'Dotted Member', managerId: boss.id });
    const [a, b, c] = [await create({ name: 'Dotted A' }), await create({ name: 'Dotted B' }), await create({ name: 'Dotted C' })];
    const foreign = expectOk('member.create', await other.rpc('member.create', { name: 'Dotted Foreign' })).member;
    const gone = await create({ name: 'Dotted Gone' });
    expectOk('member.archive', await s.client.rpc('member.archive', { memberId: gone.id }));
    const seq = await head(s.client);
    expect((await err('member.update', { memberId: m.id, dottedLineIds: [a.id, b.id, c.id, boss.id] })).message).toMatch(
      /^dottedLineIds: must list at most 3 members/,
    );
    expect((await err('member.update', { memberId: m.id, dottedLineIds: [a.id, m.id] })).message).toBe(`dottedLineIds.1: ${m.id} is the member itself`);
    expect((await err('member.update', { memberId: m.id, dottedLineIds: [boss.id] })).message).toMatch(/^dottedLineIds\.0: .* is the member's manager/);
    expect((await err('member.update', { memberId: m.id, dottedLineIds: [a.id, a.id] })).message).toBe(`dottedLineIds.1: ${a.id} is listed twice`);
    expect((await err('member.update', { memberId: m.id, dottedLineIds: [a.id, foreign.id] })).message).toBe(
      `dottedLineIds.1: no member ${foreign.id} in this org`,
    );
    expect((await err('member.update', { memberId: m.id, dottedLineIds: [gone.id] })).message).toBe(`dottedLineIds.0: ${gone.id} is archived`);
    expect((await err('member.create', { name: 'x', managerId: a.id, dottedLineIds: [a.id] })).message).toMatch(/^dottedLineIds\.0: .* manager/);
    expect(await head(s.client)).toBe(seq);
    // Moving under a dotted-line manager drops that dotted line (a manager is never also a dotted line).
    await update({ memberId: m.id, dottedLineIds: [a.id, b.id] });
    expect((await update({ memberId: m.id, managerId: a.id })).member).toMatchObject({ managerId: a.id, dottedLineIds: [b.id] });
    // Archiving a dotted-line manager drops it everywhere.
    expectOk('member.archive', await s.client.rpc('member.archive', { memberId: b.id }));
    expect((await getM(m.id)).dottedLineIds).toEqual([]);
  });

  it('employeeId and externalId are unique in the org: CONFLICT naming the field; another org may reuse them', async () => {
    const a = await create({ name: 'Unique A', employeeId: 'E-7', externalId: 'ext-7' });
    const seq = await head(s.client);
    expect((await err('member.create', { name: 'Unique B', employeeId: 'E-7' })).message).toBe(
      `employeeId: already used by member ${a.id}; choose another or update that member`,
    );
    const b = await create({ name: 'Unique B' });
    expect((await err('member.update', { memberId: b.id, externalId: 'ext-7' })).message).toMatch(/^externalId: already used by member/);
    expect((await s.client.rpc('member.update', { memberId: b.id, externalId: 'EXT-7' })).body.ok).toBe(true);
    expect(await head(s.client)).toBe(seq + 2);
    expectOk('member.create', await other.rpc('member.create', { name: 'Elsewhere', employeeId: 'E-7', externalId: 'ext-7' }));
    expect((await err('member.create', { name: 'x', employeeId: '' })).message).toMatch(/^employeeId: must be at least 1/);
  });
});

describe('userName: the name an identity provider signs a member in with', () => {
  it('create, get, update and clear it; unique ignoring case, also against the email of a member without one; bounded', async () => {
    const m = await create({ name: 'Upn Person', email: 'upn.person@example.com', userName: 'Upn.Person@corp.onmicrosoft.example' });
    expect(m).toMatchObject({ email: 'upn.person@example.com', userName: 'Upn.Person@corp.onmicrosoft.example' });
    expect(await getM(m.id)).toEqual(m);
    const plain = await create({ name: 'Mail Person', email: 'mail.person@example.com' });
    expect(plain.userName).toBeNull();
    const seq = await head(s.client);
    // Another member's userName, in any case; another member's email when it has no userName (its email serves).
    expect((await err('member.create', { name: 'x', userName: 'upn.person@CORP.onmicrosoft.example' })).message).toBe(
      `userName: already used by member ${m.id}; choose another or update that member`,
    );
    expect((await err('member.update', { memberId: plain.id, userName: 'UPN.PERSON@corp.onmicrosoft.example' })).message).toMatch(
      /^userName: already used by member/,
    );
    expect((await err('member.create', { name: 'x', userName: 'MAIL.person@example.com' })).message).toBe(
      `userName: already used by member ${plain.id}; choose another or update that member`,
    );
    // An email that is another member's userName: that member signs in with it.
    expect((await err('member.create', { name: 'x', email: 'upn.person@corp.onmicrosoft.example' })).message).toBe(
      `email: already used by member ${m.id} as its userName; choose another or update that member`,
    );
    expect((await err('member.update', { memberId: m.id, userName: null, email: 'mail.person@example.com' })).code).toBe('CONFLICT');
    expect((await err('member.create', { name: 'x', userName: '' })).message).toMatch(/^userName: must be at least 1/);
    expect((await err('member.create', { name: 'x', userName: 'a'.repeat(255) })).message).toMatch(/^userName: must be at most 254/);
    expect((await err('member.create', { name: 'x', userName: 'tab\there' })).message).toMatch(/^userName: must not contain control characters/);
    // A lone surrogate meets the text rule every param meets first (protocol/input-rules.ts).
    expect((await err('member.create', { name: 'x', userName: 'lone\ud800' })).message).toBe(
      'userName: must be well-formed Unicode text without NUL characters',
    );
    expect(await head(s.client)).toBe(seq);
    // A login that is not an email is fine; the member's own email may equal its userName; another org may reuse it.
    const login = await create({ name: 'Login Person', userName: 'DOMAIN\\login.person' });
    expect(login).toMatchObject({ userName: 'DOMAIN\\login.person', email: null });
    expect((await update({ memberId: m.id, userName: 'UPN.PERSON@example.com' })).member.userName).toBe('UPN.PERSON@example.com');
    expectOk('member.create', await other.rpc('member.create', { name: 'Elsewhere', userName: 'DOMAIN\\login.person', email: 'mail.person@example.com' }));
    const cleared = await update({ memberId: m.id, userName: null });
    expect(cleared).toMatchObject({ changed: true, member: { userName: null, email: 'upn.person@example.com' } });
    expect((await update({ memberId: m.id, userName: null })).changed).toBe(false);
    const editor = expectOk('member.getEditorOptions', await s.client.rpc('member.getEditorOptions', { limit: 1 }));
    expect(editor.fields.find((f: any) => f.field === 'userName')).toMatchObject({ type: 'text', maxLength: 254, unique: true, nullable: true });
    const card = (await s.client.get('directory', { q: 'Login Person' })).body.members.find((c: any) => c.id === login.id);
    expect(card.userName).toBe('DOMAIN\\login.person');
  });
});

describe('member.getEditorOptions', () => {
  it('fields with limits, live teams, managers outside the subtree (capped, with total), offices in use, time zones; appends nothing', async () => {
    const team = expectOk('team.create', await s.client.rpc('team.create', { name: 'Editor Team' })).team;
    const top = await create({ name: 'Editor Top', office: 'Lisbon' });
    const mid = await create({ name: 'Editor Mid', managerId: top.id, office: 'Lisbon' });
    const low = await create({ name: 'Editor Low', managerId: mid.id, office: 'Porto' });
    const seq = await head(s.client);
    const o = expectOk('member.getEditorOptions', await s.client.rpc('member.getEditorOptions', { memberId: mid.id, limit: 500 }));
    expect(o.fields.find((f: any) => f.field === 'dottedLineIds')).toMatchObject({ type: 'members', maxItems: 3, choices: 'managers' });
    expect(o.fields.find((f: any) => f.field === 'employeeId')).toMatchObject({ unique: true, nullable: true });
    expect(o.teams.map((t: any) => t.id)).toContain(team.id);
    const ids = o.managers.members.map((m: any) => m.id);
    expect(ids).toContain(top.id);
    expect(ids).not.toContain(mid.id);
    expect(ids).not.toContain(low.id);
    expect(o.managers.total).toBe(ids.length);
    expect(o.offices).toEqual(
      expect.arrayContaining([
        { office: 'Lisbon', members: 2 },
        { office: 'Porto', members: 1 },
      ]),
    );
    expect(o.timezones).toContain('Europe/Berlin');
    expect(o.timezones).toContain('UTC');
    const capped = expectOk('member.getEditorOptions', await s.client.rpc('member.getEditorOptions', { limit: 1 }));
    expect(capped.managers.members).toHaveLength(1);
    expect(capped.managers.total).toBeGreaterThan(3);
    const q = expectOk('member.getEditorOptions', await s.client.rpc('member.getEditorOptions', { q: 'editor l', memberId: top.id }));
    expect(q.managers).toEqual({ members: [], total: 0 });
    const q2 = expectOk('member.getEditorOptions', await s.client.rpc('member.getEditorOptions', { q: 'EDITOR', memberId: low.id }));
    expect(q2.managers.members.map((m: any) => m.name)).toEqual(['Editor Mid', 'Editor Top']);
    expect((await err('member.getEditorOptions', { memberId: 'usr_nobody' })).code).toBe('NOT_FOUND');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('handles for every principal-creating path', () => {
  it('key mints, pairing approvals and new orgs get a free handle from the name', async () => {
    const k1 = await s.client.mint({ tier: 'agent' }, 'Ledger Bot');
    const k2 = await s.client.mint({ tier: 'agent' }, 'Ledger Bot');
    expect((await getM(k1.principal.id)).handle).toBe('ledger.bot');
    expect((await getM(k2.principal.id)).handle).toBe('ledger.bot2');
    const slug = s.org.slug;
    const req = await s.client.rpc('pairing.request', { orgSlug: slug, agentName: 'Ledger Bot' });
    const { pairingId, code } = req.body.result;
    const ok = await s.client.rpc('pairing.approve', { pairingId, code, tier: 'reader' });
    expect(ok.body.ok, ok.raw).toBe(true);
    expect((await getM(ok.body.result.agentId)).handle).toBe('ledger.bot3');
    const me = (await other.get('org/whoami')).body.principal.id;
    expect(expectOk('member.get', await other.rpc('member.get', { memberId: me })).member.handle).toMatch(/^test\.other\.[a-z0-9.]+$/);
  });
});

describe('the ledger', () => {
  it('a canary in every free-text field never reaches an event', async () => {
    const canary = 'CANARY-a41c';
    const m = await create({
      name: `${canary} n`,
      title: `${canary} t`,
      office: `${canary} o`,
      employeeId: `${canary}-e`,
      externalId: `${canary}-x`,
      userName: `${canary}-u`,
    });
    const seq = await head(s.client);
    await update({
      memberId: m.id,
      office: `${canary} o2`,
      employeeId: `${canary}-e2`,
      externalId: `${canary}-x2`,
      title: `${canary} t2`,
      userName: `${canary}-u2`,
    });
    // The event names the fields changed, never their values.
    expect((await eventsAfter(s.client, seq))[0].payload.fields).toEqual(expect.arrayContaining(['userName', 'office', 'title']));
    expectOk('member.getEditorOptions', await s.client.rpc('member.getEditorOptions', { q: canary }));
    const before = await head(s.client);
    expect((await eventsAfter(s.client, before)).length).toBe(0);
    expect(JSON.stringify(await allEvents(s.client)).toLowerCase()).not.toContain(canary.toLowerCase());
  });
});
