import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

/*
 * One process per PGlite data dir: two PGlite instances on one directory corrupt it. The lock is the directory
 * `<data dir>.lock` holding owner.json, which names its holder (pid, host, boot, start time). A holder that is
 * no longer running on this machine (kill -9, a crash, a power cut) leaves its lock behind; the next process sees
 * that it is gone and takes the lock over at once, instead of waiting for a lock file to age.
 *
 * Each change is one atomic file system call, so two processes started at the same moment cannot both hold it:
 * a lock appears by renaming a complete directory into place (a rename fails while the lock holds owner.json),
 * and a stale lock is replaced only under a short take-over mutex, after checking it is still the same stale one.
 * (A process that dies inside that mutex, a window of microseconds, leaves it behind; it is cleared after 10 s.)
 */

export interface LockOwner {
  pid: number;
  host: string;
  /** The kernel's boot id (Linux): a lock from before a reboot is stale whatever its pid. */
  bootId?: string;
  /** The process's start time in clock ticks since boot (Linux): a reused pid has another. */
  startTicks?: number;
  startedAt: string;
  /** Tells this lock from a later one at the same path. */
  token: string;
}

export interface HeldLock {
  owner: LockOwner;
  /** Remove the lock if it is still ours. */
  release(): void;
}

/** A lock without owner.json younger than this may be held by a running older version (proper-lockfile's lock, refreshed every 5 s). */
const UNNAMED_STALE_MS = 15_000;
/** A take-over mutex is held for milliseconds; one this old was left by a process that died in the middle. */
const TAKEOVER_ABANDONED_MS = 10_000;

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Linux /proc/<pid>/stat: the state and the start time (ticks since boot); undefined elsewhere or when gone. */
function procStat(pid: number | 'self'): { state: string; startTicks: number } | undefined {
  const text = readText(`/proc/${pid}/stat`);
  if (!text) return undefined;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so count fields after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], startTicks: Number(fields[19]) };
}

const BOOT_ID = readText('/proc/sys/kernel/random/boot_id')?.trim();
/** The tokens of the locks this process holds. */
const HELD_HERE = new Set<string>();

function me(): LockOwner {
  return {
    pid: process.pid,
    host: hostname(),
    bootId: BOOT_ID,
    startTicks: procStat('self')?.startTicks,
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    token: randomBytes(8).toString('hex'),
  };
}

/** Whether the lock's holder is running: 'alive', 'dead', or 'unknown' (another host: it cannot be asked). */
export function holderState(owner: LockOwner): 'alive' | 'dead' | 'unknown' {
  const self = me();
  if (owner.host !== self.host) return 'unknown';
  if (owner.bootId && self.bootId && owner.bootId !== self.bootId) return 'dead';
  // This very process opening the dir twice; or, same pid but not ours, an earlier life (containers start at pid 1).
  if (owner.pid === process.pid) return HELD_HERE.has(owner.token) ? 'alive' : 'dead';
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EPERM') return 'dead'; // ESRCH; EPERM: it runs, as another user
  }
  const stat = procStat(owner.pid);
  if (!stat) return 'alive';
  if (stat.state === 'Z' || stat.state === 'X') return 'dead'; // killed, not yet reaped by its parent
  return owner.startTicks === undefined || stat.startTicks === owner.startTicks ? 'alive' : 'dead';
}

function readOwner(lockDir: string): LockOwner | undefined {
  const text = readText(`${lockDir}/owner.json`);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as LockOwner;
  } catch {
    return undefined;
  }
}

function ageMs(file: string): number | undefined {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Create the lock in one rename; false when a lock is already there. */
function create(lockDir: string, owner: LockOwner): boolean {
  const scratch = `${lockDir}.${owner.pid}-${owner.token}.tmp`;
  mkdirSync(scratch);
  writeFileSync(`${scratch}/owner.json`, `${JSON.stringify(owner)}\n`);
  try {
    renameSync(scratch, lockDir);
    return true;
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    const code = (err as { code?: string }).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') return false;
    throw err;
  }
}

/**
 * Remove the lock by renaming it aside first: deleting in place would leave an empty directory for a moment,
 * which another process's rename could fill, and the delete would then take its lock too.
 */
function discard(lockDir: string, token: string): void {
  const aside = `${lockDir}.${token}.old`;
  try {
    renameSync(lockDir, aside);
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return;
    throw err;
  }
  rmSync(aside, { recursive: true, force: true });
}

/**
 * Replace a stale lock (held by `stale`, or naming no holder) with ours, under the take-over mutex; false when
 * another process changed it first (the caller looks again).
 */
function takeOver(lockDir: string, stale: LockOwner | undefined, owner: LockOwner): boolean {
  const mutex = `${lockDir}.takeover`;
  try {
    mkdirSync(mutex);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
    if ((ageMs(mutex) ?? 0) > TAKEOVER_ABANDONED_MS) rmSync(mutex, { recursive: true, force: true });
    return false;
  }
  try {
    if (readOwner(lockDir)?.token !== stale?.token) return false; // changed since we looked
    discard(lockDir, owner.token);
    return create(lockDir, owner);
  } finally {
    rmSync(mutex, { recursive: true, force: true });
  }
}

/**
 * Take `<dir>.lock` for this process, or throw naming the holder and what to do. `notice` hears when a stale
 * lock is taken over.
 */
export async function lockDataDir(dir: string, notice: (message: string) => void = () => {}): Promise<HeldLock> {
  const lockDir = `${dir}.lock`;
  const owner = me();
  const held: HeldLock = {
    owner,
    release() {
      HELD_HERE.delete(owner.token);
      // Only our own lock: never one that somebody else holds by now.
      if (readOwner(lockDir)?.token === owner.token) discard(lockDir, owner.token);
    },
  };
  HELD_HERE.add(owner.token); // before the lock exists: from then on, this process counts as its live holder
  try {
    if (await take(dir, lockDir, owner, notice)) return held;
  } catch (err) {
    HELD_HERE.delete(owner.token);
    throw err;
  }
  HELD_HERE.delete(owner.token);
  throw new Error(`data dir ${dir}: could not take its lock ${lockDir}, which other processes kept changing; try again`);
}

/** The rounds of lockDataDir: true once the lock is ours; throws when a live (or unknowable) holder has it. */
async function take(dir: string, lockDir: string, owner: LockOwner, notice: (message: string) => void): Promise<boolean> {
  // Each lost round means another process changed the lock in between; looking again finds its lock (refused)
  // or the path free. Rounds are milliseconds apart and happen only when two processes start together.
  for (let round = 0; round < 40; round++) {
    const age = ageMs(lockDir);
    if (age === undefined) {
      if (create(lockDir, owner)) return true;
    } else {
      const holder = readOwner(lockDir);
      // Gone between the two looks (another process took over a stale lock): look again at once.
      if (!holder && ageMs(lockDir) === undefined) continue;
      if (!holder) {
        // No owner.json: the lock of an older version (proper-lockfile: an empty directory it touches every 5 s).
        if (age < UNNAMED_STALE_MS) {
          throw new Error(
            `data dir ${dir} is in use by another process: its lock ${lockDir} names no holder but changed ${Math.round(age / 1000)} s ago, as an older version's server keeps it; stop that process, or delete ${lockDir} if none is running`,
          );
        }
        if (takeOver(lockDir, undefined, owner)) {
          notice(`took over the stale lock ${lockDir} (no holder recorded, unchanged for ${Math.round(age / 1000)} s)`);
          return true;
        }
      } else {
        const state = holderState(holder);
        if (state === 'alive') {
          throw new Error(
            `data dir ${dir} is in use by another process: pid ${holder.pid}, running since ${holder.startedAt} (lock ${lockDir}); stop that process first, give this one its own DATA_DIR, or use PostgreSQL (DATABASE_URL) to serve from more than one process`,
          );
        }
        if (state === 'unknown') {
          throw new Error(
            `data dir ${dir} is locked by pid ${holder.pid} on host ${holder.host} (lock ${lockDir}), which this machine (${owner.host}) cannot check; if that process is no longer running, delete ${lockDir}`,
          );
        }
        if (takeOver(lockDir, holder, owner)) {
          notice(`took over a stale lock on ${dir} from pid ${holder.pid} (started ${holder.startedAt}, no longer running)`);
          return true;
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5 + round * 5));
  }
  return false;
}
