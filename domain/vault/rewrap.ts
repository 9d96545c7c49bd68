import type { Db, Queryable } from '../../db/types.js';
import { aadOf, rewrapDek } from './crypto.js';
import type { Keyring } from './keys.js';

/*
 * Master-key rotation: prepend a new key to VAULT_MASTER_KEYS, run `vault rewrap` (every DEK wrapped by another key
 * is unwrapped and wrapped again by the first; sealed values are not touched), and drop the old key once it wraps
 * 0 rows. A batch per transaction, so a long run holds no lock for long and can be stopped and run again.
 */

export interface KeyCount {
  kekId: string;
  rows: number;
}

/** Sealed versions per master key, every org. */
export async function vaultKeyCounts(q: Queryable): Promise<KeyCount[]> {
  const rows = await q.query<{ kek_id: string; n: number }>(
    'SELECT kek_id, count(*)::int AS n FROM credential_versions WHERE kek_id IS NOT NULL GROUP BY kek_id ORDER BY kek_id',
  );
  return rows.map((r) => ({ kekId: r.kek_id, rows: Number(r.n) }));
}

export interface RewrapResult {
  rewrapped: number;
  /** Rows whose key is not in the keyring: left as they are (put that key back in VAULT_MASTER_KEYS and run again). */
  missing: KeyCount[];
  left: KeyCount[];
}

interface Row {
  org_id: string;
  credential_id: string;
  version: number;
  kek_id: string;
  wrapped_dek: Uint8Array;
}

export async function rewrap(db: Db, ring: Keyring, opts: { batch?: number; progress?: (done: number, total: number) => void } = {}): Promise<RewrapResult> {
  const batch = opts.batch ?? 200;
  const known = [...ring.byId.keys()].filter((id) => id !== ring.active.id);
  const before = await vaultKeyCounts(db);
  const total = before.filter((c) => known.includes(c.kekId)).reduce((n, c) => n + c.rows, 0);
  let done = 0;
  for (;;) {
    const moved = await db.tx(async (q) => {
      const rows = await q.query<Row>(
        `SELECT org_id, credential_id, version, kek_id, wrapped_dek FROM credential_versions
          WHERE kek_id = ANY($1::text[]) ORDER BY org_id, credential_id, version LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [known, batch],
      );
      for (const r of rows) {
        const aad = aadOf(r.org_id, r.credential_id, Number(r.version));
        const next = rewrapDek(ring, aad, { kekId: r.kek_id, wrappedDek: Buffer.from(r.wrapped_dek), sealed: Buffer.alloc(0) });
        await q.query('UPDATE credential_versions SET kek_id = $4, wrapped_dek = $5 WHERE org_id = $1 AND credential_id = $2 AND version = $3', [
          r.org_id,
          r.credential_id,
          r.version,
          next.kekId,
          next.wrappedDek,
        ]);
      }
      return rows.length;
    });
    done += moved;
    opts.progress?.(done, total);
    if (moved < batch) break;
  }
  const left = await vaultKeyCounts(db);
  return { rewrapped: done, missing: left.filter((c) => !ring.byId.has(c.kekId)), left };
}
