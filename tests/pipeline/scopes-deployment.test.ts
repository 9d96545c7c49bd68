import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS, READS, STATIC_READS } from '../../protocol/registry.js';
import { SCOPES, TIERS } from '../../protocol/scopes.js';
import { DEPLOYED_FAMILIES, METHOD_HANDLERS } from '../../domain/deployed.js';
import { testServer, type TestServer } from '../helpers/harness.js';
import { expectError, expectFrame } from '../helpers/frames.js';

/** Scope checks over the whole registry, and NOT_FOUND for everything not deployed (spec: Authentication 2, Endpoints). */
let s: TestServer;
/** A server that leaves families out: every family is deployed on the default one, so it has nothing undeployed. */
let lacking: TestServer;
let noScopes: string;
beforeAll(async () => {
  s = await testServer();
  lacking = await testServer({ without: LEFT_OUT });
  const minted = await s.client.mint({ scopes: [] }, 'no scopes at all');
  expect(minted.scopes).toEqual([]);
  noScopes = minted.apiKey;
});
afterAll(async () => {
  await lacking?.close();
  await s?.close();
});

const all = [...METHODS.values()];
const authed = all.filter((m) => !m.preAuth).map((m) => [m.name, m.scope] as const);
/** sop has methods and no read, inbox one read (/org/inbox) and no method; no other family needs them at run time. */
const LEFT_OUT = ['sop', 'inbox'];
const leftOut = DEPLOYED_FAMILIES.filter((f) => LEFT_OUT.includes(f.name));
const notDeployed = leftOut.flatMap((f) => [...(f.methods?.keys() ?? [])]).sort();
const undeployedReads = leftOut.flatMap((f) => [...(f.reads?.keys() ?? [])]).sort();

describe('a key with scopes: [] is refused every method', () => {
  it(`covers all ${authed.length} authenticated methods`, () => {
    expect(authed.length).toBe(423);
  });

  it.each(authed)('%s -> 403 missing scope %s', async (name, scope) => {
    const res = await s.client.rpc(name, {}, { key: noScopes });
    expectError(res, 'FORBIDDEN_SCOPE', `missing scope ${scope} for ${name}`, name);
  });

  it('pairing.request runs pre-auth: never FORBIDDEN_SCOPE nor UNAUTHORIZED, whatever the key', async () => {
    for (const key of [noScopes, 'wops_bogus', s.org.adminKey]) {
      const res = await s.client.rpc('pairing.request', {}, { key });
      const frame = expectFrame(res);
      if (!frame.ok) expect(['FORBIDDEN_SCOPE', 'UNAUTHORIZED']).not.toContain(frame.error.code);
    }
    const bare = await s.app.inject({ method: 'POST', url: '/api/v1/pairing.request', headers: { 'content-type': 'application/json' }, payload: '{}' });
    const frame = expectFrame({ status: bare.statusCode, raw: bare.body });
    if (!frame.ok) expect(frame.error.code).not.toBe('UNAUTHORIZED');
  });

  it.each([...READS.values(), ...STATIC_READS.values()].map((r) => [r.path, r.scope] as const))('GET /%s -> 403 missing scope %s', async (path, scope) => {
    const res = await s.client.get(path, {}, { key: noScopes });
    expectError(res, 'FORBIDDEN_SCOPE', `missing scope ${scope} for /${path}`);
  });
});

describe('key tiers', () => {
  // scim is a key of /scim/v2 only and holds no /api/v1 scope (tests/gateway/scim/api-refused.test.ts).
  it.each(Object.keys(TIERS).filter((t) => t !== 'scim'))('a %s key holds org.read and exactly its tier scopes', async (tier) => {
    const minted = await s.client.mint({ tier }, `${tier} key`);
    const who = await s.client.get('org/whoami', {}, { key: minted.apiKey });
    expect(who.status).toBe(200);
    expect(who.body.scopes).toContain('org.read');
    expect(who.body.scopes).toEqual([...TIERS[tier as keyof typeof TIERS].scopes].sort());
    expect(who.body.principal.kind).toBe(TIERS[tier as keyof typeof TIERS].principal);
  });

  it('an agent key is refused admin methods; a reader key is refused writes', async () => {
    const agent = await s.client.mint({ tier: 'agent' }, 'agent');
    expectError(await s.client.rpc('settings.listApiKeys', {}, { key: agent.apiKey }), 'FORBIDDEN_SCOPE', 'missing scope admin for settings.listApiKeys');
    const reader = await s.client.mint({ tier: 'reader' }, 'reader');
    expectError(
      await s.client.rpc('governance.set_decision_rights', { rights: [{ area: 'x', decidedBy: 'humans' }] }, { key: reader.apiKey }),
      'FORBIDDEN_SCOPE',
      'missing scope admin for governance.set_decision_rights',
    );
    expect((await s.client.get('events', {}, { key: reader.apiKey })).status).toBe(200);
  });
});

describe('undeployed methods and reads are NOT_FOUND to a key holding every scope', () => {
  it('the default server deploys every registry method, so a server without sop and inbox is what has undeployed ones', () => {
    expect(all.filter((m) => !METHOD_HANDLERS.has(m.name))).toEqual([]);
    // The lists the cases below walk: never empty, and exactly what the families left out serve.
    expect(notDeployed.length).toBeGreaterThan(0);
    expect(notDeployed).toEqual(
      all
        .filter((m) => m.family === 'sop')
        .map((m) => m.name)
        .sort(),
    );
    expect(undeployedReads).toEqual(['org/inbox']);
    const served = lacking.runtime.deps.families;
    expect(
      all
        .filter((m) => !served.methods.has(m.name))
        .map((m) => m.name)
        .sort(),
    ).toEqual(notDeployed);
    expect([...READS.keys(), ...STATIC_READS.keys()].filter((p) => !served.reads.has(p)).sort()).toEqual(undeployedReads);
  });

  it('the admin key holds every scope', async () => {
    for (const server of [s, lacking]) expect((await server.client.get('org/whoami')).body.scopes).toEqual([...SCOPES].sort());
  });

  it.each(notDeployed)('%s -> 404 not deployed (and served where it is deployed)', async (name) => {
    const example = METHOD_HANDLERS.get(name)!.contract.example;
    const res = await lacking.client.rpc(name, example);
    expectError(res, 'NOT_FOUND', `method ${name} is not deployed on this server`, name);
    expect(res.status).toBe(404);
    const deployed = expectFrame(await s.client.rpc(name, example));
    // Its example may name rows this org lacks (NOT_FOUND of a record): anything but "not deployed".
    if (!deployed.ok) expect(deployed.error.message, name).not.toMatch(/not deployed/);
  });

  it.each(undeployedReads)('GET /%s -> 404 not deployed (and 200 where it is deployed)', async (path) => {
    const res = await lacking.client.get(path);
    expectError(res, 'NOT_FOUND', `read /${path} is not deployed on this server`);
    expect(res.status).toBe(404);
    expect((await s.client.get(path)).status).toBe(200);
  });

  it('deployed reads answer 200', async () => {
    for (const server of [s, lacking]) for (const path of ['events', 'snapshot', 'org/whoami']) expect((await server.client.get(path)).status, path).toBe(200);
  });
});
