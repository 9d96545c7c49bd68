import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../../helpers/harness.js';

/*
 * Mail's GIN indexes store each message's entries as it arrives (fastupdate off, migration 084, decision 0084): no
 * pending list for every search to read whole until a vacuum merges it.
 */

let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

describe('email search indexes', () => {
  it('the sender trigrams and the day-windowed word and stem indexes have fastupdate off', async () => {
    const rows = await s.runtime.db.query<{ relname: string; reloptions: string[] | null }>(
      `SELECT relname, reloptions FROM pg_class WHERE relname = ANY($1::text[]) ORDER BY relname`,
      [['email_messages_from', 'email_messages_search_doc', 'email_messages_search_stem']],
    );
    expect(rows).toEqual([
      { relname: 'email_messages_from', reloptions: ['fastupdate=off'] },
      { relname: 'email_messages_search_doc', reloptions: ['fastupdate=off'] },
      { relname: 'email_messages_search_stem', reloptions: ['fastupdate=off'] },
    ]);
  });
});
