import type { Db } from '../db/types.js';
import { parseMasterKeys, rewrap, vaultKeyCounts, type VaultConfig } from '../domain/vault/index.js';

/**
 * `vault rewrap`: wrap every secret's data key with the first key of VAULT_MASTER_KEYS (the sealed values are not
 * touched), printing progress, then the rows each master key still wraps: a key at 0 rows may be dropped.
 */
export async function vaultRewrapCommand(db: Db, vault: Pick<VaultConfig, 'masterKeys'>, write: (line: string) => void): Promise<number> {
  if (!vault.masterKeys) {
    write(
      'vault rewrap: VAULT_MASTER_KEYS is not set. To rotate: set it to the new key then the old ones (k2:<base64>,k1:<base64>), run this, then drop the old.',
    );
    write('(Without it the embedded database uses DATA_DIR/vault.key, a single key: nothing to rewrap.)');
    return 2;
  }
  const ring = parseMasterKeys(vault.masterKeys);
  const before = await vaultKeyCounts(db);
  write(`active key ${ring.active.id}; sealed versions per key before: ${before.map((c) => `${c.kekId} ${c.rows}`).join(', ') || 'none'}`);
  let shown = -1;
  const result = await rewrap(db, ring, {
    progress: (done, total) => {
      // One line per tenth (and the last), so a long run shows it is moving without flooding the terminal.
      const tenth = total ? Math.floor((done * 10) / total) : 10;
      if (tenth !== shown) write(`rewrapped ${done} of ${total}`);
      shown = tenth;
    },
  });
  write(`rewrapped ${result.rewrapped} data key(s) to ${ring.active.id}`);
  for (const c of result.left) write(`  ${c.kekId}: ${c.rows} row(s)${c.kekId === ring.active.id ? ' (active)' : c.rows === 0 ? ' (may be dropped)' : ''}`);
  for (const c of result.missing) {
    write(`  ${c.kekId}: ${c.rows} row(s) wrapped by a key not in VAULT_MASTER_KEYS: put it back in the list and run vault rewrap again`);
  }
  const others = result.left.filter((c) => c.kekId !== ring.active.id && c.rows > 0);
  if (!others.length) write(`every secret is wrapped by ${ring.active.id}: keys other than ${ring.active.id} may be dropped from VAULT_MASTER_KEYS`);
  return result.missing.length ? 1 : 0;
}
