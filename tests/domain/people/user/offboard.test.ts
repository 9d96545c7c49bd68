import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seatUsage } from '../../../../domain/people/billing/seats.js';
import { chartRevision } from '../../../../domain/people/member/chart.js';
import { verifyOrgChain } from '../../../../ledger/verify.js';
import { allEvents, testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head, otherOrg } from '../../../helpers/calls.js';
import { connectInMemory, toolError } from '../../../mcp/fixtures.js';
import { one } from '../../../../db/types.js';
import { newTask, newWorkstream } from '../../../helpers/tasks.js';

/*
 * user.deactivate (the people group's acceptance scenario 4, offboarding): one transaction revokes every way in and
 * hands every piece of work on. The reason is free text: a canary planted in it never reaches the ledger.
 */

const CANARY = 'canary-51ab-offboard';
const ORIGIN = 'http://localhost:8080';

let s: TestServer;
let other: TestClient;
let adminId: string;
beforeAll(async () => {
  s = await testServer();
  other = await otherOrg(s);
  adminId = (await s.client.get('org/whoami')).body.principal.id;
});
afterAll(() => s.close());

const rpc = (method: string, params: unknown, key?: string) => s.client.rpc(method, params, { key });
const err = async (method: string, params: unknown, key?: string) => (await rpc(method, params, key)).body.error;
const person = async (name: string, extra: Record<string, unknown> = {}) => (await s.client.ok('member.create', { name, ...extra })).member.id as string;
const sql = <T = any>(text: string, args: unknown[] = []) => s.runtime.db.query<T>(text, args);
const principal = async (id: string) =>
  one(
    await sql<{ status: string; manager_id: string | null; sponsor_id: string | null; status_reason: string | null }>(
      'SELECT status, manager_id, sponsor_id, status_reason FROM principals WHERE org_id = $1 AND principal_id = $2',
      [s.org.orgId, id],
    ),
  );

/** A human with a member key, reporting to managerId. */
async function staff(name: string, managerId?: string) {
  const k = await s.client.mint({ tier: 'member' }, name);
  if (managerId) await s.client.ok('member.update', { memberId: k.principal.id, managerId });
  return k;
}

describe('scenario 4: offboarding', () => {
  it('user.deactivate {transferTo}: keys UNAUTHORIZED (HTTP, MCP, inbox), reports under the manager, claims released, open items, workstreams and sponsored agents on transferTo, seats -1, one event with counts; repeat -> changed:false', async () => {
    const manager = await person('Mara Manager');
    const leaver = await staff('Leo Leaver', manager);
    const heir = await staff('Hana Heir', manager);
    const r1 = await person('Rita Report', { managerId: leaver.principal.id });
    const r2 = await person('Ravi Report', { managerId: leaver.principal.id });
    const agent = await s.client.mint({ tier: 'agent' }, 'leo bot');
    await sql('UPDATE principals SET sponsor_id = $3 WHERE org_id = $1 AND principal_id = $2', [s.org.orgId, agent.principal.id, leaver.principal.id]);

    const claimed = [];
    for (const title of ['Claimed A', 'Claimed B']) {
      const t = await newTask(s.client, { title });
      await s.client.ok('board.claim', { taskId: t.id, leaseSeconds: 900 }, { key: leaver.apiKey });
      claimed.push(t.id);
    }
    const open = [];
    for (const title of ['Open A', 'Open B', 'Open C']) {
      const t = await newTask(s.client, { title });
      await s.client.ok('board.assignTask', { taskId: t.id, assignee: leaver.principal.id });
      open.push(t.id);
    }
    const done = await newTask(s.client, { title: 'Done one' });
    await s.client.ok('board.assignTask', { taskId: done.id, assignee: leaver.principal.id });
    await s.client.ok('board.complete', { taskId: done.id });
    const ws = await newWorkstream(s.client, { name: 'Leo stream' });
    await sql('UPDATE board_workstreams SET owner = $3 WHERE org_id = $1 AND workstream_id = $2', [s.org.orgId, ws.id, leaver.principal.id]);

    const signIn = await s.app.inject({
      method: 'POST',
      url: '/approvals/api/session',
      headers: { 'content-type': 'application/json', origin: ORIGIN },
      payload: { apiKey: leaver.apiKey },
    });
    expect(signIn.statusCode).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0];
    const mcp = await connectInMemory(s.runtime, leaver.apiKey, { toolsets: 'all' });
    const seatsBefore = (await seatUsage(s.runtime.db, s.org.orgId)).seats;
    const revision = await chartRevision(s.runtime.db, s.org.orgId);

    try {
      const seq = await head(s.client);
      const res = expectOk(
        'user.deactivate',
        await rpc('user.deactivate', { userId: leaver.principal.id, transferTo: heir.principal.id, reason: `Moved abroad ${CANARY}` }),
      );
      const handedOver = {
        keysRevoked: 1,
        invitationsRevoked: 0,
        sessionsEnded: 1,
        claimsReleased: 2,
        itemsMoved: 3,
        workstreamsMoved: 1,
        reportsMoved: 2,
        agentsMoved: 1,
      };
      expect(res).toMatchObject({
        changed: true,
        transferTo: heir.principal.id,
        handedOver,
        user: { status: 'deactivated', liveKeys: 0, statusReason: `Moved abroad ${CANARY}` },
      });
      const events = await eventsAfter(s.client, seq);
      expect(events.map((e) => [e.family, e.kind, e.entity_id])).toEqual([['user', 'user.access.deactivate', leaver.principal.id]]);
      expect(events[0].payload).toMatchObject({
        userId: leaver.principal.id,
        from: 'active',
        status: 'deactivated',
        transferTo: heir.principal.id,
        ...handedOver,
      });

      // Every way in is shut.
      expect((await rpc('team.list', {}, leaver.apiKey)).status).toBe(401);
      expect(toolError(await mcp.client.callTool({ name: 'team_list', arguments: {} })).code).toBe('UNAUTHORIZED');
      expect((await s.app.inject({ method: 'GET', url: '/approvals/api/approvals', headers: { cookie } })).statusCode).toBe(401);
      expect((await seatUsage(s.runtime.db, s.org.orgId)).seats).toBe(seatsBefore - 1);
      // Every piece of work moved on.
      expect((await principal(r1)).manager_id).toBe(manager);
      expect((await principal(r2)).manager_id).toBe(manager);
      expect(await chartRevision(s.runtime.db, s.org.orgId)).toBeGreaterThan(revision);
      expect((await principal(agent.principal.id)).sponsor_id).toBe(heir.principal.id);
      const items = await sql<{ task_id: string; assignee: string | null; claimed_by: string | null }>(
        'SELECT task_id, assignee, claimed_by FROM board_tasks WHERE org_id = $1 AND task_id = ANY($2::text[])',
        [s.org.orgId, [...claimed, ...open, done.id]],
      );
      const byId = new Map(items.map((r) => [r.task_id, r]));
      // Claimed work goes back to ready for anyone; work assigned to the leaver goes to the heir.
      for (const id of claimed) expect(byId.get(id)).toMatchObject({ assignee: null, claimed_by: null });
      for (const id of open) expect(byId.get(id)).toMatchObject({ assignee: heir.principal.id, claimed_by: null });
      expect(byId.get(done.id)!.assignee).toBe(leaver.principal.id);
      const ready = ((await s.client.get('board.ready', { limit: 100 })).body.tasks as { id: string }[]).map((t) => t.id);
      expect(ready).toEqual(expect.arrayContaining(claimed));
      const owner = one(await sql<{ owner: string }>('SELECT owner FROM board_workstreams WHERE org_id = $1 AND workstream_id = $2', [s.org.orgId, ws.id]));
      expect(owner.owner).toBe(heir.principal.id);

      const again = expectOk('user.deactivate', await rpc('user.deactivate', { userId: leaver.principal.id, transferTo: heir.principal.id, reason: CANARY }));
      expect(again).toMatchObject({ changed: false, transferTo: null, handedOver: { keysRevoked: 0, itemsMoved: 0 } });
      expect((await eventsAfter(s.client, seq + 1)).map((e) => [e.kind, e.payload.noop])).toEqual([['user.access.deactivate', true]]);
    } finally {
      await mcp.close();
    }
    // Reactivation brings the member back; its revoked keys stay revoked.
    expect(expectOk('admin.reactivate', await rpc('admin.reactivate', { memberId: leaver.principal.id })).member).toMatchObject({
      status: 'active',
      liveKeys: 0,
    });
    expect((await rpc('team.list', {}, leaver.apiKey)).status).toBe(401);
    expect((await verifyOrgChain(s.runtime.db, s.org.orgId)).ok).toBe(true);
    expect(JSON.stringify(await allEvents(s.client))).not.toContain(CANARY);
  });

  it('self or the last admin -> CONFLICT with nothing changed and no event', async () => {
    const ops = await s.client.ok('settings.mintApiKey', { name: 'ops', scopes: ['admin', 'org.read'], principalKind: 'agent' });
    const heir = await staff('Self Heir');
    const seq = await head(s.client);
    expect(await err('user.deactivate', { userId: adminId, transferTo: heir.principal.id, reason: 'x' })).toMatchObject({
      code: 'CONFLICT',
      message: `member ${adminId} is you: another admin must offboard you`,
    });
    expect(await err('user.deactivate', { userId: adminId, transferTo: heir.principal.id, reason: 'x' }, ops.apiKey)).toMatchObject({
      code: 'CONFLICT',
      message: `member ${adminId} is the last active admin of the org: make another human admin first (user.updateRole), then offboard ${adminId}`,
    });
    expect(await head(s.client)).toBe(seq);
    expect((await principal(adminId)).status).toBe('active');
    expect((await s.client.get('org/whoami')).status).toBe(200);
  });

  it('transferTo: defaults to the manager; none, the leaver, an inactive member or an agent for sponsored agents -> BAD_REQUEST naming params.transferTo', async () => {
    const boss = await person('Bea Boss');
    const withBoss = await staff('Walt Withboss', boss);
    const res = expectOk('user.deactivate', await rpc('user.deactivate', { userId: withBoss.principal.id, reason: 'x' }));
    expect(res.transferTo).toBe(boss);

    const lone = await staff('Lone Wolf');
    const bot = await s.client.mint({ tier: 'agent' }, 'lone bot');
    const seq = await head(s.client);
    expect((await err('user.deactivate', { userId: lone.principal.id, reason: 'x' })).message).toBe(
      `transferTo: ${lone.principal.id} has no manager to take over their work: name who does`,
    );
    expect((await err('user.deactivate', { userId: lone.principal.id, transferTo: lone.principal.id, reason: 'x' })).message).toMatch(
      /^transferTo: usr_\w+ is the user leaving/,
    );
    expect((await err('user.deactivate', { userId: lone.principal.id, transferTo: withBoss.principal.id, reason: 'x' })).message).toBe(
      `transferTo: ${withBoss.principal.id} is deactivated`,
    );
    expect((await err('user.deactivate', { userId: lone.principal.id, transferTo: 'usr_nobody', reason: 'x' })).message).toBe(
      'transferTo: no member usr_nobody in this org',
    );
    await sql('UPDATE principals SET sponsor_id = $3 WHERE org_id = $1 AND principal_id = $2', [s.org.orgId, bot.principal.id, lone.principal.id]);
    expect((await err('user.deactivate', { userId: lone.principal.id, transferTo: bot.principal.id, reason: 'x' })).message).toMatch(
      /is an agent, and usr_\w+ sponsors agents: a sponsor is a human/,
    );
    expect(await head(s.client)).toBe(seq);
    expect((await principal(lone.principal.id)).status).toBe('active');
  });

  it('a transferTo below the leaver with no manager above: the report on the way takes the leaver’s place, no loop', async () => {
    const top = await staff('Tess Top');
    const mid = await person('Mo Middle', { managerId: top.principal.id });
    const deep = await staff('Dee Deep', mid);
    const side = await person('Sid Side', { managerId: top.principal.id });
    const res = expectOk('user.deactivate', await rpc('user.deactivate', { userId: top.principal.id, transferTo: deep.principal.id, reason: 'x' }));
    expect(res.handedOver.reportsMoved).toBe(2);
    expect((await principal(mid)).manager_id).toBeNull();
    expect((await principal(side)).manager_id).toBe(deep.principal.id);
    expect((await principal(deep.principal.id)).manager_id).toBe(mid);
  });

  it('an invited user: its pending invitation is revoked', async () => {
    const invited = await person('Ivy Invited');
    await sql("UPDATE principals SET status = 'invited' WHERE org_id = $1 AND principal_id = $2", [s.org.orgId, invited]);
    await sql(
      `INSERT INTO invitations (org_id, invitation_id, member_id, email, role, token_hash, expires_at, created_member, invited_by)
       VALUES ($1, 'ivt_offboard1', $2, 'ivy@example.com', 'member', 'x', now() + interval '7 days', true, $3)`,
      [s.org.orgId, invited, adminId],
    );
    const heir = await staff('Ivy Heir');
    const res = expectOk('user.deactivate', await rpc('user.deactivate', { userId: invited, transferTo: heir.principal.id, reason: 'x' }));
    expect(res.handedOver.invitationsRevoked).toBe(1);
    const inv = one(await sql<{ status: string }>("SELECT status FROM invitations WHERE org_id = $1 AND invitation_id = 'ivt_offboard1'", [s.org.orgId]));
    expect(inv.status).toBe('revoked');
  });

  it('bad input: agt_ id -> BAD_REQUEST; unknown or another org -> NOT_FOUND; no reason -> BAD_REQUEST; no admin scope -> FORBIDDEN_SCOPE', async () => {
    const agent = await s.client.mint({ tier: 'agent' }, 'not a user');
    const member = await staff('Plain Staff');
    const foreign = (await other.ok('settings.mintApiKey', { name: 'f', tier: 'member' })).principal.id;
    const seq = await head(s.client);
    expect((await err('user.deactivate', { userId: agent.principal.id, reason: 'x' })).message).toMatch(/^userId: must be a human member id/);
    expect((await err('user.deactivate', { userId: foreign, transferTo: member.principal.id, reason: 'x' })).code).toBe('NOT_FOUND');
    expect((await err('user.deactivate', { userId: 'usr_nobody', reason: 'x' })).code).toBe('NOT_FOUND');
    expect((await err('user.deactivate', { userId: member.principal.id })).message).toMatch(/^reason: /);
    expect((await err('user.deactivate', { userId: member.principal.id, reason: 'x' }, member.apiKey)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});
