import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, onPostgres } from '../helpers/harness.js';
import { Cluster, freshDatabase, getRead, ok, rpc } from './harness.js';

/*
 * The key cache across two server processes (domain/core/key-cache.ts, decision 0081): each process reuses a key's
 * principal for its reads, with a TTL of a minute here so that only the notifier can end it; a key revoked, or its
 * member suspended, through one process fails its reads on the other as soon as the notification arrives (well under
 * a second: measured and printed), and a revoked key never writes, on either.
 * PostgreSQL only: a PGlite data dir serves one process.
 */

const suite = onPostgres ? describe : describe.skip;
if (!onPostgres) console.warn('tests/multiprocess/key-cache: skipped, PostgreSQL only (set DATABASE_URL)');

suite('the key cache across two server processes', () => {
  let db: { url: string; drop(): Promise<void> };
  let cluster: Cluster;
  let adminKey: string;
  const took: Record<string, number> = {};

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!, 'wops_keycache');
    cluster = await Cluster.start({ databaseUrl: db.url, count: 2, env: { RATE_LIMIT_PER_MINUTE: '0', KEY_CACHE_TTL_MS: '60000' } });
    adminKey = /Admin API key \(shown once, store it now\): (wops_\w+)/.exec(cluster.procs.map((p) => p.stdout).join('\n'))![1];
  });

  afterAll(async () => {
    console.log(`key cache across processes: the other process refused the key after ${JSON.stringify(took)} ms`);
    await cluster?.stop();
    await db?.drop();
  });

  /** Ms from the act's answer until `key`'s reads on `reader` are refused (polling every 2 ms, at most 5 s). */
  async function refusedAfter(reader: (typeof cluster.procs)[number], key: string, act: () => Promise<unknown>): Promise<number> {
    await act();
    const started = performance.now();
    for (;;) {
      const res = await getRead(reader, key, 'snapshot', {});
      if (res.status === 401) return performance.now() - started;
      expect(res.status).toBe(200);
      if (performance.now() - started > 5000) throw new Error('the key still reads 5 s after its access ended');
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  it('a key revoked through one process stops reading on the other at once', async () => {
    const [p0, p1] = cluster.procs;
    const key = await ok(p0, adminKey, 'settings.mintApiKey', { name: 'cached reader', tier: 'reader' });
    for (let i = 0; i < 3; i++) expect((await getRead(p1, key.apiKey, 'snapshot', {})).status).toBe(200);
    took.revoke = await refusedAfter(p1, key.apiKey, () => ok(p0, adminKey, 'settings.revokeApiKey', { keyId: key.keyId }));
    expect(took.revoke).toBeLessThan(1000);
    expect((await getRead(p0, key.apiKey, 'snapshot', {})).status).toBe(401);
  });

  it('a member suspended through one process stops reading on the other at once, and writes on neither', async () => {
    const [p0, p1] = cluster.procs;
    const key = await ok(p0, adminKey, 'settings.mintApiKey', { name: 'Cached Member', tier: 'approver' });
    for (const p of [p0, p1]) expect((await getRead(p, key.apiKey, 'snapshot', {})).status).toBe(200);
    took.suspend = await refusedAfter(p1, key.apiKey, () => ok(p0, adminKey, 'admin.deactivate', { memberId: key.principal.id, reason: 'Key cache test' }));
    expect(took.suspend).toBeLessThan(1000);
    for (const p of [p0, p1]) expect((await rpc(p, key.apiKey, 'board.createTask', { title: 'after suspension' })).status).toBe(401);
  });
});
