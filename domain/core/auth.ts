import { ApiError } from '../../protocol/errors.js';
import { sha256Hex } from '../../protocol/hashing.js';
import type { PrincipalKind } from '../../protocol/scopes.js';
import type { Queryable } from '../../db/types.js';
import { STORED_COLUMNS, storedCall, type StoredCall, type StoredRow } from '../../ledger/idempotency.js';
import type { KeyCache } from './key-cache.js';

/** Who is calling: the key, the org it belongs to, and the principal (human or agent) behind it. */
export interface Principal {
  orgId: string;
  orgSlug: string;
  keyId: string;
  /** usr_… for a human, agt_… for an agent: the ledger actor. */
  id: string;
  kind: PrincipalKind;
  name: string;
  tier: string | null;
  scopes: ReadonlySet<string>;
  /** Decision rights declared (governance.set_decision_rights): G-flagged methods may run. */
  governanceReady: boolean;
}

/** Keys are random 206-bit secrets, so an unsalted SHA-256 is enough to store them (as GitHub does). */
export const hashApiKey = (secret: string): string => sha256Hex(secret);

/** Parse `Authorization: Bearer <key>`; anything else is no credential. */
export function bearerFrom(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

interface KeyRow {
  org_id: string;
  slug: string;
  key_id: string;
  principal_id: string;
  kind: PrincipalKind;
  name: string;
  tier: string | null;
  scopes: string[];
  governance_ready: boolean;
}

const PRINCIPAL_SQL = (extraColumns: string, extraJoin: string) => `
  SELECT k.org_id, o.slug, k.key_id, k.principal_id, p.kind, p.name, k.tier, k.scopes,
         o.decision_rights IS NOT NULL AS governance_ready${extraColumns}
    FROM api_keys k
    JOIN orgs o ON o.org_id = k.org_id
    JOIN principals p ON p.org_id = k.org_id AND p.principal_id = k.principal_id${extraJoin}
   WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND o.deleted_at IS NULL AND p.status = 'active'`;

// A member not active (invited, suspended, deactivated, archived) is no principal: its keys fail from the next call.
const AUTH_SQL = PRINCIPAL_SQL('', '');

// The same, plus the stored call under (org, principal, method, key) (its frame, sealed frame, params hash and
// time): the replay lookup of ledger/idempotency.ts findReplay, answered by the same statement.
const AUTH_WITH_REPLAY_SQL = PRINCIPAL_SQL(
  STORED_COLUMNS.map((c) => `, i.${c} AS replay_${c}`).join(''),
  `
    LEFT JOIN idempotency i ON i.org_id = k.org_id AND i.actor = k.principal_id AND i.method = $2 AND i.key = $3`,
);

type ReplayColumns = { [C in keyof StoredRow as `replay_${C}`]: StoredRow[C] };

function toPrincipal(row: KeyRow | undefined): Principal {
  if (!row) throw new ApiError('UNAUTHORIZED', 'invalid or revoked credential');
  return {
    orgId: row.org_id,
    orgSlug: row.slug,
    keyId: row.key_id,
    id: row.principal_id,
    kind: row.kind,
    name: row.name,
    tier: row.tier,
    scopes: new Set(row.scopes),
    governanceReady: row.governance_ready,
  };
}

export async function authenticate(q: Queryable, apiKey: string | undefined): Promise<Principal> {
  if (!apiKey) throw new ApiError('UNAUTHORIZED', 'missing credential: send Authorization: Bearer <API_KEY>');
  const [row] = await q.query<KeyRow>(AUTH_SQL, [hashApiKey(apiKey)]);
  return toPrincipal(row);
}

/**
 * authenticate through the key cache (core/key-cache.ts): a key seen in the last few seconds answers without a
 * round trip. For reads only: a mutation always authenticates against the database, so a revoked key never writes.
 */
export async function authenticateCached(q: Queryable, cache: KeyCache, apiKey: string | undefined): Promise<Principal> {
  if (!cache.enabled) return authenticate(q, apiKey);
  if (!apiKey) throw new ApiError('UNAUTHORIZED', 'missing credential: send Authorization: Bearer <API_KEY>');
  const hash = hashApiKey(apiKey);
  const cached = cache.get(hash);
  if (cached) return cached;
  const startedAt = cache.mark();
  const [row] = await q.query<KeyRow>(AUTH_SQL, [hash]);
  const principal = toPrincipal(row);
  cache.set(hash, principal, startedAt);
  return principal;
}

// authenticate's statement with the key named by id instead of by its hash: the same joins and checks.
const AUTH_BY_KEY_ID_SQL = AUTH_SQL.replace('k.key_hash = $1', 'k.org_id = $1 AND k.key_id = $2');
if (AUTH_BY_KEY_ID_SQL === AUTH_SQL) throw new Error('auth.ts: AUTH_SQL no longer selects by k.key_hash = $1');

/**
 * authenticate for a face that kept the key's id rather than the key (an approval inbox session): the same
 * checks as a bearer key (revoked, org deleted), run again on every request.
 */
export async function authenticateKeyId(q: Queryable, orgId: string, keyId: string): Promise<Principal> {
  const [row] = await q.query<KeyRow>(AUTH_BY_KEY_ID_SQL, [orgId, keyId]);
  return toPrincipal(row);
}

/**
 * authenticate, and in the same round trip look up the stored first call of this principal's `method` under
 * idempotency key `key` (undefined when none is committed): a plain read, outside any transaction. The caller
 * checks it is a repeat (ledger/idempotency.ts repeatOf).
 */
export async function authenticateWithReplay(
  q: Queryable,
  apiKey: string | undefined,
  call: { method: string; key: string },
): Promise<{ principal: Principal; stored: StoredCall | undefined }> {
  if (!apiKey) throw new ApiError('UNAUTHORIZED', 'missing credential: send Authorization: Bearer <API_KEY>');
  const [row] = await q.query<KeyRow & ReplayColumns>(AUTH_WITH_REPLAY_SQL, [hashApiKey(apiKey), call.method, call.key]);
  const stored =
    row &&
    storedCall({ frame: row.replay_frame, sealed_frame: row.replay_sealed_frame, params_hash: row.replay_params_hash, created_at: row.replay_created_at });
  return { principal: toPrincipal(row), stored };
}
