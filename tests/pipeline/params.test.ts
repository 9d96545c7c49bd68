import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '../../protocol/registry.js';
import { METHOD_HANDLERS } from '../../domain/deployed.js';
import { freshOrg, TestClient, testServer, type TestServer } from '../helpers/harness.js';
import { expectError, expectFrame } from '../helpers/frames.js';
import { headOf } from '../helpers/ledger.js';

/** Strict params, body forms and invalid JSON (spec: Request body, Errors rule 3). */
let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

const authedDeployed = [...METHOD_HANDLERS.keys()].filter((n) => !METHODS.get(n)!.preAuth).sort();

describe('strict params', () => {
  it('an unknown field is BAD_REQUEST `<field>: unknown field`', async () => {
    const res = await s.client.rpc('settings.renameApiKey', { keyId: s.org.adminKeyId, name: 'x', colour: 'blue' });
    expectError(res, 'BAD_REQUEST', 'colour: unknown field');
  });

  it('an unknown nested field names its path', async () => {
    const res = await s.client.rpc('governance.set_decision_rights', { rights: [{ area: 'board', decidedBy: 'humans', bogus: 1 }] });
    expectError(res, 'BAD_REQUEST', 'rights.0.bogus: unknown field');
  });

  it('a wrong type names the field and the types', async () => {
    expectError(await s.client.rpc('settings.renameApiKey', { keyId: 42, name: 'x' }), 'BAD_REQUEST', 'keyId: expected string, got number');
    expectError(await s.client.rpc('settings.listApiKeys', { includeRevoked: 'yes' }), 'BAD_REQUEST', 'includeRevoked: expected boolean, got string');
    expectError(await s.client.rpc('governance.set_decision_rights', { rights: null }), 'BAD_REQUEST', 'rights: expected array, got null');
  });

  it('a missing field is `<field>: required`', async () => {
    expectError(await s.client.rpc('settings.renameApiKey', { keyId: s.org.adminKeyId }), 'BAD_REQUEST', 'name: required');
  });

  it('a malformed value names the field', async () => {
    expectError(await s.client.rpc('settings.renameApiKey', { keyId: 'nope', name: 'x' }), 'BAD_REQUEST', /^keyId: /);
    expectError(await s.client.rpc('org.create', { slug: 'Bad Slug', name: 'x' }), 'BAD_REQUEST', /^slug: /);
    expectError(await s.client.rpc('settings.renameApiKey', { keyId: s.org.adminKeyId, name: '' }), 'BAD_REQUEST', /^name: /);
    expectError(await s.client.rpc('settings.renameApiKey', { keyId: s.org.adminKeyId, name: 'a\u0000b' }), 'BAD_REQUEST', /^name: /);
    expectError(await s.client.rpc('settings.renameApiKey', { keyId: s.org.adminKeyId, name: 'a\ud800b' }), 'BAD_REQUEST', /^name: /);
  });

  it.each(authedDeployed)('%s: its example plus an unknown field is BAD_REQUEST naming it, and appends nothing', async (name) => {
    const before = await headOf(s.runtime.db, s.org.orgId);
    const example = METHOD_HANDLERS.get(name)!.contract.example as Record<string, unknown>;
    const res = await s.client.rpc(name, { ...example, zz_not_a_field: 1 });
    expectError(res, 'BAD_REQUEST', 'zz_not_a_field: unknown field', name);
    expect(await headOf(s.runtime.db, s.org.orgId)).toEqual(before);
  });

  it.each(authedDeployed)('%s: params that are not an object are BAD_REQUEST', async (name) => {
    for (const params of [[], 'text', 7, true]) {
      expectError(await s.client.rpc(name, params), 'BAD_REQUEST', /^params: expected object, got /, `${name} ${JSON.stringify(params)}`);
    }
  });
});

describe('body forms', () => {
  it('a bare params object as the whole body works the same as {params}', async () => {
    const org = await freshOrg(s.runtime, 'bare');
    const client = new TestClient(s.app, org.adminKey);
    const wrapped = await client.rpc('settings.renameApiKey', { keyId: org.adminKeyId, name: 'same name' });
    const bare = await client.raw('settings.renameApiKey', JSON.stringify({ keyId: org.adminKeyId, name: 'same name' }));
    expect(bare.status).toBe(200);
    expect(bare.raw).toBe(wrapped.raw);
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(2);
    // The same errors too.
    const bareBad = await client.raw('settings.renameApiKey', JSON.stringify({ keyId: org.adminKeyId, name: 'x', extra: 1 }));
    expectError(bareBad, 'BAD_REQUEST', 'extra: unknown field');
    const bareList = await client.raw('org.list', '{}');
    expect(bareList.raw).toBe((await client.rpc('org.list', {})).raw);
  });

  it('an empty body, a null body and {"params":null} mean no params', async () => {
    for (const body of ['', 'null', '{"params":null}', '{"params":{}}']) {
      const res = await s.client.raw('org.list', body);
      expect(expectFrame(res, JSON.stringify(body)).ok, body).toBe(true);
    }
  });

  it.each(['{', '{"params":', 'not json', '{"params":{}}}', "{'params':{}}", '[1,]', '\u0000'])('invalid JSON %j is 400 BAD_REQUEST', async (body) => {
    const before = await headOf(s.runtime.db, s.org.orgId);
    const res = await s.client.raw('settings.renameApiKey', body);
    expectError(res, 'BAD_REQUEST', /^body: invalid JSON/);
    expect(await headOf(s.runtime.db, s.org.orgId)).toEqual(before);
  });

  it('a body that is not JSON content is BAD_REQUEST', async () => {
    const res = await s.client.raw('org.list', 'params=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expectError(res, 'BAD_REQUEST');
  });

  it('a body over the limit is BAD_REQUEST', async () => {
    const res = await s.client.raw('org.list', JSON.stringify({ params: { pad: 'x'.repeat(1024 * 1024 + 10) } }));
    expectError(res, 'BAD_REQUEST', /^body: larger than/);
  });
});
