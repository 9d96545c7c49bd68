import { ApiError } from '../protocol/errors.js';
import { isSqlError, SQLSTATE, type Queryable, type TxQueryable } from '../db/types.js';

export interface IdempotencyScope {
  orgId: string;
  actor: string;
  method: string;
  key: string;
}

const KEY_ARGS = (s: IdempotencyScope) => [s.orgId, s.actor, s.method, s.key];

/** The stored frame of a committed first attempt, or undefined. Plain read, outside any transaction. */
export async function findReplay(q: Queryable, s: IdempotencyScope): Promise<string | undefined> {
  const [row] = await q.query<{ frame: string | null }>(
    'SELECT frame FROM idempotency WHERE org_id = $1 AND actor = $2 AND method = $3 AND key = $4',
    KEY_ARGS(s),
  );
  return row?.frame ?? undefined;
}

/**
 * Claim the key inside the call's transaction. A concurrent first attempt holding the same key makes this
 * insert wait for it (the unique index), so a duplicate never runs the handler: it gets the stored frame
 * once the first commits, or runs itself if the first rolled back. Returns the frame to replay, if any.
 */
export async function claimKey(q: Queryable, s: IdempotencyScope): Promise<{ replay?: string }> {
  const claimed = await q
    .query(
      `INSERT INTO idempotency (org_id, actor, method, key) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING 1`,
      KEY_ARGS(s),
    )
    .catch((err: unknown) => {
      if (isSqlError(err, SQLSTATE.lockNotAvailable)) {
        throw new ApiError('CONFLICT', `a call with this idempotency key is still in flight; retry with the same key shortly`);
      }
      throw err;
    });
  if (claimed.length) return {};
  const frame = await findReplay(q, s);
  if (frame === undefined) throw new Error('idempotency row without a frame after its claim committed');
  return { replay: frame };
}

/**
 * Store the committed result under the claimed key: the transaction's last statement, sent with its COMMIT
 * (one round trip on PostgreSQL). A failure rolls the whole call back.
 */
export function storeFrame(q: TxQueryable, s: IdempotencyScope, frame: string): void {
  q.atCommit('UPDATE idempotency SET frame = $5 WHERE org_id = $1 AND actor = $2 AND method = $3 AND key = $4', [...KEY_ARGS(s), frame]);
}

/** Give the key back (a call that ends in a recorded refusal commits, but must not replay that refusal). */
export async function releaseKey(q: Queryable, s: IdempotencyScope): Promise<void> {
  await q.query('DELETE FROM idempotency WHERE org_id = $1 AND actor = $2 AND method = $3 AND key = $4', KEY_ARGS(s));
}
