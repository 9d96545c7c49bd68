import { afterAll, expect, it } from 'vitest';
import { cliOnTempDataDir } from '../helpers/cli.js';
import { openDb } from '../../db/index.js';
import { pgliteOnly } from '../helpers/harness.js';

/** `mailbox-create`, `mailbox-triage` and `mailbox-members`: the operator makes a shared mailbox, turns its background triage on and off, and changes its members, as a user runs it. */
const { dataDir, cli, remove } = cliOnTempDataDir('wops-cli-mailbox-');

afterAll(remove);

const principalOf = (stdout: string) => /for (?:human|agent) ((?:usr|agt)_[a-z0-9]+)/.exec(stdout)?.[1] ?? '';

pgliteOnly('tests/cli/mailbox')('cli mailbox-create and mailbox-members', () => {
  it('creates a mailbox with its folders and members, ledgered; changes members; refuses what is wrong, naming the flag', async () => {
    expect(cli('org', 'create', '--slug', 'cli-mail', '--name', 'Mail').status).toBe(0);
    const ann = principalOf(cli('key', 'mint', '--org', 'cli-mail', '--name', 'ann', '--tier', 'member').stdout);
    const bot = principalOf(cli('key', 'mint', '--org', 'cli-mail', '--name', 'bot', '--tier', 'agent').stdout);
    expect(ann).toMatch(/^usr_/);
    expect(bot).toMatch(/^agt_/);
    const made = cli(
      'mailbox-create',
      '--org',
      'cli-mail',
      '--address',
      'Sales@Acme.example',
      '--member',
      `${ann}:owner`,
      '--member',
      `${bot}:agent`,
      '--name',
      'Sales',
    );
    expect(made.status, made.stderr).toBe(0);
    expect(made.stdout).toMatch(
      /^Created mailbox sales@acme\.example \(mbx_[a-z0-9]+\) in cli-mail, with folders Inbox, Drafts, Sent, Archive, Spam and Trash\./,
    );
    expect(made.stdout).toContain(`${bot}  agent`);

    const bad = cli('mailbox-create', '--org', 'cli-mail', '--address', 'ops@acme.example', '--member', `${bot}:owner`);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--member agt_[a-z0-9]+: an agent's role is agent, not owner/);
    expect(cli('mailbox-create', '--org', 'cli-mail', '--address', 'not-an-address', '--member', `${ann}:owner`).stderr).toMatch(
      /--address "not-an-address": must be an email address/,
    );
    const usage = cli('mailbox-create', '--org', 'cli-mail', '--member', `${ann}:owner`);
    expect(usage.status, 'a missing flag is a usage error').toBe(2);
    expect(usage.stderr).toMatch(/missing --address[\s\S]*mailbox-create --org <slug> --address <a@domain> --member <member id>:<role>/);

    const triage = cli('mailbox-triage', '--org', 'cli-mail', '--address', 'sales@acme.example', '--as', bot);
    expect(triage.status, triage.stderr).toBe(0);
    expect(triage.stdout).toMatch(new RegExp(`^Set the background triage of sales@acme\\.example \\(mbx_[a-z0-9]+\\) in cli-mail: on, as ${bot}:`));
    expect(cli('mailbox-triage', '--org', 'cli-mail', '--address', 'sales@acme.example').status, 'neither --as nor --off').toBe(2);
    expect(cli('mailbox-triage', '--org', 'cli-mail', '--address', 'sales@acme.example', '--off').stdout).toMatch(/: off: its threads are triaged only when/);

    const changed = cli('mailbox-members', '--org', 'cli-mail', '--address', 'sales@acme.example', '--remove', bot);
    expect(changed.status, changed.stderr).toBe(0);
    expect(changed.stdout).toMatch(/^Changed the members of sales@acme\.example/);
    expect(changed.stdout).not.toContain(bot);
    const last = cli('mailbox-members', '--org', 'cli-mail', '--address', 'sales@acme.example', '--member', `${ann}:member`);
    expect(last.status).toBe(1);
    expect(last.stderr).toMatch(/keeps at least one owner/);

    const db = await openDb({ dataDir });
    try {
      const rows = await db.query<{ kinds: string; folders: number; members: number }>(
        `SELECT (SELECT string_agg(kind, ',' ORDER BY seq) FROM events e WHERE e.org_id = o.org_id AND e.family = 'email') AS kinds,
                (SELECT count(*)::int FROM email_folders f WHERE f.org_id = o.org_id) AS folders,
                (SELECT count(*)::int FROM email_mailbox_members m WHERE m.org_id = o.org_id) AS members
           FROM orgs o WHERE o.slug = 'cli-mail'`,
      );
      expect(rows).toEqual([
        { kinds: 'email.mailbox.create,email.mailbox.set_triage,email.mailbox.set_triage,email.mailbox.set_members', folders: 6, members: 1 },
      ]);
    } finally {
      await db.close();
    }
  }, 400_000);
});
