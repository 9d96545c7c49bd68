import { afterAll, expect, it } from 'vitest';
import { createRuntime } from '../../domain/deployed.js';
import { cliOnTempDataDir } from '../helpers/cli.js';
import { freshOrg } from '../helpers/harness.js';
import { EXTRA, control, until } from '../jobs/kit.js';
import { pgliteOnly } from '../helpers/harness.js';

/** `jobs`: pending, failed and done jobs as an operator sees them, on a data dir the CLI opens as a user runs it. */
const { dataDir, cli, remove } = cliOnTempDataDir('wops-cli-jobs-');

afterAll(remove);

pgliteOnly('tests/cli/jobs')('cli jobs', () => {
  it('lists jobs by state and org, newest first, with attempts, next run and the last error', async () => {
    const warnings: string[] = [];
    const log = {
      info() {},
      warn: (o: object, m?: string) => warnings.push(`${m}: ${(o as { err?: Error }).err?.message}`),
      error: (o: object, m?: string) => warnings.push(`${m}`),
    };
    const runtime = await createRuntime({ dataDir, ...EXTRA, workers: { pollingIntervalSeconds: 0.5 }, log });
    let slug: string;
    try {
      const org = await freshOrg(runtime, 'cli-jobs');
      slug = org.slug;
      const states = async () => (await runtime.db.query<{ state: string }>(`SELECT state::text FROM pgboss.job ORDER BY state`)).map((r) => r.state).join(',');
      const call = async (title: string) => {
        const outcome = await runtime.pipeline.call({ method: 'board.createTask', params: { title }, apiKey: org.adminKey });
        expect(outcome.frame.ok, outcome.body).toBe(true);
      };
      await call('done soon');
      await until('one done', async () => ((await states()) === 'completed' ? true : undefined));
      control.failuresLeft = 1;
      control.nextOptions = { retryLimit: 0 };
      await call('gives up at once');
      await until('one failed', async () => ((await states()) === 'completed,failed' ? true : undefined));
      control.nextOptions = { delaySeconds: 3600 };
      await call('in an hour');
      control.nextOptions = {};
      // The one failure the test made, said once (the scheduler logs each failed attempt); nothing else.
      expect(warnings).toEqual([expect.stringMatching(/^job jobtest\.\S+ attempt 0 failed: no retries left: transient failure of the test job/)]);
    } finally {
      await runtime.close();
    }

    const all = cli('jobs');
    expect(all.status, all.stderr).toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATE\s+ORG\s+ATTEMPTS\s+NEXT RUN\s+LAST ERROR$/);
    expect(lines.at(-1)).toBe('3 all jobs.');
    // Newest first: the delayed one runs latest.
    expect(lines[1]).toMatch(new RegExp(`^jobtest\\.moveTask\\s+created\\s+${slug!}\\s+0/4\\s+\\d{4}-\\d\\d-\\d\\dT`));

    const failed = cli('jobs', '--state', 'failed');
    expect(failed.status, failed.stderr).toBe(0);
    expect(failed.stdout).toMatch(new RegExp(`jobtest\\.moveTask\\s+failed\\s+${slug!}\\s+1/1\\s+-\\s+transient failure of the test job\\n1 failed jobs\\.`));
    expect(failed.stdout).not.toMatch(/second line/);

    const done = cli('jobs', '--state', 'done', '--org', slug!);
    expect(done.stdout).toMatch(new RegExp(`jobtest\\.moveTask\\s+completed\\s+${slug!}\\s+1/4\\s+-\\n1 done jobs of org ${slug!}\\.`));

    const limited = cli('jobs', '--limit', '1');
    expect(limited.stdout).toMatch(/1 all jobs \(the newest 1; --limit shows more\)\.\n$/);

    expect(cli('jobs', '--state', 'pending', '--org', 'no-such-org').stderr).toMatch(/--org: no org no-such-org/);
    const bad = cli('jobs', '--state', 'stuck');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--state: must be one of pending, failed, done/);
    expect(cli('help').stdout).toMatch(/jobs \[--state pending\|failed\|done\] \[--org <slug>\] \[--limit <n>\]/);
  });
});
