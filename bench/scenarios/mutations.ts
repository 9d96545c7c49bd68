import { appendEvent } from '../../ledger/append.js';
import { claimKey, paramsHash, storeFrame } from '../../ledger/idempotency.js';
import { TASK_COLUMNS, endOfColumn } from '../../domain/board/model.js';
import { newId } from '../../domain/core/ids.js';
import { one, type Db } from '../../db/types.js';
import type { BenchContext, BenchOrg } from '../fixture.js';
import { closedLoop, httpLoad, type Throughput } from '../measure.js';

/**
 * board.createTask over HTTP with a fresh idempotency key per call, against the same SQL done directly:
 * per transaction the idempotency claim, the task insert, the ledger append (head-row update + event insert)
 * and the frame store, through the same ledger/ and db/ code the server uses, with no HTTP, no auth query,
 * no replay lookup and no params validation.
 */
export async function createTaskOverHttp(ctx: BenchContext, orgs: BenchOrg[], tag: string, seconds = ctx.seconds): Promise<Throughput> {
  return httpLoad(
    ctx.baseUrl,
    {
      method: 'POST',
      path: '/api/v1/board.createTask',
      build: (i) => {
        const org = orgs[i % orgs.length];
        return {
          headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json', 'x-idempotency-key': `${ctx.runId}-${tag}-${i}` },
          body: JSON.stringify({ params: { title: `Bench task ${i}`, priority: 'normal' } }),
        };
      },
    },
    { connections: ctx.connections, seconds },
  );
}

/** One direct-SQL transaction: what the server does for a createTask with a fresh key, minus everything that is not SQL. */
export async function createTaskDirect(db: Db, org: BenchOrg, key: string, i: number): Promise<void> {
  const params = { title: `Bench task ${i}`, priority: 'normal' };
  const scope = { orgId: org.orgId, actor: org.actor, method: 'board.createTask', key, paramsHash: paramsHash(params) };
  await db.tx(async (q) => {
    await claimKey(q, scope);
    const row = one(
      await q.query<{ task_id: string; title: string; col: string; priority: string }>(
        `INSERT INTO board_tasks (org_id, task_id, type, title, description, priority, col, workstream_id, parent_id, assignee, created_by, position)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, ${endOfColumn('$7')})
       RETURNING ${TASK_COLUMNS}`,
        [org.orgId, newId('task'), 'task', `Bench task ${i}`, '', 'normal', 'triage', null, null, null, org.actor],
      ),
    );
    const event = await appendEvent(q, org.orgId, {
      family: 'board',
      kind: 'item.created',
      entityId: row.task_id,
      actor: org.actor,
      payload: { type: 'task', title: row.title, col: row.col, priority: row.priority, workstreamId: null, parentId: null },
    });
    storeFrame(q, scope, JSON.stringify({ ok: true, result: { ...row, ledgerId: event.ledgerId } }));
  });
}

export async function createTaskDirectSql(ctx: BenchContext, orgs: BenchOrg[], tag: string): Promise<Throughput> {
  return closedLoop(
    async (i) => {
      const org = orgs[i % orgs.length];
      await createTaskDirect(ctx.db, org, `${ctx.runId}-${tag}-${i}`, i);
    },
    { workers: ctx.connections, seconds: ctx.seconds },
  );
}
