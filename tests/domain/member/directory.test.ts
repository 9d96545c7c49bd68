import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { expectOk, head, otherOrg } from '../../helpers/calls.js';

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
    const m = expectOk('member.create', await s.client.rpc('member.create', { name, title, teamIds: name === 'Dan Ortega' || name === 'José Álvarez' ? [teamId] : [] })).member;
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
      title: 'Controller',
      managerId: null,
      timezone: null,
      status: 'active',
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
    expect((await dir({ cursor: 'zzz' })).body.error.message).toBe('query.cursor: not a cursor this list returned');
    expect((await dir({ teamId: 'usr_x' })).body.error.message).toMatch(/^teamId: must be an id of the form team_/);
    const other = await otherOrg(s);
    const theirs = await other.get('directory', { q: 'dan' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.members).toEqual([]);
  });
});
