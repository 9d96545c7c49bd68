import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../../protocol/errors.js';
import { method } from '../../protocol/contract.js';
import { handler } from '../../domain/core/handler.js';
import type { Runtime } from '../../domain/deployed.js';
import { one } from '../../db/types.js';
import type { GroupCommitStats } from '../../db/group-commit.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import { openPostgres } from '../../db/postgres.js';
import { freePort } from '../helpers/ports.js';
import { freshOrg, onPostgres, testRuntime, type TestOrg } from '../helpers/harness.js';
import { raceCreateTasks } from '../helpers/ledger.js';

/*
 * Group commit (db/group-commit.ts) through the real pipeline: calls that share one transaction, each in a
 * savepoint of its own. PostgreSQL only: PGlite has one connection and never batches (decision 0080).
 */
const suite = onPostgres ? describe : describe.skip;
if (!onPostgres) console.info('tests/db/group-commit: skipped on PGlite (one connection: calls never share a transaction; decision 0080)');

/** A stand-in I method: reports its transaction, appends (with the COMMIT unless it throws after), then fails as asked. */
const act = handler(
  method({
    summary: 'group commit probe',
    events: ['test.act'],
    params: z.strictObject({ n: z.number().int(), fail: z.enum(['no', 'throw', 'sql', 'swallow']).default('no'), ms: z.number().int().default(3) }),
    example: { n: 1 },
  }),
  async (ctx, p) => {
    const { xid } = one(await ctx.q.query<{ xid: string }>('SELECT txid_current()::text AS xid'));
    // Long enough for the other calls to queue behind this one in its batch.
    await sleep(p.ms);
    if (p.fail === 'sql') await ctx.q.query('SELECT 1 / 0');
    if (p.fail === 'swallow') await ctx.q.query('SELECT 1 / 0').catch(() => undefined);
    if (p.fail === 'throw') {
      const event = await ctx.emitAndWait('test.act', `act_${p.n}`, { n: p.n });
      throw new ApiError('CONFLICT', `refused after appending seq ${event.seq} in transaction ${xid}`);
    }
    // Sent with the COMMIT, or inside the call's savepoint when others follow it in the batch.
    await ctx.emit('test.act', `act_${p.n}`, { n: p.n });
    return { xid };
  },
);

let runtime: Runtime;
/** A small pool (one batch at a time) and a long window (1 s), so concurrent calls surely share a transaction. */
let batched: Runtime;
beforeAll(async () => {
  if (!onPostgres) return;
  runtime = await testRuntime({ poolSize: 8, groupCommitWaitMs: 2 });
  batched = await testRuntime({ poolSize: 2, groupCommitWaitMs: 1000, extraHandlers: new Map([['books.invoiceDraft', act]]) });
});
afterAll(async () => {
  await runtime?.close();
  await batched?.close();
});

const stats = (r: Runtime): GroupCommitStats => ({ ...r.db.groupCommit! });
const eventsOf = async (r: Runtime, orgId: string) =>
  r.db.query<{ seq: number; entity_id: string }>('SELECT seq, entity_id FROM events WHERE org_id = $1 ORDER BY seq', [orgId]);

async function expectSoundChain(r: Runtime, org: TestOrg, count: number) {
  expect(await verifyOrgChain(r.db, org.orgId)).toMatchObject({ ok: true, count });
}

suite('group commit (PostgreSQL)', () => {
  it('a call failing in a batch answers its own error; the others of its transaction commit, with one event each and a gapless chain', async () => {
    const org = await freshOrg(batched, 'gc-fail');
    const before = stats(batched);
    const fails = { 3: 'throw', 6: 'sql', 9: 'swallow' } as Record<number, string>;
    const send = (n: number, ms = 3) =>
      batched.pipeline.call({ method: 'books.invoiceDraft', params: { n, fail: fails[n] ?? 'no', ms }, apiKey: org.adminKey, idempotencyKey: `gc-${n}` });
    // The first opens the batch and runs long enough for the others to queue behind it: none of those is the
    // transaction's first call (which, failing, would roll back the whole transaction with nothing else in it).
    const first = send(0, 300);
    await sleep(30);
    const rest = Array.from({ length: 11 }, (_, i) => send(i + 1));
    const outcomes = await Promise.all([first, ...rest]);
    const oks = outcomes.filter((_, n) => !fails[n]);
    for (const o of oks) expect(o.frame).toMatchObject({ ok: true });
    expect(outcomes[3].frame).toEqual({
      ok: false,
      error: { code: 'CONFLICT', message: expect.stringMatching(/^refused after appending seq \d+ in transaction \d+$/) },
    });
    expect(outcomes[6]).toMatchObject({ status: 500, frame: { ok: false, error: { code: 'INTERNAL' } } });
    // A statement that failed with its error swallowed rolls back at COMMIT, as a transaction of its own does.
    expect(outcomes[9]).toMatchObject({ status: 500, frame: { ok: false, error: { code: 'INTERNAL' } } });
    // The refused call ran in the same transaction as calls that committed: rolled back to its savepoint alone.
    const refusedXid = /in transaction (\d+)/.exec((outcomes[3].frame as { error: { message: string } }).error.message)![1];
    const xids = oks.map((o) => (o.frame as { result: { xid: string } }).result.xid);
    expect(xids).toContain(refusedXid);
    const after = stats(batched);
    expect(after.largest).toBeGreaterThan(1);
    expect(after.rolledBackAlongside - before.rolledBackAlongside).toBeGreaterThanOrEqual(1);
    // One event per committed call, seq 1..9, each the one its answer names; none for the failed calls.
    const events = await eventsOf(batched, org.orgId);
    expect(events.map((e) => e.seq)).toEqual(oks.map((_, i) => i + 1));
    for (const [n, o] of outcomes.entries()) {
      if (!fails[n]) expect(events[o.event!.seq - 1].entity_id).toBe(`act_${n}`);
    }
    await expectSoundChain(batched, org, oks.length);
    // Committed keys replay their frames; the failed calls' keys were rolled back and run afresh.
    for (const [n, o] of outcomes.entries()) {
      if (fails[n]) continue;
      const again = await batched.pipeline.call({
        method: 'books.invoiceDraft',
        params: { n, fail: 'no', ms: n === 0 ? 300 : 3 },
        apiKey: org.adminKey,
        idempotencyKey: `gc-${n}`,
      });
      expect(again).toMatchObject({ replayed: true, body: o.body });
    }
    const retried = await batched.pipeline.call({ method: 'books.invoiceDraft', params: { n: 3, fail: 'no' }, apiKey: org.adminKey, idempotencyKey: 'gc-3' });
    expect(retried).toMatchObject({ replayed: false, frame: { ok: true } });
  });

  it('a lone call on a quiet server commits at once: no wait for companions', async () => {
    const org = await freshOrg(batched, 'gc-lone');
    const started = performance.now();
    const out = await batched.pipeline.call({ method: 'books.invoiceDraft', params: { n: 1 }, apiKey: org.adminKey });
    // The window here is 1 s: a call that waited for it would take that long.
    expect(performance.now() - started).toBeLessThan(500);
    expect(out.frame).toMatchObject({ ok: true });
  });

  it('200 racing calls on one org: every answer ok, one event each, answered in seq order, the chain verifies; COMMITs were shared', async () => {
    const org = await freshOrg(runtime, 'gc-hot');
    const before = stats(runtime);
    await raceCreateTasks(runtime, [org], 200);
    const after = stats(runtime);
    console.info(`one org: 200 calls in ${after.commits - before.commits} commits, largest ${after.largest}, ${after.ranAlone - before.ranAlone} run alone`);
    expect(after.commits - before.commits).toBeLessThan(200);
  });

  it('200 racing calls across 50 orgs: every answer ok, one event each, answered in seq order per org, every chain verifies', async () => {
    const orgs: TestOrg[] = [];
    for (let i = 0; i < 50; i++) orgs.push(await freshOrg(runtime, 'gc-50'));
    const before = stats(runtime);
    await raceCreateTasks(runtime, orgs, 200);
    const after = stats(runtime);
    console.info(`50 orgs: 200 calls in ${after.commits - before.commits} commits, ${after.ranAlone - before.ranAlone} run alone`);
    expect(after.commits - before.commits).toBeLessThan(200);
  });
});

describe('group commit without a database to reach', () => {
  it('calls fail with the connection error, as transactions of their own would; none waits forever', async () => {
    // A port nothing listens on: no PostgreSQL needed, so this runs on both runs.
    const db = openPostgres(`postgres://postgres@127.0.0.1:${await freePort()}/none`, { poolSize: 2, groupCommitWaitMs: 2 });
    try {
      const calls = Array.from({ length: 5 }, () => db.tx(async (q) => q.query('SELECT 1'), { group: 'org_x' }));
      const settled = await Promise.allSettled(calls);
      for (const s of settled) expect(s).toMatchObject({ status: 'rejected', reason: { code: 'ECONNREFUSED' } });
    } finally {
      await db.close();
    }
  });
});
