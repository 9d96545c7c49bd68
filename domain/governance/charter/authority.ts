import type { Queryable } from '../../../db/types.js';

/*
 * The authority of the head charter's colleague records (charter_authority), as the decision rights and other
 * families read it: domain/governance/colleagues.ts answers the rights from these.
 */

export type AutonomyLevel = 'supervised' | 'standard' | 'delegated';

/** The charter role slugs `principalId` holds. */
export async function charterRolesOf(q: Queryable, orgId: string, principalId: string): Promise<string[]> {
  const [row] = await q.query<{ roles: string[] }>('SELECT roles FROM charter_authority WHERE org_id = $1 AND principal_id = $2', [orgId, principalId]);
  return row?.roles ?? [];
}

/** The principal ids holding charter role `slug`, in id order. */
export async function charterRoleMembers(q: Queryable, orgId: string, slug: string): Promise<string[]> {
  const rows = await q.query<{ principal_id: string }>(
    'SELECT principal_id FROM charter_authority WHERE org_id = $1 AND $2 = ANY(roles) ORDER BY principal_id',
    [orgId, slug],
  );
  return rows.map((r) => r.principal_id);
}

/** A colleague's autonomy as its record sets it (null: none set). */
export async function charterAutonomyOf(q: Queryable, orgId: string, principalId: string): Promise<AutonomyLevel | null> {
  const [row] = await q.query<{ autonomy: AutonomyLevel | null }>('SELECT autonomy FROM charter_authority WHERE org_id = $1 AND principal_id = $2', [
    orgId,
    principalId,
  ]);
  return row?.autonomy ?? null;
}

/** Whom a colleague answers to in the charter (null: not set). */
export async function charterReportsTo(q: Queryable, orgId: string, principalId: string): Promise<string | null> {
  const [row] = await q.query<{ reports_to: string | null }>('SELECT reports_to FROM charter_authority WHERE org_id = $1 AND principal_id = $2', [
    orgId,
    principalId,
  ]);
  return row?.reports_to ?? null;
}
