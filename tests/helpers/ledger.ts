import { expect } from 'vitest';
import { one, type Queryable } from '../../db/types.js';
import type { CallOutcome } from '../../domain/core/pipeline.js';
import type { Runtime } from '../../domain/deployed.js';
import { readSnapshot } from '../../ledger/read.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import type { TestOrg } from './harness.js';

/** The org's chain head straight from the database. */
export async function headOf(q: Queryable, orgId: string): Promise<{ seq: number; rowHash: string }> {
  return (await readSnapshot(q, orgId)).head;
}

export async function eventCount(q: Queryable, orgId: string): Promise<number> {
  const row = one(await q.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [orgId]));
  return row.n;
}

/**
 * Run fn with the events table's append-only trigger disabled, in one transaction that re-enables it before
 * committing, so no other connection ever sees the ledger unprotected (ALTER TABLE holds its lock until commit).
 */
export async function tamper(runtime: Runtime, fn: (q: Queryable) => Promise<void>): Promise<void> {
  await runtime.db.tx(async (q) => {
    await q.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
    await fn(q);
    await q.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
  });
}

/**
 * `calls` keyed board.createTask calls at once, spread over `orgs` in turn, through the runtime's pipeline. Checks
 * every answer ok, answers of an org in seq order, one event per call (1..n per org, about the tasks answered), every
 * chain sound, and every key replaying its stored frame.
 */
export async function raceCreateTasks(runtime: Runtime, orgs: TestOrg[], calls: number): Promise<void> {
  const order = new Map<string, number[]>();
  const outcomes: CallOutcome[] = [];
  const call = (i: number) =>
    runtime.pipeline.call({ method: 'board.createTask', params: { title: `race ${i}` }, apiKey: orgs[i % orgs.length].adminKey, idempotencyKey: `race-${i}` });
  await Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      const out = await call(i);
      outcomes[i] = out;
      // The order in which answers came, per org.
      const orgId = orgs[i % orgs.length].orgId;
      if (out.event) order.set(orgId, [...(order.get(orgId) ?? []), out.event.seq]);
    }),
  );
  for (const [i, o] of outcomes.entries()) expect(o.frame, `call ${i}`).toMatchObject({ ok: true });
  for (const org of orgs) {
    const n = calls / orgs.length;
    // Answers came in seq order, and each call appended exactly one event: 1..n.
    expect(order.get(org.orgId)).toEqual(Array.from({ length: n }, (_, k) => k + 1));
    const events = await runtime.db.query<{ entity_id: string }>('SELECT entity_id FROM events WHERE org_id = $1 ORDER BY seq', [org.orgId]);
    const ids = outcomes.filter((_, i) => orgs[i % orgs.length] === org).map((o) => (o.frame as { result: { id: string } }).result.id);
    expect(new Set(events.map((e) => e.entity_id))).toEqual(new Set(ids));
    expect(await verifyOrgChain(runtime.db, org.orgId)).toMatchObject({ ok: true, count: n });
  }
  for (const [i, o] of outcomes.entries()) expect(await call(i)).toMatchObject({ replayed: true, body: o.body });
}
