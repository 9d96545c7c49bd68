import { user as c } from '../../../protocol/methods/user.js';
import { TIERS, beyondRole, humanTierOf, roleCovers, type Role } from '../../../protocol/scopes.js';
import { handler } from '../../core/handler.js';
import { laneHold } from '../member/lane.js';
import { lockPeople } from '../member/model.js';
import { liveKeysOf, setKeyScopes, type LiveKey } from '../org/keys.js';
import { lockAccess, refuseLastAdmin, toAccess } from './access.js';

/**
 * The new tier and scopes of each live key under `role` (null: unchanged). Keys at the old role's tier follow the
 * role (re-tiered, either way); every other key is clipped to the new role, which leaves it as it is on an
 * upgrade: a read-only key minted on purpose does not grow with its holder.
 */
export function retier(keys: readonly LiveKey[], from: Role | null, role: Role): { key: LiveKey; next: LiveKey | null; retiered: boolean }[] {
  return keys.map((key) => {
    if (from !== null && key.tier === from) return { key, next: { keyId: key.keyId, tier: role, scopes: [...TIERS[role].scopes] }, retiered: true };
    const beyond = new Set(beyondRole(key.scopes, role));
    if (beyond.size === 0) return { key, next: null, retiered: false };
    const scopes = key.scopes.filter((s) => !beyond.has(s));
    // A tier key keeps a tier name only if what is left is exactly one; an explicit key stays explicit.
    return { key, next: { keyId: key.keyId, tier: key.tier === null ? null : humanTierOf(scopes), scopes }, retiered: false };
  });
}

export const updateRole = handler(c.updateRole, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await lockAccess(ctx.q, ctx.orgId, p.userId);
  const from = row.role;
  const hold = {
    actionClass: 'user.update_role',
    subjectId: p.userId,
    summary: `Change the role of ${row.name} (${p.userId}) from ${from ?? 'none'} to ${p.role}`,
    params: p,
  };
  const agentWidens = laneHold(ctx.principal, 'user.updateRole', from === null || !roleCovers(from, p.role));
  if (from === p.role) {
    if (agentWidens) await ctx.verifyProof(hold);
    await ctx.emit('user.role.update', p.userId, { userId: p.userId, role: p.role, version: Number(row.version), noop: true });
    return { user: toAccess(row), keys: { retiered: 0, clipped: 0, kept: Number(row.live_keys) }, changed: false };
  }
  // Granting access is an agent's to ask for, a human's to decide; narrowing a role never waits.
  const proof = agentWidens ? await ctx.requireSignature(hold) : null;
  if (p.role !== 'admin') await refuseLastAdmin(ctx.q, ctx.orgId, row, `change the role of ${p.userId}`);

  const plan = retier(await liveKeysOf(ctx.q, ctx.orgId, p.userId), from, p.role);
  await setKeyScopes(
    ctx.q,
    ctx.orgId,
    plan.flatMap((k) => k.next ?? []),
  );
  await ctx.q.query('UPDATE principals SET role = $3, version = version + 1, updated_at = now() WHERE org_id = $1 AND principal_id = $2', [
    ctx.orgId,
    p.userId,
    p.role,
  ]);
  const keys = {
    retiered: plan.filter((k) => k.retiered).length,
    clipped: plan.filter((k) => !k.retiered && k.next).length,
    kept: plan.filter((k) => !k.next).length,
  };
  const after = await lockAccess(ctx.q, ctx.orgId, p.userId);
  await ctx.emit('user.role.update', p.userId, {
    userId: p.userId,
    from,
    to: p.role,
    keysRetiered: keys.retiered,
    keysClipped: keys.clipped,
    keysKept: keys.kept,
    version: Number(after.version),
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return { user: toAccess(after), keys, changed: true };
});
