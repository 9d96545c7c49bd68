import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { ROOT } from '../server.js';
import { sha256Hex } from '../../protocol/hashing.js';
import type { BenchOrg } from '../fixture.js';
import { seededRow, type SeededChain } from './reads.js';

export interface VerifyCliResult {
  events: number;
  /** The walk as the CLI times it (its own "(N ms)"), without process start-up. */
  ms: number;
  eventsPerSecond: number;
  /** Peak resident set size of the CLI process (VmHWM, sampled every 10 ms), in MB. */
  peakRssMb: number;
  /** Wall time of the whole command, start-up included. */
  processMs: number;
}

/**
 * `npm run cli -- verify --org <slug>` exactly as an operator runs it (node with the tsx loader, in one process
 * so /proc shows its memory), its resident set sampled every 10 ms: the walk's rate from its own output line.
 */
export async function verifyWithCli(databaseUrl: string, org: BenchOrg): Promise<VerifyCliResult> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'verify', '--org', org.slug], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
  let peakKb = 0;
  const sample = async () => {
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
    peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
  };
  const sampler = setInterval(() => void sample(), 10);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearInterval(sampler);
  const processMs = performance.now() - started;
  const m = /^ok\s+\S+: (\d+) events verified, .* \((\d+) ms\)$/m.exec(out);
  if (code !== 0 || !m) throw new Error(`verify CLI failed (exit ${code}):\n${out}\n${err}`);
  const events = Number(m[1]);
  const ms = Number(m[2]);
  return { events, ms, eventsPerSecond: events / (ms / 1000), peakRssMb: +(peakKb / 1024).toFixed(1), processMs };
}

/**
 * Baseline: SHA-256 of the same row texts as the seeded events (the org's few API-made events before them
 * are left out), built in batches outside the clock; only the hashing is timed.
 */
export function rawSha256(org: BenchOrg, chain: SeededChain, seeded: number): { events: number; ms: number; eventsPerSecond: number } {
  let prev = chain.afterHash;
  let ms = 0;
  let events = 0;
  const last = chain.afterSeq + seeded;
  for (let s = chain.afterSeq + 1; s <= last;) {
    const batch: string[] = [];
    for (const end = Math.min(last, s + 4999); s <= end; s++) {
      const { input } = seededRow(prev, s, org.actor);
      batch.push(input);
      prev = sha256Hex(input);
    }
    const t = performance.now();
    for (const input of batch) sha256Hex(input);
    ms += performance.now() - t;
    events += batch.length;
  }
  return { events, ms, eventsPerSecond: events / (ms / 1000) };
}
