import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { method } from '../../protocol/contract.js';
import { handler } from '../../domain/core/handler.js';
import type { Runtime } from '../../domain/deployed.js';
import { one } from '../../db/types.js';
import { freshOrg, onPostgres, testRuntime } from '../helpers/harness.js';

/*
 * Spec: concurrent duplicates wait for the first; one still in flight past the lock timeout answers
 * CONFLICT, and the first still executes exactly once. A stand-in I-flagged method holds its key open.
 */
const slow = handler(
  method({ summary: 'slow idempotent act', events: ['test.slow'], params: z.strictObject({ ms: z.number().int() }), example: { ms: 1 } }),
  async (ctx, p) => {
    await sleep(p.ms);
    await ctx.emit('test.slow', '', { ms: p.ms });
    return { done: true };
  },
);

let runtime: Runtime;
/** The same stand-in, with a lock timeout long enough for a duplicate to wait the first out. */
let patient: Runtime;
beforeAll(async () => {
  if (onPostgres) {
    runtime = await testRuntime({ lockTimeoutMs: 300, extraHandlers: new Map([['books.invoiceDraft', slow]]) });
    patient = await testRuntime({ lockTimeoutMs: 20_000, extraHandlers: new Map([['books.invoiceDraft', slow]]) });
  }
});
afterAll(async () => {
  await runtime?.close();
  await patient?.close();
});

describe('idempotency key in flight', () => {
  it.skipIf(!onPostgres)('a duplicate waiting past lock_timeout gets CONFLICT; the first executes once (PostgreSQL only: skipped on PGlite)', async () => {
    const org = await freshOrg(runtime, 'inflight');
    const call = () => runtime.pipeline.call({ method: 'books.invoiceDraft', params: { ms: 1500 }, apiKey: org.adminKey, idempotencyKey: 'slow-1' });
    const first = call();
    await sleep(200);
    const second = await call();
    expect(second.status).toBe(409);
    expect(second.frame).toEqual({ ok: false, error: { code: 'CONFLICT', message: expect.stringMatching(/still in flight/) } });
    expect((await first).frame).toEqual({ ok: true, result: { done: true } });
    const third = await call();
    expect(third.replayed).toBe(true);
    const { n } = one(await runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [org.orgId]));
    expect(n).toBe(1);
  });

  it.skipIf(!onPostgres)(
    'a duplicate with other params that waited for the first gets BAD_REQUEST once it commits; one with the same params replays (PostgreSQL only: skipped on PGlite)',
    async () => {
      const org = await freshOrg(patient, 'inflight');
      const call = (ms: number) => patient.pipeline.call({ method: 'books.invoiceDraft', params: { ms }, apiKey: org.adminKey, idempotencyKey: 'slow-2' });
      const first = call(1000);
      await sleep(300);
      // Both find no committed row, so both wait on the claim behind the first.
      const [other, same] = await Promise.all([call(999), call(1000)]);
      expect((await first).frame).toEqual({ ok: true, result: { done: true } });
      expect(other.status).toBe(400);
      expect(other.frame).toEqual({
        ok: false,
        error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^x-idempotency-key: already used for books\.invoiceDraft with different params/) },
      });
      expect(same).toMatchObject({ status: 200, replayed: true, body: (await first).body });
      const { n } = one(await patient.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [org.orgId]));
      expect(n).toBe(1);
    },
  );
});
