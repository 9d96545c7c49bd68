import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoldResult } from '../../../../protocol/frames.js';
import { allEvents, freshOrg, TestClient, testServer, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head } from '../../../helpers/calls.js';

/*
 * hierarchy.set (a reorg in one call, checked as one forest, against the chart revision; an agent's holds for a
 * human) and GET /hierarchy (tree and flat, position order, dotted lines, bounds). The people group's acceptance
 * scenario 5.
 */

let s: TestServer;
let reader: string;
let agent: { apiKey: string; principal: { id: string } };
let approver: { apiKey: string; principal: { id: string } };
const canary = 'CANARY-5e0b';
beforeAll(async () => {
  s = await testServer();
  reader = (await s.client.mint({ tier: 'reader' }, 'reader')).apiKey;
  agent = await s.client.mint({ scopes: ['admin', 'org.read', 'approval.request'], principalKind: 'agent' }, 'reorg agent');
  approver = await s.client.mint({ tier: 'approver' }, 'reorg approver');
});
afterAll(() => s.close());

const create = async (name: string, extra: Record<string, unknown> = {}) =>
  expectOk('member.create', await s.client.rpc('member.create', { name, ...extra })).member as { id: string; name: string };
const err = async (method: string, params: unknown, key?: string) => (await s.client.rpc(method, params, { key })).body.error;
const chart = async (query: Record<string, string | number> = {}, client: TestClient = s.client) => {
  const res = await client.get('hierarchy', query);
  expect(res.status, res.raw.slice(0, 300)).toBe(200);
  return res.body;
};
const revision = async () => (await chart({ depth: 0 })).revision as number;
const managerOf = async (id: string) => expectOk('member.get', await s.client.rpc('member.get', { memberId: id })).member.managerId;

describe('hierarchy.set: scenario 5 (reorg)', () => {
  let people: { id: string }[];
  /** A binary tree in breadth-first order: line i puts member i under member (i-1)/2. */
  const treeLines = () => people.map((m, i) => ({ memberId: m.id, managerId: i === 0 ? null : people[Math.floor((i - 1) / 2)].id }));

  beforeAll(async () => {
    people = [];
    for (let i = 0; i < 200; i++) people.push(await create(`${canary} Reorg ${String(i).padStart(3, '0')}`, { title: `${canary} title` }));
  });

  it('a cycle at line 17 fails the whole call naming the line and the cycle; nothing is applied', async () => {
    const rev = await revision();
    const seq = await head(s.client);
    const lines = treeLines();
    lines[17] = { memberId: people[17].id, managerId: people[35].id }; // 35 is 17's own report in this tree
    const bad = await err('hierarchy.set', { lines, expectedRevision: rev });
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.message).toBe(
      `lines.17.managerId: would close a reporting cycle (each reports to the next): ${people[17].id} -> ${people[35].id} -> ${people[17].id}`,
    );
    expect(await head(s.client)).toBe(seq);
    expect(await revision()).toBe(rev);
    expect(await managerOf(people[1].id)).toBeNull();
  });

  it('200 lines apply atomically as one event with counts; the same lines again -> changed:false, noop', async () => {
    const rev = await revision();
    const seq = await head(s.client);
    const done = expectOk('hierarchy.set', await s.client.rpc('hierarchy.set', { lines: treeLines(), expectedRevision: rev }));
    expect(done).toEqual({ lines: 200, moved: 199, revision: rev + 1, changed: true });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload])).toEqual([['hierarchy.lines.set', { lines: 200, moved: 199, revision: rev + 1 }]]);
    expect(await managerOf(people[199].id)).toBe(people[99].id);
    const again = expectOk('hierarchy.set', await s.client.rpc('hierarchy.set', { lines: treeLines(), expectedRevision: rev + 1 }));
    expect(again).toEqual({ lines: 200, moved: 0, revision: rev + 1, changed: false });
    expect((await eventsAfter(s.client, seq)).at(-1)).toMatchObject({ kind: 'hierarchy.lines.set', payload: { noop: true, moved: 0 } });

    // The tree read shows it: one root, nested in name order, reportCount on every node.
    const tree = await chart({ rootId: people[0].id });
    expect(tree.revision).toBe(rev + 1);
    const root = tree.roots[0];
    expect(root).toMatchObject({ id: people[0].id, reportCount: 2 });
    expect(root.reports.map((n: any) => n.id)).toEqual([people[1].id, people[2].id]);
    let count = 0;
    const walk = (n: any) => {
      count++;
      n.reports.forEach(walk);
    };
    walk(root);
    expect(count).toBe(200);
  });

  it('a stale expectedRevision -> CONFLICT naming the current one', async () => {
    const rev = await revision();
    const res = await err('hierarchy.set', { lines: [{ memberId: people[5].id, managerId: null }], expectedRevision: rev - 1 });
    expect(res.code).toBe('CONFLICT');
    expect(res.message).toBe(
      `expectedRevision: the chart is at revision ${rev}, not ${rev - 1}; read GET /hierarchy again, recompute the lines and retry with expectedRevision ${rev}`,
    );
  });

  it('bad lines name the line: listed twice, unknown, archived, self; a swap that is a cycle only line by line is fine', async () => {
    const [a, b] = [await create('Swap A'), await create('Swap B')];
    const gone = await create('Swap Gone');
    expectOk('member.archive', await s.client.rpc('member.archive', { memberId: gone.id }));
    const rev = await revision();
    const seq = await head(s.client);
    const bad = (lines: unknown[]) => err('hierarchy.set', { lines, expectedRevision: rev }).then((e) => e.message);
    expect(
      await bad([
        { memberId: a.id, managerId: null },
        { memberId: a.id, managerId: b.id },
      ]),
    ).toBe(`lines.1.memberId: ${a.id} is also on line 0; list each member once`);
    expect(await bad([{ memberId: 'usr_nobody', managerId: null }])).toBe('lines.0.memberId: no member usr_nobody in this org');
    expect(await bad([{ memberId: a.id, managerId: gone.id }])).toBe(`lines.0.managerId: ${gone.id} is archived and not in the chart`);
    expect(await bad([{ memberId: gone.id, managerId: a.id }])).toBe(`lines.0.memberId: ${gone.id} is archived and not in the chart`);
    expect(await bad([{ memberId: a.id, managerId: a.id }])).toBe(`lines.0.managerId: ${a.id} cannot report to itself`);
    expect(await bad([{ memberId: a.id, managerId: 'usr_ghost' }])).toBe('lines.0.managerId: no member usr_ghost in this org');
    expect((await err('hierarchy.set', { lines: [{ memberId: 'team_x', managerId: null }], expectedRevision: rev })).message).toMatch(
      /^lines\.0\.memberId: must be a member id/,
    );
    expect((await err('hierarchy.set', { lines: [], expectedRevision: rev })).message).toMatch(/^lines: /);
    expect(await head(s.client)).toBe(seq);
    // A under B now; then in one call B under A and A at the top: line by line a cycle, as a forest fine.
    expectOk('member.update', await s.client.rpc('member.update', { memberId: a.id, managerId: b.id }));
    const swapped = expectOk(
      'hierarchy.set',
      await s.client.rpc('hierarchy.set', {
        lines: [
          { memberId: b.id, managerId: a.id },
          { memberId: a.id, managerId: null },
        ],
        expectedRevision: rev + 1,
      }),
    );
    expect(swapped).toMatchObject({ moved: 2, changed: true });
    expect([await managerOf(a.id), await managerOf(b.id)]).toEqual([null, a.id]);
  });

  it('scopes: a reader or a key without admin -> FORBIDDEN_SCOPE', async () => {
    const writer = (await s.client.mint({ tier: 'agent' }, 'plain agent')).apiKey;
    for (const key of [reader, writer])
      expect((await err('hierarchy.set', { lines: [{ memberId: people[0].id, managerId: null }], expectedRevision: 0 }, key)).code).toBe('FORBIDDEN_SCOPE');
  });

  it('concurrent A->B and B->A at the same revision: exactly one wins (PostgreSQL runs them in parallel)', async () => {
    for (let round = 0; round < 4; round++) {
      const [a, b] = [await create(`Race A${round}`), await create(`Race B${round}`)];
      const rev = await revision();
      const [x, y] = await Promise.all([
        s.client.rpc('hierarchy.set', { lines: [{ memberId: a.id, managerId: b.id }], expectedRevision: rev }),
        s.client.rpc('hierarchy.set', { lines: [{ memberId: b.id, managerId: a.id }], expectedRevision: rev }),
      ]);
      expect([x, y].map((r) => (r.body.ok ? 'ok' : r.body.error.code)).sort()).toEqual(['CONFLICT', 'ok']);
      const managers = [await managerOf(a.id), await managerOf(b.id)];
      expect(managers.filter((m) => m !== null)).toHaveLength(1);
    }
  });

  it('an agent (with admin scope) holds in retry mode with counts only; approved, the retry applies it once', async () => {
    const [a, b] = [await create('Held A'), await create('Held B')];
    const rev = await revision();
    const params = { lines: [{ memberId: a.id, managerId: b.id }], expectedRevision: rev };
    const before = await head(s.client);
    const res = await s.client.rpc('hierarchy.set', params, { key: agent.apiKey });
    expect(res.status, res.raw).toBe(200);
    const hold = res.body.result;
    expect(HoldResult.safeParse(hold).error?.issues ?? []).toEqual([]);
    expect(hold.approval).toMatchObject({
      actionClass: 'hierarchy.set',
      subject: { kind: 'hierarchy.signature', summary: `Set 1 reporting lines (1 members change manager) on chart revision ${rev}` },
      completion: 'retry',
    });
    const held = await eventsAfter(s.client, before);
    expect(held.map((e) => [e.kind, e.actor])).toEqual([['hierarchy.signature.hold', agent.principal.id]]);
    expect(await managerOf(a.id)).toBeNull();
    const { actionClass, payloadHash, subject } = hold.approval;
    const filed = expectOk('approval.request', await s.client.rpc('approval.request', { actionClass, payloadHash, subject }, { key: agent.apiKey }));
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver.apiKey });
    const seq = await head(s.client);
    const done = expectOk('hierarchy.set', await s.client.rpc('hierarchy.set', { ...params, approvalId: filed.approvalId }, { key: agent.apiKey }));
    expect(done).toMatchObject({ moved: 1, revision: rev + 1, changed: true });
    expect((await eventsAfter(s.client, seq)).map((e) => [e.kind, e.payload.approvalId])).toEqual([['hierarchy.lines.set', filed.approvalId]]);
    expect(await managerOf(a.id)).toBe(b.id);
    const reused = await s.client.rpc(
      'hierarchy.set',
      { lines: [{ memberId: a.id, managerId: null }], expectedRevision: rev + 1, approvalId: filed.approvalId },
      { key: agent.apiKey },
    );
    expect(reused.body.ok).toBe(false);
  });

  it('no event carries a name or title', async () => {
    expect(JSON.stringify(await allEvents(s.client)).toLowerCase()).not.toContain(canary.toLowerCase());
  });
});

describe('GET /hierarchy', () => {
  let org: TestClient;
  const ids: Record<string, string> = {};
  const mk = async (name: string, extra: Record<string, unknown> = {}) => {
    ids[name] = expectOk('member.create', await org.rpc('member.create', { name, ...extra })).member.id;
  };
  beforeAll(async () => {
    org = new TestClient(s.app, (await freshOrg(s.runtime, 'chart')).adminKey);
    await mk('Ceo');
    await mk('Zed Vp', { managerId: ids.Ceo });
    await mk('Amy Vp', { managerId: ids.Ceo });
    await mk('Bob', { managerId: ids['Amy Vp'], dottedLineIds: [ids['Zed Vp']] });
    await mk('Gone', { managerId: ids['Amy Vp'] });
    expectOk('member.archive', await org.rpc('member.archive', { memberId: ids.Gone }));
    expectOk('member.savePosition', await org.rpc('member.savePosition', { memberId: ids['Zed Vp'], position: 0 }));
  });

  it('tree: roots, reports in position then name order, dottedTo, reportCount; archived members are not in it; depth and rootId cut it', async () => {
    const t = await chart({ rootId: ids.Ceo }, org);
    expect(t.format).toBe('tree');
    const ceo = t.roots[0];
    expect(ceo.reports.map((n: any) => [n.name, n.position])).toEqual([
      ['Zed Vp', 0],
      ['Amy Vp', 1],
    ]);
    const amy = ceo.reports[1];
    expect(amy).toMatchObject({ reportCount: 1, reports: [{ name: 'Bob', dottedTo: [ids['Zed Vp']], managerId: ids['Amy Vp'], reports: [] }] });
    const shallow = await chart({ rootId: ids.Ceo, depth: 1 }, org);
    expect(shallow.roots[0].reports[1]).toMatchObject({ name: 'Amy Vp', reportCount: 1, reports: [] });
    const all = await chart({}, org);
    expect(all.roots.map((n: any) => n.name)).toContain('Ceo');
    expect(JSON.stringify(all)).not.toContain(ids.Gone);
    expect((await org.get('hierarchy', { rootId: ids.Gone })).status).toBe(404);
    expect((await s.client.get('hierarchy', { rootId: ids.Ceo })).status).toBe(404);
    expect((await s.client.get('hierarchy', {}, { key: reader })).status).toBe(200);
  });

  it('flat: depth-first pages with a cursor; a chart change between pages -> CONFLICT; a garbage cursor -> BAD_REQUEST', async () => {
    const p1 = await chart({ format: 'flat', rootId: ids.Ceo, limit: 2 }, org);
    expect(p1.nodes.map((n: any) => [n.name, n.depth])).toEqual([
      ['Ceo', 0],
      ['Zed Vp', 1],
    ]);
    const p2 = await chart({ format: 'flat', rootId: ids.Ceo, limit: 2, cursor: p1.nextCursor }, org);
    expect(p2.nodes.map((n: any) => [n.name, n.depth])).toEqual([
      ['Amy Vp', 1],
      ['Bob', 2],
    ]);
    expect(p2.nextCursor).toBeNull();
    expectOk('member.resetPositions', await org.rpc('member.resetPositions', { managerId: ids.Ceo }));
    const moved = await org.get('hierarchy', { format: 'flat', rootId: ids.Ceo, limit: 2, cursor: p1.nextCursor });
    expect(moved.status).toBe(409);
    expect(moved.body.error.message).toMatch(/^cursor: the chart changed/);
    const bad = await org.get('hierarchy', { format: 'flat', cursor: 'garbage' });
    expect(bad.body.error.message).toBe('query.cursor: not a cursor this read returned');
    expect((await org.get('hierarchy', { format: 'wide' })).status).toBe(400);
    expect((await org.get('hierarchy', { depth: -1 })).status).toBe(400);
  });

  it(`a tree over 5000 members -> BAD_REQUEST pointing to flat or rootId; flat pages it`, async () => {
    const big = await freshOrg(s.runtime, 'bigchart');
    await s.runtime.db.query(
      `INSERT INTO principals (org_id, principal_id, kind, name, handle)
       SELECT $1, 'usr_big' || g, 'human', 'Big ' || g, 'big' || g FROM generate_series(1, 5001) AS g`,
      [big.orgId],
    );
    const client = new TestClient(s.app, big.adminKey);
    const res = await client.get('hierarchy', {});
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^query\.format: the tree would hold 5002 members, over 5000: read it with format=flat, or from a rootId/);
    const page = await client.get('hierarchy', { format: 'flat', limit: 500 });
    expect(page.body.nodes).toHaveLength(500);
    expect(page.body.nextCursor).toBeTruthy();
  });
});
