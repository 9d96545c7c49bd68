import { spawn, spawnSync, type SpawnOptionsWithoutStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TSX = join(process.cwd(), 'node_modules/.bin/tsx');

// bin/build.js is plain JavaScript (it runs before anything is compiled); this is the one function used here.
const { staleReason } = (await import(join(process.cwd(), 'bin', 'build.js'))) as { staleReason(): string | undefined };
const stale = staleReason();

/**
 * How tests start the CLI: the compiled dist/cli/main.js when it is up to date with the sources (as npm start
 * runs it, and about twice as fast to start as tsx, which compiles on every start), else cli/main.ts through
 * tsx, so a test never runs code older than the sources. tests/cli/build.test.ts builds in a copy of the
 * package, so nothing in the suite rewrites this dist/ while a test runs it.
 */
export const CLI: { command: string; args: string[]; compiled: boolean } =
  stale === undefined
    ? { command: process.execPath, args: ['--enable-source-maps', 'dist/cli/main.js'], compiled: true }
    : { command: TSX, args: ['cli/main.ts'], compiled: false };
console.info(
  CLI.compiled
    ? '[cli] running the compiled dist/cli/main.js (up to date with the sources)'
    : `[cli] running cli/main.ts through tsx (${stale}; npm run build makes these tests faster)`,
);

/** Run the CLI to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeout = 60_000) {
  return spawnSync(CLI.command, [...CLI.args, ...args], { env, encoding: 'utf8', timeout });
}

/** Start the CLI as a long-running process (serve). */
export function startCli(args: string[], opts: SpawnOptionsWithoutStdio & { env: NodeJS.ProcessEnv }) {
  return spawn(CLI.command, [...CLI.args, ...args], opts);
}

/** The CLI as a user runs it: real processes on a PGlite data dir of their own; remove() in afterAll. */
export function cliOnTempDataDir(prefix: string, opts: { logLevel?: string; timeout?: number } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: opts.logLevel ?? 'info' };
  const cli = (...args: string[]) => runCli(args, env, opts.timeout);
  return { dataDir, env, cli, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}
