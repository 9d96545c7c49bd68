import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../domain/deployed.js';
import { createRuntime } from '../../domain/deployed.js';
import { DATABASE_URL, freshOrg, onPostgres, type TestOrg } from '../helpers/harness.js';
import { freshDatabase, ROOT, runVerify } from '../multiprocess/harness.js';
import { one } from '../../db/types.js';
import { EXTRA, control, jobsOfTask, movedEvents, until } from './kit.js';

/*
 * The scheduler across processes on one PostgreSQL database: worker processes (tests/jobs/worker-child.ts, a
 * runtime with the server's workers) on a fresh database; this process only schedules, through real calls.
 * Two processes polling the same queue run each job exactly once; a process killed (SIGKILL) while running a job
 * leaves it to expire, and a restarted process runs it once. PostgreSQL only: a PGlite data dir serves one process.
 */

interface Child {
  proc: ChildProcess;
  out: string;
  err: string;
  runs(): { jobId: string; taskId: string; retryCount: number }[];
}

function startChild(url: string): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'tests/jobs/worker-child.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child: Child = {
    proc,
    out: '',
    err: '',
    runs: () =>
      child.out
        .split('\n')
        .filter((l) => l.startsWith('run '))
        .map((l) => {
          const [, jobId, taskId, retryCount] = l.split(' ');
          return { jobId, taskId, retryCount: Number(retryCount) };
        }),
  };
  proc.stdout.setEncoding('utf8').on('data', (s: string) => (child.out += s));
  proc.stderr.setEncoding('utf8').on('data', (s: string) => (child.err += s));
  return until(
    'a worker process',
    async () => {
      if (proc.exitCode !== null) throw new Error(`worker process exited: ${child.err}`);
      return child.out.includes('ready\n') ? child : undefined;
    },
    60_000,
  );
}

function stopChild(child: Child | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const p = child?.proc;
  if (!p || p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => p.kill('SIGKILL'), 15_000);
    p.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    p.kill(signal);
  });
}

const suite = onPostgres ? describe : describe.skip;
if (!onPostgres) console.warn('tests/jobs/processes: skipped, PostgreSQL only (set DATABASE_URL): a PGlite data dir serves one process');

suite('jobs across server processes on one PostgreSQL database', () => {
  let db: { url: string; drop(): Promise<void> };
  let runtime: Runtime;
  let org: TestOrg;
  const children: Child[] = [];

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!, 'wops_jobs_mp');
    runtime = await createRuntime({ databaseUrl: db.url, ...EXTRA }); // migrates; schedules, runs nothing
    org = await freshOrg(runtime, 'jobs-mp');
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => stopChild(c)));
    await runtime?.close();
    await db?.drop();
  });

  const createTask = async (title: string) => {
    const call = await runtime.pipeline.call({ method: 'board.createTask', params: { title }, apiKey: org.adminKey });
    if (!call.frame.ok) throw new Error(call.body);
    return (call.frame as { result: { id: string } }).result.id;
  };

  it('two processes polling one queue: each of 30 jobs runs exactly once', async () => {
    const [a, b] = await Promise.all([startChild(db.url), startChild(db.url)]);
    children.push(a, b);
    const taskIds = await Promise.all(Array.from({ length: 30 }, (_, i) => createTask(`parallel ${i}`)));
    await until(
      '30 effects',
      async () => {
        const row = one(await runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE org_id = $1 AND kind = 'task.moved'`, [org.orgId]));
        return row.n >= 30 ? true : undefined;
      },
      60_000,
    );
    await new Promise((r) => setTimeout(r, 1500)); // a second run, if any, would show by now
    const runs = [...a.runs(), ...b.runs()];
    expect(runs.map((r) => r.taskId).sort()).toEqual([...taskIds].sort());
    expect(new Set(runs.map((r) => r.jobId)).size).toBe(30);
    console.log(`runs per process: ${a.runs().length} and ${b.runs().length}`);
    for (const taskId of taskIds) expect(await movedEvents(runtime.db, org.orgId, taskId)).toHaveLength(1);
    await Promise.all([stopChild(a), stopChild(b)]);
  });

  it('a process killed while running a job: after a restart the job runs once', async () => {
    const a = await startChild(db.url);
    children.push(a);
    control.holdMs = 60_000; // the first run sleeps, as a long effect would, until the process dies
    const taskId = await createTask('killed mid-run');
    control.holdMs = 0;
    await until('the first run', async () => (a.runs().some((r) => r.taskId === taskId) ? true : undefined));
    await stopChild(a, 'SIGKILL');
    expect((await jobsOfTask(runtime.db, taskId)).map((j) => j.state)).toEqual(['active']);

    const b = await startChild(db.url);
    children.push(b);
    // expireInSeconds 3, then b's maintenance (every second) fails it into a retry (1-2 s later).
    await until('the effect after the restart', async () => ((await movedEvents(runtime.db, org.orgId, taskId)).length ? true : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(
      b
        .runs()
        .filter((r) => r.taskId === taskId)
        .map((r) => r.retryCount),
    ).toEqual([1]);
    expect(await movedEvents(runtime.db, org.orgId, taskId)).toHaveLength(1);
    const [job] = await jobsOfTask(runtime.db, taskId);
    expect(job).toMatchObject({ state: 'completed', retry_count: 1 });
    await stopChild(b);
    // The effects' events (actor "") chain like any other: the org's ledger verifies.
    const verified = await runVerify(db.url);
    expect(verified.code, verified.out).toBe(0);
  });
});
