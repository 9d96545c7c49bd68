import { one } from '../../../db/types.js';
import { ApiError, badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { lease as c } from '../../../protocol/methods/runtime/lease.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { loadRegistration } from '../registry/model.js';
import { loadLease, toLease, type LeaseRow } from './model.js';

/*
 * lease.claim, heartbeat and release, on the database's clock. Claims of one name queue on its lease_names row
 * (FOR UPDATE), which keeps the name's last fencing token: a new holder (the name free, released or lapsed) gets
 * token + 1; the same principal and instance again gets the same lease and token (changed:false), so a retried
 * claim never mints a second holder. Expiry is read after the lock, so a claim that waited sees the time it runs.
 */

const holderLine = (r: LeaseRow) =>
  `held by ${r.holder_id} (instance ${r.holder_instance}) until ${new Date(r.expires_at).toISOString()} with fencing token ${Number(r.fencing_token)}`;

export const claim = handler(c.claim, async (ctx, p) => {
  const floor = ctx.deps.config.leaseMinTtlSeconds;
  if (p.ttlSeconds < floor) throw badRequest('ttlSeconds', `must be at least ${floor}`);
  const me = ctx.principal.id;
  const instance = p.holderInstance ?? ctx.principal.keyId;
  if (p.registrationId) {
    const reg = await loadRegistration(ctx.q, ctx.orgId, p.registrationId);
    if (reg.principal_id !== me) throw notFound(`registration ${p.registrationId}`);
    if (reg.status === 'stopped') throw conflict(`registration ${p.registrationId} is stopped: register again (registry.register) and claim under the new one`);
  }
  await ctx.q.query('INSERT INTO lease_names (org_id, name) VALUES ($1, $2) ON CONFLICT (org_id, name) DO NOTHING', [ctx.orgId, p.name]);
  const slot = one(
    await ctx.q.query<{ token: number | string; lease_id: string | null }>(
      'SELECT token, lease_id FROM lease_names WHERE org_id = $1 AND name = $2 FOR UPDATE',
      [ctx.orgId, p.name],
    ),
  );
  const current = slot.lease_id ? await loadLease(ctx.q, ctx.orgId, slot.lease_id) : undefined;
  if (current?.state === 'held') {
    if (current.holder_id === me && current.holder_instance === instance) {
      await ctx.emit('lease.lock.claim', current.lease_id, {
        leaseId: current.lease_id,
        name: p.name,
        fencingToken: Number(current.fencing_token),
        previousHolder: null,
        changed: false,
        noop: true,
      });
      return { lease: toLease(current), previousHolder: null, changed: false };
    }
    throw conflict(`lease "${p.name}" is ${holderLine(current)}: claim again after it lapses or its holder releases it (lease.release)`);
  }
  if (current?.state === 'lapsed') await ctx.q.query(`UPDATE leases SET status = 'lapsed' WHERE org_id = $1 AND lease_id = $2`, [ctx.orgId, current.lease_id]);
  const token = Number(slot.token) + 1;
  const leaseId = newId('lse');
  await ctx.q.query(
    `INSERT INTO leases (org_id, lease_id, name, holder_id, holder_instance, registration_id, fencing_token, ttl_seconds, status, acquired_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::int, 'held', clock_timestamp(), clock_timestamp() + make_interval(secs => $8::int))`,
    [ctx.orgId, leaseId, p.name, me, instance, p.registrationId ?? null, token, p.ttlSeconds],
  );
  const row = await loadLease(ctx.q, ctx.orgId, leaseId);
  await ctx.q.query('UPDATE lease_names SET token = $3, lease_id = $4 WHERE org_id = $1 AND name = $2', [ctx.orgId, p.name, token, leaseId]);
  const previousHolder = current?.holder_id ?? null;
  await ctx.emit('lease.lock.claim', leaseId, { leaseId, name: p.name, fencingToken: token, previousHolder, changed: true });
  return { lease: toLease(row), previousHolder, changed: true };
});

export const heartbeat = handler(c.heartbeat, async (ctx, p) => {
  const row = await loadLease(ctx.q, ctx.orgId, p.leaseId, true);
  if (row.holder_id !== ctx.principal.id) throw conflict(`lease ${row.lease_id} ("${row.name}") is ${holderLine(row)}: renew only your own`);
  if (row.state !== 'held') {
    const name = `lease ${row.lease_id} ("${row.name}")`;
    if (row.registration_stopped) {
      throw conflict(
        `${name} lapsed with its registration ${row.registration_id}, which is stopped (it beat stopped or stayed critical for 72 hours): register again (registry.register) and claim under the new one; the token changes`,
      );
    }
    const when =
      row.state === 'released' ? `was released at ${new Date(row.released_at!).toISOString()}` : `lapsed at ${new Date(row.expires_at).toISOString()}`;
    throw conflict(`${name} ${when}: claim again (lease.claim); the token changes`);
  }
  const ttl = p.ttlSeconds ?? Number(row.ttl_seconds);
  const floor = ctx.deps.config.leaseMinTtlSeconds;
  if (ttl < floor) throw badRequest('ttlSeconds', `must be at least ${floor}`);
  await ctx.q.query(
    'UPDATE leases SET expires_at = clock_timestamp() + make_interval(secs => $3::int), ttl_seconds = $3::int WHERE org_id = $1 AND lease_id = $2',
    [ctx.orgId, row.lease_id, ttl],
  );
  const now = await loadLease(ctx.q, ctx.orgId, row.lease_id);
  await ctx.emit('lease.lock.heartbeat', row.lease_id, { leaseId: row.lease_id, fencingToken: Number(row.fencing_token), ttlSeconds: ttl });
  return { lease: toLease(now) };
});

export const release = handler(c.release, async (ctx, p) => {
  if (p.force && !ctx.principal.scopes.has('admin')) {
    throw new ApiError('FORBIDDEN_SCOPE', `missing scope admin for lease.release with force: release your own leases, or ask an admin`);
  }
  const row = await loadLease(ctx.q, ctx.orgId, p.leaseId, true);
  const ids = { leaseId: row.lease_id, fencingToken: Number(row.fencing_token) };
  if (row.state !== 'held') {
    await ctx.emit('lease.lock.release', row.lease_id, { ...ids, forced: false, changed: false, noop: true });
    return { lease: toLease(row), changed: false };
  }
  const mine = row.holder_id === ctx.principal.id;
  if (!mine && !p.force) throw conflict(`lease ${row.lease_id} ("${row.name}") is ${holderLine(row)}: release only your own, or as an admin with force: true`);
  await ctx.q.query(`UPDATE leases SET status = 'released', released_at = clock_timestamp(), released_by = $3 WHERE org_id = $1 AND lease_id = $2`, [
    ctx.orgId,
    row.lease_id,
    ctx.principal.id,
  ]);
  const now = await loadLease(ctx.q, ctx.orgId, row.lease_id);
  await ctx.emit('lease.lock.release', row.lease_id, { ...ids, forced: !mine, changed: true });
  return { lease: toLease(now), changed: true };
});
