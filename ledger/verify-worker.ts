import { parentPort, workerData } from 'node:worker_threads';
import { openPostgres } from '../db/postgres.js';
import { verifySegment, type SegmentJob } from './verify.js';

/*
 * One segment of a parallel verify (ledger/verify.ts verifyInSegments), on its own thread and connection:
 * starts from the stored row_hash of the row before the segment, posts progress per page and its verdict.
 */
const { job } = workerData as { job: SegmentJob };
const port = parentPort as NonNullable<typeof parentPort>;
const db = openPostgres(job.databaseUrl, { poolSize: 2 });
try {
  const [before] = await db.query<{ row_hash: string }>('SELECT row_hash FROM events WHERE org_id = $1 AND seq = $2', [job.orgId, job.afterSeq]);
  if (!before) {
    port.postMessage({ error: `seq ${job.afterSeq}: missing row` });
  } else {
    let reported = 0;
    const verdict = await verifySegment(db, job.orgId, {
      afterSeq: job.afterSeq,
      afterHash: before.row_hash,
      toSeq: job.toSeq,
      pageSize: job.pageSize,
      onProgress: (p) => {
        port.postMessage({ progress: p.verified - reported });
        reported = p.verified;
      },
    });
    port.postMessage({ verdict });
  }
} catch (err) {
  port.postMessage({ error: (err as Error).message });
} finally {
  await db.close();
}
