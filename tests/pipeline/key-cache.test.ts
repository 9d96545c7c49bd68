import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyCache } from '../../domain/core/key-cache.js';
import type { Principal } from '../../domain/core/auth.js';
import { Pipeline } from '../../domain/core/pipeline.js';
import { buildApp } from '../../gateway/app.js';
import { freshOrg, TestClient, testServer, type TestServer } from '../helpers/harness.js';
import { expectError } from '../helpers/frames.js';

/**
 * Reads reuse a key's principal for a few seconds (domain/core/key-cache.ts, decision 0081); a key's access ending
 * drops it at once in the process that ended it, and through the notifier in every process (here: a change made
 * in SQL, as another process or the CLI would). Mutations always authenticate against the database.
 */
const principal = (orgId: string, id: string, keyId: string): Principal => ({
  orgId,
  orgSlug: orgId,
  keyId,
  id,
  kind: 'agent',
  name: id,
  tier: null,
  scopes: new Set(),
  governanceReady: false,
});

describe('KeyCache', () => {
  it('keeps an entry for its TTL, no more than its size, and nothing when off', () => {
    let now = 0;
    const cache = new KeyCache({ ttlMs: 100, size: 2, now: () => now });
    cache.set('a', principal('o1', 'p1', 'k1'), cache.mark());
    cache.set('b', principal('o1', 'p2', 'k2'), cache.mark());
    cache.set('c', principal('o2', 'p3', 'k3'), cache.mark());
    expect([cache.get('a'), cache.get('b')?.keyId, cache.get('c')?.keyId]).toEqual([undefined, 'k2', 'k3']);
    now = 100;
    expect(cache.get('b')).toBeUndefined();
    const off = new KeyCache({ ttlMs: 0, size: 10 });
    off.set('a', principal('o1', 'p1', 'k1'), off.mark());
    expect([off.enabled, off.get('a')]).toEqual([false, undefined]);
  });

  it('drops what a change names: a key, a principal, or the whole org', () => {
    const cache = new KeyCache({ ttlMs: 1000, size: 10 });
    const fill = () => {
      cache.clear();
      cache.set('a', principal('o1', 'p1', 'k1'), cache.mark());
      cache.set('b', principal('o1', 'p1', 'k2'), cache.mark());
      cache.set('c', principal('o1', 'p2', 'k3'), cache.mark());
      cache.set('d', principal('o2', 'p1', 'k1'), cache.mark());
    };
    const left = () => ['a', 'b', 'c', 'd'].filter((h) => cache.get(h));
    fill();
    cache.drop({ orgId: 'o1', principalId: 'p1', keyId: 'k1', sessionId: null });
    expect(left()).toEqual(['b', 'c', 'd']);
    fill();
    cache.drop({ orgId: 'o1', principalId: 'p1', keyId: null, sessionId: null });
    expect(left()).toEqual(['c', 'd']);
    fill();
    cache.dropOrg('o1');
    expect(left()).toEqual(['d']);
  });

  it('does not keep what a lookup read before a drop of its org', () => {
    const cache = new KeyCache({ ttlMs: 1000, size: 10 });
    const started = cache.mark();
    cache.dropOrg('o1');
    cache.set('a', principal('o1', 'p1', 'k1'), started);
    cache.set('b', principal('o2', 'p2', 'k2'), started);
    expect([cache.get('a'), cache.get('b')?.keyId]).toEqual([undefined, 'k2']);
    const before = cache.mark();
    cache.clear();
    cache.set('b', principal('o2', 'p2', 'k2'), before);
    expect(cache.get('b')).toBeUndefined();
  });
});

describe('the key cache in the pipeline', () => {
  let s: TestServer;
  let authQueries = 0;
  beforeAll(async () => {
    // A long TTL: whatever ends a cached key's access below can only do it by dropping it.
    s = await testServer({ config: { keyCacheTtlMs: 60_000 } });
    const db = s.runtime.deps.db;
    const query = db.query.bind(db);
    db.query = (sql, params) => {
      if (/FROM api_keys k/.test(sql)) authQueries++;
      return query(sql, params);
    };
  });
  afterAll(() => s.close());

  const counted = async <T>(fn: () => Promise<T>) => {
    const before = authQueries;
    const value = await fn();
    return { value, queries: authQueries - before };
  };

  it('a read after a read with the same key does not authenticate again; a mutation always does', async () => {
    const { client } = s;
    expect((await counted(() => client.get('snapshot'))).queries).toBe(1);
    const again = await counted(() => client.get('snapshot'));
    expect([again.value.status, again.queries]).toEqual([200, 0]);
    // An R method over POST too.
    expect((await counted(() => client.ok('org.list'))).queries).toBe(0);
    expect((await counted(() => client.ok('board.createTask', { title: 'still checked' }))).queries).toBe(1);
    expect((await counted(() => client.get('snapshot'))).queries).toBe(1);
  });

  it('a key revoked or its member suspended in this process fails its very next read', async () => {
    const org = await freshOrg(s.runtime);
    const admin = new TestClient(s.app, org.adminKey);
    const revoked = await admin.mint({ tier: 'reader' });
    const suspended = await admin.mint({ tier: 'approver' });
    for (const key of [revoked.apiKey, suspended.apiKey]) {
      expect((await admin.get('snapshot', {}, { key })).status).toBe(200);
      expect((await counted(() => admin.get('snapshot', {}, { key }))).queries).toBe(0);
    }
    await admin.ok('settings.revokeApiKey', { keyId: revoked.keyId });
    expectError(await admin.get('snapshot', {}, { key: revoked.apiKey }), 'UNAUTHORIZED');
    await admin.ok('admin.deactivate', { memberId: suspended.principal.id, reason: 'Testing the cache' });
    expectError(await admin.get('snapshot', {}, { key: suspended.apiKey }), 'UNAUTHORIZED');
  });

  it('a key revoked by another process (SQL here) fails once the notification arrives', async () => {
    const org = await freshOrg(s.runtime);
    const admin = new TestClient(s.app, org.adminKey);
    const key = await admin.mint({ tier: 'reader' });
    expect((await admin.get('snapshot', {}, { key: key.apiKey })).status).toBe(200);
    await s.runtime.db.query('UPDATE api_keys SET revoked_at = now() WHERE org_id = $1 AND key_id = $2', [org.orgId, key.keyId]);
    const started = performance.now();
    let status = 200;
    while (status === 200 && performance.now() - started < 2000) {
      status = (await admin.get('snapshot', {}, { key: key.apiKey })).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 5));
    }
    expect(status).toBe(401);
  });

  it('without the notifier a revoked key still reads from the cache, and still cannot write', async () => {
    // A pipeline whose cache follows nothing: what the cache alone would do.
    const unwatched = new Pipeline(s.runtime.deps, s.runtime.pipeline.handlers, s.runtime.pipeline.reads, new KeyCache({ ttlMs: 60_000, size: 10 }));
    const app = await buildApp({ runtime: { ...s.runtime, pipeline: unwatched }, logger: false, rateLimitPerMinute: 0 });
    try {
      const org = await freshOrg(s.runtime);
      const key = await new TestClient(s.app, org.adminKey).mint({ tier: 'agent' });
      const client = new TestClient(app, key.apiKey);
      expect((await client.get('snapshot')).status).toBe(200);
      await s.runtime.db.query('UPDATE api_keys SET revoked_at = now() WHERE org_id = $1 AND key_id = $2', [org.orgId, key.keyId]);
      expect((await client.get('snapshot')).status).toBe(200);
      expectError(await client.rpc('board.createTask', { title: 'revoked' }), 'UNAUTHORIZED');
      expectError(await client.rpc('board.createTask', { title: 'revoked' }, { idem: 'k1' }), 'UNAUTHORIZED');
    } finally {
      await app.close();
    }
  });
});
