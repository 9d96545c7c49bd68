import { badRequest, conflict } from '../../protocol/errors.js';
import { settingsSecrets as c } from '../../protocol/methods/credential.js';
import { handler } from '../core/handler.js';
import { actionClassOf } from '../approval/index.js';
import { requireKeyring } from './keys.js';
import { addVersion, findCredential, loadCredential, revokeLeases, sameAsCurrent, shredAll, toCredential } from './store.js';
import { putAnswer, writeSecret } from './secrets.js';

/*
 * The settings family's secret methods, over the same vault as credential. deleteSecret crypto-shreds: the sealed
 * values and wrapped DEKs go, the metadata (name, versions, leases) stays, so the audit still reads. An agent with
 * admin deleting one holds for a human: it may cut what every agent reaches.
 */

export const upsertSecret = handler(c.upsertSecret, async (ctx, p) => {
  const { payload, result } = putAnswer(ctx, await writeSecret(ctx, p));
  await ctx.emit('settings.secret.put', payload.credentialId, payload);
  return result;
});

export const deleteSecret = handler(c.deleteSecret, async (ctx, p) => {
  const row = await loadCredential(ctx.q, ctx.orgId, p.credentialId, 'FOR UPDATE');
  if (p.confirmName !== row.name) throw badRequest('confirmName', `must be the secret's name exactly; nothing was deleted`);
  const now = ctx.deps.clock.now();
  if (row.state === 'destroyed') {
    await ctx.emit('settings.secret.destroy', row.credential_id, { credentialId: row.credential_id, versions: 0, leasesRevoked: 0, noop: true });
    return { credential: toCredential(row, now), versionsDestroyed: 0, leasesRevoked: 0, changed: false };
  }
  const users = await ctx.q.query<{ integration_id: string }>(
    `SELECT integration_id FROM integrations WHERE org_id = $1 AND credential_id = $2 AND state = 'active' ORDER BY integration_id`,
    [ctx.orgId, row.credential_id],
  );
  if (users.length) {
    throw conflict(
      `secret ${row.credential_id} is used by active integration(s) ${users.map((u) => u.integration_id).join(', ')}: nothing was deleted; disconnect them (integration.disconnect) or point them at another secret first`,
    );
  }
  let approvalId: string | null = null;
  if (ctx.principal.kind === 'agent') {
    const proof = await ctx.requireSignature({
      actionClass: actionClassOf(ctx.method.name),
      subjectId: row.credential_id,
      summary: `An agent destroys secret ${row.credential_id} (${row.name}) for good: ${row.versions_kept} sealed version(s) shredded, its leases revoked`,
      params: p,
    });
    approvalId = proof.approvalId;
  }
  const at = now.toISOString();
  const versions = await shredAll(ctx.q, ctx.orgId, row.credential_id, at);
  const leasesRevoked = await revokeLeases(ctx.q, ctx.orgId, 'l.credential_id = $4', [row.credential_id], ctx.principal.id, at);
  await ctx.q.query(`UPDATE credentials SET state = 'destroyed', current_version = 0, updated_at = $3 WHERE org_id = $1 AND credential_id = $2`, [
    ctx.orgId,
    row.credential_id,
    at,
  ]);
  const saved = (await findCredential(ctx.q, ctx.orgId, { credentialId: row.credential_id }))!;
  await ctx.emit('settings.secret.destroy', row.credential_id, { credentialId: row.credential_id, versions, leasesRevoked, approvalId });
  return { credential: toCredential(saved, now), versionsDestroyed: versions, leasesRevoked, changed: true };
});

export const recordSecretRotation = handler(c.recordSecretRotation, async (ctx, p) => {
  const ring = p.value !== undefined ? await requireKeyring(ctx.deps) : null;
  const row = await loadCredential(ctx.q, ctx.orgId, p.credentialId, 'FOR UPDATE');
  if (row.state === 'destroyed') throw conflict(`secret ${row.credential_id} was destroyed: nothing to rotate; create a new secret (credential.put)`);
  const now = ctx.deps.clock.now();
  const rotatedAt = p.rotatedAt ? new Date(p.rotatedAt) : now;
  if (rotatedAt.getTime() > now.getTime() + 60_000) throw badRequest('rotatedAt', 'must not be in the future');
  const at = now.toISOString();
  // A value equal to the current one restarts the clock without a version (it was rotated to what we already hold).
  const newValue = p.value !== undefined && ring !== null && !(await sameAsCurrent(ctx.q, ring, ctx.orgId, row, p.value));
  const version = newValue ? await addVersion(ctx.q, ring, ctx.orgId, row.credential_id, p.value!, ctx.principal.id, at) : Number(row.current_version);
  await ctx.q.query('UPDATE credentials SET rotated_at = $3, updated_at = $4 WHERE org_id = $1 AND credential_id = $2', [
    ctx.orgId,
    row.credential_id,
    rotatedAt.toISOString(),
    at,
  ]);
  const saved = toCredential((await findCredential(ctx.q, ctx.orgId, { credentialId: row.credential_id }))!, now);
  await ctx.emit('settings.secret.rotate', row.credential_id, {
    credentialId: row.credential_id,
    version,
    newVersion: newValue,
    rotationDueAt: saved.rotationDueAt,
  });
  return { credential: saved, version, changed: true };
});
