import { afterAll, expect, it } from 'vitest';
import { cliOnTempDataDir } from '../helpers/cli.js';
import { openDb } from '../../db/index.js';
import { pgliteOnly } from '../helpers/harness.js';

/** `books-settings`: the operator sets an org's state (Payday Super's public holidays), as a user runs it. */
const { dataDir, cli, remove } = cliOnTempDataDir('wops-cli-books-');

afterAll(remove);

pgliteOnly('tests/cli/books-settings')('cli books-settings', () => {
  it('sets the state, ledgered; refuses an unknown state and a missing flag', async () => {
    expect(cli('org', 'create', '--slug', 'cli-books', '--name', 'Books').status).toBe(0);
    const set = cli('books-settings', '--org', 'cli-books', '--state', 'QLD');
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^Books settings of cli-books: state QLD \(was NSW\)/);
    const bad = cli('books-settings', '--org', 'cli-books', '--state', 'Queensland');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--state: must be one of ACT, NSW, NT, QLD, SA, TAS, VIC, WA/);
    expect(cli('books-settings', '--org', 'cli-books').status).toBe(2);
    const db = await openDb({ dataDir });
    try {
      const [row] = await db.query<{ state: string; kinds: string }>(
        `SELECT s.state, (SELECT string_agg(kind, ',') FROM events e WHERE e.org_id = o.org_id AND kind LIKE 'books.settings%') AS kinds
           FROM orgs o JOIN books_settings s ON s.org_id = o.org_id WHERE o.slug = 'cli-books'`,
      );
      expect(row).toEqual({ state: 'QLD', kinds: 'books.settings.set_state' });
    } finally {
      await db.close();
    }
  });
});
