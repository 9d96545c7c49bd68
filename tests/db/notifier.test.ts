import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NOTIFY_BYTES, notifyMessage, openNotifier, type NotifyPayload } from '../../db/notifier.js';
import { openPostgres } from '../../db/postgres.js';
import type { Runtime } from '../../domain/deployed.js';
import { DATABASE_URL, TestClient, freshOrg, onPostgres, testRuntime } from '../helpers/harness.js';
import { buildApp } from '../../gateway/app.js';
import { one } from '../../db/types.js';

/*
 * The notifier (db/notifier.ts) on the database the tests run on: delivered at commit, never for a rolled-back
 * transaction, to every runtime on the database; on PostgreSQL a lost LISTEN connection comes back and says
 * resync. approval.wait is woken by it rather than by its safety poll.
 */

let runtime: Runtime;
beforeAll(async () => {
  runtime = await testRuntime({ config: { approvalWaitPollMs: 30_000 } });
});
afterAll(async () => {
  await runtime.close();
});

/** Collect a topic's messages; `next` resolves with the first one matching, or fails after 5 s. */
function collect(rt: Runtime, topic: string) {
  const got: NotifyPayload[] = [];
  const waiters: (() => void)[] = [];
  const stop = rt.deps.notifier.subscribe(topic, (m) => {
    got.push(m);
    for (const w of waiters.splice(0)) w();
  });
  const until = (what: string, ok: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within 5 s; got ${JSON.stringify(got)}`)), 5000);
      const check = () => (ok() ? (clearTimeout(timer), resolve()) : waiters.push(check));
      check();
    });
  return { got, stop, next: (id: string) => until(`message ${id}`, () => got.some((m) => m.id === id)) };
}

const settle = () => new Promise((r) => setTimeout(r, 150));

describe('the notifier', () => {
  it('delivers at commit, never for a rolled-back transaction, and at once outside one', async () => {
    const c = collect(runtime, 'test.commit');
    try {
      let seenBeforeCommit = true;
      await runtime.db.tx(async (q) => {
        await runtime.deps.notifier.publish(q, 'test.commit', { id: 'in-tx', n: 1, flag: true, none: null });
        await settle();
        seenBeforeCommit = c.got.length > 0;
      });
      expect(seenBeforeCommit).toBe(false);
      await c.next('in-tx');
      expect(c.got).toEqual([{ id: 'in-tx', n: 1, flag: true, none: null }]);

      await expect(
        runtime.db.tx(async (q) => {
          await runtime.deps.notifier.publish(q, 'test.commit', { id: 'rolled-back' });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await runtime.deps.notifier.publish(runtime.db, 'test.commit', { id: 'outside' });
      await c.next('outside');
      expect(c.got.map((m) => m.id)).toEqual(['in-tx', 'outside']);
    } finally {
      c.stop();
    }
  });

  it('delivers only the subscribed topic, and nothing after unsubscribing', async () => {
    const a = collect(runtime, 'test.a');
    const b = collect(runtime, 'test.b');
    await runtime.deps.notifier.publish(runtime.db, 'test.a', { id: 'for-a' });
    await a.next('for-a');
    a.stop();
    await runtime.deps.notifier.publish(runtime.db, 'test.a', { id: 'late' });
    await runtime.deps.notifier.publish(runtime.db, 'test.b', { id: 'for-b' });
    await b.next('for-b');
    b.stop();
    expect(a.got.map((m) => m.id)).toEqual(['for-a']);
    expect(b.got.map((m) => m.id)).toEqual(['for-b']);
  });

  it("carries ids and short codes only, under PostgreSQL's payload limit; the field is named", async () => {
    expect(() => notifyMessage('Bad Topic', {})).toThrow(/^topic: /);
    expect(() => notifyMessage('t.x', { note: 'x'.repeat(201) })).toThrow(/^payload\.note: .*ids and short codes only/);
    expect(() => notifyMessage('t.x', { nested: { a: 1 } as never })).toThrow(/^payload\.nested: /);
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'x'.repeat(150)]));
    expect(() => notifyMessage('t.x', many)).toThrow(new RegExp(`^payload: \\d+ bytes, above the ${MAX_NOTIFY_BYTES}`));
    await expect(runtime.deps.notifier.publish(runtime.db, 't.x', { note: 'y'.repeat(500) })).rejects.toThrow(/payload\.note/);
  });

  it.runIf(onPostgres)('reaches every runtime on the database (PostgreSQL)', async () => {
    const other = await testRuntime();
    try {
      const there = collect(other, 'test.across');
      const here = collect(runtime, 'test.across');
      await runtime.deps.notifier.publish(runtime.db, 'test.across', { id: 'from-here' });
      await Promise.all([there.next('from-here'), here.next('from-here')]);
      there.stop();
      here.stop();
    } finally {
      await other.close();
    }
  });

  it.runIf(onPostgres)('a lost LISTEN connection comes back, says resync, and delivers again (PostgreSQL)', async () => {
    // A database of its own with a LISTEN connection named for this test, so that only it is cut.
    const name = `wops-listen-test-${process.pid}-${Date.now()}`;
    const errors: string[] = [];
    const db = openPostgres(DATABASE_URL!, { poolSize: 2, applicationName: name, minBackoffMs: 20, onError: (_err, what) => errors.push(what) });
    const notifier = await openNotifier(db);
    const got: string[] = [];
    let resyncs = 0;
    notifier.subscribe(
      'test.reconnect',
      (m) => got.push(String(m.id)),
      () => resyncs++,
    );
    const pids = () => runtime.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [name]);
    try {
      const before = one(await pids(), 'the LISTEN connection');
      await runtime.db.query('SELECT pg_terminate_backend($1)', [before.pid]);
      await until(() => resyncs === 1);
      expect(errors).toContain('LISTEN connection lost; reconnecting');
      await runtime.deps.notifier.publish(runtime.db, 'test.reconnect', { id: 'after' });
      await until(() => got.includes('after'));
      const after = one(await pids(), 'the new LISTEN connection');
      expect(after.pid).not.toBe(before.pid);
    } finally {
      await notifier.close();
      await db.close();
    }
  });
});

async function until(ok: () => boolean) {
  for (const started = Date.now(); !ok(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() - started > 5000) throw new Error('not within 5 s');
  }
}

describe('approval.wait wakes on the notification', () => {
  it('answers a decision, and an expiry, in well under its 30 s safety poll (a decision made by another runtime too)', async () => {
    // On PostgreSQL the decision comes from a second runtime (another process, as far as the notifier knows).
    const decider = onPostgres ? await testRuntime() : runtime;
    const app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
    const deciderApp = decider === runtime ? app : await buildApp({ runtime: decider, logger: false, rateLimitPerMinute: 0 });
    try {
      const org = await freshOrg(runtime, 'wait');
      const client = new TestClient(app, org.adminKey);
      const agent = await client.mint({ tier: 'agent' });
      const approver = await client.mint({ tier: 'approver' });
      const filed = await client.ok(
        'approval.request',
        { actionClass: 'board.plan', payloadHash: 'a'.repeat(64), subject: { kind: 'board.plan', subjectId: 'plan_w', summary: 'a plan' } },
        { key: agent.apiKey },
      );
      const started = Date.now();
      const waiting = client.get('approval.wait', { approvalId: filed.approvalId, timeoutMs: 20_000 }, { key: agent.apiKey });
      await new Promise((r) => setTimeout(r, 200));
      await new TestClient(deciderApp, org.adminKey).ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver.apiKey });
      const woke = await waiting;
      expect(woke.body).toMatchObject({ status: 'approved', timedOut: false });
      expect(Date.now() - started).toBeLessThan(5000);

      // Expiry is not notified: the wait reads again just after it instead of at its next safety poll.
      const expiring = await client.ok(
        'approval.request',
        { actionClass: 'board.plan', payloadHash: 'c'.repeat(64), subject: { kind: 'board.plan', subjectId: 'plan_x', summary: 'expires' } },
        { key: agent.apiKey },
      );
      await runtime.db.query(`UPDATE approvals SET expires_at = now() + interval '300 milliseconds' WHERE approval_id = $1`, [expiring.approvalId]);
      const since = Date.now();
      const expired = await client.get('approval.wait', { approvalId: expiring.approvalId, timeoutMs: 20_000 }, { key: agent.apiKey });
      expect(expired.body).toMatchObject({ status: 'expired', timedOut: false });
      expect(Date.now() - since).toBeLessThan(5000);
    } finally {
      await app.close();
      if (deciderApp !== app) await deciderApp.close();
      if (decider !== runtime) await decider.close();
    }
  });
});
