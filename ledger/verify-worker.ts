import { parentPort, workerData } from 'node:worker_threads';
import { verifySegmentByCopy } from './verify-copy.js';
import type { SegmentJob } from './verify.js';

/*
 * One segment of a parallel verify (ledger/verify.ts verifyInSegments), on its own thread and connection:
 * starts from the stored row_hash of the row before the segment, posts progress per page and its verdict.
 */
const { job } = workerData as { job: SegmentJob };
const port = parentPort as NonNullable<typeof parentPort>;
try {
  let reported = 0;
  const verdict = await verifySegmentByCopy(job.databaseUrl, job.orgId, {
    afterSeq: job.afterSeq,
    toSeq: job.toSeq,
    pageSize: job.pageSize,
    onProgress: (p) => {
      port.postMessage({ progress: p.verified - reported });
      reported = p.verified;
    },
  });
  port.postMessage({ verdict });
} catch (err) {
  port.postMessage({ error: (err as Error).message });
}
