import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The repository root (bench/ is one level down). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

/** How a server process starts: an executable and its arguments, run in the repository root. */
export interface Launch {
  file: string;
  args: string[];
}
/** The TypeScript sources through tsx (npm run dev). */
export const TSX_SERVE: Launch = { file: TSX, args: ['cli/main.ts', 'serve'] };
/** The compiled server exactly as npm start runs it (package.json scripts.start, "node ... serve"), without npm. */
export const COMPILED_SERVE: Launch = {
  file: process.execPath,
  args: (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').slice(1),
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  baseUrl: string;
  /** Milliseconds from spawn to the first 200 of GET /healthz. */
  startupMs: number;
  /** The spawned process (for a tsx launch, the launcher: the server is its child). */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Spawn a process (by default the real server, `tsx cli/main.ts serve`) and wait until GET /healthz answers 200,
 * polling every 10 ms. The time to that first answer is the cold start.
 */
export async function startServer(opts: { env: Record<string, string>; launch?: Launch; timeoutMs?: number }): Promise<RunningServer> {
  const port = await freePort();
  const { file, args } = opts.launch ?? TSX_SERVE;
  const started = performance.now();
  const child = spawn(file, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', ...opts.env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: false,
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = started + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (exited) throw new Error(`server exited before serving:\n${stderr}`);
    if (performance.now() > deadline) {
      await stopChild(child);
      throw new Error(`server did not answer /healthz in time:\n${stderr}`);
    }
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const startupMs = performance.now() - started;
  return { baseUrl, startupMs, pid: child.pid ?? 0, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
  await gone;
  clearTimeout(timer);
}

export const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export async function createDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
