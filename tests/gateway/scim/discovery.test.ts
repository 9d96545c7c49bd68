import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { ENTERPRISE, ERROR, expectScimError, GROUP, ScimClient, USER } from './client.js';

/** /scim/v2 discovery (no credential), authentication, and RFC 7644 section 3.12 errors. */

let s: TestServer;
let scim: ScimClient;
beforeAll(async () => {
  s = await testServer();
  scim = new ScimClient(s, (await s.client.mint({ tier: 'scim' }, 'Okta provisioning')).apiKey);
});
afterAll(() => s.close());

describe('discovery', () => {
  it('ServiceProviderConfig, ResourceTypes and Schemas answer without a credential', async () => {
    const anon = new ScimClient(s, '');
    const spc = await anon.send('GET', '/ServiceProviderConfig', undefined, { key: null });
    expect(spc.status).toBe(200);
    expect(spc.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      authenticationSchemes: [{ type: 'oauthbearertoken', primary: true }],
    });

    const types = await anon.send('GET', '/ResourceTypes', undefined, { key: null });
    expect(types.status).toBe(200);
    expect(types.body.totalResults).toBe(2);
    expect(types.body.Resources.map((r: any) => [r.id, r.endpoint, r.schema])).toEqual([
      ['User', '/Users', USER],
      ['Group', '/Groups', GROUP],
    ]);
    expect(types.body.Resources[0].schemaExtensions).toEqual([{ schema: ENTERPRISE, required: false }]);
    expect((await anon.send('GET', '/ResourceTypes/Group', undefined, { key: null })).body.endpoint).toBe('/Groups');

    const schemas = await anon.send('GET', '/Schemas', undefined, { key: null });
    expect(schemas.body.Resources.map((r: any) => r.id)).toEqual([USER, ENTERPRISE, GROUP]);
    const enterprise = await anon.send('GET', `/Schemas/${ENTERPRISE}`, undefined, { key: null });
    expect(enterprise.body.attributes.map((a: any) => a.name)).toEqual(['employeeNumber', 'department', 'manager']);
    const user = schemas.body.Resources[0];
    expect(user.attributes.find((a: any) => a.name === 'userName')).toMatchObject({ required: true, uniqueness: 'server', mutability: 'readWrite' });

    const missing = await anon.send('GET', '/Schemas/urn:nope', undefined, { key: null });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ schemas: [ERROR], status: '404' });
  });
});

describe('authentication', () => {
  it('no key: 401 with WWW-Authenticate; an unknown key: 401', async () => {
    const none = await scim.send('GET', '/Users', undefined, { key: null });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="scim"');
    expect(none.body).toMatchObject({ schemas: [ERROR], status: '401' });
    const wrong = await scim.send('GET', '/Groups', undefined, { key: 'wops_live_notakey' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="scim"');
  });

  it('a key of another tier, even admin: 403 naming the scim tier, nothing written', async () => {
    const agent = (await s.client.mint({ tier: 'agent' })).apiKey;
    for (const key of [s.org.adminKey, agent]) {
      const res = await scim.send('POST', '/Users', { schemas: [USER], userName: 'x@example.com' }, { key });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: '403' });
      expect(res.body.detail).toContain('tier scim');
    }
    expect((await s.client.rpc('member.list', { q: 'x@example.com' })).body.result.members).toEqual([]);
  });

  it('a revoked scim key stops at once', async () => {
    const minted = await s.client.mint({ tier: 'scim' }, 'to revoke');
    const c = new ScimClient(s, minted.apiKey);
    expect((await c.get('/Users')).status).toBe(200);
    await s.client.ok('settings.revokeApiKey', { keyId: minted.keyId });
    expect((await c.get('/Users')).status).toBe(401);
  });
});

describe('errors (RFC 7644 section 3.12)', () => {
  it('unknown endpoint 404; bad JSON 400 invalidSyntax; bad PatchOp 400; bad count 400', async () => {
    await expectScimError(scim, () => scim.get('/Bulk'), 404);
    await expectScimError(scim, () => scim.send('POST', '/Users', '{"userName": '), 400, 'invalidSyntax');
    await expectScimError(scim, () => scim.send('POST', '/Users', '{"userName": ', { contentType: 'application/json' }), 400, 'invalidSyntax');
    const user = await scim.post('/Users', { schemas: [USER], userName: 'errors@example.com', displayName: 'Err Ors' });
    expect(user.status).toBe(201);
    await expectScimError(scim, () => scim.patch(`/Users/${user.body.id}`, { Operations: [{ op: 'move', path: 'title' }] }), 400, 'invalidSyntax');
    await expectScimError(scim, () => scim.patch(`/Users/${user.body.id}`, { Operations: [] }), 400, 'invalidSyntax');
    await expectScimError(scim, () => scim.get('/Users?count=ten'), 400, 'invalidValue');
  });
});
