import { ApiError, notFound } from '../../protocol/errors.js';
import { TIERS, type PrincipalKind, type Tier } from '../../protocol/scopes.js';
import type { Queryable } from '../../db/types.js';
import { hashApiKey } from '../auth.js';
import { newApiKeySecret, newId } from '../ids.js';

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
    const [row] = await q.query<{ kind: PrincipalKind; name: string; status: string }>(
      'SELECT kind, name, status FROM principals WHERE org_id = $1 AND principal_id = $2',
      [orgId, req.principalId],
    );
    if (!row) throw notFound(`principal ${req.principalId}`);
    if (row.kind !== kind) {
      throw new ApiError('BAD_REQUEST', `principalId: ${req.principalId} is ${row.kind === 'human' ? 'a human' : 'an agent'}, but this key is for ${kind === 'human' ? 'a human' : 'an agent'}`);
    }
    // A key for a member who may not act would be dead on arrival (auth.ts): say so instead.
    if (row.status !== 'active') throw new ApiError('CONFLICT', `principalId: ${req.principalId} is ${row.status}; reactivate the member before minting a key`);
    principal = { kind, id: req.principalId, name: row.name };
  } else {
    principal = { kind, id: newId(kind === 'human' ? 'usr' : 'agt'), name: req.name };
    await q.query('INSERT INTO principals (org_id, principal_id, kind, name) VALUES ($1, $2, $3, $4)', [orgId, principal.id, kind, req.name]);
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
