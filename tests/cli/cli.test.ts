import { afterAll, expect, it } from 'vitest';
import { cliOnTempDataDir, startCli } from '../helpers/cli.js';
import { openDb } from '../../db/index.js';
import { pgliteOnly } from '../helpers/harness.js';

/** The CLI as a user runs it: real processes on a PGlite data dir of their own. */
const { dataDir, env, cli, remove } = cliOnTempDataDir('wops-cli-');

afterAll(remove);

pgliteOnly('tests/cli/cli')('cli', () => {
  it('serve: bootstraps with BOOTSTRAP_ADMIN_KEY, locks the data dir, serves, and closes on SIGTERM', async () => {
    const adminKey = 'wops_cli_test_bootstrap_key_0123456789';
    const server = startCli(['serve'], { env: { ...env, PORT: '0', BOOTSTRAP_ADMIN_KEY: adminKey } });
    let output = '';
    server.stdout.on('data', (d) => (output += d));
    server.stderr.on('data', (d) => (output += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
      const check = () => {
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (m && output.includes('Created org "default"')) {
          clearTimeout(timer);
          resolve(m[1]);
        } else setTimeout(check, 100);
      };
      check();
    });
    const who = await fetch(`${url}/api/v1/org/whoami`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(who.status).toBe(200);
    expect(await who.json()).toMatchObject({ slug: 'default', tier: 'admin' });
    expect(output).not.toContain(adminKey); // the set key is never echoed, and logs never print keys

    const second = cli('verify');
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/in use by another process/);

    const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/"msg":"closing"/);
  });

  it('org create, key mint and verify; verify reports a tampered row by seq and exits 1', async () => {
    const created = cli('org', 'create', '--slug', 'cli-acme', '--name', 'Acme');
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/Admin API key \(shown once\): wops_/);
    const minted = cli('key', 'mint', '--org', 'cli-acme', '--name', 'bot', '--tier', 'reader');
    expect(minted.status, minted.stderr).toBe(0);
    expect(minted.stdout).toMatch(/for agent agt_/);
    const bad = cli('key', 'mint', '--org', 'cli-acme', '--name', 'bot', '--tier', 'root');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/tier: must be one of/);

    const ok = cli('verify', '--org', 'cli-acme');
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^ok\s+cli-acme: 2 events verified, head seq 2 [0-9a-f]{64}/m);

    const db = await openDb({ dataDir });
    try {
      await db.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
      await db.query(`UPDATE events SET payload = '{"forged":true}' WHERE seq = 2 AND org_id = (SELECT org_id FROM orgs WHERE slug = 'cli-acme')`);
    } finally {
      await db.close();
    }
    const broken = cli('verify');
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(/^BROKEN cli-acme: first break at seq 2 \(row_hash\)/m);
    expect(broken.stdout).toMatch(/^ok\s+default:/m);
  });

  it('help and usage errors', () => {
    const help = cli('help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/verify \[--org <slug>\]/);
    expect(help.stdout).toMatch(/DATABASE_URL/);
    const unknown = cli('frobnicate');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
  });
});
