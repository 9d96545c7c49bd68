import { ApiError, conflict } from '../../../protocol/errors.js';
import { MIN_BEAT_SECONDS, registry as c } from '../../../protocol/methods/runtime/registry.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { releaseLeasesOf } from '../lease/model.js';
import { loadRegistration, toRegistration, type HealthRow } from './model.js';

/*
 * registry.register and registry.heartbeat. A registration is keyed by (principal, instance): registering again
 * updates it and revives it. Beats are M (one event each), so they are bounded: a beat sooner than
 * max(5 s, ttl/10) after the last is RATE_LIMITED, which (thrown inside the call) writes nothing, no event either.
 * Notes stay in the row, never in the ledger.
 */

const minInterval = (ttlSeconds: number) => Math.max(MIN_BEAT_SECONDS, Math.ceil(ttlSeconds / 10));

export const register = handler(c.register, async (ctx, p) => {
  const me = ctx.principal.id;
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('registry:' || $1 || ':' || $2 || ':' || $3))`, [ctx.orgId, me, p.instance]);
  const [was] = await ctx.q.query<{ registration_id: string }>(
    'SELECT registration_id FROM agent_registrations WHERE org_id = $1 AND principal_id = $2 AND instance = $3 FOR UPDATE',
    [ctx.orgId, me, p.instance],
  );
  const capabilities = [...new Set(p.capabilities)];
  const base = { capabilities: capabilities.length, ttlSeconds: p.ttlSeconds };
  if (was) {
    const row = await loadRegistration(ctx.q, ctx.orgId, was.registration_id);
    const same =
      row.name === p.name && row.version === p.version && row.capabilities.join('\n') === capabilities.join('\n') && Number(row.ttl_seconds) === p.ttlSeconds;
    if (same && row.status === 'passing') {
      await ctx.emit('registry.agent.register', row.registration_id, { registrationId: row.registration_id, ...base, changed: false, noop: true });
      return { registration: toRegistration(row), changed: false };
    }
    await ctx.q.query(
      `UPDATE agent_registrations SET name = $3, version = $4, capabilities = $5, ttl_seconds = $6, reported_status = 'passing', critical_since = NULL,
              note = NULL, last_beat_at = clock_timestamp()
        WHERE org_id = $1 AND registration_id = $2`,
      [ctx.orgId, row.registration_id, p.name, p.version, capabilities, p.ttlSeconds],
    );
  }
  const registrationId = was?.registration_id ?? newId('reg');
  if (!was) {
    await ctx.q.query(
      `INSERT INTO agent_registrations (org_id, registration_id, principal_id, instance, name, version, capabilities, ttl_seconds, reported_status,
                                        last_beat_at, registered_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'passing', clock_timestamp(), clock_timestamp())`,
      [ctx.orgId, registrationId, me, p.instance, p.name, p.version, capabilities, p.ttlSeconds],
    );
  }
  const row = await loadRegistration(ctx.q, ctx.orgId, registrationId);
  await ctx.emit('registry.agent.register', registrationId, { registrationId, ...base, created: !was, changed: true });
  return { registration: toRegistration(row), changed: true };
});

export const heartbeat = handler(c.heartbeat, async (ctx, p) => {
  const row = await loadRegistration(ctx.q, ctx.orgId, p.registrationId, true);
  if (row.principal_id !== ctx.principal.id) {
    throw conflict(`registration ${row.registration_id} belongs to ${row.principal_id}: beat only your own (register your instance with registry.register)`);
  }
  if (row.status === 'stopped') {
    throw conflict(`registration ${row.registration_id} is stopped: register the instance again (registry.register) and beat on the registration it answers`);
  }
  const interval = minInterval(Number(row.ttl_seconds));
  const since = Number(row.since_beat_seconds);
  if (p.status !== 'stopped' && since < interval) {
    const wait = Math.max(1, Math.ceil(interval - since));
    throw new ApiError(
      'RATE_LIMITED',
      `rate limited: registration ${row.registration_id} beat ${Math.floor(since)} s ago; beat at most every ${interval} s (nothing was recorded): retry in ${wait} seconds`,
      { retryAfterSeconds: wait },
    );
  }
  // Critical keeps the time it went critical (reported or lapsed); any other status clears it.
  await ctx.q.query(
    `UPDATE agent_registrations SET reported_status = $3, note = $4, last_beat_at = clock_timestamp(),
            critical_since = CASE WHEN $3 = 'critical' THEN coalesce($5::timestamptz, clock_timestamp()) END
      WHERE org_id = $1 AND registration_id = $2`,
    [ctx.orgId, row.registration_id, p.status, p.note ?? null, row.status === 'critical' ? row.critical_from : null],
  );
  const leasesReleased = p.status === 'stopped' ? await releaseLeasesOf(ctx.q, ctx.orgId, row.registration_id, ctx.principal.id) : 0;
  const now: HealthRow = await loadRegistration(ctx.q, ctx.orgId, row.registration_id);
  await ctx.emit('registry.agent.heartbeat', row.registration_id, {
    registrationId: row.registration_id,
    status: p.status,
    fromStatus: row.status,
    leasesReleased,
  });
  return {
    registration: toRegistration(now),
    leasesReleased,
    nextBeatInSeconds: Math.max(interval, Math.floor(Number(now.ttl_seconds) / 2)),
  };
});
