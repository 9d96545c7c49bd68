import { expect } from 'vitest';
import { one, type Queryable } from '../../db/types.js';

/** Tables with a row whose text contains `needle`, over every table of the schema: where a secret may have leaked. */
export async function tablesHolding(db: Queryable, needle: string): Promise<string[]> {
  const tables = await db.query<{ t: string }>(
    `SELECT quote_ident(table_name) AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  expect(tables.map((r) => r.t)).toEqual(expect.arrayContaining(['idempotency', 'events', 'api_keys']));
  const hits: string[] = [];
  for (const { t } of tables) {
    const { n } = one(await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t} x WHERE strpos(x::text, $1) > 0`, [needle]));
    if (n > 0) hits.push(t);
  }
  return hits;
}
