import type { Runtime } from '../../domain/core/runtime.js';
import type { JobData, JobDefinition } from '../../domain/jobs/define.js';
import { appendEvent, type AppendedEvent } from '../../ledger/append.js';

/*
 * A job's effect run by hand, as the worker runs it (domain/jobs/scheduler.ts runJob) but without pg-boss: its
 * prepare, then its run in one transaction of its own, its one event appended with actor "" and causeSeq, a kind
 * its definition does not declare refused, a query after the event refused. For business time a test moves
 * (TestClock) that the database's clock, which pg-boss's startAfter follows, cannot.
 */

/** Run `job` for `orgId` with `data`: the event it appended, or undefined when it found nothing to do. */
export async function runJobByHand<D extends JobData, P>(
  runtime: Runtime,
  job: JobDefinition<D, P>,
  orgId: string,
  data: D,
  causeSeq = 0,
): Promise<AppendedEvent | undefined> {
  const { db, deps } = runtime;
  const family = job.name.slice(0, job.name.indexOf('.'));
  const prepared = (job.prepare ? await job.prepare(deps, orgId, data) : undefined) as P;
  let emitted: AppendedEvent | undefined;
  await db.tx(async (q) => {
    await job.run(
      {
        q: {
          query: (sql: string, params?: readonly unknown[]) =>
            emitted ? Promise.reject(new Error(`${job.name} queried after its event`)) : q.query(sql, params),
        },
        orgId,
        causeSeq,
        jobId: 'by-hand',
        retryCount: 0,
        deps,
        async emit(kind, entityId, payload) {
          if (emitted) throw new Error(`${job.name} emitted a second event`);
          if (!job.events.includes(kind)) throw new Error(`${job.name} emitted ${kind}, which it does not declare`);
          emitted = await appendEvent(q, orgId, { family, kind, entityId, actor: '', payload: { ...payload, causeSeq } });
          return emitted;
        },
      },
      data,
      prepared,
    );
  });
  return emitted;
}
