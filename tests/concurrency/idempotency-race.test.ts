import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../domain/deployed.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import { one } from '../../db/types.js';
import { freshOrg, onPostgres, testRuntime } from '../helpers/harness.js';

/** Spec: Idempotency rule 3 under a race: 50 concurrent first attempts with one key execute once. */
let runtime: Runtime;
beforeAll(async () => {
  if (onPostgres) runtime = await testRuntime();
});
afterAll(async () => {
  await runtime?.close();
});

const count = async (sql: string, orgId: string) => one(await runtime.db.query<{ n: number }>(sql, [orgId])).n;

describe('idempotency race', () => {
  it.skipIf(!onPostgres)(
    '50 concurrent org.mintApiKey with one idempotency key: one execution, 50 identical bodies, 49 replays (PostgreSQL only: skipped on PGlite)',
    async () => {
      const org = await freshOrg(runtime, 'race');
      const keysBefore = await count('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', org.orgId);
      const principalsBefore = await count('SELECT count(*)::int AS n FROM principals WHERE org_id = $1', org.orgId);
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, () =>
          runtime.pipeline.call({ method: 'org.mintApiKey', params: { name: 'raced key', tier: 'agent' }, apiKey: org.adminKey, idempotencyKey: 'race-key-1' }),
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual(Array(50).fill(200));
      expect(new Set(outcomes.map((o) => o.body)).size).toBe(1);
      expect(outcomes.filter((o) => o.replayed)).toHaveLength(49);
      expect(outcomes.filter((o) => o.event)).toHaveLength(1);
      expect(await count('SELECT count(*)::int AS n FROM events WHERE org_id = $1', org.orgId)).toBe(1);
      expect(await count('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', org.orgId)).toBe(keysBefore + 1);
      expect(await count('SELECT count(*)::int AS n FROM principals WHERE org_id = $1', org.orgId)).toBe(principalsBefore + 1);
      expect((await verifyOrgChain(runtime.db, org.orgId)).ok).toBe(true);
    },
  );

  it.skipIf(!onPostgres)('50 concurrent calls with 50 different keys all execute (PostgreSQL only: skipped on PGlite)', async () => {
    const org = await freshOrg(runtime, 'race');
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        runtime.pipeline.call({ method: 'org.mintApiKey', params: { name: `k${i}`, tier: 'reader' }, apiKey: org.adminKey, idempotencyKey: `distinct-${i}` }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 200 && !o.replayed)).toHaveLength(50);
    expect(await count('SELECT count(*)::int AS n FROM events WHERE org_id = $1', org.orgId)).toBe(50);
    expect((await verifyOrgChain(runtime.db, org.orgId)).ok).toBe(true);
  });
});
