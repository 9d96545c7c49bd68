import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../domain/core/auth.js';
import { one } from '../../db/types.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import type { Runtime } from '../../domain/deployed.js';
import { pgbenchMissing, pgbenchScript, runPgbench } from '../../bench/scenarios/pgbench.js';
import { countRoundTrips } from '../../bench/scenarios/roundtrips.js';
import type { BenchOrg } from '../../bench/fixture.js';
import { DATABASE_URL, freshOrg, onPostgres, testRuntime } from '../helpers/harness.js';

/**
 * The bench's physical baseline (bench/scenarios/pgbench.ts): the statements captured from one keyed createTask become
 * a pgbench script per org. On PostgreSQL with pgbench installed, the scripts run and the orgs' chains still verify:
 * pgbench ran the server's own statements, hashes and all.
 */
const org = (n: number): BenchOrg => ({ orgId: `org_${n}`, slug: `s${n}`, key: `wops_key${n}`, actor: `usr_${n}` });

describe('pgbenchScript', () => {
  const sent = [
    { text: 'SELECT 1 FROM api_keys WHERE key_hash = $1', values: [hashApiKey('wops_key0')] },
    { text: 'BEGIN', values: [] },
    {
      text: 'INSERT INTO t (org_id, id, k, body)\n   VALUES ($1, $2, $3, $4)',
      values: ['org_0', 'task_abc', 'idem-1', '{"actor":"usr_0","seq":12,"it\'s":"a\\\\b"}'],
    },
    { text: "SELECT to_char(now(), 'HH24:MI:SS'), $1::text[], $2", values: [['a', 'b"c'], null] },
    { text: 'UPDATE f SET frame = $1', values: ['{"id":"task_abc"}'] },
    { text: 'COMMIT', values: [] },
  ];
  const script = pgbenchScript(sent, { org: org(0), taskId: 'task_abc', key: 'idem-1' }, org(7));
  const lines = script.trim().split('\n');

  it('sets the per-transaction variables and keeps one statement per line', () => {
    expect(lines.slice(0, 2)).toEqual(['\\set tid random(1, 9000000000000000000)', '\\set ikey random(1, 9000000000000000000)']);
    expect(lines.slice(2).every((l) => l.endsWith(';'))).toBe(true);
    expect(lines).toHaveLength(2 + sent.length);
  });

  it("swaps in the org's id, actor and key hash, and the task id and idempotency key for variables", () => {
    expect(lines[2]).toBe(`SELECT 1 FROM api_keys WHERE key_hash = E'${hashApiKey('wops_key7')}';`);
    expect(lines[6]).toBe(`UPDATE f SET frame = (E'{"id"\\x3a"' || :tid || E'"}');`);
    expect(lines[4]).toBe(
      `INSERT INTO t (org_id, id, k, body) VALUES (E'org_7', :tid, :ikey, E'{"actor"\\x3a"usr_7","seq"\\x3a12,"it\\'s"\\x3a"a\\\\\\\\b"}');`,
    );
  });

  it('leaves pgbench no colon to take for a variable but its own', () => {
    const withoutCasts = script.replace(/::/g, '');
    expect([...withoutCasts.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]).filter((v) => v !== 'tid' && v !== 'ikey')).toEqual([]);
    expect(lines[5]).toBe(`SELECT to_char(now(), E'HH24\\x3aMI\\x3aSS'), E'{"a","b\\\\"c"}'::text[], NULL;`);
  });
});

const runs = onPostgres ? describe : describe.skip;

runs('pgbench replaying a captured createTask (PostgreSQL)', () => {
  let runtime: Runtime;
  let missing: string | undefined;
  const orgs: BenchOrg[] = [];
  beforeAll(async () => {
    missing = await pgbenchMissing();
    runtime = await testRuntime();
    for (let i = 0; i < 2; i++) {
      const o = await freshOrg(runtime, 'pgb');
      const { principal_id } = one(await runtime.db.query<{ principal_id: string }>('SELECT principal_id FROM api_keys WHERE key_id = $1', [o.adminKeyId]));
      orgs.push({ orgId: o.orgId, slug: o.slug, key: o.adminKey, actor: principal_id });
    }
  });
  afterAll(() => runtime?.close());

  it('runs the statements of the call for each org, and every chain still verifies', async (t) => {
    if (missing) return t.skip(missing);
    const { firstExecution } = await countRoundTrips(DATABASE_URL!, orgs[0], 'pgbtest');
    const sent = firstExecution.sent;
    const taskId = sent.find((s) => s.text.includes('INSERT INTO board_tasks'))!.values[1] as string;
    const scripts = orgs.map((o) => pgbenchScript(sent, { org: orgs[0], taskId, key: 'pgbtest-rt-1' }, o));
    expect(scripts[0]).toContain(':ikey');
    expect(scripts[0]).toContain(':tid');
    const heads = async () =>
      Number(one(await runtime.db.query<{ n: string }>('SELECT sum(seq)::text AS n FROM ledger_heads WHERE org_id = ANY($1)', [orgs.map((o) => o.orgId)])).n);
    const before = await heads();
    const result = await runPgbench(DATABASE_URL!, scripts, { clients: 2, seconds: 1, threads: 1 });
    expect(result.transactions).toBeGreaterThan(0);
    expect(result.statementsPerTransaction).toBe(sent.length);
    expect((await heads()) - before).toBe(result.transactions);
    for (const o of orgs) expect((await verifyOrgChain(runtime.db, o.orgId)).ok).toBe(true);
  });
});
