import { describe, expect, expectTypeOf, it } from 'vitest';
import { one, type Rows } from '../../db/types.js';
import { openDb } from '../../db/index.js';
import { DATABASE_URL } from '../helpers/harness.js';

/*
 * A missing row is never typed as present (db/types.ts): a query's rows are `Rows<T>`, so the first row read by
 * destructuring or index is `T | undefined` until checked, and one() is the check for a row that must be there.
 */

describe('Rows and one()', () => {
  it('types the first row as possibly missing, and one() as present', () => {
    const rows = [] as Rows<{ id: string }>;
    const [first] = rows;
    expectTypeOf(first).toEqualTypeOf<{ id: string } | undefined>();
    expectTypeOf(rows[0]).toEqualTypeOf<{ id: string } | undefined>();
    expectTypeOf(rows.map((r) => r.id)).toEqualTypeOf<string[]>();
    expectTypeOf(one<{ id: string }>).returns.toEqualTypeOf<{ id: string }>();
  });

  it('one() answers the row a statement returned, and throws naming the statement when there is none', async () => {
    const db = await openDb({ databaseUrl: DATABASE_URL, inMemory: true });
    try {
      expect(one(await db.query<{ n: number }>('SELECT 1 AS n'))).toEqual({ n: 1 });
      expect(one(await db.query<{ n: number }>('SELECT n FROM generate_series(1, 3) AS n ORDER BY n'))).toEqual({ n: 1 });
      const none = await db.query<{ n: number }>('SELECT 1 AS n WHERE false');
      expect(none).toEqual([]);
      expect(() => one(none)).toThrow('expected a row from the statement, got none');
      expect(() => one(none, 'the org head')).toThrow('expected a row from the org head, got none');
    } finally {
      await db.close();
    }
  });
});
