import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshOrg, TestClient, testServer, type TestServer } from '../helpers/harness.js';
import { expectError, expectFrame } from '../helpers/frames.js';
import { eventCount } from '../helpers/ledger.js';

/** Method names and credentials (spec: Endpoints conventions, Authentication 1, Errors). */
let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

const post = (url: string, headers: Record<string, string> = {}, payload = '{"params":{}}') =>
  s.app
    .inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload })
    .then((r) => ({ status: r.statusCode, raw: r.body, headers: r.headers }));

describe('method names', () => {
  it.each(['nodot', 'a.b.c', '.list', 'org.', '1org.list', 'Org.list', 'org-x.list', 'org.li-st', 'org.li%20st', 'org.list%00', 'org.%C3%A9', '_x.list'])(
    'malformed %s is 400 BAD_REQUEST',
    async (name) => {
      const res = await post(`/api/v1/${name}`, { authorization: `Bearer ${s.org.adminKey}` });
      expectError(res, 'BAD_REQUEST', /^method: malformed method name/);
    },
  );

  it('a malformed name is BAD_REQUEST even without a key', async () => {
    expectError(await post('/api/v1/not-a-method'), 'BAD_REQUEST');
  });

  it.each(['nosuch.method', 'org.nosuch', 'board.createTasks', `x${'a'.repeat(90)}.y`])('well-formed unknown %s is 404 NOT_FOUND', async (name) => {
    const res = await post(`/api/v1/${name}`, { authorization: `Bearer ${s.org.adminKey}` });
    expectError(res, 'NOT_FOUND');
  });

  it('a path segment past the router limit, or a bad %-escape, is still a BAD_REQUEST frame', async () => {
    for (const url of [`/api/v1/x${'a'.repeat(300)}.y`, '/api/v1/org.%E0%A4%A']) {
      expectError(await post(url, { authorization: `Bearer ${s.org.adminKey}` }), 'BAD_REQUEST', undefined, url);
      const r = await s.app.inject({ method: 'GET', url: url.replace('.y', ''), headers: { authorization: `Bearer ${s.org.adminKey}` } });
      expectError({ status: r.statusCode, raw: r.body }, 'BAD_REQUEST', undefined, `GET ${url}`);
    }
  });

  it('an unknown method asked without a key learns nothing: 401', async () => {
    expectError(await post('/api/v1/nosuch.method'), 'UNAUTHORIZED');
  });

  it('unknown paths and verbs are NOT_FOUND frames', async () => {
    expectError(await post('/api/v2/org.list', { authorization: `Bearer ${s.org.adminKey}` }), 'NOT_FOUND');
    expectError(await post('/api/v1/org/list/x', { authorization: `Bearer ${s.org.adminKey}` }), 'NOT_FOUND');
    const r = await s.app.inject({ method: 'GET', url: '/api/v1/no.such.read', headers: { authorization: `Bearer ${s.org.adminKey}` } });
    expectError({ status: r.statusCode, raw: r.body }, 'NOT_FOUND');
  });
});

describe('credentials', () => {
  const cases: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a key that was never minted', { authorization: 'Bearer wops_0000000000000000000000000000000000000000' }],
    ['a key with a trailing word', { authorization: 'Bearer abc def' }],
  ];
  it.each(cases)('%s is 401 UNAUTHORIZED, for methods and reads alike', async (_label, headers) => {
    expectError(await post('/api/v1/settings.listApiKeys', headers), 'UNAUTHORIZED');
    expectError(await post('/api/v1/settings.renameApiKey', headers, JSON.stringify({ params: { keyId: s.org.adminKeyId, name: 'x' } })), 'UNAUTHORIZED');
    const r = await s.app.inject({ method: 'GET', url: '/api/v1/events', headers });
    expectError({ status: r.statusCode, raw: r.body }, 'UNAUTHORIZED');
  });

  it('the scheme word is case-insensitive', async () => {
    const res = await post('/api/v1/org.list', { authorization: `bearer ${s.org.adminKey}` });
    expect(expectFrame(res).ok).toBe(true);
  });

  it('a key revoked with org.revokeApiKey is 401 from the next call on, and the revoke is one event', async () => {
    const org = await freshOrg(s.runtime, 'rev');
    const admin = new TestClient(s.app, org.adminKey);
    const victim = await admin.mint({ tier: 'agent' }, 'to revoke');
    expect((await admin.rpc('org.list', {}, { key: victim.apiKey })).status).toBe(200);
    const before = await eventCount(s.runtime.db, org.orgId);
    const revoked = await admin.ok('org.revokeApiKey', { keyId: victim.keyId });
    expect(revoked).toMatchObject({ keyId: victim.keyId, revoked: true });
    expect(await eventCount(s.runtime.db, org.orgId)).toBe(before + 1);
    expectError(await admin.rpc('org.list', {}, { key: victim.apiKey }), 'UNAUTHORIZED');
    expectError(await admin.get('events', {}, { key: victim.apiKey }), 'UNAUTHORIZED');
    // The admin key is untouched.
    expect((await admin.rpc('org.list', {})).status).toBe(200);
  });

  it('settings.revokeApiKey works the same, and a key can revoke itself', async () => {
    const org = await freshOrg(s.runtime, 'rev');
    const admin = new TestClient(s.app, org.adminKey);
    const other = await admin.mint({ tier: 'admin' }, 'self revoking');
    await admin.ok('settings.revokeApiKey', { keyId: other.keyId }, { key: other.apiKey });
    expectError(await admin.rpc('org.list', {}, { key: other.apiKey }), 'UNAUTHORIZED');
  });

  it('keys of a deleted org are 401', async () => {
    const child = await s.client.ok('org.create', { slug: `child-${Date.now().toString(36)}`, name: 'Child org' });
    const childClient = new TestClient(s.app, child.adminKey);
    expect((await childClient.rpc('org.list')).status).toBe(200);
    const slug = child.slug;
    await s.client.ok('org.delete', { orgId: child.orgId, confirmSlug: slug });
    expectError(await childClient.rpc('org.list'), 'UNAUTHORIZED');
  });
});
