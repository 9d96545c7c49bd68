import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../db/types.js';
import { handler, type MethodHandler } from '../../domain/core/handler.js';
import { newId } from '../../domain/core/ids.js';
import { defineJob, type ScheduleOptions } from '../../domain/jobs/define.js';
import { BOSS_SCHEMA } from '../../domain/jobs/scheduler.js';
import { board } from '../../protocol/methods/board.js';
import { ApiError } from '../../protocol/errors.js';

/*
 * A test family ("jobtest") acting on real rows: board.createTask is replaced by a handler that creates a task in
 * triage and schedules jobtest.moveTask, whose effect moves the task to todo if it is still in triage.
 */

export interface MoveData {
  [key: string]: string | number;
  taskId: string;
  from: string;
  to: string;
  /** The first run waits this long before its transaction (a job a process is killed while holding). */
  holdMs: number;
}

/** What the test steers: failures to throw before succeeding, options of the next schedule, runs seen. */
export const control = {
  failuresLeft: 0,
  nextOptions: {} as ScheduleOptions,
  holdMs: 0,
  /** Every run waits this long inside its transaction (runs that overlap, to count them). */
  pauseMs: 0,
  /** Runs in progress now, and the most seen at once. */
  running: 0,
  mostRunning: 0,
  runs: [] as { jobId: string; taskId: string; retryCount: number; at: number }[],
  onRun: (_line: string) => {},
};

export const moveTask = defineJob<MoveData>({
  name: 'jobtest.moveTask',
  retryLimit: 3,
  retryDelaySeconds: 1,
  retryBackoff: true,
  expireInSeconds: 3,
  events: ['task.moved'],
  async run(ctx, data) {
    control.runs.push({ jobId: ctx.jobId, taskId: data.taskId, retryCount: ctx.retryCount, at: Date.now() });
    control.onRun(`run ${ctx.jobId} ${data.taskId} ${ctx.retryCount}`);
    if (data.holdMs && ctx.retryCount === 0) await sleep(data.holdMs); // only the first run holds it
    if (control.failuresLeft > 0) {
      control.failuresLeft--;
      throw new Error('transient failure of the test job\nsecond line');
    }
    control.mostRunning = Math.max(control.mostRunning, ++control.running);
    try {
      if (control.pauseMs) await sleep(control.pauseMs);
    } finally {
      control.running--;
    }
    const [row] = await ctx.q.query<{ col: string }>('SELECT col FROM board_tasks WHERE org_id = $1 AND task_id = $2 FOR UPDATE', [ctx.orgId, data.taskId]);
    if (!row || row.col !== data.from) return; // the row moved on: nothing to do
    await ctx.q.query('UPDATE board_tasks SET col = $3, updated_at = now() WHERE org_id = $1 AND task_id = $2', [ctx.orgId, data.taskId, data.to]);
    await ctx.emit('task.moved', data.taskId, { from: data.from, to: data.to });
  },
});

/** board.createTask, replaced: a task row, the job, then (unless the title asks to fail) the call's event. */
export const createAndSchedule = handler(board.createTask, async (ctx, p) => {
  const taskId = newId('task');
  await ctx.q.query(`INSERT INTO board_tasks (org_id, task_id, title, col, created_by) VALUES ($1, $2, $3, 'triage', $4)`, [
    ctx.orgId,
    taskId,
    p.title,
    ctx.principal.id,
  ]);
  const data = { taskId, from: 'triage', to: 'todo', holdMs: control.holdMs };
  if (p.title.startsWith('misuse: schedule after emit')) {
    // A misuse: the job would have no cause. The pipeline refuses it and the call rolls back.
    await ctx.emit('item.created', taskId, { col: 'triage' });
    ctx.schedule('jobtest.moveTask', data, control.nextOptions);
  }
  ctx.schedule('jobtest.moveTask', data, control.nextOptions);
  if (p.title.startsWith('fail after scheduling')) throw new ApiError('CONFLICT', 'failing after scheduling, on purpose');
  await ctx.emit('item.created', taskId, { col: 'triage' });
  return { id: taskId };
}) as unknown as MethodHandler;

export const EXTRA = {
  extraHandlers: new Map<string, MethodHandler>([['board.createTask', createAndSchedule]]),
  extraJobs: [moveTask],
};

export interface JobRow {
  id: string;
  state: string;
  retry_count: number;
  output: Record<string, unknown> | null;
  task_id: string;
  cause_seq: number;
}

/** The scheduler's rows of a task's job (pg-boss 12 keeps finished jobs in its job table). */
export const jobsOfTask = (db: Db, taskId: string) =>
  db.query<JobRow>(
    `SELECT id::text, state::text, retry_count, output, data#>>'{data,taskId}' AS task_id, (data->>'causeSeq')::int AS cause_seq
       FROM ${BOSS_SCHEMA}.job WHERE name = 'jobtest.moveTask' AND data#>>'{data,taskId}' = $1`,
    [taskId],
  );

export const movedEvents = (db: Db, orgId: string, taskId: string) =>
  db.query<{ seq: number; actor: string; family: string; kind: string; payload: Record<string, unknown> }>(
    `SELECT seq, actor, family, kind, payload::jsonb AS payload FROM events WHERE org_id = $1 AND entity_id = $2 AND kind = 'task.moved' ORDER BY seq`,
    [orgId, taskId],
  );

/** Poll until check() returns a value (not undefined), or fail after timeoutMs. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
