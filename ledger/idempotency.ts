import { createHmac } from 'node:crypto';
import { ApiError } from '../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../protocol/hashing.js';
import { isSqlError, SQLSTATE, type Queryable, type TxQueryable } from '../db/types.js';

export interface IdempotencyScope {
  orgId: string;
  actor: string;
  method: string;
  key: string;
}

/** A call under a key: its scope, and what a stored first call must match for this one to be its repeat. */
export interface KeyedCall extends IdempotencyScope {
  /** paramsHash of the params as validated. */
  paramsHash: string;
  /** How the caller's face names the key in errors (`x-idempotency-key` over HTTP). */
  keyName?: string;
  /** A key of the caller's params (an R write's idempotencyId) names a state: reused with other params, CONFLICT. */
  mismatch?: 'CONFLICT';
}

/** The committed first attempt under a key, as stored. */
export interface StoredCall {
  /** Its frame; for a secret-bearing result, the result with the secrets withheld. */
  frame: string;
  /** The whole frame sealed under the calling API key (ledger/sealed-frame.ts), for a secret-bearing result. */
  sealedFrame: string | null;
  /** NULL for rows stored before params were hashed: those replay whatever the params. */
  paramsHash: string | null;
  createdAt: string;
}

/**
 * SHA-256 of the canonical JSON of the params as validated: key order and defaults do not change it. Fields
 * in `without` (a signature act's proof) are left out: they prove the act, they do not change it.
 */
export function paramsHash(params: unknown, without: readonly string[] = [], secretKey?: string): string {
  const value = params ?? {};
  const kept =
    !without.length || typeof value !== 'object' || Array.isArray(value)
      ? value
      : Object.fromEntries(Object.entries(value).filter(([k]) => !without.includes(k)));
  // Params that carry a secret value are keyed: a plain hash of a short secret can be guessed offline from the row.
  return secretKey === undefined ? sha256Hex(canonicalJson(kept)) : createHmac('sha256', secretKey).update(canonicalJson(kept)).digest('hex');
}

const KEY_ARGS = (s: IdempotencyScope) => [s.orgId, s.actor, s.method, s.key];

/** The columns a stored call is read from (domain/core/auth.ts reads them beside the principal, prefixed). */
export const STORED_COLUMNS = ['frame', 'sealed_frame', 'params_hash', 'created_at'] as const;

export interface StoredRow {
  frame: string | null;
  sealed_frame: string | null;
  params_hash: string | null;
  created_at: string | null;
}

/** A row read with STORED_COLUMNS as a committed first attempt; undefined while none is committed. */
export function storedCall(row: StoredRow | undefined): StoredCall | undefined {
  if (!row || row.frame === null) return undefined;
  return { frame: row.frame, sealedFrame: row.sealed_frame, paramsHash: row.params_hash, createdAt: row.created_at ?? '' };
}

/**
 * The stored call, if this call is its repeat. The same key with other params is refused: replaying the first
 * result would tell the caller a second act had run. BAD_REQUEST, not CONFLICT: nothing about the server's
 * state would make the same request succeed later (CONFLICT here means "retry shortly", as for a key in flight);
 * the IETF Idempotency-Key draft answers 422 and Stripe 400, and 400 is the spec's code for a request that is
 * wrong as sent.
 */
export function repeatOf(stored: StoredCall, call: KeyedCall): StoredCall {
  if (stored.paramsHash !== null && stored.paramsHash !== call.paramsHash) {
    throw new ApiError(
      call.mismatch ?? 'BAD_REQUEST',
      `${call.keyName ?? 'x-idempotency-key'}: already used for ${call.method} with different params (first call at ${stored.createdAt}); ` +
        'use a new key for a new act, or resend the same params to replay',
    );
  }
  return stored;
}

/** The committed first attempt under the key, if this call is its repeat (see repeatOf). Plain read, outside any transaction. */
export async function findReplay(q: Queryable, call: KeyedCall): Promise<StoredCall | undefined> {
  const [row] = await q.query<StoredRow>(
    `SELECT ${STORED_COLUMNS.join(', ')} FROM idempotency WHERE org_id = $1 AND actor = $2 AND method = $3 AND key = $4`,
    KEY_ARGS(call),
  );
  const stored = storedCall(row);
  return stored && repeatOf(stored, call);
}

/**
 * Claim the key inside the call's transaction, with the params hash. A concurrent first attempt holding the
 * same key makes this insert wait for it (the unique index), so a duplicate never runs the handler: it gets
 * the stored call once the first commits (or BAD_REQUEST if its params differ), or runs itself if the first
 * rolled back.
 */
export async function claimKey(q: Queryable, call: KeyedCall): Promise<{ replay?: StoredCall }> {
  const claimed = await q
    .query(
      `INSERT INTO idempotency (org_id, actor, method, key, params_hash) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [...KEY_ARGS(call), call.paramsHash],
    )
    .catch((err: unknown) => {
      if (isSqlError(err, SQLSTATE.lockNotAvailable)) {
        throw new ApiError('CONFLICT', `a call with this idempotency key is still in flight; retry with the same key shortly`);
      }
      throw err;
    });
  if (claimed.length) return {};
  const stored = await findReplay(q, call);
  if (stored === undefined) throw new Error('idempotency row without a frame after its claim committed');
  return { replay: stored };
}

/**
 * Store the committed result under the claimed key: the transaction's last statement, sent with its COMMIT
 * (one round trip on PostgreSQL). A failure rolls the whole call back. `sealedFrame` only for a secret-bearing
 * result, whose `frame` then has the secrets withheld.
 */
export function storeFrame(q: TxQueryable, s: IdempotencyScope, frame: string, sealedFrame: string | null = null): void {
  void q.atCommit('UPDATE idempotency SET frame = $5, sealed_frame = $6 WHERE org_id = $1 AND actor = $2 AND method = $3 AND key = $4', [
    ...KEY_ARGS(s),
    frame,
    sealedFrame,
  ]);
}

/** Give the key back (a call that ends in a recorded refusal commits, but must not replay that refusal). */
export async function releaseKey(q: Queryable, s: IdempotencyScope): Promise<void> {
  await q.query('DELETE FROM idempotency WHERE org_id = $1 AND actor = $2 AND method = $3 AND key = $4', KEY_ARGS(s));
}
