import { ApiError, badRequest, conflict, notFound } from '../../protocol/errors.js';
import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { requireKeyring } from './keys.js';
import { addVersion, findCredential, sameAsCurrent, toCredential, type CredentialRow, type VersionRow } from './store.js';

/*
 * Writing a secret: credential.put and settings.upsertSecret are one act over the same rows. A value equal to the
 * current one adds no version (a retry of put is safe without an idempotency key); a disabled secret is enabled
 * again; a destroyed one stays destroyed (its name is kept with its metadata).
 */

export interface SecretInput {
  credentialId?: string;
  name: string;
  value?: string;
  leasableBy?: string[];
  defaultTtlSeconds?: number;
  maxTtlSeconds?: number;
  approval?: 'none' | 'each_lease';
  rotationPeriodDays?: number | null;
}

export interface Written {
  row: CredentialRow;
  version: number;
  created: boolean;
  changed: boolean;
}

const DEFAULT_TTL = 900;
const DEFAULT_MAX_TTL = 3600;

function ttls(p: SecretInput, row?: CredentialRow): { dflt: number; max: number } {
  const max = p.maxTtlSeconds ?? (row ? Number(row.max_ttl_seconds) : DEFAULT_MAX_TTL);
  const dflt = p.defaultTtlSeconds ?? (row ? Math.min(Number(row.default_ttl_seconds), max) : Math.min(DEFAULT_TTL, max));
  if (dflt > max) throw badRequest('defaultTtlSeconds', `must be at most maxTtlSeconds (${max})`);
  return { dflt, max };
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

export async function writeSecret(ctx: HandlerCtx, p: SecretInput): Promise<Written> {
  const now = ctx.deps.clock.now().toISOString();
  // Sealed (PostgreSQL without a key): refused before anything is read or written.
  const ring = p.value !== undefined ? await requireKeyring(ctx.deps) : null;
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('cred:' || $1 || ':' || $2))`, [ctx.orgId, p.name]);
  const byName = await findCredential(ctx.q, ctx.orgId, { name: p.name }, 'FOR UPDATE');
  let row = byName;
  if (p.credentialId) {
    row = await findCredential(ctx.q, ctx.orgId, { credentialId: p.credentialId }, 'FOR UPDATE');
    if (!row) throw notFound(`credential ${p.credentialId}`);
    if (byName && byName.credential_id !== row.credential_id) {
      throw conflict(`the name ${p.name} is taken by ${byName.credential_id}: choose another name, or change that secret by its id`);
    }
  }
  if (!row) {
    if (p.value === undefined || !ring) throw badRequest('value', 'required to create a secret');
    const { dflt, max } = ttls(p);
    const credentialId = newId('cred');
    await ctx.q.query(
      `INSERT INTO credentials (org_id, credential_id, name, leasable_by, default_ttl_seconds, max_ttl_seconds, approval, rotation_period_days,
                                rotated_at, created_at, created_by, updated_at)
       VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9, $9, $10, $9)`,
      [ctx.orgId, credentialId, p.name, p.leasableBy ?? [], dflt, max, p.approval ?? 'none', p.rotationPeriodDays ?? null, now, ctx.principal.id],
    );
    const version = await addVersion(ctx.q, ring, ctx.orgId, credentialId, p.value, ctx.principal.id, now);
    return { row: (await findCredential(ctx.q, ctx.orgId, { credentialId }))!, version, created: true, changed: true };
  }
  if (row.state === 'destroyed') {
    throw conflict(`secret ${row.credential_id} (${row.name}) was destroyed for good and keeps its name: create the secret under another name`);
  }
  const { dflt, max } = ttls(p, row);
  const policy = {
    leasable_by: p.leasableBy ?? row.leasable_by,
    approval: p.approval ?? row.approval,
    rotation_period_days: p.rotationPeriodDays === undefined ? row.rotation_period_days : p.rotationPeriodDays,
  };
  const policyChanged =
    !sameSet(policy.leasable_by, row.leasable_by) ||
    policy.approval !== row.approval ||
    policy.rotation_period_days !== (row.rotation_period_days === null ? null : Number(row.rotation_period_days)) ||
    dflt !== Number(row.default_ttl_seconds) ||
    max !== Number(row.max_ttl_seconds) ||
    p.name !== row.name;
  const reenable = row.state === 'disabled';
  const newValue = p.value !== undefined && ring !== null && !(await sameAsCurrent(ctx.q, ring, ctx.orgId, row, p.value));
  if (!policyChanged && !reenable && !newValue) return { row, version: Number(row.current_version), created: false, changed: false };
  if (policyChanged || reenable) {
    await ctx.q.query(
      `UPDATE credentials SET name = $3, leasable_by = $4::text[], default_ttl_seconds = $5, max_ttl_seconds = $6, approval = $7,
              rotation_period_days = $8, state = 'active', updated_at = $9 WHERE org_id = $1 AND credential_id = $2`,
      [ctx.orgId, row.credential_id, p.name, policy.leasable_by, dflt, max, policy.approval, policy.rotation_period_days, now],
    );
  }
  const version = newValue ? await addVersion(ctx.q, ring, ctx.orgId, row.credential_id, p.value!, ctx.principal.id, now) : Number(row.current_version);
  return { row: (await findCredential(ctx.q, ctx.orgId, { credentialId: row.credential_id }))!, version, created: false, changed: true };
}

/** The put result and its event payload. */
export function putAnswer(ctx: HandlerCtx, w: Written) {
  const payload = { credentialId: w.row.credential_id, version: w.version, created: w.created, changed: w.changed, ...(w.changed ? {} : { noop: true }) };
  return { payload, result: { credential: toCredential(w.row, ctx.deps.clock.now()), version: w.version, created: w.created, changed: w.changed } };
}

export type LeasableRow = Pick<
  CredentialRow,
  'credential_id' | 'name' | 'state' | 'leasable_by' | 'default_ttl_seconds' | 'max_ttl_seconds' | 'approval' | 'current_version'
> & { [K in keyof VersionRow]: VersionRow[K] | null };

/**
 * A secret a caller may lease, with its current version's sealed row in the same statement (a lease opens it):
 * NOT_FOUND for one that is unknown or not granted to them (existence stays hidden).
 */
export async function grantedSecret(ctx: HandlerCtx, by: { credentialId?: string; name?: string }): Promise<LeasableRow> {
  const ref = by.credentialId ?? by.name ?? '';
  const [row] = await ctx.q.query<LeasableRow>(
    `SELECT c.credential_id, c.name, c.state, c.leasable_by, c.default_ttl_seconds, c.max_ttl_seconds, c.approval, c.current_version,
            v.kek_id, v.wrapped_dek, v.sealed
       FROM credentials c
       LEFT JOIN credential_versions v ON v.org_id = c.org_id AND v.credential_id = c.credential_id AND v.version = c.current_version AND v.sealed IS NOT NULL
      WHERE c.org_id = $1 AND ${by.credentialId ? 'c.credential_id' : 'c.name'} = $2`,
    [ctx.orgId, ref],
  );
  const granted = row && (row.leasable_by.includes('*') || row.leasable_by.includes(ctx.principal.id));
  if (!row || !granted) throw new ApiError('NOT_FOUND', `credential ${ref} not found among the secrets granted to you: ask an admin to grant it (leasableBy)`);
  return row;
}
