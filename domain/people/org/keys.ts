import { ApiError, badRequest, notFound } from '../../../protocol/errors.js';
import { TIERS, beyondRole, roleCovering, type PrincipalKind, type Role, type Tier } from '../../../protocol/scopes.js';
import { one, type Queryable } from '../../../db/types.js';
import { hashApiKey } from '../../core/auth.js';
import { requireSeat } from '../billing/index.js';
import { newMemberHandle } from '../member/model.js';
import { newApiKeySecret, newId } from '../../core/ids.js';

export interface MintRequest {
  name: string;
  tier?: string;
  scopes?: readonly string[];
  principalKind?: PrincipalKind;
  principalId?: string;
  createdBy: string;
  /** Use this exact secret (BOOTSTRAP_ADMIN_KEY) instead of generating one. */
  secret?: string;
}

export interface MintedKey {
  keyId: string;
  apiKey: string;
  scopes: string[];
  tier: string | null;
  principal: { kind: PrincipalKind; id: string; name: string };
}

/** Mint a key: resolve tier or scopes, find or create its principal, store only the secret's hash. */
export async function mintKey(q: Queryable, orgId: string, req: MintRequest): Promise<MintedKey> {
  const tier = req.tier as Tier | undefined;
  const scopes = tier ? [...TIERS[tier].scopes] : [...new Set(req.scopes ?? [])];
  const kind: PrincipalKind = tier ? TIERS[tier].principal : (req.principalKind ?? 'agent');

  let principal: MintedKey['principal'];
  if (req.principalId) {
    const [row] = await q.query<{ kind: PrincipalKind; name: string; status: string; role: Role | null }>(
      'SELECT kind, name, status, role FROM principals WHERE org_id = $1 AND principal_id = $2',
      [orgId, req.principalId],
    );
    if (!row) throw notFound(`principal ${req.principalId}`);
    if (row.kind !== kind) {
      throw new ApiError(
        'BAD_REQUEST',
        `principalId: ${req.principalId} is ${row.kind === 'human' ? 'a human' : 'an agent'}, but this key is for ${kind === 'human' ? 'a human' : 'an agent'}`,
      );
    }
    // A key for a member who may not act would be dead on arrival (auth.ts): say so instead.
    if (row.status !== 'active') throw new ApiError('CONFLICT', `principalId: ${req.principalId} is ${row.status}; reactivate the member before minting a key`);
    // No key exceeds its holder's role.
    const beyond = row.role ? beyondRole(scopes, row.role) : [];
    if (beyond.length > 0) {
      throw badRequest(
        tier ? 'tier' : 'scopes',
        `${tier ?? beyond.join(', ')} exceeds the role ${row.role} of ${req.principalId}; mint within it, or widen the role first (user.updateRole)`,
      );
    }
    principal = { kind, id: req.principalId, name: row.name };
    // A member's first live key takes a seat (domain/billing): none free is a CONFLICT.
    const live = one(
      await q.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND principal_id = $2 AND revoked_at IS NULL', [
        orgId,
        req.principalId,
      ]),
    );
    if (Number(live.n) === 0) await requireSeat(q, orgId, kind, 'principalId');
  } else {
    principal = { kind, id: newId(kind === 'human' ? 'usr' : 'agt'), name: req.name };
    const handle = await newMemberHandle(q, orgId, req.name);
    await q.query('INSERT INTO principals (org_id, principal_id, kind, name, role, handle) VALUES ($1, $2, $3, $4, $5, $6)', [
      orgId,
      principal.id,
      kind,
      req.name,
      kind === 'human' ? roleCovering(scopes) : null,
      handle,
    ]);
    // After the people lock newMemberHandle took: every path takes that one first, then the seats'.
    await requireSeat(q, orgId, kind, tier ? 'tier' : 'principalKind');
  }

  const apiKey = req.secret ?? newApiKeySecret();
  const keyId = newId('key');
  // A generated key's prefix is `wops_` and 4 of its 40 random characters; a secret an operator chose may be
  // short or guessable, so none of it is kept in clear.
  const prefix = req.secret === undefined ? apiKey.slice(0, 9) : '';
  await q.query(
    `INSERT INTO api_keys (org_id, key_id, key_hash, key_prefix, name, tier, scopes, principal_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [orgId, keyId, hashApiKey(apiKey), prefix, req.name, tier ?? null, scopes, principal.id, req.createdBy],
  );
  return { keyId, apiKey, scopes, tier: tier ?? null, principal };
}

export async function revokeKey(q: Queryable, orgId: string, keyId: string): Promise<{ keyId: string; revoked: true; revokedAt: string }> {
  const [row] = await q.query<{ revoked_at: string }>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE org_id = $1 AND key_id = $2 RETURNING revoked_at`,
    [orgId, keyId],
  );
  if (!row) throw notFound(`key ${keyId}`);
  return { keyId, revoked: true, revokedAt: row.revoked_at };
}

/** Ledger payload for a minted key: never the secret or its hash. */
export const mintedKeyEvent = (k: MintedKey) => ({
  keyId: k.keyId,
  tier: k.tier,
  scopes: k.scopes,
  principal: k.principal.id,
  principalKind: k.principal.kind,
});

export interface LiveKey {
  keyId: string;
  tier: string | null;
  scopes: string[];
}

/** A principal's keys not revoked, locked for re-tiering (user.updateRole). */
export async function liveKeysOf(q: Queryable, orgId: string, principalId: string): Promise<LiveKey[]> {
  const rows = await q.query<{ key_id: string; tier: string | null; scopes: string[] }>(
    'SELECT key_id, tier, scopes FROM api_keys WHERE org_id = $1 AND principal_id = $2 AND revoked_at IS NULL ORDER BY key_id FOR UPDATE',
    [orgId, principalId],
  );
  return rows.map((r) => ({ keyId: r.key_id, tier: r.tier, scopes: r.scopes }));
}

/** Rewrite live keys' tier and scopes in place (same secret, same id): a role change re-tiers them. */
export async function setKeyScopes(q: Queryable, orgId: string, keys: readonly LiveKey[]): Promise<void> {
  for (const k of keys) {
    await q.query('UPDATE api_keys SET tier = $3, scopes = $4 WHERE org_id = $1 AND key_id = $2', [orgId, k.keyId, k.tier, k.scopes]);
  }
}

/** Revoke every live key of a principal (offboarding); returns how many. */
export async function revokeKeysOf(q: Queryable, orgId: string, principalId: string): Promise<number> {
  const rows = await q.query('UPDATE api_keys SET revoked_at = now() WHERE org_id = $1 AND principal_id = $2 AND revoked_at IS NULL RETURNING key_id', [
    orgId,
    principalId,
  ]);
  return rows.length;
}

/** How many keys of a principal are not revoked. */
export async function countLiveKeys(q: Queryable, orgId: string, principalId: string): Promise<number> {
  const row = one(
    await q.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND principal_id = $2 AND revoked_at IS NULL', [
      orgId,
      principalId,
    ]),
  );
  return Number(row.n);
}

/** The principal a key belongs to (the key's row outlives its revocation), or undefined. */
export async function keyHolder(q: Queryable, orgId: string, keyId: string): Promise<string | undefined> {
  const [row] = await q.query<{ principal_id: string }>('SELECT principal_id FROM api_keys WHERE org_id = $1 AND key_id = $2', [orgId, keyId]);
  return row?.principal_id;
}

/** An active principal and whether it holds a live admin key (as a caller's key is read); undefined when not active. */
export async function activeWithAdmin(q: Queryable, orgId: string, principalId: string): Promise<{ admin: boolean } | undefined> {
  const [row] = await q.query<{ admin: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM api_keys k WHERE k.org_id = p.org_id AND k.principal_id = p.principal_id AND k.revoked_at IS NULL AND 'admin' = ANY(k.scopes)) AS admin
       FROM principals p WHERE p.org_id = $1 AND p.principal_id = $2 AND p.status = 'active'`,
    [orgId, principalId],
  );
  return row;
}

/** Every scope an active principal's live keys hold together (empty when it has none; undefined when not active). */
export async function liveScopes(q: Queryable, orgId: string, principalId: string): Promise<Set<string> | undefined> {
  const [row] = await q.query<{ scopes: string[] }>(
    `SELECT coalesce((SELECT array_agg(DISTINCT s) FROM api_keys k, unnest(k.scopes) s
                       WHERE k.org_id = p.org_id AND k.principal_id = p.principal_id AND k.revoked_at IS NULL), '{}') AS scopes
       FROM principals p WHERE p.org_id = $1 AND p.principal_id = $2 AND p.status = 'active'`,
    [orgId, principalId],
  );
  return row ? new Set(row.scopes) : undefined;
}
