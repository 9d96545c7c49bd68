import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head, otherOrg } from '../../../helpers/calls.js';

/** team.*: nested teams with a lead, tombstoned on delete. */

let s: TestServer;
let reader: string;
let other: TestClient;
beforeAll(async () => {
  s = await testServer();
  reader = (await s.client.mint({ tier: 'reader' }, 'reader')).apiKey;
  other = await otherOrg(s);
});
afterAll(() => s.close());

const create = async (params: Record<string, unknown>) => expectOk('team.create', await s.client.rpc('team.create', params)).team;
const err = async (method: string, params: unknown, key?: string) => (await s.client.rpc(method, params, { key })).body.error;

describe('teams', () => {
  it('create: handle derived, parent and lead; one event without the name; taken name -> CONFLICT; replay -> same frame', async () => {
    const lead = expectOk('member.create', await s.client.rpc('member.create', { name: 'Lena Lead' })).member;
    const seq = await head(s.client);
    const eng = await create({ name: 'Engineering', leadId: lead.id });
    expect(eng).toMatchObject({ handle: 'engineering', leadId: lead.id, parentTeamId: null, status: 'live', memberCount: 0, version: 1 });
    const events = await eventsAfter(s.client, seq);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'team.record.create', entity_id: eng.id, payload: { teamId: eng.id, leadId: lead.id } });
    expect(JSON.stringify(events[0])).not.toContain('Engineering');
    const sub = await create({ name: 'Platform', parentTeamId: eng.id });
    expect(sub.parentTeamId).toBe(eng.id);
    expect((await err('team.create', { name: 'engineering' })).message).toMatch(/^name: already used by team team_/);

    const first = await s.client.rpc('team.create', { name: 'Replayed' }, { idem: 'team-create-1' });
    const at = await head(s.client);
    const second = await s.client.rpc('team.create', { name: 'Replayed' }, { idem: 'team-create-1' });
    expect(second.body.result).toEqual(first.body.result);
    expect(await head(s.client)).toBe(at);
  });

  it('bad input, wrong ids, missing scope: BAD_REQUEST naming the field, NOT_FOUND, FORBIDDEN_SCOPE; nothing appended', async () => {
    const foreign = expectOk('team.create', await other.rpc('team.create', { name: 'Foreign team' })).team;
    const seq = await head(s.client);
    expect((await err('team.create', { name: 'x', colour: 1 })).message).toMatch(/^colour: unknown field/);
    expect((await err('team.create', { name: 'x', handle: 'Bad Handle' })).message).toMatch(/^handle: /);
    expect((await err('team.create', { name: 'x', parentTeamId: foreign.id })).message).toBe(`parentTeamId: no live team ${foreign.id} in this org`);
    expect((await err('team.create', { name: 'x', leadId: 'usr_nobody' })).message).toBe('leadId: no member usr_nobody in this org');
    for (const id of [foreign.id, 'team_unknown']) {
      expect((await err('team.update', { teamId: id, name: 'y' })).code).toBe('NOT_FOUND');
      expect((await err('team.delete', { teamId: id })).code).toBe('NOT_FOUND');
    }
    expect((await err('team.create', { name: 'x' }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('team.update', { teamId: foreign.id }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('team.delete', { teamId: foreign.id }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect(expectOk('team.list', await s.client.rpc('team.list', {}, { key: reader })).teams.map((t: any) => t.id)).not.toContain(foreign.id);
    expect(await head(s.client)).toBe(seq);
  });

  it('update: rename, re-parent with cycle check, lead check, no-op, stale ifVersion', async () => {
    const a = await create({ name: 'Cyc A' });
    const b = await create({ name: 'Cyc B', parentTeamId: a.id });
    const c = await create({ name: 'Cyc C', parentTeamId: b.id });
    const seq = await head(s.client);
    expect((await err('team.update', { teamId: a.id, parentTeamId: c.id })).message).toBe(`parentTeamId: ${b.id} is inside ${a.id}`);
    expect((await err('team.update', { teamId: a.id, parentTeamId: a.id })).message).toBe(`parentTeamId: ${a.id} cannot be its own parent`);
    expect(await head(s.client)).toBe(seq);
    const moved = expectOk('team.update', await s.client.rpc('team.update', { teamId: c.id, parentTeamId: null, name: 'Cyc C2', ifVersion: 1 }));
    expect(moved).toMatchObject({ changed: true, team: { parentTeamId: null, name: 'Cyc C2', version: 2 } });
    const same = expectOk('team.update', await s.client.rpc('team.update', { teamId: c.id, name: 'Cyc C2' }));
    expect(same.changed).toBe(false);
    expect((await err('team.update', { teamId: c.id, name: 'x', ifVersion: 1 })).message).toMatch(/team .* is at version 2, not 1/);
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.fields, e.payload.noop])).toEqual([
      ['team.record.update', ['name', 'parentTeamId'], undefined],
      ['team.record.update', [], true],
    ]);
  });

  it('delete: sub-teams -> CONFLICT naming the way forward; members unassigned; tombstone; repeat -> changed:false; deleted -> CONFLICT on update', async () => {
    const parent = await create({ name: 'Doomed' });
    const child = await create({ name: 'Doomed Child', parentTeamId: parent.id });
    const blocked = await err('team.delete', { teamId: parent.id });
    expect(blocked.code).toBe('CONFLICT');
    expect(blocked.message).toMatch(new RegExp(`live with sub-teams \\(${child.id}\\): move them`));
    const m = expectOk('member.create', await s.client.rpc('member.create', { name: 'Unassigned Soon', teamIds: [child.id, parent.id] })).member;
    const gone = expectOk('team.delete', await s.client.rpc('team.delete', { teamId: child.id }));
    expect(gone).toMatchObject({ changed: true, team: { status: 'deleted', memberCount: 0 } });
    expect(expectOk('member.get', await s.client.rpc('member.get', { memberId: m.id })).member.teams).toEqual([{ teamId: parent.id, primary: true }]);
    expect(expectOk('team.delete', await s.client.rpc('team.delete', { teamId: child.id })).changed).toBe(false);
    expect((await err('team.update', { teamId: child.id, name: 'x' })).message).toMatch(/is deleted; create a new team/);
    expect((await err('member.assignTeam', { memberId: m.id, teamIds: [child.id] })).code).toBe('BAD_REQUEST');
    // The name is free again once the team is deleted.
    await create({ name: 'Doomed Child' });
    const live = expectOk('team.list', await s.client.rpc('team.list', { limit: 500 })).teams.map((t: any) => t.id);
    expect(live).not.toContain(child.id);
    const all = expectOk('team.list', await s.client.rpc('team.list', { limit: 500, includeDeleted: true })).teams.map((t: any) => t.id);
    expect(all).toContain(child.id);
  });

  it('list: by name, parent filter, cursor paging, member counts; appends nothing', async () => {
    const root = await create({ name: 'Paging Root' });
    for (const n of ['P3', 'P1', 'P2']) await create({ name: `Paging ${n}`, parentTeamId: root.id });
    const seq = await head(s.client);
    const p1 = expectOk('team.list', await s.client.rpc('team.list', { parentTeamId: root.id, limit: 2 }));
    expect(p1.teams.map((t: any) => t.name)).toEqual(['Paging P1', 'Paging P2']);
    const p2 = expectOk('team.list', await s.client.rpc('team.list', { parentTeamId: root.id, limit: 2, cursor: p1.nextCursor }));
    expect(p2).toMatchObject({ teams: [{ name: 'Paging P3' }], nextCursor: null });
    expect((await err('team.list', { cursor: 'nope' })).message).toBe('cursor: not a cursor this list returned');
    expect(await head(s.client)).toBe(seq);
  });
});
