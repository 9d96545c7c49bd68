import { ApiError } from '../protocol/errors.js';
import { sha256Hex } from '../protocol/hashing.js';
import type { PrincipalKind } from '../protocol/scopes.js';
import type { Queryable } from '../db/types.js';

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

const PRINCIPAL_SQL = (extraColumns: string) => `
  SELECT k.org_id, o.slug, k.key_id, k.principal_id, p.kind, p.name, k.tier, k.scopes,
         o.decision_rights IS NOT NULL AS governance_ready${extraColumns}
    FROM api_keys k
    JOIN orgs o ON o.org_id = k.org_id
    JOIN principals p ON p.org_id = k.org_id AND p.principal_id = k.principal_id
   WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND o.deleted_at IS NULL`;

const AUTH_SQL = PRINCIPAL_SQL('');

// The same, plus the stored frame of a committed first attempt under (org, principal, method, key): the
// replay lookup of ledger/idempotency.ts findReplay, answered by the same statement.
const AUTH_WITH_REPLAY_SQL = PRINCIPAL_SQL(`,
         (SELECT i.frame FROM idempotency i
           WHERE i.org_id = k.org_id AND i.actor = k.principal_id AND i.method = $2 AND i.key = $3) AS replay_frame`);

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
 * authenticate, and in the same round trip look up the stored result of this principal's call of `method`
 * under idempotency key `key` (undefined when none is committed): a plain read, outside any transaction.
 */
export async function authenticateWithReplay(
  q: Queryable,
  apiKey: string | undefined,
  call: { method: string; key: string },
): Promise<{ principal: Principal; storedFrame: string | undefined }> {
  if (!apiKey) throw new ApiError('UNAUTHORIZED', 'missing credential: send Authorization: Bearer <API_KEY>');
  const [row] = await q.query<KeyRow & { replay_frame: string | null }>(AUTH_WITH_REPLAY_SQL, [hashApiKey(apiKey), call.method, call.key]);
  return { principal: toPrincipal(row), storedFrame: row?.replay_frame ?? undefined };
}
