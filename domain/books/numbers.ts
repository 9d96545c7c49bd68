import { one, type Queryable } from '../../db/types.js';

/** Gapless per-org document numbers: `INV-0001`, `CN-0001`. The counter row is locked until commit. */
export async function nextNumber(q: Queryable, orgId: string, prefix: string): Promise<string> {
  const row = one(
    await q.query<{ value: number }>(
      `INSERT INTO books_counters (org_id, name, value) VALUES ($1, $2, 1)
     ON CONFLICT (org_id, name) DO UPDATE SET value = books_counters.value + 1
     RETURNING value`,
      [orgId, prefix],
    ),
  );
  return `${prefix}-${String(row.value).padStart(4, '0')}`;
}
