import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDb } from '../../db/index.js';
import { holderState, lockDataDir, type LockOwner } from '../../db/pglite-lock.js';
import { pgliteOnly } from '../helpers/harness.js';

/*
 * The PGlite data dir's lock across real processes: a holder killed with SIGKILL leaves its lock behind, and the
 * next open takes it over at once; a running holder is refused by pid; processes racing for one lock get one.
 */
const work = mkdtempSync(join(tmpdir(), 'wops-pglite-lock-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => join(work, `data-${++dirs}`);

const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A child process (tests/db/pglite-lock-child.ts; node itself with tsx's loader, so its pid is the lock's) and a way to wait for a line of its stdout. */
function child(mode: 'open' | 'lock', dir: string) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'tests/db/pglite-lock-child.ts', mode, dir], { env: { ...process.env, DATABASE_URL: '' } });
  children.push(proc);
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (err += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const line = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<string>((resolve, reject) => {
      const started = Date.now();
      const check = () => {
        const m = pattern.exec(out);
        if (m) resolve(m[0]);
        else if (proc.exitCode !== null || Date.now() - started > timeoutMs) reject(new Error(`child ${mode} did not print ${pattern}:\n${out}\n${err}`));
        else setTimeout(check, 20);
      };
      check();
    });
  return { proc, line, exited, output: () => out };
}

/** A pid that was running a moment ago and is not now. */
async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => p.once('exit', resolve));
  return p.pid as number;
}

function writeLock(dir: string, owner: Partial<LockOwner>) {
  mkdirSync(`${dir}.lock`, { recursive: true });
  const full: LockOwner = { pid: 1, host: hostname(), startedAt: new Date().toISOString(), token: 'planted', ...owner };
  writeFileSync(`${dir}.lock/owner.json`, JSON.stringify(full));
}

pgliteOnly('tests/db/pglite-lock')('PGlite data dir lock', () => {
  it('after kill -9 of the holder, the next open takes the lock over at once and the data is there', async () => {
    const dir = newDir();
    const holder = child('open', dir);
    await holder.line(/^ready$/m);
    const owner = JSON.parse(readFileSync(`${dir}.lock/owner.json`, 'utf8')) as LockOwner;
    expect(owner).toMatchObject({ pid: holder.proc.pid, host: hostname() });
    expect(Date.parse(owner.startedAt)).toBeLessThanOrEqual(Date.now());

    holder.proc.kill('SIGKILL');
    await holder.exited;
    expect(existsSync(`${dir}.lock`)).toBe(true); // killed: nothing removed it

    const notices: string[] = [];
    const started = performance.now();
    const db = await openDb({ dataDir: dir, notice: (m) => notices.push(m) });
    const tookMs = performance.now() - started;
    try {
      expect(notices.filter((n) => n.includes('stale lock'))).toEqual([
        expect.stringMatching(new RegExp(`^took over a stale lock on .* from pid ${holder.proc.pid} \\(started .*, no longer running\\)$`)),
      ]);
      // Taken in the first look: no waiting for the lock to age (the old lock file needed 10-15 s).
      expect(tookMs).toBeLessThan(8_000);
      expect(await db.query('SELECT note FROM child_note')).toEqual([{ note: 'committed before the kill' }]);
      const mine = JSON.parse(readFileSync(`${dir}.lock/owner.json`, 'utf8')) as LockOwner;
      expect(mine.pid).toBe(process.pid);
    } finally {
      await db.close();
    }
    expect(existsSync(`${dir}.lock`)).toBe(false); // close releases it
  });

  it('a running holder is refused, naming its pid and what to do; this process opening it twice is refused too', async () => {
    const dir = newDir();
    const holder = child('open', dir);
    await holder.line(/^ready$/m);
    await expect(openDb({ dataDir: dir })).rejects.toThrow(
      new RegExp(`^data dir .* is in use by another process: pid ${holder.proc.pid}, running since .*; stop that process first`),
    );
    holder.proc.kill('SIGTERM');
    await holder.exited;

    const own = newDir();
    const lock = await lockDataDir(own);
    await expect(lockDataDir(own)).rejects.toThrow(`pid ${process.pid}`);
    lock.release();
    (await lockDataDir(own)).release();
  });

  it.each(['no lock', 'a stale lock'])('processes started at the same moment on %s: exactly one takes it', async (start) => {
    const dir = newDir();
    mkdirSync(dir);
    if (start === 'a stale lock') writeLock(dir, { pid: await deadPid() });
    const racers = Array.from({ length: 4 }, () => child('lock', dir));
    await Promise.all(racers.map((r) => r.line(/^waiting$/m)));
    for (const r of racers) r.proc.stdin.write('go\n');
    const results = await Promise.all(racers.map((r) => r.line(/^(got|refused: .*)$/m)));
    expect(results.filter((r) => r === 'got')).toHaveLength(1);
    const winner = racers[results.indexOf('got')].proc.pid;
    for (const r of results.filter((x) => x !== 'got')) expect(r).toMatch(new RegExp(`in use by another process: pid ${winner},`));
    for (const r of racers) r.proc.stdin.end();
    await Promise.all(racers.map((r) => r.exited));
  });

  it('a recorded pid now running another program (pid reuse) is stale: its start time differs', async () => {
    // Linux records the holder's start time from /proc; elsewhere a live pid counts as the holder.
    if (!existsSync('/proc/self/stat')) return;
    const dir = newDir();
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    children.push(other);
    try {
      const reused: LockOwner = { pid: other.pid as number, host: hostname(), startTicks: 1, startedAt: '2020-01-01T00:00:00.000Z', token: 'old' };
      expect(holderState(reused)).toBe('dead');
      writeLock(dir, reused);
      const notices: string[] = [];
      (await lockDataDir(dir, (m) => notices.push(m))).release();
      expect(notices).toEqual([expect.stringContaining(`from pid ${other.pid}`)]);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('a lock from another host is refused (it cannot be checked); an unnamed lock waits for its age', async () => {
    const dir = newDir();
    writeLock(dir, { pid: 4242, host: 'elsewhere.example' });
    await expect(lockDataDir(dir)).rejects.toThrow(/locked by pid 4242 on host elsewhere\.example .*if that process is no longer running, delete .*\.lock/);

    // An older version's lock: an empty directory it touches every 5 s.
    const legacy = newDir();
    mkdirSync(`${legacy}.lock`, { recursive: true });
    await expect(lockDataDir(legacy)).rejects.toThrow(/names no holder but changed 0 s ago/);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(`${legacy}.lock`, minuteAgo, minuteAgo);
    const notices: string[] = [];
    (await lockDataDir(legacy, (m) => notices.push(m))).release();
    expect(notices).toEqual([expect.stringMatching(/^took over the stale lock .* \(no holder recorded, unchanged for 60 s\)$/)]);
  });
});
