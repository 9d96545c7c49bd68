import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head, otherOrg } from '../../../helpers/calls.js';

/** member.*: the directory record of each principal, on the principals row (migration 022). */

let s: TestServer;
let reader: string;
let other: TestClient;
beforeAll(async () => {
  s = await testServer();
  reader = (await s.client.mint({ tier: 'reader' }, 'reader')).apiKey;
  other = await otherOrg(s);
});
afterAll(() => s.close());

const create = async (params: Record<string, unknown>) => expectOk('member.create', await s.client.rpc('member.create', params)).member;
const err = async (method: string, params: unknown, key?: string) => (await s.client.rpc(method, params, { key })).body.error;

describe('member records', () => {
  it('every existing principal is a member: the org creator and minted keys are active members', async () => {
    const who = (await s.client.get('org/whoami')).body;
    const me = expectOk('member.get', await s.client.rpc('member.get', { memberId: who.principal.id }));
    expect(me.member).toMatchObject({ id: who.principal.id, kind: 'human', status: 'active', version: 1 });
    expect(me.access.liveKeys).toBe(1);
  });

  it('create: derived handle, teams, manager; one event with ids only; taken email -> CONFLICT', async () => {
    const boss = await create({ name: 'Ana Müller', email: 'ana@example.com', title: 'CFO', timezone: 'Europe/Berlin' });
    expect(boss).toMatchObject({ kind: 'human', status: 'active', handle: 'ana.muller', email: 'ana@example.com', version: 1 });
    const team = expectOk('team.create', await s.client.rpc('team.create', { name: 'Finance' })).team;
    const before = await head(s.client);
    const dan = await create({ name: 'Dan Ortega', managerId: boss.id, teamIds: [team.id], title: 'Controller' });
    expect(dan).toMatchObject({ managerId: boss.id, teams: [{ teamId: team.id, primary: true }] });
    const events = await eventsAfter(s.client, before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'member.record.create', entity_id: dan.id });
    expect(JSON.stringify(events[0])).not.toMatch(/Dan|Ortega|Controller/);
    const again = await create({ name: 'Ana Müller' });
    expect(again.handle).toBe('ana.muller2');
    const taken = await err('member.create', { name: 'Other', email: 'ANA@example.com' });
    expect(taken.code).toBe('CONFLICT');
    expect(taken.message).toMatch(/^email: already used by member usr_/);
    expect(await head(s.client)).toBe(before + 2);
  });

  it('create is idempotent: the same key replays the stored frame and appends nothing', async () => {
    const first = await s.client.rpc('member.create', { name: 'Replay Person' }, { idem: 'member-create-1' });
    const seq = await head(s.client);
    const second = await s.client.rpc('member.create', { name: 'Replay Person' }, { idem: 'member-create-1' });
    expect(second.body.result).toEqual(first.body.result);
    expect(await head(s.client)).toBe(seq);
  });

  it('bad input -> BAD_REQUEST naming the field; reader key -> FORBIDDEN_SCOPE; nothing appended', async () => {
    const seq = await head(s.client);
    expect((await err('member.create', { name: 'x', colour: 'red' })).message).toMatch(/^colour: unknown field/);
    expect((await err('member.create', { name: 'x', email: 'not-mail' })).message).toMatch(/^email: /);
    expect((await err('member.create', { name: 'x', timezone: 'Mars/Base' })).message).toMatch(/^timezone: must be an IANA time zone/);
    expect((await err('member.create', { name: '' })).message).toMatch(/^name: /);
    expect((await err('member.create', { name: 'x', managerId: 'usr_nobody' })).message).toBe('managerId: no member usr_nobody in this org');
    expect((await err('member.create', { name: 'x', teamIds: ['team_nope'] })).message).toBe('teamIds.0: no live team team_nope in this org');
    expect((await err('member.update', { memberId: 'team_x' })).message).toMatch(/^memberId: must be a member id/);
    expect((await err('member.create', { name: 'x' }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('member.update', { memberId: 'usr_x', title: 'y' }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('member.archive', { memberId: 'usr_x' }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('member.assignTeam', { memberId: 'usr_x', teamIds: [] }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });

  it("another org's or an unknown member -> NOT_FOUND for every method", async () => {
    const foreign = expectOk('member.create', await other.rpc('member.create', { name: 'Foreign' })).member;
    for (const id of [foreign.id, 'usr_unknown1']) {
      expect((await err('member.get', { memberId: id })).code).toBe('NOT_FOUND');
      expect((await err('member.update', { memberId: id, title: 'x' })).code).toBe('NOT_FOUND');
      expect((await err('member.archive', { memberId: id })).code).toBe('NOT_FOUND');
      expect((await err('member.assignTeam', { memberId: id, teamIds: [] })).code).toBe('NOT_FOUND');
    }
    // A foreign manager is no member of this org either.
    expect((await err('member.create', { name: 'x', managerId: foreign.id })).code).toBe('BAD_REQUEST');
    const list = expectOk('member.list', await s.client.rpc('member.list', { limit: 500 }));
    expect(list.members.map((m: any) => m.id)).not.toContain(foreign.id);
  });

  it('update: fields changed, version bumps, no-op appends noop, stale ifVersion -> CONFLICT', async () => {
    const m = await create({ name: 'Eve Park', title: 'Analyst' });
    const seq = await head(s.client);
    const up = expectOk('member.update', await s.client.rpc('member.update', { memberId: m.id, title: 'Senior Analyst', ifVersion: 1 }));
    expect(up).toMatchObject({ changed: true, member: { title: 'Senior Analyst', version: 2 } });
    const same = expectOk('member.update', await s.client.rpc('member.update', { memberId: m.id, title: 'Senior Analyst' }));
    expect(same).toMatchObject({ changed: false, member: { version: 2 } });
    const stale = await err('member.update', { memberId: m.id, title: 'x', ifVersion: 1 });
    expect(stale).toMatchObject({ code: 'CONFLICT' });
    expect(stale.message).toMatch(/is at version 2, not 1/);
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.fields, e.payload.noop])).toEqual([
      ['member.record.update', ['title'], undefined],
      ['member.record.update', [], true],
    ]);
    const cleared = expectOk('member.update', await s.client.rpc('member.update', { memberId: m.id, title: null }));
    expect(cleared.member.title).toBeNull();
  });

  it('update: a reporting cycle -> BAD_REQUEST naming who reports to whom; self as manager too', async () => {
    const a = await create({ name: 'Cycle A' });
    const b = await create({ name: 'Cycle B', managerId: a.id });
    const c = await create({ name: 'Cycle C', managerId: b.id });
    const seq = await head(s.client);
    expect((await err('member.update', { memberId: a.id, managerId: c.id })).message).toBe(`managerId: ${b.id} reports to ${a.id}`);
    expect((await err('member.update', { memberId: a.id, managerId: a.id })).message).toBe(`managerId: ${a.id} cannot report to itself`);
    expect(await head(s.client)).toBe(seq);
    expectOk('member.update', await s.client.rpc('member.update', { memberId: c.id, managerId: a.id }));
  });

  it('concurrent A->B and B->A: the per-org lock lets exactly one win (PostgreSQL runs them truly in parallel)', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await create({ name: `Race A${round}` });
      const b = await create({ name: `Race B${round}` });
      const [x, y] = await Promise.all([
        s.client.rpc('member.update', { memberId: a.id, managerId: b.id }),
        s.client.rpc('member.update', { memberId: b.id, managerId: a.id }),
      ]);
      const outcomes = [x, y].map((r) => (r.body.ok ? 'ok' : r.body.error.code)).sort();
      expect(outcomes).toEqual(['BAD_REQUEST', 'ok']);
    }
  });

  it('archive: live keys or self -> CONFLICT naming the fix; keyless -> archived, reports move up, out of lists; repeat -> changed:false', async () => {
    const me = (await s.client.get('org/whoami')).body.principal.id;
    expect((await err('member.archive', { memberId: me })).message).toMatch(/is you/);
    const agentKey = await s.client.mint({ tier: 'agent' }, 'an agent');
    const live = await err('member.archive', { memberId: agentKey.principal.id });
    expect(live.code).toBe('CONFLICT');
    expect(live.message).toMatch(/is active with 1 live API key\(s\): revoke them first \(settings.revokeApiKey\)/);

    const top = await create({ name: 'Top Boss' });
    const mid = await create({ name: 'Mid Manager', managerId: top.id });
    const low = await create({ name: 'Low Report', managerId: mid.id });
    const seq = await head(s.client);
    const done = expectOk('member.archive', await s.client.rpc('member.archive', { memberId: mid.id }));
    expect(done).toMatchObject({ changed: true, member: { status: 'archived', managerId: null } });
    expect(expectOk('member.get', await s.client.rpc('member.get', { memberId: low.id })).member.managerId).toBe(top.id);
    const again = expectOk('member.archive', await s.client.rpc('member.archive', { memberId: mid.id }));
    expect(again.changed).toBe(false);
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.status, e.payload.noop ?? false, e.payload.reportsMoved])).toEqual([
      ['member.record.archive', 'archived', false, 1],
      ['member.record.archive', 'archived', true, undefined],
    ]);
    const listed = expectOk('member.list', await s.client.rpc('member.list', { limit: 500 })).members.map((m: any) => m.id);
    expect(listed).not.toContain(mid.id);
    const archived = expectOk('member.list', await s.client.rpc('member.list', { status: 'archived' })).members.map((m: any) => m.id);
    expect(archived).toContain(mid.id);
    const upd = await err('member.update', { memberId: mid.id, title: 'x' });
    expect(upd).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/is archived; reactivate it/) });
    // Minting a key for an archived member is refused: the key could never authenticate.
    const mint = await s.client.rpc('settings.mintApiKey', { name: 'k', tier: 'admin', principalId: mid.id });
    expect(mint.body.error?.code ?? 'OK').toBe('CONFLICT');
  });

  it('assignTeam: whole set, primary, no-op, unknown team -> BAD_REQUEST naming the index', async () => {
    const t1 = expectOk('team.create', await s.client.rpc('team.create', { name: 'Assign One' })).team;
    const t2 = expectOk('team.create', await s.client.rpc('team.create', { name: 'Assign Two' })).team;
    const m = await create({ name: 'Team Player' });
    const set = expectOk('member.assignTeam', await s.client.rpc('member.assignTeam', { memberId: m.id, teamIds: [t1.id, t2.id], primaryTeamId: t2.id }));
    expect(set).toMatchObject({ changed: true, member: { version: 2 } });
    expect(set.member.teams).toEqual([
      { teamId: t2.id, primary: true },
      { teamId: t1.id, primary: false },
    ]);
    const seq = await head(s.client);
    const same = expectOk('member.assignTeam', await s.client.rpc('member.assignTeam', { memberId: m.id, teamIds: [t2.id, t1.id], primaryTeamId: t2.id }));
    expect(same.changed).toBe(false);
    expect((await eventsAfter(s.client, seq))[0].payload.noop).toBe(true);
    expect((await err('member.assignTeam', { memberId: m.id, teamIds: [t1.id, 'team_nope'] })).message).toBe('teamIds.1: no live team team_nope in this org');
    expect((await err('member.assignTeam', { memberId: m.id, teamIds: [t1.id], primaryTeamId: t2.id })).message).toBe('primaryTeamId: must be one of teamIds');
    expect(expectOk('member.assignTeam', await s.client.rpc('member.assignTeam', { memberId: m.id, teamIds: [] })).member.teams).toEqual([]);
  });

  it('list: filters, name order, cursor paging; q searches fuzzily; reads append nothing', async () => {
    const team = expectOk('team.create', await s.client.rpc('team.create', { name: 'Listing' })).team;
    const names = ['Zoe Listwood', 'Yann Listwood', 'Xena Listwood'];
    for (const name of names) await create({ name, teamIds: [team.id] });
    const seq = await head(s.client);
    const p1 = expectOk('member.list', await s.client.rpc('member.list', { teamId: team.id, limit: 2 }));
    expect(p1.members.map((m: any) => m.name)).toEqual(['Xena Listwood', 'Yann Listwood']);
    const p2 = expectOk('member.list', await s.client.rpc('member.list', { teamId: team.id, limit: 2, cursor: p1.nextCursor }));
    expect(p2).toMatchObject({ members: [{ name: 'Zoe Listwood' }], nextCursor: null });
    const typo = expectOk('member.list', await s.client.rpc('member.list', { q: 'lisstwod' }));
    expect(typo.members.map((m: any) => m.name).sort()).toEqual([...names].sort());
    const agents = expectOk('member.list', await s.client.rpc('member.list', { kind: 'agent', limit: 500 }));
    expect(agents.members.every((m: any) => m.kind === 'agent')).toBe(true);
    expect((await err('member.list', { cursor: 'garbage' })).message).toBe('cursor: not a cursor this list returned');
    expect((await err('member.list', { limit: 501 })).message).toMatch(/^limit: must be at most 500/);
    expect(await head(s.client)).toBe(seq);
  });

  it('a canary planted in every free-text field never reaches the ledger', async () => {
    const canary = 'CANARY-7f3e91';
    const t = expectOk('team.create', await s.client.rpc('team.create', { name: `${canary} team` })).team;
    const m = await create({ name: `${canary} name`, email: `${canary.toLowerCase()}@example.com`, title: `${canary} title`, teamIds: [t.id] });
    expectOk('member.update', await s.client.rpc('member.update', { memberId: m.id, name: `${canary} renamed`, title: `${canary} t2`, handle: 'canary.h' }));
    expectOk('team.update', await s.client.rpc('team.update', { teamId: t.id, name: `${canary} team 2` }));
    expectOk('member.assignTeam', await s.client.rpc('member.assignTeam', { memberId: m.id, teamIds: [] }));
    expectOk('member.archive', await s.client.rpc('member.archive', { memberId: m.id }));
    expectOk('team.delete', await s.client.rpc('team.delete', { teamId: t.id }));
    const text = JSON.stringify(await allEvents(s.client)).toLowerCase();
    expect(text).not.toContain(canary.toLowerCase());
  });
});
