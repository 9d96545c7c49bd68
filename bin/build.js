#!/usr/bin/env node
// The compiled server: tsc -p tsconfig.build.json emits the server's code (the folders in its "include") to dist/,
// which npm start and bin/wops-mcp.js run with plain node (no TypeScript loader in production).
//   node bin/build.js             build now (npm run build)
//   node bin/build.js --if-stale  build only when dist/ is missing or older than a source file (npm start's prestart)
// Plain JavaScript, so that it runs before anything is compiled. Messages go to stderr: stdout may be an MCP pipe.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import lockfile from 'proper-lockfile';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG = path.join(ROOT, 'tsconfig.build.json');
const DIST = path.join(ROOT, 'dist');
// Written after each successful build with the build's start time as its mtime: a source saved during a build
// is newer than it, so the next start builds again.
const STAMP = path.join(DIST, '.build-stamp');
// tsc's incremental state (tsconfig.build.json): it knows what it emitted, not whether the files are still there.
const BUILD_INFO = path.join(DIST, '.tsbuildinfo');
const NOT_BUILT = 'dist/ has not been built';

/** The newest modification time (ms) of the files the build reads: the included folders and both tsconfigs. */
function newestSource() {
  const { include } = JSON.parse(readFileSync(CONFIG, 'utf8'));
  let newest = Math.max(statSync(CONFIG).mtimeMs, statSync(path.join(ROOT, 'tsconfig.json')).mtimeMs);
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  for (const dir of include) walk(path.join(ROOT, dir));
  return newest;
}

/** Why dist/ needs building, or undefined when it is up to date. */
export function staleReason() {
  if (!existsSync(path.join(DIST, 'cli', 'main.js')) || !existsSync(STAMP)) return NOT_BUILT;
  return newestSource() > statSync(STAMP).mtimeMs ? 'a source file is newer than dist/' : undefined;
}

/**
 * Run tsc; throws with what to do when typescript is missing or the code does not compile. Incremental when
 * sources changed (seconds); a full one for npm run build and for a dist/ without its entry point or stamp.
 */
async function build(reason = 'npm run build') {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    throw new Error(
      `the compiled server needs building (${reason}), and that needs the dev dependency typescript, which is not installed: run npm install (without --omit=dev), or npm run build where it is, and copy dist/ here`,
    );
  }
  const started = Date.now();
  if (reason === 'npm run build' || reason === NOT_BUILT) rmSync(BUILD_INFO, { force: true });
  process.stderr.write(`building the compiled server into dist/ (${reason}): tsc -p tsconfig.build.json\n`);
  // tsc reports on stdout: send it to stderr, which is the only stream a stdio MCP server may write to.
  // Asynchronous, so that the lock below stays refreshed while tsc runs.
  const child = spawn(process.execPath, [tsc, '-p', CONFIG], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  const code = await new Promise((resolve) => {
    child.once('error', (err) => resolve(err.message));
    child.once('exit', (status, signal) => resolve(signal ?? status));
  });
  if (code !== 0)
    throw new Error(`tsc -p tsconfig.build.json failed (${typeof code === 'number' ? `exit ${code}` : code}): dist/ is not up to date; see the errors above`);
  writeFileSync(STAMP, `${new Date(started).toISOString()}\n`);
  utimesSync(STAMP, new Date(started), new Date(started));
  process.stderr.write(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

const LOCK = { lockfilePath: path.join(DIST, '.build.lock'), stale: 20_000, realpath: false };

/**
 * Build when stale (or always, with force). One process builds at a time (a lock in dist/): two starts at once,
 * e.g. two MCP clients, do not write dist/ together; the second waits and finds it built. A start that finds
 * dist/ up to date but a build under way (npm run build in another shell) waits for it too, rather than load
 * files that tsc is rewriting.
 */
export async function ensureBuilt({ force = false } = {}) {
  if (!force && !staleReason() && !(await lockfile.check(DIST, LOCK))) return;
  mkdirSync(DIST, { recursive: true });
  const release = await lockfile.lock(DIST, { ...LOCK, update: 5_000, retries: { retries: 600, minTimeout: 200, maxTimeout: 200 } });
  try {
    const reason = force ? 'npm run build' : staleReason();
    if (reason) await build(reason);
  } finally {
    await release();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await ensureBuilt({ force: !process.argv.includes('--if-stale') });
  } catch (err) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = 1;
  }
}
