import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../domain/deployed.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import { one } from '../../db/types.js';
import { freshOrg, onPostgres, testRuntime, type TestOrg } from '../helpers/harness.js';

/**
 * 16 concurrent appenders x 500 calls, on one org and spread over 50 orgs, straight through the pipeline
 * (settings.renameApiKey). Every chain must verify, with seq gapless 1..N and no fork.
 */
const APPENDERS = 16;
const CALLS = 500;

let runtime: Runtime;
beforeAll(async () => {
  if (onPostgres) runtime = await testRuntime();
});
afterAll(async () => {
  await runtime?.close();
});

async function expectSoundChain(org: TestOrg, expected: number) {
  const verdict = await verifyOrgChain(runtime.db, org.orgId);
  expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true, count: expected });
  const [stats] = await runtime.db.query<{ n: number; max: number; min: number; prevs: number }>(
    `SELECT count(*)::int AS n, max(seq)::int AS max, min(seq)::int AS min, count(DISTINCT prev_hash)::int AS prevs
       FROM events WHERE org_id = $1`,
    [org.orgId],
  );
  // Gapless 1..N, and no fork: no two rows claim the same predecessor.
  expect(stats).toEqual({ n: expected, max: expected, min: 1, prevs: expected });
  const head = one(await runtime.db.query<{ seq: number }>('SELECT seq FROM ledger_heads WHERE org_id = $1', [org.orgId]));
  expect(head.seq).toBe(expected);
}

/** Run `APPENDERS` workers of `CALLS` sequential calls each; call(worker, i) picks the org. Returns failures. */
async function hammer(call: (worker: number, i: number) => Promise<{ status: number; body: string }>) {
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: APPENDERS }, async (_, w) => {
      for (let i = 0; i < CALLS; i++) {
        const out = await call(w, i);
        if (out.status !== 200) failures.push(`${w}/${i}: ${out.status} ${out.body}`);
      }
    }),
  );
  return failures;
}

describe('concurrent appenders', () => {
  it.skipIf(!onPostgres)(`${APPENDERS} appenders x ${CALLS} calls on 1 org: one gapless, fork-free chain (PostgreSQL only: skipped on PGlite)`, async () => {
    const org = await freshOrg(runtime, 'conc1');
    // Each worker renames a key of its own, so the only shared row is the ledger head.
    const keys = await Promise.all(
      Array.from({ length: APPENDERS }, async (_, w) => {
        const out = await runtime.pipeline.call({ method: 'settings.mintApiKey', params: { name: `w${w}`, tier: 'reader' }, apiKey: org.adminKey });
        return (out.frame as { result: { keyId: string } }).result.keyId;
      }),
    );
    const failures = await hammer((w, i) =>
      runtime.pipeline.call({ method: 'settings.renameApiKey', params: { keyId: keys[w], name: `w${w} call ${i}` }, apiKey: org.adminKey }),
    );
    expect(failures.slice(0, 5)).toEqual([]);
    await expectSoundChain(org, APPENDERS + APPENDERS * CALLS);
  });

  it.skipIf(!onPostgres)(`${APPENDERS} appenders x ${CALLS} calls over 50 orgs: every chain sound (PostgreSQL only: skipped on PGlite)`, async () => {
    const orgs: TestOrg[] = [];
    for (let i = 0; i < 50; i++) orgs.push(await freshOrg(runtime, 'conc50'));
    const failures = await hammer((w, i) => {
      const org = orgs[(w * CALLS + i) % orgs.length];
      return runtime.pipeline.call({ method: 'settings.renameApiKey', params: { keyId: org.adminKeyId, name: `w${w} call ${i}` }, apiKey: org.adminKey });
    });
    expect(failures.slice(0, 5)).toEqual([]);
    const total = APPENDERS * CALLS;
    const counts = new Map<string, number>();
    for (let w = 0; w < APPENDERS; w++)
      for (let i = 0; i < CALLS; i++) {
        const id = orgs[(w * CALLS + i) % orgs.length].orgId;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(total);
    for (const org of orgs) await expectSoundChain(org, counts.get(org.orgId)!);
  });
});
