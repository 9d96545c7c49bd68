import type { BenchContext } from '../fixture.js';
import type { Throughput } from '../measure.js';
import { perCallUs } from '../cpu.js';
import { startServer } from '../server.js';
import { withCpu } from './physical.js';
import { snapshotDirectSql, snapshotOverHttp } from './reads.js';

/**
 * What the key cache buys a read: GET /snapshot across the orgs' keys against a server with the cache (the bench's
 * own) and one without it (KEY_CACHE_TTL_MS=0, a second process on the same database), in turn and twice over,
 * beside the same snapshot read in direct SQL. Server CPU per call from /proc.
 */
export interface KeyCacheRun {
  cached: (Throughput & { serverUsPerCall: number | null })[];
  uncached: (Throughput & { serverUsPerCall: number | null })[];
  directSql: Throughput;
}

export async function keyCacheCost(ctx: BenchContext, opts: { url: string; database: string; pool: number; serverPid: number }): Promise<KeyCacheRun> {
  const uncachedServer = await startServer({ env: { DATABASE_URL: opts.url, PG_POOL_SIZE: String(opts.pool), KEY_CACHE_TTL_MS: '0' } });
  const out: KeyCacheRun = { cached: [], uncached: [], directSql: undefined as never };
  try {
    const measure = async (baseUrl: string, pid: number) => {
      const r = await withCpu(pid, opts.database, () => snapshotOverHttp({ ...ctx, baseUrl }));
      return { ...r, serverUsPerCall: perCallUs(r.cpu.serverMs, r.total) };
    };
    for (let round = 0; round < 2; round++) {
      out.uncached.push(await measure(uncachedServer.baseUrl, uncachedServer.pid));
      out.cached.push(await measure(ctx.baseUrl, opts.serverPid));
    }
  } finally {
    await uncachedServer.stop();
  }
  out.directSql = await snapshotDirectSql(ctx);
  return out;
}
