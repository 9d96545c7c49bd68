import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head, otherOrg } from '../../../helpers/calls.js';

/** GET /directory: member cards with fuzzy search (db/search.ts over principals), team and kind filters, paging. */

let s: TestServer;
let teamId: string;
const ids: Record<string, string> = {};
beforeAll(async () => {
  s = await testServer();
  teamId = expectOk('team.create', await s.client.rpc('team.create', { name: 'Treasury' })).team.id;
  for (const [name, title] of [
    ['Dan Ortega', 'Controller'],
    ['Danielle Voss', 'Accountant'],
    ['José Álvarez', 'Treasurer'],
    ['Priya Raman', 'Payroll lead'],
  ]) {
    const m = expectOk(
      'member.create',
      await s.client.rpc('member.create', { name, title, teamIds: name === 'Dan Ortega' || name === 'José Álvarez' ? [teamId] : [] }),
    ).member;
    ids[name] = m.id;
  }
});
afterAll(() => s.close());

const dir = async (query: Record<string, string | number> = {}) => s.client.get('directory', query);

describe('GET /directory', () => {
  it('lists cards by name; archived members left out; reads append nothing', async () => {
    const seq = await head(s.client);
    const all = await dir({ limit: 500 });
    expect(all.status).toBe(200);
    const names = all.body.members.map((m: any) => m.name);
    expect(names).toEqual(expect.arrayContaining(['Dan Ortega', 'Danielle Voss', 'José Álvarez', 'Priya Raman']));
    expect(all.body.members.find((m: any) => m.name === 'Dan Ortega')).toEqual({
      id: ids['Dan Ortega'],
      kind: 'human',
      name: 'Dan Ortega',
      handle: 'dan.ortega',
      email: null,
      userName: null,
      title: 'Controller',
      managerId: null,
      timezone: null,
      status: 'active',
      position: null,
      dottedLineIds: [],
      office: null,
      employeeId: null,
      externalId: null,
      teams: [{ teamId, primary: true }],
    });
    const gone = expectOk('member.create', await s.client.rpc('member.create', { name: 'Gone Person' })).member;
    expectOk('member.archive', await s.client.rpc('member.archive', { memberId: gone.id }));
    const seq2 = await head(s.client);
    expect((await dir({ limit: 500 })).body.members.map((m: any) => m.id)).not.toContain(gone.id);
    expect(await head(s.client)).toBe(seq2);
    expect(seq2).toBe(seq + 2);
  });

  it('q: prefix, typo, accents and title match; filters by team and kind', async () => {
    const names = async (query: Record<string, string | number>) => (await dir(query)).body.members.map((m: any) => m.name);
    expect(await names({ q: 'dan' })).toEqual(expect.arrayContaining(['Dan Ortega', 'Danielle Voss']));
    expect(await names({ q: 'ortgea' })).toContain('Dan Ortega');
    expect(await names({ q: 'jose alvarez' })).toEqual(['José Álvarez']);
    expect(await names({ q: 'controller' })).toEqual(['Dan Ortega']);
    expect(await names({ q: 'dan', teamId })).toEqual(['Dan Ortega']);
    expect((await names({ teamId })).sort()).toEqual(['Dan Ortega', 'José Álvarez']);
    expect(await names({ q: 'dan', kind: 'agent' })).toEqual([]);
    const humans = (await dir({ kind: 'human', limit: 500 })).body.members;
    expect(humans.every((m: any) => m.kind === 'human')).toBe(true);
  });

  it('pages with cursor, with and without q', async () => {
    const first = await dir({ limit: 2 });
    expect(first.body.members).toHaveLength(2);
    const second = await dir({ limit: 2, cursor: first.body.nextCursor });
    const seen = [...first.body.members, ...second.body.members].map((m: any) => m.id);
    expect(new Set(seen).size).toBe(4);
    const q1 = await dir({ q: 'dan', limit: 1 });
    const q2 = await dir({ q: 'dan', limit: 1, cursor: q1.body.nextCursor });
    expect([q1.body.members[0].name, q2.body.members[0].name].sort()).toEqual(['Dan Ortega', 'Danielle Voss']);
  });

  it('bad query -> BAD_REQUEST naming the field; another org sees none of these members', async () => {
    expect((await dir({ limit: 0 })).body.error.message).toMatch(/^limit: /);
    expect((await dir({ colour: 'x' })).body.error.message).toMatch(/^colour: unknown field/);
    expect((await dir({ cursor: 'zzz' })).body.error.message).toBe('cursor: not a cursor this list returned');
    expect((await dir({ teamId: 'usr_x' })).body.error.message).toMatch(/^teamId: must be an id of the form team_/);
    const other = await otherOrg(s);
    const theirs = await other.get('directory', { q: 'dan' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.members).toEqual([]);
  });
});

describe('GET /directory q over team names and expertise tags (principals.directory_terms)', () => {
  const CANARY = 'Zqxcanary';
  const names = async (q: string) => (await dir({ q, limit: 500 })).body.members.map((m: any) => m.name).sort();
  const rpc = async (method: string, params: Record<string, unknown>) => expectOk(method, await s.client.rpc(method, params));

  it('finds members by team name and expertise tag, follows renames, leaving, deletes and expertise edits; no event carries the terms', async () => {
    const seq = await head(s.client);
    const team = (await rpc('team.create', { name: `Quantum ${CANARY}ops` })).team;
    const lena = (await rpc('member.create', { name: 'Lena Fischer', teamIds: [team.id] })).member;
    const omar = (await rpc('member.create', { name: 'Omar Haddad', teamIds: [team.id] })).member;
    await rpc('profile.update', { memberId: lena.id, expertise: ['Kubernetes', `${CANARY}tag`, 'cash-flow forecasting'] });

    // Team name words, in any case; a name word with a team word narrows to the member.
    expect(await names('quantum')).toEqual(['Lena Fischer', 'Omar Haddad']);
    expect(await names('QUANTUM lena')).toEqual(['Lena Fischer']);
    // Expertise tags: a word, a hyphenated tag's parts, the tag as typed.
    expect(await names('kubernetes')).toEqual(['Lena Fischer']);
    expect(await names('forecasting')).toEqual(['Lena Fischer']);
    expect(await names('cash-flow')).toEqual(['Lena Fischer']);
    // Not fuzzy (migration 029): a typo in a tag or team name finds nobody, so a short name query is not swamped by them
    // (a word form does: "kubernets" shares the stem of "Kubernetes", migration 051).
    expect(await names('kubernetis')).toEqual([]);
    expect(await names('kubernets')).toEqual(['Lena Fischer']);
    // Ranks: a name word (A) above a team word (C), both above a name's fuzzy prefix match (Danielle).
    const danTeam = (await rpc('team.create', { name: 'Dan' })).team;
    await rpc('member.assignTeam', { memberId: omar.id, teamIds: [team.id, danTeam.id] });
    const dan = (await dir({ q: 'dan' })).body.members.map((m: any) => m.name);
    expect(dan.slice(0, 3)).toEqual(['Dan Ortega', 'Omar Haddad', 'Danielle Voss']);

    // A rename: the old name finds no one, the new one finds both.
    await rpc('team.update', { teamId: team.id, name: 'Platform Reliability' });
    expect(await names('quantum')).toEqual([]);
    expect(await names('reliability')).toEqual(['Lena Fischer', 'Omar Haddad']);

    // Leaving a team (assignTeam with the rest): Omar keeps only 'Dan'.
    await rpc('member.assignTeam', { memberId: omar.id, teamIds: [danTeam.id] });
    expect(await names('reliability')).toEqual(['Lena Fischer']);
    // Deleting a team unassigns its members: its name finds no one.
    await rpc('team.delete', { teamId: danTeam.id });
    expect((await names('dan')).includes('Omar Haddad')).toBe(false);

    // An expertise change: the dropped tag finds no one, the new one does.
    await rpc('profile.update', { memberId: lena.id, expertise: ['Terraform'] });
    expect(await names('kubernetes')).toEqual([]);
    expect(await names('terraform')).toEqual(['Lena Fischer']);
    // Only the named inputs: a bio word is not a directory term.
    await rpc('profile.update', { memberId: lena.id, bio: 'Loves sourdough' });
    expect(await names('sourdough')).toEqual([]);

    // The terms (team names, tags) are personal or free text: absent from every event these calls appended.
    await rpc('team.update', { teamId: team.id, name: `${CANARY} renamed` });
    await rpc('profile.update', { memberId: lena.id, expertise: [`${CANARY}tag2`] });
    expect(await names(`${CANARY}tag2`)).toEqual(['Lena Fischer']);
    const events = await eventsAfter(s.client, seq);
    expect(events.length).toBeGreaterThanOrEqual(12);
    expect(JSON.stringify(events).toLowerCase()).not.toContain(CANARY.toLowerCase());
  });

  it('invitation.create with teamIds makes the team name findable', async () => {
    const team = (await rpc('team.create', { name: 'Hydroponics' })).team;
    const res = await s.client.rpc('invitation.create', { email: 'noor@example.com', role: 'member', teamIds: [team.id] });
    expect(res.status, res.raw).toBe(200);
    expect((await dir({ q: 'hydroponics' })).body.members.map((m: any) => m.id)).toEqual([res.body.result.member.id]);
  });
});
