import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openEventStream, type EventStream } from '../helpers/sse.js';
import { freePort } from '../helpers/ports.js';

/*
 * Several real server processes (the CLI's `serve`, tests/helpers/cli.ts) on one PostgreSQL database of their own,
 * as behind a load balancer: requests go round-robin. The database is created fresh from DATABASE_URL's server
 * and dropped by stop(); processes are always killed.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A database of its own on DATABASE_URL's server; drop() removes it (connections and all). */
export async function freshDatabase(baseUrl: string, prefix = 'wops_mp'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export interface Proc {
  readonly index: number;
  readonly port: number;
  readonly base: string;
  child: ChildProcess;
  stdout: string;
  stderr: string;
}

export interface ClusterOptions {
  databaseUrl: string;
  count?: number;
  /** Environment of every process (on top of this one's, with PORT, DATABASE_URL, LOG_LEVEL set). */
  env?: Record<string, string>;
  /** Longest wait for every /healthz (default 90 s). */
  startTimeoutMs?: number;
  /**
   * Start each process as the leader of a process group of its own, and signal the whole group: through tsx (dist/
   * not built) the server is tsx's child, which a SIGKILL of tsx alone leaves running.
   */
  processGroups?: boolean;
}

export class Cluster {
  readonly procs: Proc[] = [];
  private turn = 0;

  private constructor(
    private readonly opts: Required<Omit<ClusterOptions, 'env'>> & { env: Record<string, string> },
    ports: number[],
  ) {
    this.procs = ports.map((port, index) => ({ index, port, base: `http://127.0.0.1:${port}`, child: undefined as never, stdout: '', stderr: '' }));
  }

  /** Start `count` processes at the same moment and wait until each answers /healthz. */
  static async start(opts: ClusterOptions): Promise<Cluster> {
    const count = opts.count ?? 3;
    const ports: number[] = [];
    while (ports.length < count) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    const cluster = new Cluster(
      { count, startTimeoutMs: opts.startTimeoutMs ?? 90_000, databaseUrl: opts.databaseUrl, env: opts.env ?? {}, processGroups: opts.processGroups ?? false },
      ports,
    );
    try {
      await cluster.startAll();
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** The next process, round-robin. */
  next(): Proc {
    return this.procs[this.turn++ % this.procs.length];
  }

  /** (Re)start every process at once; resolves when all are healthy. */
  async startAll(): Promise<void> {
    // Loaded here, not at the top: fast tests import this file for freshDatabase alone.
    const { startCli } = await import('../helpers/cli.js');
    for (const p of this.procs) {
      p.stdout = '';
      p.stderr = '';
      p.child = startCli(['serve'], {
        cwd: ROOT,
        detached: this.opts.processGroups,
        env: {
          ...process.env,
          LOG_LEVEL: 'warn',
          HOST: '127.0.0.1',
          PUBLIC_URL: p.base,
          ...this.opts.env,
          PORT: String(p.port),
          DATABASE_URL: this.opts.databaseUrl,
        },
      });
      p.child.stdout!.setEncoding('utf8').on('data', (s: string) => (p.stdout += s));
      p.child.stderr!.setEncoding('utf8').on('data', (s: string) => (p.stderr += s));
    }
    await Promise.all(this.procs.map((p) => this.healthy(p)));
  }

  private async healthy(p: Proc): Promise<void> {
    const started = Date.now();
    for (;;) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) {
        throw new Error(`process ${p.index} (port ${p.port}) exited (${p.child.exitCode ?? p.child.signalCode}) while starting:\n${p.stderr}\n${p.stdout}`);
      }
      try {
        const res = await fetch(`${p.base}/healthz`);
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() - started > this.opts.startTimeoutMs)
        throw new Error(`process ${p.index} not healthy within ${this.opts.startTimeoutMs} ms:\n${p.stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGKILL every process (no graceful close: in-flight requests are cut) and wait for them to be gone. */
  async kill9(): Promise<void> {
    await Promise.all(this.procs.map((p) => stopChild(p.child, 'SIGKILL', this.opts.processGroups)));
  }

  /**
   * The ports still accepting connections once `waitMs` has passed (a killed server's socket closes within a moment):
   * a server that outlived the process the harness signalled (tsx's child, without processGroups) keeps answering.
   */
  async answering(waitMs = 3000): Promise<number[]> {
    const until = Date.now() + waitMs;
    for (;;) {
      const open = (await Promise.all(this.procs.map(async (p) => ((await portAnswers(p.port)) ? [p.port] : [])))).flat();
      if (open.length === 0 || Date.now() >= until) return open;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** End every process (SIGTERM, then SIGKILL after 5 s). */
  async stop(): Promise<void> {
    await Promise.all(this.procs.map(async (p) => (p.child ? stopChild(p.child, 'SIGTERM', this.opts.processGroups) : undefined)));
  }
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals, group = false): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  // A group leader's pid, negated, signals its whole group (tsx and the server it runs).
  const send = (sig: NodeJS.Signals) => (group && child.pid ? process.kill(-child.pid, sig) : child.kill(sig));
  return new Promise((resolve) => {
    const force = setTimeout(() => send('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    send(signal);
  });
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** POST /api/v1/<method> with a bearer key (and an idempotency key). */
export async function rpc(p: Proc, key: string, method: string, params: unknown, idem?: string): Promise<Answer> {
  const res = await fetch(`${p.base}/api/v1/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(idem ? { 'x-idempotency-key': idem } : {}) },
    body: JSON.stringify({ params }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

/** rpc that must answer ok: its result. */
export async function ok(p: Proc, key: string, method: string, params: unknown, idem?: string): Promise<any> {
  const a = await rpc(p, key, method, params, idem);
  if (a.status !== 200 || a.json.ok !== true) throw new Error(`${method} on process ${p.index}: ${a.status} ${a.text}`);
  return a.json.result;
}

export async function getRead(p: Proc, key: string, read: string, query: Record<string, string | number>): Promise<Answer> {
  const res = await fetch(`${p.base}/api/v1/${read}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

/** An inbox request as the page sends it: the session cookie, this process's Origin, the CSRF token. */
export async function inbox(p: Proc, method: string, url: string, s: { cookie?: string; csrf?: string }, body?: unknown): Promise<Answer> {
  const res = await fetch(`${p.base}${url}`, {
    method,
    headers: {
      ...(s.cookie ? { cookie: s.cookie } : {}),
      ...(method !== 'GET' ? { origin: p.base, ...(s.csrf ? { 'x-csrf-token': s.csrf } : {}) } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

/** Open the inbox's Server-Sent Events stream on one process with a session cookie and collect its events. */
export const openStream = (p: Proc, cookie: string): Promise<EventStream> => openEventStream(`${p.base}/approvals/api/stream`, cookie, `process ${p.index}`);

/** Run the CLI's verify (`npm run cli -- verify`) against a database; its exit code and output. */
export async function runVerify(databaseUrl: string): Promise<{ code: number | null; out: string }> {
  const { startCli } = await import('../helpers/cli.js');
  return new Promise((resolve, reject) => {
    const child = startCli(['verify'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl } });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/** Whether something accepts TCP connections on this loopback port. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

/** A redis-server of our own on a free port (none when /usr/bin/redis-server is missing). */
export async function startRedis(bin = '/usr/bin/redis-server'): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  if (!existsSync(bin)) return undefined;
  const port = await freePort();
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (await portAnswers(port)) break;
    if (Date.now() - started > 10_000) {
      child.kill('SIGKILL');
      throw new Error('redis-server did not start within 10 s');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, stop: () => stopChild(child, 'SIGTERM') };
}
