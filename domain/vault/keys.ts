import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { dataPath } from '../../config/env.js';
import { ApiError } from '../../protocol/errors.js';
import type { Deps } from '../core/deps.js';

/*
 * The master keys (KEKs) that wrap every secret's data key. VAULT_MASTER_KEYS=k2:<base64>,k1:<base64>: the first
 * wraps new versions, the others only unwrap until `vault rewrap` moves their rows. Without it, the embedded
 * database keeps a key file beside its data (DATA_DIR/vault.key, mode 0600; an in-memory database keeps one per
 * process), and PostgreSQL is sealed: every call that needs a value answers CONFLICT saying how to configure it.
 */

export interface VaultConfig {
  /** VAULT_MASTER_KEYS as given: `id:base64` pairs, the first active. Empty: the key file, or sealed. */
  masterKeys: string;
  /** The embedded database's key file (DATA_DIR/vault.key); null: none (in memory, or PostgreSQL). */
  keyFile: string | null;
  /** INTEGRATION_ALLOW_HOSTS: hosts integrations may reach although private or over http (tests, a local gateway). */
  allowHosts: readonly string[];
  /** invokeTool compares the live definitions with the pins at most this often per integration (60 s). */
  recheckMs: number;
  /** connect's initialize and tools/list, and each tool call, give up after this long (15 s). */
  timeoutMs: number;
  /** invokeTool calls per integration per minute (60). */
  callsPerMinute: number;
}

declare module '../core/deps.js' {
  interface FamilyConfig {
    /** The vault's master keys and the integrations' allowed private hosts. */
    vault: VaultConfig;
  }
}

export const DEFAULT_VAULT_CONFIG: VaultConfig = { masterKeys: '', keyFile: null, allowHosts: [], recheckMs: 60_000, timeoutMs: 15_000, callsPerMinute: 60 };

/** The settings, a partial override (a test's) filled from the defaults. */
export const vaultConfig = (deps: Deps): VaultConfig => ({ ...DEFAULT_VAULT_CONFIG, ...deps.config.vault });

export interface Keyring {
  /** The key new versions are wrapped with. */
  active: { id: string; key: Buffer };
  byId: ReadonlyMap<string, Buffer>;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** Parse VAULT_MASTER_KEYS; throws naming the variable (the server refuses to start on a bad value). */
export function parseMasterKeys(raw: string): Keyring {
  const byId = new Map<string, Buffer>();
  const ids: string[] = [];
  for (const part of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = part.indexOf(':');
    const id = part.slice(0, at);
    const key = Buffer.from(part.slice(at + 1), 'base64');
    if (at < 1 || !KEY_ID.test(id))
      throw new Error(`VAULT_MASTER_KEYS: each entry is <id>:<base64 of 32 bytes>; ${JSON.stringify(id || part.slice(0, 8))} is not an id`);
    if (key.length !== 32) throw new Error(`VAULT_MASTER_KEYS: key ${id} is ${key.length} bytes; it must be 32 (openssl rand -base64 32)`);
    if (byId.has(id)) throw new Error(`VAULT_MASTER_KEYS: key ${id} is listed twice`);
    byId.set(id, key);
    ids.push(id);
  }
  if (!ids.length) throw new Error('VAULT_MASTER_KEYS: no key given');
  return { active: { id: ids[0], key: byId.get(ids[0])! }, byId };
}

/** A fresh VAULT_MASTER_KEYS entry. */
export const newMasterKey = (id: string): string => `${id}:${randomBytes(32).toString('base64')}`;

/** The in-memory database's key: one per process, so every runtime over the same in-memory data reads it. */
let processKey: string | undefined;

async function keyFileKeyring(path: string): Promise<Keyring> {
  try {
    return parseMasterKeys((await readFile(path, 'utf8')).trim());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const entry = newMasterKey('local1');
  await mkdir(dirname(path), { recursive: true });
  // wx: two processes starting at once cannot both write one; the loser reads the winner's.
  try {
    await writeFile(path, `${entry}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(path, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return parseMasterKeys((await readFile(path, 'utf8')).trim());
  }
  return parseMasterKeys(entry);
}

export const SEALED_MESSAGE =
  'the vault is sealed: this server runs on PostgreSQL without VAULT_MASTER_KEYS, so it can neither seal nor open a secret and wrote nothing; ' +
  'an operator sets VAULT_MASTER_KEYS=k1:<base64 of 32 random bytes> (openssl rand -base64 32) and restarts the server, then retry';

const rings = new WeakMap<Deps, Promise<Keyring | null>>();

/** This runtime's keyring, or null when sealed. */
export function keyringOf(deps: Deps): Promise<Keyring | null> {
  let ring = rings.get(deps);
  if (!ring) {
    ring = loadKeyring(deps);
    rings.set(deps, ring);
    // A failed read (a bad key file) is not kept: the next call tries again.
    ring.catch(() => rings.delete(deps));
  }
  return ring;
}

async function loadKeyring(deps: Deps): Promise<Keyring | null> {
  const cfg = vaultConfig(deps);
  if (cfg.masterKeys.trim()) return parseMasterKeys(cfg.masterKeys);
  if (deps.db.kind !== 'pglite') return null;
  if (cfg.keyFile) return keyFileKeyring(cfg.keyFile);
  processKey ??= newMasterKey('memory');
  return parseMasterKeys(processKey);
}

/** The keyring, or CONFLICT saying how to unseal. */
export async function requireKeyring(deps: Deps): Promise<Keyring> {
  const ring = await keyringOf(deps);
  if (!ring) throw new ApiError('CONFLICT', SEALED_MESSAGE);
  return ring;
}

export const VAULT_ENV_HELP = `  VAULT_MASTER_KEYS     the vault's master keys, <id>:<base64 of 32 bytes>, comma-separated, the first wrapping new
                        secrets (openssl rand -base64 32); to rotate, prepend a new key, run vault rewrap, then drop
                        the old one once it wraps 0 rows. Unset: the embedded database keeps DATA_DIR/vault.key
                        (mode 0600); PostgreSQL is sealed (credential and integration calls that need a value: CONFLICT)
  INTEGRATION_ALLOW_HOSTS  hosts integrations may reach although private or over http, comma-separated (tests, a
                        gateway on the same machine); every other host must be public and https`;

/** VAULT_MASTER_KEYS and INTEGRATION_ALLOW_HOSTS; a bad key is refused here, so the server does not start on it. */
export function loadVaultConfig(env: NodeJS.ProcessEnv, dataDir: string, databaseUrl: string | undefined): VaultConfig {
  const masterKeys = (env.VAULT_MASTER_KEYS ?? '').trim();
  if (masterKeys) parseMasterKeys(masterKeys);
  const allowHosts = (env.INTEGRATION_ALLOW_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  return { ...DEFAULT_VAULT_CONFIG, masterKeys, keyFile: databaseUrl ? null : dataPath(dataDir, 'vault.key'), allowHosts };
}
