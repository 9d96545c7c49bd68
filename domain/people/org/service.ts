import { ApiError } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import { createLedgerHead } from '../../../ledger/append.js';
import { isSqlError, SQLSTATE } from '../../../db/types.js';
import { newId } from '../../core/ids.js';
import { mintKey, type MintedKey } from './keys.js';

export interface CreatedOrg {
  orgId: string;
  slug: string;
  name: string;
  admin: MintedKey;
}

/** A new org: its row, an empty ledger chain, and a first admin key held by a new human principal. */
export async function createOrg(
  q: Queryable,
  p: { slug: string; name: string; parentOrgId: string | null; createdBy: string; adminKey?: string },
): Promise<CreatedOrg> {
  const orgId = newId('org');
  try {
    // The savepoint keeps the caller's transaction usable when the slug is taken.
    await q.query('SAVEPOINT create_org');
    await q.query('INSERT INTO orgs (org_id, slug, name, parent_org_id) VALUES ($1, $2, $3, $4)', [orgId, p.slug, p.name, p.parentOrgId]);
    await q.query('RELEASE SAVEPOINT create_org');
  } catch (err) {
    if (isSqlError(err, SQLSTATE.uniqueViolation)) {
      await q.query('ROLLBACK TO SAVEPOINT create_org');
      throw new ApiError('CONFLICT', `slug: ${p.slug} is already taken`);
    }
    throw err;
  }
  await createLedgerHead(q, orgId);
  const admin = await mintKey(q, orgId, { name: `${p.name} admin`, tier: 'admin', createdBy: p.createdBy, secret: p.adminKey });
  return { orgId, slug: p.slug, name: p.name, admin };
}

export async function findOrgBySlug(q: Queryable, slug: string): Promise<{ orgId: string; slug: string; name: string } | undefined> {
  const [row] = await q.query<{ org_id: string; slug: string; name: string }>('SELECT org_id, slug, name FROM orgs WHERE slug = $1 AND deleted_at IS NULL', [
    slug,
  ]);
  return row && { orgId: row.org_id, slug: row.slug, name: row.name };
}

export async function findOrgById(q: Queryable, orgId: string): Promise<{ orgId: string; slug: string; name: string } | undefined> {
  const [row] = await q.query<{ org_id: string; slug: string; name: string }>('SELECT org_id, slug, name FROM orgs WHERE org_id = $1 AND deleted_at IS NULL', [
    orgId,
  ]);
  return row && { orgId: row.org_id, slug: row.slug, name: row.name };
}

/**
 * Store the org's decision rights (governance.set_decision_rights, which checks them): the column is the org row's,
 * so people writes it; what the rights mean is governance's.
 */
export async function setDecisionRights(q: Queryable, orgId: string, rights: readonly unknown[], by: string): Promise<void> {
  await q.query('UPDATE orgs SET decision_rights = $2, decision_rights_at = now(), decision_rights_by = $3 WHERE org_id = $1', [
    orgId,
    JSON.stringify(rights),
    by,
  ]);
}
