import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TSX = join(process.cwd(), 'node_modules/.bin/tsx');

/** The CLI as a user runs it: real processes (through tsx) on a PGlite data dir of their own; remove() in afterAll. */
export function cliOnTempDataDir(prefix: string) {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' };
  const cli = (...args: string[]) => spawnSync(TSX, ['cli/main.ts', ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { dataDir, env, cli, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}
