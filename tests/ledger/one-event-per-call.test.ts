import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '../../protocol/registry.js';
import { METHOD_HANDLERS } from '../../domain/deployed.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import { freshOrg, TestClient, testServer, type TestServer } from '../helpers/harness.js';
import { expectFrame } from '../helpers/frames.js';

/**
 * Spec (Events, 1): every side-effecting method appends exactly one event in the same transaction as its
 * write; read-only methods append none; a failed call appends nothing. Checked for every deployed method,
 * called with its own contract example in an org of its own (so no call can see another's rows).
 */
let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

const deployed = [...METHOD_HANDLERS.keys()].sort();

describe('one event per M call, none per R call, none per failure', () => {
  it.each(deployed)('%s with its contract example', async (name) => {
    const spec = METHODS.get(name)!;
    const org = await freshOrg(s.runtime, 'ev');
    const client = new TestClient(s.app, org.adminKey);
    const whoami = await client.get('org/whoami');
    if (spec.governed) await client.ok('governance.set_decision_rights', { rights: [{ area: spec.family, decidedBy: 'humans' }] });

    const before = await client.get('snapshot');
    expect(before.status).toBe(200);
    let params = METHOD_HANDLERS.get(name)!.contract.example as Record<string, unknown>;
    // A pre-auth method names its org in its params: point it at this test's org.
    if (spec.preAuth && params && typeof params === 'object' && 'orgSlug' in params) params = { ...params, orgSlug: org.slug };

    const res = await client.rpc(name, params);
    const frame = expectFrame(res, name);
    expect(res.status, `${name}: ${res.raw.slice(0, 300)}`).not.toBe(500);

    const after = await client.get('snapshot');
    const newEvents = (await client.get('events', { cursor: before.body.head.seq, limit: 500 })).body.events;
    expect(newEvents.length, `${name}: events after the call`).toBe(after.body.head.seq - before.body.head.seq);

    if (frame.ok && spec.mutating) {
      expect(newEvents, `${name}: exactly one event`).toHaveLength(1);
      const [e] = newEvents;
      expect(e.seq).toBe(before.body.head.seq + 1);
      expect(e.prev_hash).toBe(before.body.head.rowHash);
      expect(e.row_hash).toBe(after.body.head.rowHash);
      expect(e.kind.length).toBeGreaterThan(0);
      if (spec.family !== 'books') expect(e.family).toBe(spec.family);
      if (!spec.preAuth) expect(e.actor).toBe(whoami.body.principal.id);
    } else {
      // Read-only calls and failures (e.g. NOT_FOUND for the example's ids) change nothing.
      expect(newEvents, `${name} (${frame.ok ? 'R' : frame.error.code}): no event`).toHaveLength(0);
      expect(after.body.head).toEqual(before.body.head);
    }
    const verdict = await verifyOrgChain(s.runtime.db, org.orgId);
    expect(verdict.ok, JSON.stringify(verdict)).toBe(true);
  });

  it('M calls that succeed each append one event, in order, chained', async () => {
    const { client } = s;
    const before = (await client.get('snapshot')).body.head.seq;
    const key = await client.mint({ tier: 'reader' }, 'chained');
    await client.ok('settings.renameApiKey', { keyId: key.keyId, name: 'renamed once' });
    await client.ok('settings.renameApiKey', { keyId: key.keyId, name: 'renamed twice' });
    await client.ok('settings.listApiKeys', {});
    await client.ok('org.list', {});
    await client.ok('settings.revokeApiKey', { keyId: key.keyId });
    const events = (await client.get('events', { cursor: before })).body.events;
    expect(events.map((e: any) => e.kind)).toEqual(['settings.key.mint', 'settings.key.rename', 'settings.key.rename', 'settings.key.revoke']);
    expect(events.map((e: any) => e.seq)).toEqual([before + 1, before + 2, before + 3, before + 4]);
    for (let i = 1; i < events.length; i++) expect(events[i].prev_hash).toBe(events[i - 1].row_hash);
  });

  it('a failing M call appends nothing (NOT_FOUND, CONFLICT, BAD_REQUEST)', async () => {
    const { client } = s;
    const before = (await client.get('snapshot')).body.head;
    const missing = await client.rpc('settings.renameApiKey', { keyId: 'key_doesnotexist0000', name: 'x' });
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const taken = await client.rpc('org.create', { slug: s.org.slug, name: 'duplicate slug' });
    expect(taken.body.error.code).toBe('CONFLICT');
    const bad = await client.rpc('org.create', { slug: 'Not A Slug', name: 'x' });
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    expect((await client.get('snapshot')).body.head).toEqual(before);
  });
});
