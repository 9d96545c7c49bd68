import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoldResult } from '../../../../protocol/frames.js';
import { verifyOrgChain } from '../../../../ledger/verify.js';
import { allEvents, testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, fileAndApprove, head, otherOrg } from '../../../helpers/calls.js';
import { connectInMemory, structured, toolError } from '../../../mcp/fixtures.js';
import { one } from '../../../../db/types.js';
import { newTask } from '../../../helpers/tasks.js';

/*
 * admin.deactivate / admin.reactivate: the kill switch (the people group's acceptance scenario 3). Suspension blocks
 * a member's keys from its very next call on every face without revoking them, releases its board claims back to
 * ready and ends its inbox sessions; reactivation makes the same keys work again. Reasons are free text: a canary
 * planted in every one must never reach the ledger.
 */

const CANARY = 'canary-7f3e-kill-switch';
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
const readyIds = async () => ((await s.client.get('board.ready', { limit: 100 })).body.tasks as { id: string }[]).map((t) => t.id);

async function expectNoCanary(): Promise<void> {
  const events = await allEvents(s.client);
  expect(JSON.stringify(events)).not.toContain(CANARY);
}

describe('scenario 3: the kill switch', () => {
  it('an agent with 3 claims: admin.deactivate -> its next call UNAUTHORIZED on HTTP and MCP, items back in /board.ready; reactivate -> the same key works; the chain verifies', async () => {
    const agent = await s.client.mint({ tier: 'agent' }, 'runaway agent');
    const tasks = [];
    for (const title of ['one', 'two', 'three']) {
      const t = await newTask(s.client, { title: `Kill switch ${title}` });
      await s.client.ok('board.claim', { taskId: t.id, leaseSeconds: 900 }, { key: agent.apiKey });
      tasks.push(t.id);
    }
    expect(await readyIds()).not.toEqual(expect.arrayContaining([tasks[0]]));
    const mcp = await connectInMemory(s.runtime, agent.apiKey, { toolsets: 'all' });
    try {
      expect(structured(await mcp.client.callTool({ name: 'team_list', arguments: {} }))).toMatchObject({ teams: expect.any(Array) });

      const seq = await head(s.client);
      const res = expectOk('admin.deactivate', await rpc('admin.deactivate', { memberId: agent.principal.id, reason: `Loops on invoices ${CANARY}` }));
      expect(res).toMatchObject({
        changed: true,
        released: { claims: 3, sessions: 0 },
        member: {
          id: agent.principal.id,
          kind: 'agent',
          status: 'suspended',
          liveKeys: 1,
          statusReason: `Loops on invoices ${CANARY}`,
          statusChangedBy: adminId,
        },
      });
      const events = await eventsAfter(s.client, seq);
      expect(events.map((e) => [e.family, e.kind, e.entity_id])).toEqual([['admin', 'admin.member.deactivate', agent.principal.id]]);
      expect(events[0].payload).toMatchObject({
        memberId: agent.principal.id,
        kind: 'agent',
        from: 'active',
        status: 'suspended',
        keysBlocked: 1,
        claimsReleased: 3,
        sessionsEnded: 0,
      });

      // The very next call, on every face.
      const call = await rpc('board.createTask', { title: 'still here?' }, agent.apiKey);
      expect([call.status, call.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
      expect((await s.client.get('board.ready', {}, { key: agent.apiKey })).status).toBe(401);
      expect(toolError(await mcp.client.callTool({ name: 'team_list', arguments: {} })).code).toBe('UNAUTHORIZED');
      expect(await readyIds()).toEqual(expect.arrayContaining(tasks));
      const rows = await s.runtime.db.query<{ col: string; claimed_by: string | null }>(
        'SELECT col, claimed_by FROM board_tasks WHERE org_id = $1 AND task_id = ANY($2::text[])',
        [s.org.orgId, tasks],
      );
      expect(rows.every((r) => r.col === 'todo' && r.claimed_by === null)).toBe(true);
      // Kept, not revoked; and no new key for a suspended member.
      const key = one(
        await s.runtime.db.query<{ revoked_at: string | null }>('SELECT revoked_at FROM api_keys WHERE org_id = $1 AND key_id = $2', [
          s.org.orgId,
          agent.keyId,
        ]),
      );
      expect(key.revoked_at).toBeNull();
      expect((await err('settings.mintApiKey', { name: 'again', tier: 'agent', principalId: agent.principal.id })).code).toBe('CONFLICT');

      const back = expectOk('admin.reactivate', await rpc('admin.reactivate', { memberId: agent.principal.id }));
      expect(back).toMatchObject({ changed: true, member: { status: 'active', liveKeys: 1, statusReason: null } });
      expect((await eventsAfter(s.client, seq + 1)).map((e) => [e.kind, e.payload.from, e.payload.keysRestored])).toEqual([
        ['admin.member.reactivate', 'suspended', 1],
      ]);
      expect(expectOk('board.claim', await rpc('board.claim', { taskId: tasks[0], leaseSeconds: 60 }, agent.apiKey)).claimedBy).toBe(agent.principal.id);
      expect(structured(await mcp.client.callTool({ name: 'team_list', arguments: {} }))).toMatchObject({ teams: expect.any(Array) });
    } finally {
      await mcp.close();
    }
    expect((await verifyOrgChain(s.runtime.db, s.org.orgId)).ok).toBe(true);
    await expectNoCanary();
  });

  it("a suspended human's inbox session stops at its next request, and stays ended after reactivation (sign in again)", async () => {
    const human = await s.client.mint({ tier: 'approver' }, 'Ines Approver');
    const signIn = await s.app.inject({
      method: 'POST',
      url: '/approvals/api/session',
      headers: { 'content-type': 'application/json', origin: ORIGIN },
      payload: { apiKey: human.apiKey },
    });
    expect(signIn.statusCode).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0];
    const list = () => s.app.inject({ method: 'GET', url: '/approvals/api/approvals', headers: { cookie } });
    expect((await list()).statusCode).toBe(200);

    const res = expectOk('admin.deactivate', await rpc('admin.deactivate', { memberId: human.principal.id, reason: `Laptop stolen ${CANARY}` }));
    expect(res.released).toEqual({ claims: 0, sessions: 1 });
    expect((await list()).statusCode).toBe(401);
    expectOk('admin.reactivate', await rpc('admin.reactivate', { memberId: human.principal.id, reason: `Laptop found ${CANARY}` }));
    expect((await list()).statusCode).toBe(401);
    // The kept key signs in again.
    const again = await s.app.inject({
      method: 'POST',
      url: '/approvals/api/session',
      headers: { 'content-type': 'application/json', origin: ORIGIN },
      payload: { apiKey: human.apiKey },
    });
    expect(again.statusCode).toBe(200);
    await expectNoCanary();
  });
});

describe('admin.deactivate', () => {
  it('already suspended -> changed:false with a noop event; yourself -> CONFLICT; a deactivated member -> CONFLICT naming the fix', async () => {
    const m = await s.client.mint({ tier: 'member' }, 'Twice Suspended');
    expectOk('admin.deactivate', await rpc('admin.deactivate', { memberId: m.principal.id, reason: CANARY }));
    const seq = await head(s.client);
    const again = expectOk('admin.deactivate', await rpc('admin.deactivate', { memberId: m.principal.id, reason: CANARY }));
    expect(again).toMatchObject({ changed: false, released: { claims: 0, sessions: 0 }, member: { status: 'suspended' } });
    expect((await eventsAfter(s.client, seq)).map((e) => [e.kind, e.payload.noop])).toEqual([['admin.member.deactivate', true]]);

    const gone = await s.client.mint({ tier: 'viewer' }, 'Gone Person');
    const before = await head(s.client);
    expect(await err('admin.deactivate', { memberId: adminId, reason: 'x' })).toMatchObject({
      code: 'CONFLICT',
      message: `member ${adminId} is you: another admin must suspend you`,
    });
    await s.runtime.db.query("UPDATE principals SET status = 'deactivated' WHERE org_id = $1 AND principal_id = $2", [s.org.orgId, gone.principal.id]);
    expect((await err('admin.deactivate', { memberId: gone.principal.id, reason: 'x' })).message).toBe(
      `member ${gone.principal.id} is deactivated: it has no access to suspend; admin.reactivate gives access back`,
    );
    expect(await head(s.client)).toBe(before);
  });

  it('the last active admin cannot be suspended, even by an agent holding the admin scope', async () => {
    const ops = await s.client.ok('settings.mintApiKey', { name: 'ops', scopes: ['admin', 'org.read'], principalKind: 'agent' });
    const admins = await s.runtime.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM principals WHERE org_id = $1 AND role = 'admin' AND status = 'active'",
      [s.org.orgId],
    );
    expect(one(admins).n).toBe(1);
    const seq = await head(s.client);
    expect(await err('admin.deactivate', { memberId: adminId, reason: 'x' }, ops.apiKey)).toMatchObject({
      code: 'CONFLICT',
      message: `member ${adminId} is the last active admin of the org: make another human admin first (user.updateRole), then suspend ${adminId}`,
    });
    expect(await head(s.client)).toBe(seq);
    // Cutting an agent's access never waits: the same agent suspends another agent directly, no hold.
    const a = await s.client.mint({ tier: 'agent' }, 'Cut By Agent');
    expect(expectOk('admin.deactivate', await rpc('admin.deactivate', { memberId: a.principal.id, reason: 'x' }, ops.apiKey)).changed).toBe(true);
    // A human is suspended by a human: the agent's call holds (release mode), and the human keeps access meanwhile.
    const m = await s.client.mint({ tier: 'member' }, 'Held For A Human');
    const held = await rpc('admin.deactivate', { memberId: m.principal.id, reason: 'x' }, ops.apiKey);
    expect(held.body.result).toMatchObject({ status: 'approval_required', subjectId: m.principal.id });
    expect((await s.client.get('org/whoami', {}, { key: m.apiKey })).status).toBe(200);
  });

  it('bad input: unknown or another org -> NOT_FOUND; missing reason, unknown field -> BAD_REQUEST; no admin scope -> FORBIDDEN_SCOPE', async () => {
    const agent = await s.client.mint({ tier: 'agent' }, 'plain agent');
    const foreign = (await other.ok('settings.mintApiKey', { name: 'f', tier: 'agent' })).principal.id;
    const seq = await head(s.client);
    expect((await err('admin.deactivate', { memberId: foreign, reason: 'x' })).code).toBe('NOT_FOUND');
    expect((await err('admin.reactivate', { memberId: 'agt_nobody' })).code).toBe('NOT_FOUND');
    expect((await err('admin.deactivate', { memberId: agent.principal.id })).message).toMatch(/^reason: /);
    expect((await err('admin.deactivate', { memberId: agent.principal.id, reason: 'x', keys: 'keep' })).message).toMatch(/^keys: unknown field/);
    expect((await err('admin.deactivate', { memberId: 'team_x', reason: 'x' })).message).toMatch(/^memberId: must be a member id/);
    expect((await err('admin.deactivate', { memberId: agent.principal.id, reason: 'x' }, agent.apiKey)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('admin.reactivate', () => {
  it('a deactivated member comes back active with its revoked keys still revoked; active -> changed:false; invited -> CONFLICT', async () => {
    const m = await s.client.mint({ tier: 'member' }, 'Came Back');
    await s.runtime.db.query('UPDATE api_keys SET revoked_at = now() WHERE org_id = $1 AND key_id = $2', [s.org.orgId, m.keyId]);
    await s.runtime.db.query("UPDATE principals SET status = 'deactivated' WHERE org_id = $1 AND principal_id = $2", [s.org.orgId, m.principal.id]);
    const back = expectOk('admin.reactivate', await rpc('admin.reactivate', { memberId: m.principal.id }));
    expect(back.member).toMatchObject({ status: 'active', liveKeys: 0 });
    expect((await rpc('team.list', {}, m.apiKey)).status).toBe(401);
    const seq = await head(s.client);
    expect(expectOk('admin.reactivate', await rpc('admin.reactivate', { memberId: m.principal.id })).changed).toBe(false);
    expect((await eventsAfter(s.client, seq))[0].payload).toMatchObject({ noop: true, status: 'active' });
    await s.runtime.db.query("UPDATE principals SET status = 'invited' WHERE org_id = $1 AND principal_id = $2", [s.org.orgId, m.principal.id]);
    expect((await err('admin.reactivate', { memberId: m.principal.id })).message).toMatch(/is invited: it becomes active by accepting its invitation/);
  });

  it('no free seat -> CONFLICT naming the seats; a member without keys takes none', async () => {
    const agent = await s.client.mint({ tier: 'agent' }, 'seated agent');
    expectOk('admin.deactivate', await rpc('admin.deactivate', { memberId: agent.principal.id, reason: 'x' }));
    const { n } = one(
      await s.runtime.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM principals p WHERE p.org_id = $1 AND p.kind = 'agent' AND p.status = 'active'
          AND EXISTS (SELECT 1 FROM api_keys k WHERE k.org_id = p.org_id AND k.principal_id = p.principal_id AND k.revoked_at IS NULL)`,
        [s.org.orgId],
      ),
    );
    await s.runtime.db.query(`INSERT INTO billing_subscriptions (org_id, plan, cycle, seats, agent_seats) VALUES ($1, 'team', 'monthly', 1000, $2)`, [
      s.org.orgId,
      n,
    ]);
    try {
      const seq = await head(s.client);
      const full = await err('admin.reactivate', { memberId: agent.principal.id });
      expect(full).toMatchObject({
        code: 'CONFLICT',
        message: expect.stringMatching(/^memberId: agent seats full: \d+ of \d+ used; raise agentSeats with billing\.update/),
      });
      expect(await head(s.client)).toBe(seq);
      const keyless = (await s.client.ok('member.create', { name: 'Keyless Person' })).member.id;
      expectOk('admin.deactivate', await rpc('admin.deactivate', { memberId: keyless, reason: 'x' }));
      expect(expectOk('admin.reactivate', await rpc('admin.reactivate', { memberId: keyless })).changed).toBe(true);
    } finally {
      await s.runtime.db.query('DELETE FROM billing_subscriptions WHERE org_id = $1', [s.org.orgId]);
    }
  });

  it('from an agent: held (retry, actionClass admin.reactivate), nothing changes; the retry with the proof reactivates', async () => {
    const ops = await s.client.ok('settings.mintApiKey', { name: 'ops', scopes: ['admin', 'org.read', 'approval.request'], principalKind: 'agent' });
    const target = await s.client.mint({ tier: 'agent' }, 'paused agent');
    expectOk('admin.deactivate', await rpc('admin.deactivate', { memberId: target.principal.id, reason: 'pause' }, ops.apiKey));
    const seq = await head(s.client);
    const heldRes = await rpc('admin.reactivate', { memberId: target.principal.id }, ops.apiKey);
    expect(heldRes.status, heldRes.raw).toBe(200);
    const hold = heldRes.body.result;
    expect(HoldResult.safeParse(hold).error?.issues ?? []).toEqual([]);
    expect(hold.approval).toMatchObject({
      actionClass: 'admin.reactivate',
      completion: 'retry',
      subject: { kind: 'admin.signature', subjectId: target.principal.id },
    });
    expect((await eventsAfter(s.client, seq)).map((e) => e.kind)).toEqual(['admin.signature.hold']);
    expect((await rpc('team.list', {}, target.apiKey)).status).toBe(401);
    const approvalId = await fileAndApprove(s.client, hold.approval, { requester: ops.apiKey });
    const done = expectOk('admin.reactivate', await rpc('admin.reactivate', { memberId: target.principal.id, approvalId }, ops.apiKey));
    expect(done).toMatchObject({ changed: true, member: { status: 'active' } });
    expect((await rpc('team.list', {}, target.apiKey)).status).toBe(200);
  });
});
