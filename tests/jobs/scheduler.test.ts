import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../domain/deployed.js';
import { createRuntime } from '../../domain/deployed.js';
import { BOSS_SCHEMA } from '../../domain/jobs/scheduler.js';
import { DATABASE_URL, freshOrg, onPostgres, testRuntime, type TestOrg } from '../helpers/harness.js';
import { freshDatabase } from '../multiprocess/harness.js';
import { one } from '../../db/types.js';
import { EXTRA, control, jobsOfTask, movedEvents, until } from './kit.js';

/*
 * The scheduler in one process, on PGlite or PostgreSQL (DATABASE_URL): a job scheduled by a call runs after its
 * commit and never for a rolled-back call; a failure is retried with backoff; the effect appends its own event
 * (actor "", causeSeq); a row that moved on makes the job a no-op; a job held by a dead worker expires and runs
 * once; jobs pending when the database closes run after it reopens.
 */

const WORKERS = { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 };

/**
 * What the scheduler warned about (a failed statement, a pg-boss error): nothing, in every test. Notification
 * delivery runs beside the workers and mails every org's notifications in the shared test database (on PostgreSQL,
 * other files' orgs too): its warnings are not the scheduler's.
 */
const warnings: string[] = [];
const collect = {
  info() {},
  warn: (o: object, m?: string) => {
    if (!m?.startsWith('notification')) warnings.push(`${m}: ${(o as { err?: Error }).err?.message}`);
  },
  error() {}, // the pipeline's own (the misuse test's INTERNAL); the scheduler warns
};

let runtime: Runtime;
let org: TestOrg;

beforeAll(async () => {
  runtime = await testRuntime({ ...EXTRA, workers: WORKERS, log: collect });
  org = await freshOrg(runtime, 'jobs');
});
afterAll(() => runtime?.close());
afterEach(() => {
  expect(warnings.splice(0)).toEqual([]);
});
beforeEach(() => {
  control.failuresLeft = 0;
  control.nextOptions = {};
  control.holdMs = 0;
  control.pauseMs = 0;
  control.running = 0;
  control.mostRunning = 0;
  control.runs = [];
});

async function createTask(title: string, rt: Runtime = runtime, key = org.adminKey) {
  return rt.pipeline.call({ method: 'board.createTask', params: { title }, apiKey: key });
}

const runsOf = (taskId: string) => control.runs.filter((r) => r.taskId === taskId);

describe('scheduled jobs', () => {
  it('run after commit: the effect appends its own event, actor "", naming the causing seq', async () => {
    const call = await createTask('move me');
    expect(call.frame.ok, call.body).toBe(true);
    const taskId = (call.frame as { result: { id: string } }).result.id;
    const event = one(
      await until('the effect', async () => {
        const events = await movedEvents(runtime.db, org.orgId, taskId);
        return events.length ? events : undefined;
      }),
    );
    expect(event).toMatchObject({ actor: '', family: 'jobtest', kind: 'task.moved', payload: { from: 'triage', to: 'todo', causeSeq: call.event!.seq } });
    expect(event.seq).toBeGreaterThan(call.event!.seq);
    const task = one(await runtime.db.query<{ col: string }>('SELECT col FROM board_tasks WHERE org_id = $1 AND task_id = $2', [org.orgId, taskId]));
    expect(task.col).toBe('todo');
    const job = await until('completed', async () => (await jobsOfTask(runtime.db, taskId)).find((j) => j.state === 'completed'));
    expect(job).toMatchObject({ state: 'completed', retry_count: 0, output: { appended: true }, cause_seq: call.event!.seq });
    expect(runsOf(taskId)).toHaveLength(1);
  });

  it('a job scheduled by a call that rolls back never exists and never runs', async () => {
    const call = await createTask('fail after scheduling');
    expect(call.frame.ok).toBe(false);
    expect(call.frame).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    // A committed job scheduled after it has run: the rolled-back one would have had its turn by then.
    const later = await createTask('after the rollback');
    const laterId = (later.frame as { result: { id: string } }).result.id;
    await until('the later job', async () => ((await movedEvents(runtime.db, org.orgId, laterId)).length ? true : undefined));
    const row = one(
      await runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM board_tasks WHERE org_id = $1 AND title = 'fail after scheduling'`, [org.orgId]),
    );
    expect(row.n).toBe(0);
    const orphans = await runtime.db.query(
      `SELECT 1 FROM ${BOSS_SCHEMA}.job j WHERE j.name = 'jobtest.moveTask' AND data->>'orgId' = $1
          AND NOT EXISTS (SELECT 1 FROM board_tasks t WHERE t.org_id = $1 AND t.task_id = j.data#>>'{data,taskId}')`,
      [org.orgId],
    );
    expect(orphans).toEqual([]);
    expect(control.runs.map((r) => r.taskId)).toEqual([laterId]);
  });

  it('a failure is retried with backoff, then the effect runs once', async () => {
    control.failuresLeft = 2;
    const call = await createTask('flaky');
    const taskId = (call.frame as { result: { id: string } }).result.id;
    await until('the effect after two failures', async () => ((await movedEvents(runtime.db, org.orgId, taskId)).length ? true : undefined));
    const runs = runsOf(taskId);
    expect(runs.map((r) => r.retryCount)).toEqual([0, 1, 2]);
    // retryDelaySeconds 1 with backoff: the first retry waits 1-2 s, the second 2-4 s.
    expect(runs[1].at - runs[0].at).toBeGreaterThanOrEqual(900);
    expect(runs[2].at - runs[1].at).toBeGreaterThanOrEqual(1900);
    expect(await movedEvents(runtime.db, org.orgId, taskId)).toHaveLength(1);
    const job = await until('completed', async () => {
      const [j] = await jobsOfTask(runtime.db, taskId);
      return j?.state === 'completed' ? j : undefined;
    });
    expect(job.retry_count).toBe(2);
    // Each failed attempt says so in the log, naming the job and what is left of its retries.
    expect(warnings.splice(0).filter((w) => w.startsWith('job jobtest.'))).toEqual([
      expect.stringMatching(/^job jobtest\.\S+ attempt 0 failed: retried \(\d+ left\): /),
      expect.stringMatching(/^job jobtest\.\S+ attempt 1 failed: retried \(\d+ left\): /),
    ]);
  });

  it('a row that moved on: the job completes with no event', async () => {
    control.nextOptions = { delaySeconds: 2 };
    const call = await createTask('moved by hand');
    const taskId = (call.frame as { result: { id: string } }).result.id;
    await runtime.db.query(`UPDATE board_tasks SET col = 'doing' WHERE org_id = $1 AND task_id = $2`, [org.orgId, taskId]);
    const job = await until('completed', async () => {
      const [j] = await jobsOfTask(runtime.db, taskId);
      return j?.state === 'completed' ? j : undefined;
    });
    expect(job.output).toEqual({ appended: false });
    expect(runsOf(taskId)).toHaveLength(1);
    expect(await movedEvents(runtime.db, org.orgId, taskId)).toEqual([]);
  });

  it('a job held by a worker that died expires, is retried, and runs once', async () => {
    control.nextOptions = { delaySeconds: 600 };
    const call = await createTask('held by the dead');
    const taskId = (call.frame as { result: { id: string } }).result.id;
    // What pg-boss's fetch does for a worker that then dies: active, started, never completed.
    await runtime.db.query(
      `UPDATE ${BOSS_SCHEMA}.job SET state = 'active', started_on = now() WHERE name = 'jobtest.moveTask' AND data#>>'{data,taskId}' = $1`,
      [taskId],
    );
    // expireInSeconds 3, maintenance every second, then the retry delay (1-2 s).
    await until('the effect after the expiry', async () => ((await movedEvents(runtime.db, org.orgId, taskId)).length ? true : undefined), 20_000);
    expect(runsOf(taskId).map((r) => r.retryCount)).toEqual([1]);
    await sleep(1500);
    expect(runsOf(taskId)).toHaveLength(1);
    expect(await movedEvents(runtime.db, org.orgId, taskId)).toHaveLength(1);
  });

  it('a run that outlives its expiry: on PostgreSQL its effect rolls back and the retry commits; on PGlite it completes', async () => {
    // expireInSeconds 3: the first run holds its transaction 8 s. On PostgreSQL pg-boss fails the attempt at 3 s
    // (a retry), so the run's fenced completion finds it no longer active and its effect rolls back; the retry
    // (same worker, once the run returns) commits. On PGlite the held transaction is the one connection: the
    // expiry waits behind it, and the run completes as the one attempt.
    control.holdMs = 8000;
    const call = await createTask('outlives its expiry');
    const taskId = (call.frame as { result: { id: string } }).result.id;
    const job = await until(
      'completed',
      async () => {
        const [j] = await jobsOfTask(runtime.db, taskId);
        return j?.state === 'completed' ? j : undefined;
      },
      30_000,
    );
    const retries = onPostgres ? 1 : 0;
    expect(runsOf(taskId).map((r) => r.retryCount)).toEqual(onPostgres ? [0, 1] : [0]);
    expect(job).toMatchObject({ retry_count: retries, output: { appended: true } });
    expect(await movedEvents(runtime.db, org.orgId, taskId)).toHaveLength(1);
    // pg-boss says so when a handler outruns expireInSeconds (on PGlite its failure waited, so it did not).
    const overrun = warnings.splice(0).filter((w) => w.includes('still running after exceeding 3s'));
    expect(overrun).toHaveLength(onPostgres ? 1 : 0);
  });

  it('50 jobs due at one instant: fetched in batches, run side by side within the slots, each once', async () => {
    control.nextOptions = { delaySeconds: 600 };
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push(((await createTask(`due together ${i}`)).frame as { result: { id: string } }).result.id);
    control.pauseMs = 100;
    // Every one due at the same instant.
    await runtime.db.query(`UPDATE ${BOSS_SCHEMA}.job SET start_after = now() WHERE name = 'jobtest.moveTask' AND data#>>'{data,taskId}' = ANY($1::text[])`, [
      ids,
    ]);
    runtime.deps.jobs.wake(['jobtest.moveTask']);
    const { n } = one(
      await until(
        'all 50 effects',
        async () => {
          const rows = await runtime.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM events WHERE org_id = $1 AND kind = 'task.moved' AND entity_id = ANY($2::text[])`,
            [org.orgId, ids],
          );
          return Number(one(rows).n) === 50 ? rows : undefined;
        },
        60_000,
      ),
    );
    expect(n).toBe(50);
    for (const id of ids) expect(runsOf(id), id).toHaveLength(1);
    const jobs = await runtime.db.query<{ state: string; retry_count: number; output: unknown; started: string }>(
      `SELECT state::text, retry_count, output, started_on::text AS started FROM ${BOSS_SCHEMA}.job WHERE name = 'jobtest.moveTask' AND data#>>'{data,taskId}' = ANY($1::text[])`,
      [ids],
    );
    expect(jobs).toHaveLength(50);
    for (const j of jobs) expect(j).toMatchObject({ state: 'completed', retry_count: 0, output: { appended: true } });
    // One fetch stamps its whole batch with one started_on: batches of more than one, at most batchSize (2 x 4).
    const batches = [...Map.groupBy(jobs, (j) => j.started).values()].map((b) => b.length);
    expect(Math.max(...batches)).toBeGreaterThan(1);
    expect(Math.max(...batches)).toBeLessThanOrEqual(8);
    // Side by side on PostgreSQL, never more than the 4 slots; PGlite's one connection runs one transaction at a time.
    if (onPostgres) expect(control.mostRunning).toBeGreaterThan(1);
    expect(control.mostRunning).toBeLessThanOrEqual(onPostgres ? 4 : 1);
  });

  it('worker options are checked: concurrency and batchSize are whole numbers, 1 or more', async () => {
    const rt = await testRuntime({ ...EXTRA, workers: false, log: collect });
    try {
      await expect(rt.deps.jobs.startWorkers({ concurrency: 0 })).rejects.toThrow(/^workers\.concurrency: a whole number, 1 or more/);
      await expect(rt.deps.jobs.startWorkers({ batchSize: 1.5 })).rejects.toThrow(/^workers\.batchSize: a whole number, 1 or more/);
      expect(rt.deps.jobs.working).toBe(false);
    } finally {
      await rt.close();
    }
  });

  it('scheduling after the event is refused: the call fails and leaves neither task nor job', async () => {
    const call = await createTask('misuse: schedule after emit');
    expect(call.frame).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    const rows = await runtime.db.query(`SELECT 1 FROM board_tasks WHERE org_id = $1 AND title = 'misuse: schedule after emit'`, [org.orgId]);
    expect(rows).toEqual([]);
    const orphans = await runtime.db.query(
      `SELECT 1 FROM ${BOSS_SCHEMA}.job j WHERE data->>'orgId' = $1
          AND NOT EXISTS (SELECT 1 FROM board_tasks t WHERE t.org_id = $1 AND t.task_id = j.data#>>'{data,taskId}')`,
      [org.orgId],
    );
    expect(orphans).toEqual([]);
  });

  it('job data is ids and short codes: free text is refused, naming the field, and the call fails', async () => {
    expect(() => runtime.deps.jobs.check('jobtest.moveTask', { taskId: 'x'.repeat(201) })).toThrow(/^data\.taskId: job data carries ids and short codes only/);
    expect(() => runtime.deps.jobs.check('jobtest.moveTask', { nested: {} as never })).toThrow(/^data\.nested:/);
    expect(() => runtime.deps.jobs.check('jobtest.nope', {})).toThrow(/job jobtest\.nope is not defined/);
    expect(() => runtime.deps.jobs.check('jobtest.moveTask', {}, { delaySeconds: -1 })).toThrow(/^delaySeconds:/);
  });
});

describe('due alarms', () => {
  it('a job runs when it comes due, not at the next poll (polling every 300 s here)', async () => {
    // A database of its own: on PostgreSQL the suite's runtime (polling every 0.5 s) would otherwise take the job.
    const fresh = onPostgres ? await freshDatabase(DATABASE_URL!, 'wops_jobs') : undefined;
    const rt = await createRuntime({ databaseUrl: fresh?.url, inMemory: !fresh, ...EXTRA, workers: { pollingIntervalSeconds: 300 }, log: collect });
    try {
      const alarmOrg = await freshOrg(rt, 'jobs-alarm');
      control.nextOptions = { startAfter: new Date(Date.now() + 1500) };
      const call = await createTask('due in 1.5 s', rt, alarmOrg.adminKey);
      const taskId = (call.frame as { result: { id: string } }).result.id;
      await until('the effect at its due time', async () => ((await movedEvents(rt.db, alarmOrg.orgId, taskId)).length ? true : undefined), 20_000);
      expect(runsOf(taskId)).toHaveLength(1);
      expect(runsOf(taskId)[0].at).toBeGreaterThanOrEqual(control.nextOptions.startAfter!.getTime());
    } finally {
      await rt.close();
      await fresh?.drop();
    }
  });
});

describe('restart', () => {
  it('the first job a call sends after a restart is queued at once (on PGlite, pg-boss reading its queue on the one connection the call holds hung)', async () => {
    const fresh = onPostgres ? await freshDatabase(DATABASE_URL!, 'wops_jobs') : undefined;
    const dataDir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'wops-jobs-'));
    const open = () => createRuntime({ databaseUrl: fresh?.url, dataDir, ...EXTRA, log: collect });
    try {
      const first = await open();
      const org = await freshOrg(first, 'jobs-reopen');
      await first.close();
      const second = await open();
      try {
        const hung = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the call hung')), 15_000).unref());
        const call = await Promise.race([createTask('first job after the restart', second, org.adminKey), hung]);
        const taskId = (call.frame as { result: { id: string } }).result.id;
        expect((await jobsOfTask(second.db, taskId)).map((j) => j.state)).toEqual(['created']);
      } finally {
        await second.close();
      }
    } finally {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      await fresh?.drop();
    }
  });

  it('jobs pending when the database closes run once it reopens (a PGlite data dir; on PostgreSQL a database of its own)', async () => {
    // A database of its own: on PostgreSQL the suite's runtime would otherwise run the job before the restart.
    const fresh = onPostgres ? await freshDatabase(DATABASE_URL!, 'wops_jobs') : undefined;
    const dataDir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'wops-jobs-'));
    const open = (workers: boolean) => createRuntime({ databaseUrl: fresh?.url, dataDir, ...EXTRA, workers: workers ? WORKERS : false, log: collect });
    try {
      const first = await open(false);
      const restartOrg = await freshOrg(first, 'jobs-restart');
      const call = await createTask('pending across a restart', first, restartOrg.adminKey);
      const taskId = (call.frame as { result: { id: string } }).result.id;
      await sleep(1000);
      expect(runsOf(taskId)).toEqual([]); // no workers in this runtime
      expect((await jobsOfTask(first.db, taskId)).map((j) => j.state)).toEqual(['created']);
      await first.close();

      const second = await open(true);
      try {
        await until('the effect after the restart', async () => ((await movedEvents(second.db, restartOrg.orgId, taskId)).length ? true : undefined));
        expect(runsOf(taskId)).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      await fresh?.drop();
    }
  });
});
