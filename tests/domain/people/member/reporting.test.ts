import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head, otherOrg } from '../../../helpers/calls.js';

/*
 * member.reassignReporting, member.savePosition, member.resetPositions: the chart acts on members; each change
 * bumps the chart revision (GET /hierarchy), a no-op appends its event with noop and leaves the revision.
 */

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
const call = async (method: string, params: Record<string, unknown>) => expectOk(method, await s.client.rpc(method, params));
const err = async (method: string, params: unknown, key?: string) => (await s.client.rpc(method, params, { key })).body.error;
const revision = async () =>
  (await s.client.get('hierarchy', { rootId: (await s.client.get('org/whoami')).body.principal.id, depth: 0 })).body.revision as number;
/** The ids of manager's reports in chart order, with their positions. */
const reportsOf = async (managerId: string) => expectOk('member.list', await s.client.rpc('member.list', { managerId, limit: 500 }));
const chartOrder = async (managerId: string) => {
  const page = await s.client.get('hierarchy', { rootId: managerId, depth: 1 });
  expect(page.status, page.raw).toBe(200);
  return page.body.roots[0].reports.map((n: any) => [n.name, n.position]);
};

describe('member.reassignReporting', () => {
  it('moves all or the listed reports in one event; revision bumps; repeat -> moved 0, noop', async () => {
    const from = await create({ name: 'Reassign From' });
    const to = await create({ name: 'Reassign To' });
    const [a, b, c] = [
      await create({ name: 'R A', managerId: from.id }),
      await create({ name: 'R B', managerId: from.id }),
      await create({ name: 'R C', managerId: from.id }),
    ];
    const rev = await revision();
    const seq = await head(s.client);
    const some = await call('member.reassignReporting', { fromManagerId: from.id, toManagerId: to.id, memberIds: [b.id] });
    expect(some).toEqual({ moved: 1, memberIds: [b.id], revision: rev + 1, changed: true });
    const all = await call('member.reassignReporting', { fromManagerId: from.id, toManagerId: to.id });
    expect(all).toMatchObject({ moved: 2, revision: rev + 2, changed: true });
    expect(all.memberIds.sort()).toEqual([a.id, c.id].sort());
    const again = await call('member.reassignReporting', { fromManagerId: from.id, toManagerId: to.id });
    expect(again).toEqual({ moved: 0, memberIds: [], revision: rev + 2, changed: false });
    expect((await reportsOf(to.id)).members.map((m: any) => m.id).sort()).toEqual([a.id, b.id, c.id].sort());
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.moved, e.payload.revision, e.payload.noop ?? false])).toEqual([
      ['member.reports.reassign', 1, rev + 1, false],
      ['member.reports.reassign', 2, rev + 2, false],
      ['member.reports.reassign', 0, rev + 2, true],
    ]);
  });

  it('a new manager below a moved member -> BAD_REQUEST naming the path; a non-report -> BAD_REQUEST naming the index; nothing moves', async () => {
    const from = await create({ name: 'Cyc From' });
    const x = await create({ name: 'Cyc X', managerId: from.id });
    const y = await create({ name: 'Cyc Y', managerId: x.id });
    const stranger = await create({ name: 'Cyc Stranger' });
    const seq = await head(s.client);
    expect((await err('member.reassignReporting', { fromManagerId: from.id, toManagerId: y.id })).message).toBe(
      `toManagerId: ${y.id} is below ${x.id} (${y.id} -> ${x.id}); leave it out of memberIds or pick another manager`,
    );
    expect((await err('member.reassignReporting', { fromManagerId: from.id, toManagerId: x.id })).message).toMatch(/would report to itself/);
    expect((await err('member.reassignReporting', { fromManagerId: from.id, toManagerId: stranger.id, memberIds: [x.id, y.id] })).message).toBe(
      `memberIds.1: ${y.id} does not report to ${from.id}`,
    );
    expect((await err('member.reassignReporting', { fromManagerId: 'usr_nobody', toManagerId: stranger.id })).code).toBe('NOT_FOUND');
    expect((await err('member.reassignReporting', { fromManagerId: from.id, toManagerId: 'usr_nobody' })).message).toBe(
      'toManagerId: no member usr_nobody in this org',
    );
    const foreign = expectOk('member.create', await other.rpc('member.create', { name: 'Foreign Boss' })).member;
    expect((await err('member.reassignReporting', { fromManagerId: foreign.id, toManagerId: stranger.id })).code).toBe('NOT_FOUND');
    expect((await err('member.reassignReporting', { fromManagerId: from.id, toManagerId: stranger.id }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
    expect((await reportsOf(from.id)).members.map((m: any) => m.id)).toEqual([x.id]);
  });
});

describe('member.savePosition and member.resetPositions', () => {
  it('places a member among its siblings and renumbers them densely; past the end is last; same slot -> noop', async () => {
    const boss = await create({ name: 'Pos Boss' });
    for (const name of ['Pos Anna', 'Pos Bert', 'Pos Cleo', 'Pos Dave']) await create({ name, managerId: boss.id });
    expect(await chartOrder(boss.id)).toEqual([
      ['Pos Anna', null],
      ['Pos Bert', null],
      ['Pos Cleo', null],
      ['Pos Dave', null],
    ]);
    const dave = (await reportsOf(boss.id)).members.find((m: any) => m.name === 'Pos Dave');
    const rev = await revision();
    const seq = await head(s.client);
    const first = await call('member.savePosition', { memberId: dave.id, position: 0, ifVersion: dave.version });
    expect(first).toMatchObject({ member: { position: 0, version: dave.version + 1 }, siblings: 4, revision: rev + 1, changed: true });
    expect(await chartOrder(boss.id)).toEqual([
      ['Pos Dave', 0],
      ['Pos Anna', 1],
      ['Pos Bert', 2],
      ['Pos Cleo', 3],
    ]);
    const last = await call('member.savePosition', { memberId: dave.id, position: 99 });
    expect(last.member.position).toBe(3);
    expect(await chartOrder(boss.id)).toEqual([
      ['Pos Anna', 0],
      ['Pos Bert', 1],
      ['Pos Cleo', 2],
      ['Pos Dave', 3],
    ]);
    const same = await call('member.savePosition', { memberId: dave.id, position: 3 });
    expect(same).toMatchObject({ changed: false, revision: rev + 2 });
    const stale = await err('member.savePosition', { memberId: dave.id, position: 0, ifVersion: 1 });
    expect(stale.code).toBe('CONFLICT');
    // A newcomer has no slot: it comes after the placed siblings until placed.
    await create({ name: 'Pos Aaron', managerId: boss.id });
    expect((await chartOrder(boss.id)).map((r: any) => r[0])).toEqual(['Pos Anna', 'Pos Bert', 'Pos Cleo', 'Pos Dave', 'Pos Aaron']);
    const events = await eventsAfter(s.client, seq);
    expect(events.filter((e) => e.kind === 'member.position.save').map((e) => [e.payload.position, e.payload.renumbered, e.payload.noop ?? false])).toEqual([
      [0, 4, false],
      [3, 4, false],
      [3, 0, true],
    ]);

    const reset = await call('member.resetPositions', { managerId: boss.id });
    expect(reset).toMatchObject({ reset: 4, changed: true });
    expect(await chartOrder(boss.id)).toEqual([
      ['Pos Aaron', null],
      ['Pos Anna', null],
      ['Pos Bert', null],
      ['Pos Cleo', null],
      ['Pos Dave', null],
    ]);
    const resetAgain = await call('member.resetPositions', { managerId: boss.id });
    expect(resetAgain).toMatchObject({ reset: 0, changed: false, revision: reset.revision });
  });

  it('moving to another manager clears the slot; resetPositions without managerId clears the whole chart; bad ids refused', async () => {
    const a = await create({ name: 'Slot Mgr A' });
    const b = await create({ name: 'Slot Mgr B' });
    const m = await create({ name: 'Slot Member', managerId: a.id });
    await create({ name: 'Slot Other', managerId: a.id });
    expect((await call('member.savePosition', { memberId: m.id, position: 1 })).member.position).toBe(1);
    const moved = expectOk('member.update', await s.client.rpc('member.update', { memberId: m.id, managerId: b.id })).member;
    expect(moved.position).toBeNull();
    await call('member.savePosition', { memberId: m.id, position: 0 });
    const whole = await call('member.resetPositions', {});
    expect(whole.reset).toBeGreaterThanOrEqual(2);
    const gone = await create({ name: 'Slot Gone' });
    expectOk('member.archive', await s.client.rpc('member.archive', { memberId: gone.id }));
    expect((await err('member.savePosition', { memberId: gone.id, position: 0 })).message).toMatch(/is archived and not in the chart/);
    expect((await err('member.savePosition', { memberId: 'usr_nobody', position: 0 })).code).toBe('NOT_FOUND');
    expect((await err('member.savePosition', { memberId: m.id, position: -1 })).message).toMatch(/^position: /);
    expect((await err('member.resetPositions', { managerId: 'usr_nobody' })).code).toBe('NOT_FOUND');
    expect((await err('member.resetPositions', {}, reader)).code).toBe('FORBIDDEN_SCOPE');
  });

  it('every reporting change bumps the revision: create with a manager, update managerId or dotted lines, archive', async () => {
    const r0 = await revision();
    const boss = await create({ name: 'Rev Boss' });
    expect(await revision()).toBe(r0);
    const m = await create({ name: 'Rev Member', managerId: boss.id });
    expect(await revision()).toBe(r0 + 1);
    expectOk('member.update', await s.client.rpc('member.update', { memberId: m.id, title: 'no chart change' }));
    expect(await revision()).toBe(r0 + 1);
    expectOk('member.update', await s.client.rpc('member.update', { memberId: m.id, managerId: null }));
    expect(await revision()).toBe(r0 + 2);
    expectOk('member.update', await s.client.rpc('member.update', { memberId: m.id, dottedLineIds: [boss.id] }));
    expect(await revision()).toBe(r0 + 3);
    expectOk('member.archive', await s.client.rpc('member.archive', { memberId: boss.id }));
    expect(await revision()).toBe(r0 + 4);
  });
});
