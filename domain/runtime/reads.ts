import { runtimeReadContracts as c } from '../../protocol/reads/runtime.js';
import { badRequest } from '../../protocol/errors.js';
import { HEALTH } from '../../protocol/methods/runtime/registry.js';
import { readHandler } from '../core/handler.js';
import { loadProfile, OFFICE_COLUMNS, toOffice, toProfile, type OfficeRow } from './company/model.js';
import { LEASE_COLUMNS, toLease, type LeaseRow } from './lease/model.js';
import { presenceOf } from './presence/model.js';
import { HEALTH_COLUMNS, toRegistration, type HealthRow } from './registry/model.js';

/*
 * GET /api/v1/org/agents, /org/leases and /org/company: the control plane as people and agents read it, health and
 * expiry computed on the database's clock at the read. Pages by keyset cursor (the last row's key, opaque).
 */

const encode = (parts: string[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
function decode(cursor: string | undefined, n: number): string[] | null {
  if (cursor === undefined) return null;
  try {
    const parts: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parts) && parts.length === n && parts.every((x) => typeof x === 'string')) return parts;
  } catch {
    // fall through: not one of ours
  }
  throw badRequest('cursor', 'is not a cursor this read gave: pass nextCursor as it came, or leave it out to start again');
}

export const agents = readHandler(c['org/agents'], async (ctx, query) => {
  const after = decode(query.cursor, 2);
  const rows = await ctx.q.query<HealthRow>(
    `SELECT ${HEALTH_COLUMNS} FROM agent_health WHERE org_id = $1 AND ($2::text IS NULL OR status = $2)
        AND ($3::text IS NULL OR (principal_id, instance) > ($3, $4)) ORDER BY principal_id, instance LIMIT $5`,
    [ctx.orgId, query.status ?? null, after?.[0] ?? null, after?.[1] ?? null, query.limit + 1],
  );
  const page = rows.slice(0, query.limit);
  const counted = await ctx.q.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM agent_health WHERE org_id = $1 GROUP BY status', [
    ctx.orgId,
  ]);
  const counts = Object.fromEntries(HEALTH.map((h) => [h, Number(counted.find((r) => r.status === h)?.n ?? 0)])) as Record<(typeof HEALTH)[number], number>;
  // Presence of the principals on this page, and (on the first page) of everyone whose beat has not expired.
  const beating = after
    ? []
    : await ctx.q.query<{ principal_id: string }>(
        'SELECT principal_id FROM presence_beats WHERE org_id = $1 AND expires_at > clock_timestamp() ORDER BY 1 LIMIT 500',
        [ctx.orgId],
      );
  const ids = [...new Set([...page.map((r) => r.principal_id), ...beating.map((r) => r.principal_id)])].sort();
  const last = page[page.length - 1];
  return {
    registrations: page.map(toRegistration),
    presence: await presenceOf(ctx.q, ctx.orgId, ids),
    counts,
    nextCursor: rows.length > query.limit && last ? encode([last.principal_id, last.instance]) : null,
  };
});

export const leases = readHandler(c['org/leases'], async (ctx, query) => {
  const after = decode(query.cursor, 2);
  const rows = await ctx.q.query<LeaseRow>(
    `SELECT ${LEASE_COLUMNS} FROM lease_state WHERE org_id = $1
        AND (state = 'held' OR ($2 AND coalesce(released_at, expires_at) > clock_timestamp() - interval '24 hours'))
        AND ($3::text IS NULL OR starts_with(name, $3))
        AND ($4::text IS NULL OR (name, lease_id) > ($4, $5)) ORDER BY name, lease_id LIMIT $6`,
    [ctx.orgId, query.all === 'true', query.prefix ?? null, after?.[0] ?? null, after?.[1] ?? null, query.limit + 1],
  );
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return { leases: page.map(toLease), nextCursor: rows.length > query.limit && last ? encode([last.name, last.lease_id]) : null };
});

export const company = readHandler(c['org/company'], async (ctx, query) => {
  const offices = await ctx.q.query<OfficeRow>(
    `SELECT ${OFFICE_COLUMNS} FROM office_locations WHERE org_id = $1 AND ($2 OR status = 'active')
      ORDER BY status = 'active' DESC, is_head_office DESC, name, location_id LIMIT 500`,
    [ctx.orgId, query.all === 'true'],
  );
  return {
    profile: toProfile(await loadProfile(ctx.q, ctx.orgId)),
    offices: offices.map(toOffice),
    headOfficeId: offices.find((o) => o.is_head_office && o.status === 'active')?.location_id ?? null,
  };
});
