import { one, type Queryable } from '../../db/types.js';
import type { Runtime } from '../../domain/deployed.js';
import { readSnapshot } from '../../ledger/read.js';

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
