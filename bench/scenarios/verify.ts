import { verifyOrgChain } from '../../ledger/verify.js';
import { sha256Hex } from '../../protocol/hashing.js';
import type { BenchContext, BenchOrg } from '../fixture.js';
import { seededRow, type SeededChain } from './reads.js';

export interface VerifyResult {
  events: number;
  ms: number;
  eventsPerSecond: number;
  /** Resident set size and JS heap in MB: before the walk and the highest sampled (every 10 ms) during it. */
  rssStartMb: number;
  rssPeakMb: number;
  heapStartMb: number;
  heapPeakMb: number;
}

const mb = (n: number) => +(n / 2 ** 20).toFixed(1);

/** ledger/verify.ts over the org's chain, streamed from PostgreSQL a page at a time, in this process. */
export async function verifyStreamed(ctx: BenchContext, org: BenchOrg): Promise<VerifyResult> {
  globalThis.gc?.();
  const start = process.memoryUsage();
  let rssPeak = start.rss;
  let heapPeak = start.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    rssPeak = Math.max(rssPeak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 10);
  const t = performance.now();
  const verdict = await verifyOrgChain(ctx.db, org.orgId);
  const ms = performance.now() - t;
  clearInterval(sampler);
  if (!verdict.ok) throw new Error(`verify: ${verdict.break.message}`);
  return {
    events: verdict.count,
    ms,
    eventsPerSecond: verdict.count / (ms / 1000),
    rssStartMb: mb(start.rss),
    rssPeakMb: mb(rssPeak),
    heapStartMb: mb(start.heapUsed),
    heapPeakMb: mb(heapPeak),
  };
}

/**
 * Baseline: SHA-256 of the same row texts as the seeded events (the org's few API-made events before them
 * are left out), built in batches outside the clock; only the hashing is timed.
 */
export function rawSha256(org: BenchOrg, chain: SeededChain, seeded: number): { events: number; ms: number; eventsPerSecond: number } {
  let prev = chain.afterHash;
  let ms = 0;
  let events = 0;
  const last = chain.afterSeq + seeded;
  for (let s = chain.afterSeq + 1; s <= last; ) {
    const batch: string[] = [];
    for (const end = Math.min(last, s + 4999); s <= end; s++) {
      const { input } = seededRow(prev, s, org.actor);
      batch.push(input);
      prev = sha256Hex(input);
    }
    const t = performance.now();
    for (const input of batch) sha256Hex(input);
    ms += performance.now() - t;
    events += batch.length;
  }
  return { events, ms, eventsPerSecond: events / (ms / 1000) };
}
