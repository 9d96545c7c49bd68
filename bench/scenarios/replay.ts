import { one } from '../../db/types.js';
import type { BenchContext } from '../fixture.js';
import { rpc } from '../fixture.js';
import { httpLoad, type Throughput } from '../measure.js';

const STORED_KEYS = 2000;

/**
 * Idempotent replay: first store STORED_KEYS createTask results (spread over the orgs), then hammer those
 * same keys. Checks that a replay is flagged and that the ledger did not grow while replaying.
 */
export async function replayOverHttp(ctx: BenchContext): Promise<Throughput & { storedKeys: number; eventsAppendedDuringReplay: number }> {
  const keyOf = (k: number) => `${ctx.runId}-replay-${k}`;
  const orgOf = (k: number) => ctx.orgs[k % ctx.orgs.length];
  let next = 0;
  await Promise.all(
    Array.from({ length: ctx.connections }, async () => {
      while (next < STORED_KEYS) {
        const k = next++;
        await rpc(ctx.baseUrl, orgOf(k).key, 'board.createTask', { title: `Bench task ${k}`, priority: 'normal' }, keyOf(k));
      }
    }),
  );
  const probe = await rpc(ctx.baseUrl, orgOf(0).key, 'board.createTask', { title: 'Bench task 0', priority: 'normal' }, keyOf(0));
  if (!probe.replayed) throw new Error('replay scenario: a stored key did not replay');

  const seqSum = async () => one(await ctx.db.query<{ n: string }>('SELECT sum(seq)::text AS n FROM ledger_heads')).n;
  const before = await seqSum();
  const result = await httpLoad(
    ctx.baseUrl,
    {
      method: 'POST',
      path: '/api/v1/board.createTask',
      build: (i) => {
        const k = i % STORED_KEYS;
        return {
          headers: { authorization: `Bearer ${orgOf(k).key}`, 'content-type': 'application/json', 'x-idempotency-key': keyOf(k) },
          body: JSON.stringify({ params: { title: `Bench task ${k}`, priority: 'normal' } }),
        };
      },
    },
    { connections: ctx.connections, seconds: ctx.seconds },
  );
  const after = await seqSum();
  return { ...result, storedKeys: STORED_KEYS, eventsAppendedDuringReplay: Number(BigInt(after) - BigInt(before)) };
}
