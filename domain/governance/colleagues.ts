import type { Queryable } from '../../db/types.js';
import { charterAutonomyOf, charterRoleMembers, charterRolesOf } from './charter/authority.js';

/*
 * What the charter's colleague records tell the decision rights (docs/families/governance.md, The charter: per
 * colleague, authority roles and autonomy), read from the head charter (domain/governance/charter/authority.ts).
 * rights.ts asks only these three.
 */

export const AUTONOMY = ['supervised', 'standard', 'delegated'] as const;
/** supervised: holds on every governing act; standard: acts as an owner, never decides; delegated: decides where a right names it by id. */
export type Autonomy = (typeof AUTONOMY)[number];

/** The charter role slugs `principalId` holds (authority roles). */
export async function rolesOf(q: Queryable, orgId: string, principalId: string): Promise<string[]> {
  return charterRolesOf(q, orgId, principalId);
}

/** The principal ids holding charter role `slug`. */
export async function roleMembers(q: Queryable, orgId: string, slug: string): Promise<string[]> {
  return charterRoleMembers(q, orgId, slug);
}

/** An agent's autonomy from its colleague record (standard when it has none). */
export async function autonomyOf(q: Queryable, orgId: string, agentId: string): Promise<Autonomy> {
  return (await charterAutonomyOf(q, orgId, agentId)) ?? 'standard';
}
