import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS, READS, STATIC_READS } from '../../../protocol/registry.js';
import { METHOD_HANDLERS } from '../../../domain/deployed.js';
import { SCIM_METHODS } from '../../../gateway/scim/calls.js';
import { META_TOOLS } from '../../../mcp/meta-tools.js';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { head } from '../../helpers/calls.js';
import { connectInMemory, toolError } from '../../mcp/fixtures.js';
import { one } from '../../../db/types.js';
import { ScimClient, USER } from './client.js';

/*
 * A SCIM token serves /scim/v2 and nothing else: on /api/v1 it holds no scope, so every method (admin-scoped or
 * not, deployed or not) and every read refuses it with FORBIDDEN_SCOPE naming the scope and what the key is for,
 * writing nothing; MCP lists nothing for it. Meanwhile every SCIM endpoint works (the rest of tests/gateway/scim).
 */

let s: TestServer;
let scimKey: string;
beforeAll(async () => {
  s = await testServer();
  scimKey = (await s.client.ok('settings.mintApiKey', { name: 'SCIM', tier: 'scim' })).apiKey;
});
afterAll(() => s.close());

const SCIM_NOTE = ': a key of tier scim serves /scim/v2 only (SCIM provisioning); /api/v1 takes a key of another tier';
const authed = [...METHODS.values()].filter((m) => !m.preAuth);
/** A valid call where the method is deployed (its contract's example), so nothing but the key stops it. */
const paramsOf = (name: string) => METHOD_HANDLERS.get(name)?.contract.example ?? {};

describe('a scim key on /api/v1', () => {
  it(`walks every authenticated registry method (${authed.length}), ${authed.filter((m) => m.scope === 'admin').length} of them admin-scoped`, () => {
    expect(authed.length).toBeGreaterThan(400);
    expect(authed.some((m) => m.name === 'settings.mintApiKey')).toBe(true);
  });

  it.each(authed.map((m) => [m.name, m.scope] as const))('%s -> FORBIDDEN_SCOPE missing scope %s, nothing written', async (name, scope) => {
    const before = await head(s.client);
    const res = await s.client.rpc(name, paramsOf(name), { key: scimKey });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ ok: false, error: { code: 'FORBIDDEN_SCOPE', message: `missing scope ${scope} for ${name}${SCIM_NOTE}` } });
    expect(await head(s.client)).toBe(before);
  });

  it.each([...READS.values(), ...STATIC_READS.values()].map((r) => [r.path, r.scope] as const))(
    'GET /%s -> FORBIDDEN_SCOPE missing scope %s',
    async (path, scope) => {
      const res = await s.client.get(path.replace('{id}', 'usr_x').replace('{memberId}', 'usr_x').replace('{size}', '96'), {}, { key: scimKey });
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({
        code: 'FORBIDDEN_SCOPE',
        message: expect.stringMatching(new RegExp(`^missing scope ${scope.replace('.', '\\.')} for /`)),
      });
      expect(res.body.error.message.endsWith(SCIM_NOTE)).toBe(true);
    },
  );

  it('the reported case: settings.mintApiKey {tier: admin} mints no key and creates no member', async () => {
    const count = async () => one(await s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM principals WHERE org_id = $1', [s.org.orgId])).n;
    const members = await count();
    const res = await s.client.rpc('settings.mintApiKey', { name: 'backdoor', tier: 'admin' }, { key: scimKey });
    expect(res.body.error.code).toBe('FORBIDDEN_SCOPE');
    expect(await count()).toBe(members);
  });

  it('over MCP it lists no method tool and every call is refused with the same answer', async () => {
    const mcp = await connectInMemory(s.runtime, scimKey, { toolsets: 'all' });
    try {
      const tools = (await mcp.client.listTools()).tools.map((t) => t.name);
      expect(tools.filter((t) => !Object.values(META_TOOLS).includes(t as never))).toEqual([]);
      const refused = toolError(await mcp.client.callTool({ name: META_TOOLS.read, arguments: { name: 'member.list', params: {} } }));
      expect(refused).toEqual({ code: 'FORBIDDEN_SCOPE', message: `missing scope org.read for member.list${SCIM_NOTE}` });
    } finally {
      await mcp.close();
    }
  });
});

describe('the SCIM face keeps working with the same key', () => {
  it('creates, suspends and reactivates a user through the capability, for exactly the methods it makes', async () => {
    const scim = new ScimClient(s, scimKey);
    const created = await scim.send('POST', '/Users', {
      schemas: [USER],
      userName: 'pat.lee@example.com',
      name: { givenName: 'Pat', familyName: 'Lee' },
      active: true,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const off = await scim.send('PATCH', `/Users/${id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    const on = await scim.send('PATCH', `/Users/${id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { active: true } }],
    });
    expect(on.body.active).toBe(true);
    // The capability covers the methods the face makes and no other.
    for (const m of SCIM_METHODS) expect(METHOD_HANDLERS.has(m), m).toBe(true);
    expect([...SCIM_METHODS].sort()).toEqual([
      'admin.deactivate',
      'admin.reactivate',
      'member.assignTeam',
      'member.create',
      'member.update',
      'team.create',
      'team.delete',
      'team.update',
      'user.deactivate',
    ]);
  });
});
