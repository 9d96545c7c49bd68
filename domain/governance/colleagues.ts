import type { Queryable } from '../../db/types.js';

/*
 * What the charter's colleague records tell the decision rights (governance.md section 2: per colleague, authority
 * roles and autonomy). The charter family fills these in from its own tables; until it exists, nobody holds a role
 * (a `role:` selector names no one) and every agent has the standard autonomy. rights.ts asks only these three.
 */

export const AUTONOMY = ['supervised', 'standard', 'delegated'] as const;
/** supervised: holds on every governing act; standard: acts as an owner, never decides; delegated: decides where a right names it by id. */
export type Autonomy = (typeof AUTONOMY)[number];

/** The charter role slugs `principalId` holds (authority roles). */
export async function rolesOf(_q: Queryable, _orgId: string, _principalId: string): Promise<string[]> {
  return [];
}

/** The principal ids holding charter role `slug`. */
export async function roleMembers(_q: Queryable, _orgId: string, _slug: string): Promise<string[]> {
  return [];
}

/** An agent's autonomy from its colleague record (standard when it has none). */
export async function autonomyOf(_q: Queryable, _orgId: string, _agentId: string): Promise<Autonomy> {
  return 'standard';
}
