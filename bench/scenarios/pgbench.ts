import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { hashApiKey } from '../../domain/core/auth.js';
import type { BenchOrg } from '../fixture.js';
import type { SentStatement } from './roundtrips.js';

/**
 * The physical baseline: PostgreSQL's own pgbench running the statements the server sent for one keyed
 * board.createTask (captured on the wire side of node-postgres, bench/scenarios/roundtrips.ts), as prepared
 * statements, with 32 clients across the bench's orgs. One script per org (pgbench picks one at random per
 * transaction); the task id and the idempotency key are pgbench variables, random per transaction, and every
 * other value is the captured one (the org's id and actor swapped in).
 */
const run = promisify(execFile);

export interface PgbenchResult {
  tps: number;
  latencyAvgMs: number;
  transactions: number;
  failed: number;
  statementsPerTransaction: number;
  /** The first org's script, for the record. */
  script: string;
  command: string;
}

/** Why pgbench cannot run here, or undefined when it can. */
export async function pgbenchMissing(): Promise<string | undefined> {
  try {
    await run('pgbench', ['--version']);
    return undefined;
  } catch {
    return 'pgbench is not installed (Debian: apt-get install postgresql-client)';
  }
}

/**
 * A value as a SQL literal pgbench passes through untouched: an E'' string whose colons are written \x3a (pgbench
 * reads `:name` anywhere in a command as a variable, quotes or not). Untyped, so PostgreSQL infers its type from
 * the statement exactly as it does for a parameter.
 */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const text =
    value instanceof Date
      ? value.toISOString()
      : Array.isArray(value)
        ? `{${value.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
  return `E'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/:/g, '\\x3a')}'`;
}

/** The statement's own quoted literals with their colons escaped the same way (e.g. to_char's 'HH24:MI:SS'). */
function escapeTextLiterals(sql: string): string {
  return sql.replace(/(^|[^A-Za-z0-9_'])'((?:[^']|'')*)'/g, (whole, before: string, body: string) =>
    body.includes(':') ? `${before}E'${body.replace(/\\/g, '\\\\').replace(/''/g, "\\'").replace(/:/g, '\\x3a')}'` : whole,
  );
}

/**
 * A pgbench script replaying `sent` as `org`: values equal to the captured task id or idempotency key become the
 * per-transaction variables :tid and :ikey (a text holding the task id is concatenated around :tid), the captured org's id, actor and key hash become this org's (inside JSON
 * too).
 */
export function pgbenchScript(sent: readonly SentStatement[], captured: { org: BenchOrg; taskId: string; key: string }, org: BenchOrg): string {
  const pairs: [string, string][] = [
    [captured.org.orgId, org.orgId],
    [captured.org.actor, org.actor],
    [hashApiKey(captured.org.key), hashApiKey(org.key)],
  ];
  const swap = (v: unknown): unknown => (typeof v === 'string' ? pairs.reduce((t, [from, to]) => t.split(from).join(to), v) : v);
  const lines = ['\\set tid random(1, 9000000000000000000)', '\\set ikey random(1, 9000000000000000000)'];
  for (const { text, values } of sent) {
    const sql = escapeTextLiterals(text.trim().replace(/\s+/g, ' ')).replace(/\$(\d+)\b/g, (_m, n: string) => {
      const v = values[Number(n) - 1];
      if (v === captured.taskId) return ':tid';
      if (v === captured.key) return ':ikey';
      // The task id inside a text (the event's hashed text, the stored frame): the same variable, so the chain
      // pgbench writes still verifies.
      if (typeof v === 'string' && v.includes(captured.taskId))
        return `(${v
          .split(captured.taskId)
          .map((part) => literal(swap(part)))
          .join(' || :tid || ')})`;
      return literal(swap(v));
    });
    lines.push(`${sql};`);
  }
  return `${lines.join('\n')}\n`;
}

/** Run the scripts (one per org, equal weights) for `seconds` with `clients` prepared-statement connections. */
export async function runPgbench(url: string, scripts: string[], opts: { clients: number; seconds: number; threads?: number }): Promise<PgbenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wops-pgbench-'));
  try {
    const files: string[] = [];
    for (const [i, script] of scripts.entries()) {
      const file = path.join(dir, `org${i}.sql`);
      await writeFile(file, script);
      files.push(`${file}@1`);
    }
    const args = ['-n', '-M', 'prepared', '-c', String(opts.clients), '-j', String(opts.threads ?? 2), '-T', String(opts.seconds)];
    for (const f of files) args.push('-f', f);
    args.push(url);
    const { stdout, stderr } = await run('pgbench', args, { maxBuffer: 16 * 1024 * 1024 });
    const num = (re: RegExp) => Number(re.exec(stdout)?.[1] ?? NaN);
    const tps = num(/tps = ([\d.]+) \(without initial connection time\)/);
    const transactions = num(/number of transactions actually processed: (\d+)/);
    const failed = num(/number of failed transactions: (\d+)/) || 0;
    if (!Number.isFinite(tps)) throw new Error(`pgbench: no tps in its output:\n${stdout}\n${stderr}`);
    // Its error lines name the failing statement: a baseline that failed would be no baseline.
    if (/error|aborted/i.test(stderr) || failed > 0) throw new Error(`pgbench: transactions failed:\n${stderr.slice(0, 2000)}`);
    return {
      tps,
      latencyAvgMs: num(/latency average = ([\d.]+) ms/),
      transactions,
      failed,
      statementsPerTransaction: scripts[0].split('\n').filter((l) => l.endsWith(';')).length,
      script: scripts[0],
      command: `pgbench ${args.map((a) => (a.startsWith(dir) ? a.slice(dir.length + 1) : a)).join(' ')}`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
