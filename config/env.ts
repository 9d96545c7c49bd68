/*
 * Reading settings from the environment, the one way every module does it: an unset or empty variable takes the
 * default, anything else must parse, and a bad value is refused naming the variable. Imports nothing of the
 * project, so every layer may use it (only composition roots read process.env and pass it in).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a store keeps its files under DATA_DIR. DATA_DIR=memory (the embedded database in memory) writes nothing
 * under the working directory: its files go to the system's temp dir.
 */
export const dataPath = (dataDir: string, name: string): string => (dataDir === 'memory' ? join(tmpdir(), `wops-memory-${name}`) : join(dataDir, name));

/** An integer of at least `min`. */
export function envInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name}: must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

const TRUE = new Set(['true', '1']);
const FALSE = new Set(['false', '0']);

/** true or false (or 1 or 0), any case. */
export function envBool(env: NodeJS.ProcessEnv, name: string, fallback = false): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw new Error(`${name}: must be true or false, got ${JSON.stringify(env[name])}`);
}
