import { timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../../db/types.js';
import { conflict, notFound } from '../../protocol/errors.js';
import { aadOf, MissingKekError, openValue, sealValue, type SealedVersion } from './crypto.js';
import type { Keyring } from './keys.js';

/*
 * The credential rows and their sealed versions. A value is sealed here before the INSERT that stores it, and opened
 * only by leaseValue (a caller's lease) and the integrations' transport header. Ten versions are kept; older ones
 * are shredded (sealed value and wrapped DEK deleted, the version row kept).
 */

export const KEPT_VERSIONS = 10;

export interface CredentialRow {
  credential_id: string;
  name: string;
  state: 'active' | 'disabled' | 'destroyed';
  leasable_by: string[];
  default_ttl_seconds: number;
  max_ttl_seconds: number;
  approval: 'none' | 'each_lease';
  rotation_period_days: number | null;
  rotated_at: string;
  current_version: number;
  versions_kept: number;
  created_at: string;
  updated_at: string;
}

/** A timestamp column as ISO 8601 (the drivers give a Date or a string). */
export const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

export const CREDENTIAL_SELECT = `c.credential_id, c.name, c.state, c.leasable_by, c.default_ttl_seconds, c.max_ttl_seconds, c.approval,
  c.rotation_period_days, c.rotated_at, c.current_version, c.created_at, c.updated_at,
  (SELECT count(*)::int FROM credential_versions v WHERE v.org_id = c.org_id AND v.credential_id = c.credential_id AND v.sealed IS NOT NULL) AS versions_kept`;

export async function findCredential(q: Queryable, orgId: string, by: { credentialId?: string; name?: string }, lock = ''): Promise<CredentialRow | undefined> {
  const [row] = await q.query<CredentialRow>(
    `SELECT ${CREDENTIAL_SELECT} FROM credentials c WHERE c.org_id = $1 AND ${by.credentialId ? 'c.credential_id' : 'c.name'} = $2 ${lock}`,
    [orgId, by.credentialId ?? by.name],
  );
  return row;
}

export async function loadCredential(q: Queryable, orgId: string, credentialId: string, lock = ''): Promise<CredentialRow> {
  const row = await findCredential(q, orgId, { credentialId }, lock);
  if (!row) throw notFound(`credential ${credentialId}`);
  return row;
}

export function rotationDue(row: CredentialRow): string | null {
  if (row.rotation_period_days === null || row.state === 'destroyed') return null;
  return new Date(new Date(row.rotated_at).getTime() + row.rotation_period_days * 86_400_000).toISOString();
}

export function toCredential(row: CredentialRow, now: Date) {
  const due = rotationDue(row);
  return {
    id: row.credential_id,
    name: row.name,
    state: row.state,
    leasableBy: row.leasable_by,
    defaultTtlSeconds: Number(row.default_ttl_seconds),
    maxTtlSeconds: Number(row.max_ttl_seconds),
    approval: row.approval,
    rotationPeriodDays: row.rotation_period_days === null ? null : Number(row.rotation_period_days),
    rotatedAt: iso(row.rotated_at),
    rotationDueAt: due,
    overdue: due !== null && due < now.toISOString(),
    version: Number(row.current_version),
    versionsKept: Number(row.versions_kept),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export interface VersionRow {
  kek_id: string;
  wrapped_dek: Uint8Array;
  sealed: Uint8Array;
}

const asSealed = (r: VersionRow): SealedVersion => ({ kekId: r.kek_id, wrappedDek: Buffer.from(r.wrapped_dek), sealed: Buffer.from(r.sealed) });

/** The value of a version still kept, or null when shredded. */
export async function openVersion(q: Queryable, ring: Keyring, orgId: string, credentialId: string, version: number): Promise<string | null> {
  const [row] = await q.query<VersionRow>(
    'SELECT kek_id, wrapped_dek, sealed FROM credential_versions WHERE org_id = $1 AND credential_id = $2 AND version = $3 AND sealed IS NOT NULL',
    [orgId, credentialId, version],
  );
  return row ? openSealed(ring, orgId, credentialId, version, row) : null;
}

/** Open a version row already read (a caller that joined it into its own query). */
export function openSealed(ring: Keyring, orgId: string, credentialId: string, version: number, row: VersionRow): string {
  try {
    return openValue(ring, aadOf(orgId, credentialId, version), asSealed(row));
  } catch (err) {
    // A key dropped before vault rewrap moved its rows, or a key id reused for other key material: the operator's to fix.
    const why =
      err instanceof MissingKekError
        ? `its data key is wrapped by master key ${err.kekId}, which VAULT_MASTER_KEYS no longer lists`
        : 'it does not open with the configured master keys';
    throw conflict(
      `secret ${credentialId} version ${version} is kept but ${why}: nothing was opened; an operator puts that key back in VAULT_MASTER_KEYS (after the active one) and runs vault rewrap`,
    );
  }
}

/** Whether `value` equals the current version's, compared in constant time (no hash of a value is ever kept). */
export async function sameAsCurrent(q: Queryable, ring: Keyring, orgId: string, row: CredentialRow, value: string): Promise<boolean> {
  if (!row.current_version) return false;
  const current = await openVersion(q, ring, orgId, row.credential_id, Number(row.current_version));
  if (current === null) return false;
  const a = Buffer.from(current, 'utf8');
  const b = Buffer.from(value, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Seal and store the next version, make it current, and shred what falls out of the ten kept. */
export async function addVersion(q: Queryable, ring: Keyring, orgId: string, credentialId: string, value: string, by: string, at: string): Promise<number> {
  const [{ next }] = (await q.query<{ next: number }>(
    'SELECT coalesce(max(version), 0)::int + 1 AS next FROM credential_versions WHERE org_id = $1 AND credential_id = $2',
    [orgId, credentialId],
  )) as [{ next: number }];
  const version = Number(next);
  const sealed = sealValue(ring, aadOf(orgId, credentialId, version), value);
  await q.query(
    `INSERT INTO credential_versions (org_id, credential_id, version, kek_id, wrapped_dek, sealed, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [orgId, credentialId, version, sealed.kekId, sealed.wrappedDek, sealed.sealed, at, by],
  );
  await q.query(
    `UPDATE credential_versions SET kek_id = NULL, wrapped_dek = NULL, sealed = NULL, shredded_at = $4
      WHERE org_id = $1 AND credential_id = $2 AND version <= $3 AND sealed IS NOT NULL`,
    [orgId, credentialId, version - KEPT_VERSIONS, at],
  );
  await q.query('UPDATE credentials SET current_version = $3, updated_at = $4 WHERE org_id = $1 AND credential_id = $2', [orgId, credentialId, version, at]);
  return version;
}

/** Crypto-shred every version (sealed values and wrapped DEKs deleted; rows kept): how many still had one. */
export async function shredAll(q: Queryable, orgId: string, credentialId: string, at: string): Promise<number> {
  const rows = await q.query(
    `UPDATE credential_versions SET kek_id = NULL, wrapped_dek = NULL, sealed = NULL, shredded_at = $3
      WHERE org_id = $1 AND credential_id = $2 AND sealed IS NOT NULL RETURNING version`,
    [orgId, credentialId, at],
  );
  return rows.length;
}

/** Revoke active leases matching a condition on credential_leases (l): how many. */
export async function revokeLeases(q: Queryable, orgId: string, where: string, args: readonly unknown[], by: string, at: string): Promise<number> {
  const rows = await q.query(
    `UPDATE credential_leases l SET revoked_at = $2, revoked_by = $3
      WHERE l.org_id = $1 AND l.revoked_at IS NULL AND l.expires_at > $2 AND ${where} RETURNING lease_id`,
    [orgId, at, by, ...args],
  );
  return rows.length;
}
