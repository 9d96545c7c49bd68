import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoldResult } from '../../../../protocol/frames.js';
import { TIERS } from '../../../../protocol/scopes.js';
import { one } from '../../../../db/types.js';
import { allEvents, testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, fileAndApprove, head, otherOrg } from '../../../helpers/calls.js';

/*
 * Roles (docs/families/people.md): human tiers member and viewer join admin and approver; a human's role is the
 * ceiling of its keys (mint refuses more); user.updateRole re-tiers live keys in place; the last admin stays; an
 * agent widening a role holds for a human (retry mode, user.update_role).
 */

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
const keyRow = async (keyId: string) =>
  one(
    await s.runtime.db.query<{ tier: string | null; scopes: string[]; revoked_at: string | null }>(
      'SELECT tier, scopes, revoked_at FROM api_keys WHERE org_id = $1 AND key_id = $2',
      [s.org.orgId, keyId],
    ),
  );
const roleOf = async (id: string) =>
  one(await s.runtime.db.query<{ role: string }>('SELECT role FROM principals WHERE org_id = $1 AND principal_id = $2', [s.org.orgId, id])).role;
const sorted = (xs: readonly string[]) => [...xs].sort();

describe('human tiers and the role ceiling', () => {
  it('member and viewer keys are human keys with exactly their tier scopes; a new human takes the narrowest role covering its key', async () => {
    for (const tier of ['member', 'viewer'] as const) {
      const k = await s.client.mint({ tier }, `${tier} person`);
      expect(k.principal.kind).toBe('human');
      const who = (await s.client.get('org/whoami', {}, { key: k.apiKey })).body;
      expect(sorted(who.scopes)).toEqual(sorted(TIERS[tier].scopes));
      expect(await roleOf(k.principal.id)).toBe(tier);
    }
    const approver = await s.client.mint({ tier: 'approver' }, 'Approver Person');
    expect(await roleOf(approver.principal.id)).toBe('approver');
  });

  it('a key for an existing human may not exceed its role: BAD_REQUEST naming tier or scopes and the role; within it is fine', async () => {
    const viewer = await s.client.mint({ tier: 'viewer' }, 'Vera Viewer');
    const seq = await head(s.client);
    const byTier = await err('settings.mintApiKey', { name: 'more', tier: 'member', principalId: viewer.principal.id });
    expect(byTier).toMatchObject({
      code: 'BAD_REQUEST',
      message: `tier: member exceeds the role viewer of ${viewer.principal.id}; mint within it, or widen the role first (user.updateRole)`,
    });
    const byScopes = await err('settings.mintApiKey', {
      name: 'more',
      scopes: ['org.read', 'board.write', 'admin'],
      principalKind: 'human',
      principalId: viewer.principal.id,
    });
    expect(byScopes.message).toMatch(/^scopes: board\.write, admin exceeds the role viewer of usr_/);
    expect(await head(s.client)).toBe(seq);
    const within = await s.client.ok('settings.mintApiKey', {
      name: 'laptop',
      scopes: ['org.read', 'board.read'],
      principalKind: 'human',
      principalId: viewer.principal.id,
    });
    expect(within.principal.id).toBe(viewer.principal.id);
  });
});

describe('user.updateRole', () => {
  it('admin -> viewer: the admin-tier key is re-tiered, an explicit key clipped, a viewer key kept; one event with counts; that key then gets FORBIDDEN_SCOPE on member.create (scenario 6)', async () => {
    const dana = await s.client.mint({ tier: 'admin' }, 'Dana Admin');
    const explicit = await s.client.ok('settings.mintApiKey', {
      name: 'script',
      scopes: ['org.read', 'org.write', 'board.write'],
      principalKind: 'human',
      principalId: dana.principal.id,
    });
    const readOnly = await s.client.ok('settings.mintApiKey', { name: 'dashboard', tier: 'viewer', principalId: dana.principal.id });
    expect(expectOk('member.create', await rpc('member.create', { name: 'Before Demotion' }, dana.apiKey)).changed).toBe(true);

    const seq = await head(s.client);
    const res = expectOk('user.updateRole', await rpc('user.updateRole', { userId: dana.principal.id, role: 'viewer' }));
    expect(res).toMatchObject({
      changed: true,
      keys: { retiered: 1, clipped: 1, kept: 1 },
      user: { id: dana.principal.id, role: 'viewer', status: 'active', liveKeys: 3 },
    });
    expect(await keyRow(dana.keyId)).toMatchObject({ tier: 'viewer', revoked_at: null });
    expect(sorted((await keyRow(dana.keyId)).scopes)).toEqual(sorted(TIERS.viewer.scopes));
    expect(await keyRow(explicit.keyId)).toMatchObject({ tier: null, scopes: ['org.read'] });
    expect(await keyRow(readOnly.keyId)).toMatchObject({ tier: 'viewer' });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.family, e.kind, e.entity_id])).toEqual([['user', 'user.role.update', dana.principal.id]]);
    expect(events[0].payload).toMatchObject({ userId: dana.principal.id, from: 'admin', to: 'viewer', keysRetiered: 1, keysClipped: 1, keysKept: 1 });

    // Same key, same secret: now a viewer's.
    const denied = await rpc('member.create', { name: 'After Demotion' }, dana.apiKey);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN_SCOPE');
    expect((await s.client.get('directory', {}, { key: dana.apiKey })).status).toBe(200);

    // The same role again: changed:false, one noop event.
    const again = expectOk('user.updateRole', await rpc('user.updateRole', { userId: dana.principal.id, role: 'viewer' }));
    expect(again).toMatchObject({ changed: false, keys: { retiered: 0, clipped: 0, kept: 3 } });
    const noop = await eventsAfter(s.client, seq + 1);
    expect(noop.map((e) => [e.kind, e.payload.noop])).toEqual([['user.role.update', true]]);
  });

  it('viewer -> member: keys at the old tier follow the role; an explicit read key stays as minted', async () => {
    const v = await s.client.mint({ tier: 'viewer' }, 'Milo Viewer');
    const narrow = await s.client.ok('settings.mintApiKey', { name: 'ro', scopes: ['org.read'], principalKind: 'human', principalId: v.principal.id });
    const res = expectOk('user.updateRole', await rpc('user.updateRole', { userId: v.principal.id, role: 'member' }));
    expect(res.keys).toEqual({ retiered: 1, clipped: 0, kept: 1 });
    expect((await keyRow(v.keyId)).tier).toBe('member');
    expect(await keyRow(narrow.keyId)).toMatchObject({ tier: null, scopes: ['org.read'] });
    expect(expectOk('member.create', await rpc('member.create', { name: 'Made By Milo' }, v.apiKey)).changed).toBe(true);
    // approver and member do not cover each other: member -> approver clips a member key's write scopes away.
    const toApprover = expectOk('user.updateRole', await rpc('user.updateRole', { userId: v.principal.id, role: 'approver' }));
    expect(toApprover.keys).toEqual({ retiered: 1, clipped: 0, kept: 1 });
    expect((await keyRow(v.keyId)).tier).toBe('approver');
  });

  it('the last active admin cannot be demoted (CONFLICT naming the fix, nothing changed); with a second admin it can', async () => {
    // Other tests may have promoted admins: demote them first so the org's creator is the only one.
    const admins = await s.runtime.db.query<{ principal_id: string }>(
      "SELECT principal_id FROM principals WHERE org_id = $1 AND role = 'admin' AND status = 'active' AND principal_id <> $2",
      [s.org.orgId, adminId],
    );
    for (const a of admins) await s.client.ok('user.updateRole', { userId: a.principal_id, role: 'member' });
    const seq = await head(s.client);
    const last = await err('user.updateRole', { userId: adminId, role: 'member' });
    expect(last).toMatchObject({
      code: 'CONFLICT',
      message: `member ${adminId} is the last active admin of the org: make another human admin first (user.updateRole), then change the role of ${adminId}`,
    });
    expect(await roleOf(adminId)).toBe('admin');
    expect(await head(s.client)).toBe(seq);

    const second = await s.client.mint({ tier: 'member' }, 'Second Admin');
    expectOk('user.updateRole', await rpc('user.updateRole', { userId: second.principal.id, role: 'admin' }));
    expect((await keyRow(second.keyId)).tier).toBe('admin');
    // The new admin may demote the first, who is then not the last; and promote it back.
    expectOk('user.updateRole', await rpc('user.updateRole', { userId: adminId, role: 'approver' }, second.apiKey));
    expect((await err('user.updateRole', { userId: second.principal.id, role: 'member' }, second.apiKey)).code).toBe('CONFLICT');
    expectOk('user.updateRole', await rpc('user.updateRole', { userId: adminId, role: 'admin' }, second.apiKey));
  });

  it('bad input: agt_ id -> BAD_REQUEST; unknown or another org -> NOT_FOUND; no admin scope -> FORBIDDEN_SCOPE; unknown role or field -> BAD_REQUEST', async () => {
    const agent = await s.client.mint({ tier: 'agent' }, 'some agent');
    const member = await s.client.mint({ tier: 'member' }, 'Plain Member');
    const foreign = (await other.ok('settings.mintApiKey', { name: 'f', tier: 'viewer' })).principal.id;
    const seq = await head(s.client);
    expect((await err('user.updateRole', { userId: agent.principal.id, role: 'viewer' })).message).toMatch(
      /^userId: must be a human member id of the form usr_/,
    );
    expect((await err('user.updateRole', { userId: foreign, role: 'viewer' })).code).toBe('NOT_FOUND');
    expect((await err('user.updateRole', { userId: 'usr_nobody', role: 'viewer' })).code).toBe('NOT_FOUND');
    expect((await err('user.updateRole', { userId: member.principal.id, role: 'viewer' }, member.apiKey)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('user.updateRole', { userId: member.principal.id, role: 'owner' })).message).toMatch(/^role: /);
    expect((await err('user.updateRole', { userId: member.principal.id, role: 'viewer', tier: 'x' })).message).toMatch(/^tier: unknown field/);
    expect(await head(s.client)).toBe(seq);
  });
});

describe('user.updateRole from an agent', () => {
  it('widening holds (retry, user.update_role) and changes nothing; the retry with the proof applies it; narrowing runs directly', async () => {
    const ops = await s.client.ok('settings.mintApiKey', { name: 'ops agent', scopes: ['admin', 'org.read', 'approval.request'], principalKind: 'agent' });
    const target = await s.client.mint({ tier: 'viewer' }, 'Held Person');
    const params = { userId: target.principal.id, role: 'admin' };
    const seq = await head(s.client);
    const held = await rpc('user.updateRole', params, ops.apiKey);
    const hold = held.body.result;
    expect(HoldResult.safeParse(hold).error?.issues ?? []).toEqual([]);
    expect(hold.approval).toMatchObject({
      actionClass: 'user.update_role',
      completion: 'retry',
      subject: { kind: 'user.signature', subjectId: target.principal.id },
    });
    expect(await roleOf(target.principal.id)).toBe('viewer');
    expect((await eventsAfter(s.client, seq)).map((e) => e.kind)).toEqual(['user.signature.hold']);

    const approvalId = await fileAndApprove(s.client, hold.approval, { requester: ops.apiKey });
    const done = expectOk('user.updateRole', await rpc('user.updateRole', { ...params, approvalId }, ops.apiKey));
    expect(done).toMatchObject({ changed: true, user: { role: 'admin' }, keys: { retiered: 1 } });
    const applied = (await allEvents(s.client)).filter((e) => e.kind === 'user.role.update' && e.entity_id === target.principal.id);
    expect(applied.at(-1).payload).toMatchObject({ from: 'viewer', to: 'admin', approvalId });

    const narrowed = expectOk('user.updateRole', await rpc('user.updateRole', { userId: target.principal.id, role: 'member' }, ops.apiKey));
    expect(narrowed).toMatchObject({ changed: true, user: { role: 'member' } });
  });
});
