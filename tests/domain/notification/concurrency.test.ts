import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../../domain/deployed.js';
import { NotificationDelivery } from '../../../domain/notification/delivery.js';
import { expectOk } from '../../helpers/calls.js';
import { onPostgres } from '../../helpers/harness.js';
import { relayConfig } from '../../mail/kit.js';
import { one } from '../../../db/types.js';
import { assign, createTask, human, mailsTo, openKit, rowsOf, type Kit } from './kit.js';

/** Delivery is safe to repeat and to run in several instances and processes: each notification is mailed once. */

let kit: Kit;
beforeAll(async () => {
  kit = await openKit({}, { refuse: { 'busy@example.test': 450, 'gone@example.test': 550 } });
});
afterAll(() => kit?.close());

const assignMany = async (to: string, n: number, label: string) => {
  for (let i = 0; i < n; i++) await assign(kit, (await createTask(kit, { title: `${label} ${i}` })).id, to);
};
const cursor = async () =>
  Number(one(await kit.s.runtime.db.query<{ seq: number }>('SELECT seq FROM notification_cursors WHERE org_id = $1', [kit.s.org.orgId])).seq);

describe('delivery, repeated and concurrent', () => {
  it('deciding the same events again (a lost cursor move) makes no second notification and no second mail', async () => {
    const p = await human(kit, 'repeat');
    const from = await cursor();
    await assignMany(p.id, 2, 'Repeat');
    await kit.delivery.runOnce();
    expect(await mailsTo(kit, p.email)).toHaveLength(2);
    await kit.s.runtime.db.query('UPDATE notification_cursors SET seq = $2 WHERE org_id = $1', [kit.s.org.orgId, from]);
    const again = await kit.delivery.runOnce();
    expect(again.claimed).toBe(0);
    expect(await mailsTo(kit, p.email)).toHaveLength(2);
    expect((await rowsOf(kit, p.id)).filter((r) => r.type === 'task.assigned').map((r) => [r.status, r.attempts])).toEqual([
      ['sent', 1],
      ['sent', 1],
    ]);
  });

  it('two instances at once, in batches that split a task’s creation from its assignment: each notification once', async () => {
    const p = await human(kit, 'twice');
    await assignMany(p.id, 12, 'Twice');
    const [a, b] = [kit.newDelivery({ batch: 5 }), kit.newDelivery({ batch: 5 })];
    await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
    const subjects = (await mailsTo(kit, p.email)).map((m) => m.subject).sort();
    expect(subjects).toEqual(Array.from({ length: 12 }, (_, i) => `Assigned to you: Twice ${i}`).sort());
  });

  it.runIf(onPostgres)('on PostgreSQL, two processes’ deliveries at once send no mail twice', async () => {
    const second = await createRuntime({ databaseUrl: kit.url, mail: relayConfig(kit.sink.url), poolSize: 10 });
    try {
      const p = await human(kit, 'procs');
      await assignMany(p.id, 30, 'Procs');
      const mine = kit.newDelivery({ batch: 4 });
      const theirs = new NotificationDelivery(second.deps, { batch: 4, now: () => kit.clock.now });
      await Promise.all([mine.runOnce(), theirs.runOnce(), mine.runOnce(), theirs.runOnce()]);
      await Promise.all([mine.runOnce(), theirs.runOnce()]);
      const subjects = (await mailsTo(kit, p.email)).map((m) => m.subject);
      expect(subjects).toHaveLength(30);
      expect(new Set(subjects).size).toBe(30);
    } finally {
      await second.close();
    }
  });

  it('a temporary refusal is tried again after the lease, and given up after maxAttempts; a permanent one at once', async () => {
    const p = await human(kit, 'busy');
    const q = await human(kit, 'gone');
    expectOk('member.update', await kit.s.client.rpc('member.update', { memberId: p.id, email: 'busy@example.test' }));
    expectOk('member.update', await kit.s.client.rpc('member.update', { memberId: q.id, email: 'gone@example.test' }));
    const delivery = kit.newDelivery({ leaseMs: 60_000, maxAttempts: 2 });
    kit.clock.now = new Date('2026-04-01T12:00:00Z');
    await assignMany(p.id, 1, 'Busy');
    await assignMany(q.id, 1, 'Gone');
    await delivery.runOnce();
    const state = async (id: string) => (await rowsOf(kit, id)).filter((r) => r.type === 'task.assigned').map((r) => [r.status, r.attempts]);
    expect(await state(p.id)).toEqual([['pending', 1]]);
    expect(await state(q.id)).toEqual([['failed', 1]]);
    kit.clock.now = new Date('2026-04-01T12:00:59Z');
    await delivery.runOnce();
    expect(await state(p.id)).toEqual([['pending', 1]]); // still leased
    kit.clock.now = new Date('2026-04-01T12:01:00Z');
    await delivery.runOnce();
    expect(await state(p.id)).toEqual([['failed', 2]]);
    expect(await mailsTo(kit, 'busy@example.test')).toEqual([]);
  });
});
