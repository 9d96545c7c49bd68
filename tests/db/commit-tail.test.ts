import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../../protocol/errors.js';
import { method } from '../../protocol/contract.js';
import { handler } from '../../domain/core/handler.js';
import type { Runtime } from '../../domain/deployed.js';
import { appendEvent } from '../../ledger/append.js';
import { claimKey, paramsHash, type KeyedCall } from '../../ledger/idempotency.js';
import { migrate } from '../../db/migrate.js';
import { openPostgres } from '../../db/postgres.js';
import { DATABASE_URL, freshOrg, onPostgres, testRuntime, type TestOrg } from '../helpers/harness.js';
import { eventCount, headOf, raceCreateTasks } from '../helpers/ledger.js';

/*
 * A transaction's last statements (TxQueryable.atCommit, db/commit-tail.ts), on both databases: sent in order with the
 * COMMIT, each answered to its caller, the first failure the transaction's; and the ledger append the pipeline's emit
 * sends that way (decision 0087).
 */

/** Emits with the COMMIT, then fails as asked. */
const probe = handler(
  method({
    summary: 'commit tail probe',
    events: ['test.act'],
    params: z.strictObject({ n: z.number().int(), fail: z.enum(['no', 'throw']).default('no') }),
    example: { n: 1 },
  }),
  async (ctx, p) => {
    await ctx.q.query('SELECT 1');
    await ctx.emit('test.act', `act_${p.n}`, { n: p.n });
    if (p.fail === 'throw') throw new ApiError('CONFLICT', `refused after emitting act ${p.n}`);
    return { n: p.n };
  },
);

let runtime: Runtime;
let org: TestOrg;
beforeAll(async () => {
  runtime = await testRuntime({ groupCommitWaitMs: 0, extraHandlers: new Map([['books.invoiceDraft', probe]]) });
  org = await freshOrg(runtime, 'tail');
});
afterAll(() => runtime.close());

const keyed = (key: string): KeyedCall => ({ orgId: org.orgId, actor: 'usr_tail', method: 'board.createTask', key, paramsHash: paramsHash({ key }) });
const claimed = async (key: string) => (await runtime.db.query('SELECT 1 FROM idempotency WHERE org_id = $1 AND key = $2', [org.orgId, key])).length > 0;

describe('atCommit', () => {
  it('sends its statements in order at the COMMIT, each answered to its caller; nothing may be queried after them', async () => {
    const answers = await runtime.db.tx(async (q) => {
      await claimKey(q, keyed('tail-ok'));
      const first = q.atCommit<{ n: number }>('SELECT $1::int AS n', [1]);
      const second = q.atCommit<{ n: number }>('SELECT $1::int + 1 AS n', [1]);
      await expect(q.query('SELECT 1')).rejects.toThrow(/query after atCommit/);
      return [first, second];
    });
    expect(await Promise.all(answers)).toEqual([[{ n: 1 }], [{ n: 2 }]]);
    expect(await claimed('tail-ok')).toBe(true);
  });

  it('a failing statement fails the transaction with its own error, awaited or not: nothing commits, the statements before it answered', async () => {
    let first: Promise<unknown> | undefined;
    let third: Promise<unknown> | undefined;
    const err = await runtime.db
      .tx(async (q) => {
        await claimKey(q, keyed('tail-fail'));
        first = q.atCommit('SELECT 1 AS n');
        void q.atCommit('SELECT 1 / 0');
        third = q.atCommit('SELECT 3 AS n');
      })
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('22012');
    expect(await first).toEqual([{ n: 1 }]);
    // Behind the failure the transaction was aborted: the statement after it fails too.
    await expect(third).rejects.toBeDefined();
    expect(await claimed('tail-fail')).toBe(false);
  });

  it('a transaction whose function throws sends none of them: each fails with its error, nothing commits', async () => {
    let queued: Promise<unknown> | undefined;
    const boom = new Error('the function failed');
    await expect(
      runtime.db.tx(async (q) => {
        await claimKey(q, keyed('tail-throw'));
        queued = q.atCommit('SELECT 1');
        throw boom;
      }),
    ).rejects.toBe(boom);
    await expect(queued).rejects.toBe(boom);
    expect(await claimed('tail-throw')).toBe(false);
  });

  it('an append to an org without a ledger head fails the transaction, sent at once or with the COMMIT', async () => {
    const event = { family: 'board', kind: 'item.created', entityId: 'task_x', actor: 'usr_x', payload: {} };
    await expect(runtime.db.tx((q) => appendEvent(q, 'org_without_head', event))).rejects.toThrow(/^ledger head missing for org org_without_head$/);
    let appending: Promise<unknown> | undefined;
    const err = await runtime.db
      .tx(async (q) => {
        await claimKey(q, keyed('tail-headless'));
        appending = appendEvent({ query: (sql, params) => q.atCommit(sql, params) }, 'org_without_head', event);
        // Rejects once the tail is answered, before the assertion below looks.
        appending.catch(() => {});
      })
      .catch((e: unknown) => e);
    expect(err).toBeDefined();
    await expect(appending).rejects.toThrow(/^ledger head missing for org org_without_head$/);
    expect(await claimed('tail-headless')).toBe(false);
  });
});

describe('emit sends the append with the COMMIT', () => {
  it('the call answers with its event; the chain is sound', async () => {
    const before = (await headOf(runtime.db, org.orgId)).seq;
    const out = await runtime.pipeline.call({ method: 'books.invoiceDraft', params: { n: 1 }, apiKey: org.adminKey, idempotencyKey: 'emit-1' });
    expect(out.frame).toEqual({ ok: true, result: { n: 1 } });
    expect(out.event?.seq).toBe(before + 1);
    expect((await headOf(runtime.db, org.orgId)).seq).toBe(before + 1);
  });

  it('a handler that throws after emitting answers its own error, appends nothing and keeps no key', async () => {
    const events = await eventCount(runtime.db, org.orgId);
    const out = await runtime.pipeline.call({ method: 'books.invoiceDraft', params: { n: 2, fail: 'throw' }, apiKey: org.adminKey, idempotencyKey: 'emit-2' });
    expect(out.frame).toEqual({ ok: false, error: { code: 'CONFLICT', message: 'refused after emitting act 2' } });
    expect(await eventCount(runtime.db, org.orgId)).toBe(events);
    // The key was rolled back with the call: the same key runs afresh.
    const again = await runtime.pipeline.call({ method: 'books.invoiceDraft', params: { n: 2 }, apiKey: org.adminKey, idempotencyKey: 'emit-2' });
    expect(again).toMatchObject({ replayed: false, frame: { ok: true } });
  });

  // Racing connections are PostgreSQL's: PGlite runs one transaction at a time.
  (onPostgres ? it : it.skip)('200 racing calls on one org, without group commit: answered in seq order, one event each, every key replays', async () => {
    await raceCreateTasks(runtime, [await freshOrg(runtime, 'tail-hot')], 200);
  });
});

// The app and PostgreSQL hash the same text only if the database is UTF-8: checked before anything else at every start.
(onPostgres ? describe : describe.skip)('a database not in UTF-8', () => {
  it('is refused at start, saying how to create one that is', async () => {
    const name = `wops_sqlascii_${process.pid}`;
    // CREATE DATABASE waits for other tests' databases being made: past the pool's usual lock_timeout on a busy run.
    const admin = openPostgres(DATABASE_URL!, { poolSize: 1, lockTimeoutMs: 60_000 });
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name} ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
    const url = new URL(DATABASE_URL!);
    url.pathname = `/${name}`;
    const db = openPostgres(url.toString(), { poolSize: 1 });
    try {
      await expect(migrate(db)).rejects.toThrow(/^the database's encoding is SQL_ASCII, not UTF8: .*createdb -E UTF8 -T template0/);
      expect(await db.query(`SELECT to_regclass('schema_migrations') AS t`)).toEqual([{ t: null }]);
    } finally {
      await db.close();
      await admin.query(`DROP DATABASE ${name}`);
      await admin.close();
    }
  }, 120_000);
});
