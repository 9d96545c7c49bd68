import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { method } from '../../protocol/contract.js';
import { handler, type MethodHandler } from '../../domain/handler.js';
import type { Runtime } from '../../domain/runtime.js';
import { freshOrg, onPostgres, testRuntime } from '../helpers/harness.js';

/*
 * Spec: concurrent duplicates wait for the first; one still in flight past the lock timeout answers
 * CONFLICT, and the first still executes exactly once. A stand-in I-flagged method holds its key open.
 */
const slow = handler(
  method({ summary: 'slow idempotent act', params: z.strictObject({ ms: z.number().int() }), example: { ms: 1 } }),
  async (ctx, p) => {
    await sleep(p.ms);
    await ctx.emit('test.slow', '', { ms: p.ms });
    return { done: true };
  },
);

let runtime: Runtime;
beforeAll(async () => {
  if (onPostgres) {
    runtime = await testRuntime({ lockTimeoutMs: 300, extraHandlers: new Map([['books.invoiceDraft', slow as unknown as MethodHandler]]) });
  }
});
afterAll(async () => {
  await runtime?.close();
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
    const [{ n }] = await runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [org.orgId]);
    expect(n).toBe(1);
  });
});
