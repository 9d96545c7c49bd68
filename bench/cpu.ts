import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/**
 * CPU time from /proc (Linux): a process tree (the server: tsx's launcher and the node process under it) and the
 * PostgreSQL backends connected to one database (found by their process title, `postgres: … <user> <database> …`,
 * so other databases' work on the same server is not counted; PostgreSQL's shared background processes, the WAL
 * writer and checkpointer, are not either). Elsewhere every figure is null.
 */
const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  ppid: number;
  cpuMs: number;
}

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields are counted after its closing one.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS };
  } catch {
    return undefined;
  }
}

const pids = (): number[] => {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [];
  }
};

/** The process and every descendant. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const s = stat(pid);
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

function backends(database: string): number[] {
  const title = new RegExp(`^postgres: .*\\S+ ${database.replace(/[^a-z0-9_]/g, '')} `);
  return pids().filter((pid) => {
    try {
      return title.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      return false;
    }
  });
}

export interface CpuUse {
  /** CPU ms of the server's process tree over the window (null without /proc or without a server). */
  serverMs: number | null;
  /** CPU ms of the database's backends over the window, including ones that connected and left during it. */
  postgresMs: number | null;
  windowMs: number;
}

/**
 * Start measuring: backends are sampled every 200 ms so that connections opened during the window (pgbench's)
 * count from zero and are read while they still exist. stop() answers the CPU used since start.
 */
export function measureCpu(opts: { serverPid?: number; database: string }): { stop(): CpuUse } {
  const available = pids().length > 0;
  const serverTree = opts.serverPid ? tree(opts.serverPid) : [];
  const serverCpu = () => serverTree.reduce((n, pid) => n + (stat(pid)?.cpuMs ?? 0), 0);
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const sample = (initial: boolean) => {
    for (const pid of backends(opts.database)) {
      const s = stat(pid);
      if (!s) continue;
      if (!first.has(pid)) first.set(pid, initial ? s.cpuMs : 0);
      last.set(pid, s.cpuMs);
    }
  };
  const started = performance.now();
  const serverBefore = serverCpu();
  sample(true);
  const timer = setInterval(() => sample(false), 200);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample(false);
      let postgresMs = 0;
      for (const [pid, end] of last) postgresMs += end - (first.get(pid) ?? 0);
      return {
        serverMs: available && opts.serverPid ? serverCpu() - serverBefore : null,
        postgresMs: available ? postgresMs : null,
        windowMs: performance.now() - started,
      };
    },
  };
}

/** CPU µs per call, or null. */
export const perCallUs = (ms: number | null, calls: number): number | null => (ms === null || calls === 0 ? null : (ms * 1000) / calls);
