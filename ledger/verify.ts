import { ChainVerifier, type ChainBreak, type ChainVerdict } from '../protocol/hashing.js';
import type { Queryable } from '../db/types.js';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { readEvents, type StoredEventRow } from './read.js';
import { verifySegmentByCopy } from './verify-copy.js';

export interface VerifyProgress {
  /** Rows verified so far. */
  verified: number;
  /** The last seq verified (in a parallel walk, where segments advance together: equal to verified). */
  seq: number;
}

/**
 * On PostgreSQL: walk over connections of our own, reading rows with binary COPY and hashing them from their
 * bytes (verify-copy.ts), and long chains in segments on worker threads.
 */
export interface ParallelVerify {
  databaseUrl: string;
  /** Threads walking at once, this one included (default: the machine's parallelism, at most 4). */
  threads?: number;
  /** Chains shorter than this are walked on this thread alone (default 200,000 events). */
  minEvents?: number;
}

export interface VerifyOptions {
  pageSize?: number;
  onProgress?: (p: VerifyProgress) => void;
  parallel?: ParallelVerify;
}

// Pages of 2000 rows: small enough that few rows outlive a young-generation collection, large enough that the
// per-query cost vanishes.
const PAGE_SIZE = 2000;

/**
 * Walk an org's whole chain in seq order, a page at a time (keyset paging, so memory stays flat whatever
 * the chain's length: at most the page being hashed and the next one), and stop at the first broken link,
 * broken row or missing seq. The head row must agree with the last event too: a truncated tail is a break.
 *
 * With `parallel` (PostgreSQL), every walk reads its rows with binary COPY on a connection of its own and
 * hashes them from their bytes (verify-copy.ts), and a long chain is first cut into segments at page
 * boundaries, verified at once (this thread takes the first, worker threads the others; each segment starts
 * from the stored row_hash of the row before it, which the previous segment verifies). Only a verdict of
 * "every segment complete and sound" is used, and the walk then goes on sequentially from the verified prefix
 * to the end; anything else (a break, a missing row, a failed worker) discards the segments and walks the
 * whole chain here, so the verdict is always exactly the sequential walk's.
 */
export async function verifyOrgChain(q: Queryable, orgId: string, opts: VerifyOptions = {}): Promise<ChainVerdict> {
  const pageSize = opts.pageSize ?? PAGE_SIZE;
  const prefix = opts.parallel ? await verifyInSegments(q, orgId, pageSize, opts.parallel, opts.onProgress) : undefined;
  const start = prefix ?? { seq: 0, rowHash: '' };
  const rest: SegmentOptions = { afterSeq: start.seq, afterHash: start.rowHash, pageSize, countBefore: start.seq, onProgress: opts.onProgress };
  const url = opts.parallel?.databaseUrl;
  const walked = await (url ? verifySegmentByCopy(url, orgId, rest) : verifySegment(q, orgId, rest));
  if (!walked.ok) return { ...walked, count: start.seq + walked.count };
  const whole = { ok: true as const, count: start.seq + walked.count, head: walked.head };
  const [head] = await q.query<{ seq: number; row_hash: string }>('SELECT seq, row_hash FROM ledger_heads WHERE org_id = $1', [orgId]);
  if (head && (head.seq !== whole.head.seq || head.row_hash !== whole.head.rowHash)) {
    return { ok: false, count: whole.count, break: headBreak(head, whole.head) };
  }
  return whole;
}

export interface SegmentOptions {
  /** The segment starts after this seq, whose stored row_hash is afterHash ('' before seq 1). */
  afterSeq: number;
  afterHash: string;
  /** Last seq of the segment; undefined walks to the end of the chain. */
  toSeq?: number;
  pageSize?: number;
  /** Rows verified before the segment (progress reports count from there). */
  countBefore?: number;
  onProgress?: (p: VerifyProgress) => void;
}

/**
 * Verify the rows after `afterSeq` (up to `toSeq`), page by page: the database reads the next page while
 * this one is hashed. The verdict counts this segment's rows only.
 */
export async function verifySegment(q: Queryable, orgId: string, opts: SegmentOptions): Promise<ChainVerdict> {
  const pageSize = opts.pageSize ?? PAGE_SIZE;
  const verifier = new ChainVerifier(opts.afterSeq, opts.afterHash);
  const before = opts.countBefore ?? 0;
  // A bounded segment never asks for rows past its end (a gap inside it still pulls later rows in: a break).
  const limitAfter = (seq: number) => (opts.toSeq === undefined ? pageSize : Math.min(pageSize, opts.toSeq - seq));
  const pageAfter = (seq: number) => readEvents(q, orgId, seq, limitAfter(seq));
  let next: Promise<StoredEventRow[]> | undefined = limitAfter(opts.afterSeq) > 0 ? pageAfter(opts.afterSeq) : undefined;
  while (next) {
    const rows: StoredEventRow[] = await next;
    const last = rows.length ? rows[rows.length - 1].seq : 0;
    // Keyset paging needs only this page's last seq: the next page is fetched while this one is hashed.
    next = rows.length < pageSize || limitAfter(last) <= 0 ? undefined : pageAfter(last);
    for (const row of rows) {
      // The stored payload is the canonical text that was hashed: pushed as is, never re-serialised.
      if (!verifier.push(row, row.payload)) {
        next?.catch(() => {});
        return verifier.verdict();
      }
    }
    if (rows.length === pageSize) opts.onProgress?.({ verified: before + verifier.count, seq: last });
  }
  return verifier.verdict();
}

/**
 * The parallel fast path: the verified prefix (up to the head seq read at the start), or undefined when any
 * segment is not complete and sound, or the chain is too short to be worth the threads.
 */
export async function verifyInSegments(
  q: Queryable,
  orgId: string,
  pageSize: number,
  parallel: ParallelVerify,
  onProgress?: (p: VerifyProgress) => void,
): Promise<{ seq: number; rowHash: string } | undefined> {
  const threads = Math.max(1, Math.min(parallel.threads ?? availableParallelism(), 4));
  const [head] = await q.query<{ seq: number }>('SELECT seq FROM ledger_heads WHERE org_id = $1', [orgId]);
  const total = head?.seq ?? 0;
  if (threads < 2 || total < (parallel.minEvents ?? 200_000)) return undefined;
  // Segment boundaries on page boundaries: progress sums stay multiples of the page size.
  const pages = Math.ceil(total / pageSize);
  const bounds = Array.from({ length: threads + 1 }, (_, i) => Math.min(total, Math.round((pages * i) / threads) * pageSize));
  let verified = 0;
  const progressed = (n: number) => {
    verified += n;
    onProgress?.({ verified, seq: verified });
  };
  const segments = bounds.slice(0, -1).map((from, i) => {
    const to = bounds[i + 1];
    if (i === 0) {
      let done = 0;
      return verifySegmentByCopy(parallel.databaseUrl, orgId, {
        afterSeq: 0,
        afterHash: '',
        toSeq: to,
        pageSize,
        onProgress: (p) => {
          progressed(p.verified - done);
          done = p.verified;
        },
      });
    }
    return verifySegmentOnWorker({ databaseUrl: parallel.databaseUrl, orgId, afterSeq: from, toSeq: to, pageSize }, progressed);
  });
  const verdicts = await Promise.all(segments.map((s) => s.catch(() => undefined)));
  const complete = verdicts.every((v, i) => v?.ok === true && v.count === bounds[i + 1] - bounds[i]);
  if (!complete) return undefined;
  const last = verdicts[verdicts.length - 1] as Extract<ChainVerdict, { ok: true }>;
  return { seq: total, rowHash: last.head.rowHash };
}

export interface SegmentJob {
  databaseUrl: string;
  orgId: string;
  afterSeq: number;
  toSeq: number;
  pageSize: number;
}

/**
 * Compiled (dist/ledger/verify.js, npm start), the worker is plain JavaScript beside this file; run from the
 * TypeScript sources (tsx, tests), it starts through verify-worker-boot.mjs, which registers tsx in the thread.
 */
const COMPILED = import.meta.url.endsWith('.js');

/** One segment on a worker thread (ledger/verify-worker.ts), which opens its own connection. */
function verifySegmentOnWorker(job: SegmentJob, progressed: (rows: number) => void): Promise<ChainVerdict> {
  return new Promise((resolve, reject) => {
    const worker = COMPILED
      ? new Worker(new URL('./verify-worker.js', import.meta.url), { workerData: { job } })
      : new Worker(new URL('./verify-worker-boot.mjs', import.meta.url), { workerData: { entry: new URL('./verify-worker.ts', import.meta.url).href, job } });
    worker.on('message', (m: { progress?: number; verdict?: ChainVerdict; error?: string }) => {
      if (m.progress !== undefined) progressed(m.progress);
      else if (m.verdict) resolve(m.verdict);
      else reject(new Error(m.error ?? 'verify worker failed'));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`verify worker exited (${code})`)));
  });
}

/** The chain verified on its own but disagrees with the org's head row: say where. */
function headBreak(head: { seq: number; row_hash: string }, end: { seq: number; rowHash: string }): ChainBreak {
  if (head.seq > end.seq) {
    const seq = end.seq + 1;
    return { seq, kind: 'gap', message: `seq ${seq}: missing row (head says seq ${head.seq}, chain ends at ${end.seq})` };
  }
  if (head.seq < end.seq) {
    const seq = head.seq + 1;
    return { seq, kind: 'gap', message: `seq ${seq}: row beyond the ledger head (head says seq ${head.seq}, chain ends at ${end.seq})` };
  }
  return {
    seq: end.seq,
    kind: 'row_hash',
    message: `seq ${end.seq}: row_hash ${end.rowHash} disagrees with the ledger head ${head.row_hash}`,
  };
}
