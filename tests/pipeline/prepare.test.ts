import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, type AskOutcome } from '../../ai-gateway/gateway.js';
import { localProvider } from '../../ai-gateway/local/index.js';
import type { Provider } from '../../ai-gateway/types.js';
import { handler, type MethodHandler } from '../../domain/core/handler.js';
import { method } from '../../protocol/contract.js';
import { BOARD_ANSWERER, BOARD_METHOD } from '../ai-gateway/board-answerer.js';
import { auditChain } from '../ai-gateway/kit.js';
import { testServer, type TestServer } from '../helpers/harness.js';
import { headOf } from '../helpers/ledger.js';

/*
 * A handler's prepare step runs after admission and before the call's transaction, outside it: an M method
 * that calls a model (summarise, triage, extractAction, rewriteInVoice) calls it there, so no transaction
 * waits on a model. These stand-ins summarise a task's comments through the AI gateway in prepare, then
 * record the summary's audit seq in their one ledger event.
 */

/** What happened, in order: prepare, the model, every db.tx opened, run. */
let order: string[] = [];
/** The answerer the stand-ins ask for (a test switches it to an unregistered one). */
let askFor = BOARD_METHOD;
let prepares = 0;

const contract = method({
  summary: 'stand-in: summarise a task’s comments with the AI gateway and record the summary',
  events: ['board.task.summarise'],
  params: z.strictObject({ taskId: z.string(), name: z.string().optional() }),
  example: { taskId: 'task_1' },
});

const summarise = handler(
  contract,
  async (ctx, p, prepared: AskOutcome) => {
    order.push('run');
    const event = await ctx.emitAndWait('board.task.summarise', p.taskId, { auditSeq: prepared.audit.seq, status: prepared.status });
    return { status: prepared.status, auditSeq: prepared.audit.seq, eventSeq: event.seq };
  },
  {
    async prepare(ctx, p) {
      order.push('prepare');
      prepares += 1;
      const outcome = await ask(
        { db: ctx.deps.db, ...ctx.deps.ai },
        {
          method: askFor,
          orgId: ctx.orgId,
          requestId: ctx.requestId,
          actor: ctx.principal.id,
          keyId: ctx.principal.keyId,
          question: `Summarise the comments of ${p.taskId}`,
          today: '2026-11-02',
          reads: { readAs: (m, x) => ctx.readAs(m, x), q: ctx.db, orgId: ctx.orgId, scopes: ctx.principal.scopes },
        },
      );
      order.push('prepared');
      return outcome;
    },
  },
);

/**
 * The local answerer, with a query on the database while "the model thinks": on PGlite (one connection) it
 * could not run if the call's transaction were already open, so it would time out here instead of hanging.
 */
let db: TestServer['runtime']['db'];
const thinking: Provider = {
  name: 'local',
  async answer(input, tools, signal) {
    order.push('model');
    const query = db.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
    const stalled = sleep(5000).then(() => Promise.reject(new Error('a query during the model call stalled: is a transaction open?')));
    await Promise.race([query, stalled]);
    return localProvider().answer(input, tools, signal);
  },
};

let s: TestServer;
let taskId: string;

beforeAll(async () => {
  s = await testServer({
    aiProvider: thinking,
    extraAnswerers: [BOARD_ANSWERER],
    extraHandlers: new Map<string, MethodHandler>([
      ['board.comment', summarise], // M
      ['board.createWorkstream', summarise], // M, I
    ]),
  });
  db = s.runtime.db;
  // Every transaction the runtime opens is noted in order (the pipeline's and the audit append's).
  const tx = db.tx.bind(db);
  db.tx = ((fn: Parameters<typeof tx>[0]) => {
    order.push('tx');
    return tx(fn);
  }) as typeof db.tx;
  const task = await s.client.ok('board.createTask', { title: 'Reconcile the bank feed' }, { idem: 'task-1' });
  taskId = task.id;
  await s.client.ok('board.addTaskComment', { taskId, body: 'Statements for 3 accounts arrived.' });
});
afterAll(() => s.close());

describe('a handler’s prepare step', () => {
  it('runs the model before the transaction opens; run gets what it returned', async () => {
    order = [];
    const before = await headOf(db, s.org.orgId);
    const call = await s.runtime.pipeline.call({ method: 'board.comment', params: { taskId }, apiKey: s.org.adminKey });
    expect(call.status, call.body).toBe(200);
    const result = (call.frame as { result: { status: string; auditSeq: number; eventSeq: number } }).result;
    expect(result).toEqual({ status: 'answered', auditSeq: expect.any(Number), eventSeq: before.seq + 1 });
    // prepare -> the model (its query ran) -> the audit's own transaction -> prepare resolved -> the call's transaction -> run.
    expect(order.slice(order.indexOf('prepare'))).toEqual(['prepare', 'model', 'tx', 'prepared', 'tx', 'run']);
    const audits = await auditChain(s.client);
    expect(audits.at(-1)).toMatchObject({ seq: result.auditSeq, record: { method: BOARD_METHOD, verdict: 'grounded' } });
    expect(call.event?.seq).toBe(before.seq + 1);
  });

  it('a prepare that fails ends the call: no transaction, no event, no run', async () => {
    askFor = 'board.noSuchAnswerer';
    try {
      order = [];
      const before = await headOf(db, s.org.orgId);
      const audits = (await auditChain(s.client)).length;
      const call = await s.runtime.pipeline.call({ method: 'board.comment', params: { taskId }, apiKey: s.org.adminKey });
      expect(call.status).toBe(404);
      expect(call.frame).toMatchObject({
        ok: false,
        error: { code: 'NOT_FOUND', message: 'board.noSuchAnswerer has no AI answerer registered on this server' },
      });
      expect(order.slice(order.indexOf('prepare'))).toEqual(['prepare']);
      expect(await headOf(db, s.org.orgId)).toEqual(before);
      expect((await auditChain(s.client)).length).toBe(audits);
    } finally {
      askFor = BOARD_METHOD;
    }
  });

  it('an idempotent call replayed under its key answers from the store without preparing again', async () => {
    prepares = 0;
    const first = await s.runtime.pipeline.call({
      method: 'board.createWorkstream',
      params: { taskId, name: 'x' },
      apiKey: s.org.adminKey,
      idempotencyKey: 'summary-1',
    });
    expect(first.status, first.body).toBe(200);
    const again = await s.runtime.pipeline.call({
      method: 'board.createWorkstream',
      params: { taskId, name: 'x' },
      apiKey: s.org.adminKey,
      idempotencyKey: 'summary-1',
    });
    expect(again.replayed).toBe(true);
    expect(again.body).toBe(first.body);
    expect(prepares).toBe(1);
  });
});
