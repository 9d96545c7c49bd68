import { notFound, ApiError } from '../../../protocol/errors.js';
import { org } from '../../../protocol/methods/org.js';
import { settings } from '../../../protocol/methods/settings.js';
import type { Queryable } from '../../../db/types.js';
import { family, type Family } from '../../core/family.js';
import { laneHold, laneSignature } from '../member/lane.js';
import { handler } from '../../core/handler.js';
import { mintKey, mintedKeyEvent, revokeKey } from './keys.js';
import { createOrg } from './service.js';
import { orgReads } from './whoami.js';

export const create = handler(org.create, async (ctx, p) => {
  laneHold(ctx.principal, 'org.create');
  const created = await createOrg(ctx.q, { slug: p.slug, name: p.name, parentOrgId: ctx.orgId, createdBy: ctx.principal.id });
  await ctx.emit('org.record.create', created.orgId, { orgId: created.orgId, slug: created.slug, adminKeyId: created.admin.keyId });
  return { orgId: created.orgId, slug: created.slug, name: created.name, adminKey: created.admin.apiKey, adminKeyId: created.admin.keyId };
});

export const remove = handler(org.delete, async (ctx, p) => {
  const [row] = await ctx.q.query<{ slug: string }>('SELECT slug FROM orgs WHERE org_id = $1 AND parent_org_id = $2 AND deleted_at IS NULL FOR UPDATE', [
    p.orgId,
    ctx.orgId,
  ]);
  if (!row) throw notFound(`org ${p.orgId}`);
  if (row.slug !== p.confirmSlug) throw new ApiError('BAD_REQUEST', `confirmSlug: does not match the slug of ${p.orgId}`);
  await laneSignature(ctx, undefined, {
    subjectId: p.orgId,
    summary: `Delete the org ${row.slug} (${p.orgId}): every key of it stops working`,
    params: p,
    completion: 'release',
  });
  await ctx.q.query('UPDATE orgs SET deleted_at = now() WHERE org_id = $1', [p.orgId]);
  // Its keys stop reading in this process before the answer (another org's: the pipeline drops only the caller's).
  ctx.afterCommit(() => ctx.deps.keys.dropOrg(p.orgId));
  await ctx.emit('org.record.delete', p.orgId, { orgId: p.orgId, slug: row.slug });
  return { orgId: p.orgId, deleted: true as const };
});

export const list = handler(org.list, async (ctx) => {
  const rows = await ctx.q.query<{ org_id: string; slug: string; name: string; parent_org_id: string | null; created_at: string }>(
    `SELECT org_id, slug, name, parent_org_id, created_at FROM orgs
      WHERE (org_id = $1 OR parent_org_id = $1) AND deleted_at IS NULL ORDER BY created_at, org_id`,
    [ctx.orgId],
  );
  return {
    orgs: rows.map((r) => ({
      orgId: r.org_id,
      slug: r.slug,
      name: r.name,
      parentOrgId: r.parent_org_id,
      createdAt: r.created_at,
      current: r.org_id === ctx.orgId,
    })),
  };
});

const mint = (contract: typeof org.mintApiKey | typeof settings.mintApiKey) =>
  handler(contract, async (ctx, p) => {
    // No agent mints a key (the secret would be the agent's): the agent lane refuses it (domain/people/member/lane.ts).
    laneHold(ctx.principal, contract === org.mintApiKey ? 'org.mintApiKey' : 'settings.mintApiKey');
    const minted = await mintKey(ctx.q, ctx.orgId, { ...p, createdBy: ctx.principal.id });
    await ctx.emit(`${ctx.method.family}.key.mint`, minted.keyId, mintedKeyEvent(minted));
    return minted;
  });

const revoke = (contract: typeof org.revokeApiKey | typeof settings.revokeApiKey) =>
  handler(contract, async (ctx, p) => {
    const [key] = await ctx.q.query<{ name: string; principal_id: string; kind: string; principal_name: string; revoked_at: string | null }>(
      `SELECT k.name, k.principal_id, p.kind, p.name AS principal_name, k.revoked_at FROM api_keys k
         JOIN principals p ON p.org_id = k.org_id AND p.principal_id = k.principal_id WHERE k.org_id = $1 AND k.key_id = $2`,
      [ctx.orgId, p.keyId],
    );
    // The agent lane: an agent's key is revoked at once (the kill switch); a human's live key by a human's hand or approval.
    if (key && key.revoked_at === null) {
      await laneSignature(ctx, key.kind === 'human', {
        subjectId: p.keyId,
        summary: `Revoke the key "${key.name}" (${p.keyId}) of ${key.principal_name} (${key.principal_id}), a human`,
        params: p,
        completion: 'release',
      });
    }
    const revoked = await revokeKey(ctx.q, ctx.orgId, p.keyId);
    await ctx.emit(`${ctx.method.family}.key.revoke`, p.keyId, { keyId: p.keyId });
    return revoked;
  });

interface KeyRow {
  key_id: string;
  name: string;
  key_prefix: string;
  tier: string | null;
  scopes: string[];
  principal_id: string;
  kind: 'human' | 'agent';
  principal_name: string;
  created_at: string;
  created_by: string;
  revoked_at: string | null;
}

async function listKeys(q: Queryable, orgId: string, includeRevoked: boolean) {
  const rows = await q.query<KeyRow>(
    `SELECT k.key_id, k.name, k.key_prefix, k.tier, k.scopes, k.principal_id, p.kind, p.name AS principal_name,
            k.created_at, k.created_by, k.revoked_at
       FROM api_keys k JOIN principals p ON p.org_id = k.org_id AND p.principal_id = k.principal_id
      WHERE k.org_id = $1 AND ($2 OR k.revoked_at IS NULL)
      ORDER BY k.created_at DESC, k.key_id`,
    [orgId, includeRevoked],
  );
  return rows.map((r) => ({
    keyId: r.key_id,
    name: r.name,
    prefix: r.key_prefix,
    tier: r.tier,
    scopes: r.scopes,
    principal: { kind: r.kind, id: r.principal_id, name: r.principal_name },
    createdAt: r.created_at,
    createdBy: r.created_by,
    revokedAt: r.revoked_at,
  }));
}

export const listApiKeys = handler(settings.listApiKeys, async (ctx, p) => ({ keys: await listKeys(ctx.q, ctx.orgId, p.includeRevoked) }));

export const renameApiKey = handler(settings.renameApiKey, async (ctx, p) => {
  const [row] = await ctx.q.query('UPDATE api_keys SET name = $3 WHERE org_id = $1 AND key_id = $2 RETURNING key_id', [ctx.orgId, p.keyId, p.name]);
  if (!row) throw notFound(`key ${p.keyId}`);
  await ctx.emit('settings.key.rename', p.keyId, { keyId: p.keyId, name: p.name });
  return { keyId: p.keyId, name: p.name };
});

export const orgHandlers = family('org', {
  create,
  delete: remove,
  list,
  mintApiKey: mint(org.mintApiKey),
  revokeApiKey: revoke(org.revokeApiKey),
});

export const settingsHandlers = family('settings', {
  mintApiKey: mint(settings.mintApiKey),
  revokeApiKey: revoke(settings.revokeApiKey),
  listApiKeys,
  renameApiKey,
});

/** The org family, as domain/deployed.ts lists it. */
export const orgFamily: Family = { name: 'org', methods: new Map([...orgHandlers, ...settingsHandlers]), reads: orgReads };
