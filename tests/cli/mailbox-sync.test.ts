import { existsSync } from 'node:fs';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDb } from '../../db/index.js';
import { cliOnTempDataDir } from '../helpers/cli.js';
import { onPostgres, pgliteOnly } from '../helpers/harness.js';
import { compose, DOVECOT, startDovecot, type Dovecot } from '../domain/email/inbound-kit.js';

/** `mailbox-sync` as an operator runs it: a real dovecot to import from, the CLI on a PGlite data dir of its own. */
const { dataDir, cli, remove } = cliOnTempDataDir('wops-cli-mailbox-sync-');
const USER = 'ops@acme.example';
const PASS = 'cli-sync-secret-4417';
let dc: Dovecot | undefined;

const present = existsSync(DOVECOT);
if (!present) console.info(`tests/cli/mailbox-sync: skipped: ${DOVECOT} is not installed (apt-get install dovecot-imapd)`);

beforeAll(async () => {
  if (!present || onPostgres) return;
  dc = await startDovecot(USER, PASS);
  const imap = new ImapFlow({ ...dc.source, auth: { user: USER, pass: PASS }, logger: false });
  await imap.connect();
  for (const subject of ['First', 'Second']) await imap.append('INBOX', await compose({ from: 'bob@client.example', to: USER, subject }));
  await imap.logout();
}, 60_000);
afterAll(async () => {
  await dc?.stop();
  remove();
});

pgliteOnly('tests/cli/mailbox-sync')('cli mailbox-sync', () => {
  it.skipIf(!present)(
    'imports with progress, imports nothing new the second time, and never prints the password',
    async () => {
      expect(cli('org', 'create', '--slug', 'cli-sync', '--name', 'Sync').status).toBe(0);
      const owner = /for human (usr_[a-z0-9]+)/.exec(cli('key', 'mint', '--org', 'cli-sync', '--name', 'ann', '--tier', 'member').stdout)?.[1] ?? '';
      expect(cli('mailbox-create', '--org', 'cli-sync', '--address', USER, '--member', `${owner}:owner`).status).toBe(0);
      const args = ['mailbox-sync', '--org', 'cli-sync', '--address', USER, '--imap', dc!.url];
      const first = cli(...args);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/ops@acme\.example@127\.0\.0\.1:\d+ INBOX: 2 messages, UIDVALIDITY \d+, first run/);
      expect(first.stdout).toContain('2/2: 2 imported, 0 already here');
      expect(first.stdout).toMatch(/Imported 2 new messages from INBOX into ops@acme\.example \(mbx_[a-z0-9]+\)\. The next run starts after UID 2/);
      const second = cli(...args);
      expect(second.status, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/last run got to UID 2/);
      expect(second.stdout).toMatch(/Imported 0 new messages from INBOX/);
      expect(`${first.stdout}${first.stderr}${second.stdout}${second.stderr}`).not.toContain(PASS);

      const wrong = cli('mailbox-sync', '--org', 'cli-sync', '--address', USER, '--imap', dc!.url.replace(encodeURIComponent(PASS), 'nope'));
      expect(wrong.status).toBe(1);
      expect(wrong.stderr).toMatch(/--imap: 127\.0\.0\.1 refused the user or password/);
      const usage = cli('mailbox-sync', '--org', 'cli-sync', '--address', USER);
      expect(usage.status).toBe(2);
      expect(usage.stderr).toMatch(/missing --imap/);

      const db = await openDb({ dataDir });
      try {
        const [row] = await db.query<{ messages: number; events: number }>(
          `SELECT (SELECT count(*)::int FROM email_messages m JOIN orgs o ON o.org_id = m.org_id WHERE o.slug = 'cli-sync') AS messages,
                (SELECT count(*)::int FROM events e JOIN orgs o ON o.org_id = e.org_id WHERE o.slug = 'cli-sync' AND e.kind = 'email.message.receive') AS events`,
        );
        expect(row).toEqual({ messages: 2, events: 2 });
      } finally {
        await db.close();
      }
    },
    120_000,
  );
});
