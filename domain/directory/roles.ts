import { badRequest } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import type { FamilySet } from '../core/family.js';

/*
 * Roles: what other families hold for a party (books: a contact con_…, customer, supplier; CRM: a contact or an
 * account). The directory keeps no copy: each family contributes a source from its descriptor (`contributes:
 * { partyRoles }`) that reports the roles of given parties and lists the holders of a role. getPerson/getOrg show
 * them; listPeople/listOrgs filter by them.
 */

declare module '../core/family.js' {
  interface Contributions {
    /** The roles a family holds for directory parties (directory/roles.ts). */
    partyRoles: PartyRoleSource;
  }
}

export interface PartyRole {
  partyId: string;
  /** `<family>.<role>`, e.g. books.customer. */
  role: string;
  /** The family's record for it (con_…), when it has one. */
  refId: string | null;
}

export interface PartyRoleSource {
  /** Every role it may report (the role filter refuses others). */
  roles: readonly string[];
  /** The roles of these parties (ids as stored: merged parties' roles were repointed by the merge). */
  read(q: Queryable, orgId: string, partyIds: readonly string[]): Promise<PartyRole[]>;
  /** The parties holding this role. */
  holders(q: Queryable, orgId: string, role: string): Promise<string[]>;
}

/** The runtime's check of every family's role source (the directory descriptor's verify): each role is its family's. */
export function checkPartyRoles(families: FamilySet): void {
  for (const { family, value } of families.contributions('partyRoles')) {
    for (const role of value.roles) {
      if (!role.startsWith(`${family}.`)) throw new Error(`partyRoles of ${family}: role ${role} must start with ${family}.`);
    }
  }
}

/** Every role of these parties, by party id (parties with none are absent). */
export async function rolesOf(
  families: FamilySet,
  q: Queryable,
  orgId: string,
  partyIds: readonly string[],
): Promise<Map<string, { family: string; role: string; refId: string | null }[]>> {
  const out = new Map<string, { family: string; role: string; refId: string | null }[]>();
  if (partyIds.length === 0) return out;
  for (const { family, value: source } of families.contributions('partyRoles')) {
    for (const r of await source.read(q, orgId, partyIds)) {
      const list = out.get(r.partyId) ?? [];
      list.push({ family, role: r.role, refId: r.refId });
      out.set(r.partyId, list);
    }
  }
  return out;
}

/** The parties holding `role`; BAD_REQUEST naming `field` when no family reports it. */
export async function roleHolders(families: FamilySet, q: Queryable, orgId: string, role: string, field: string): Promise<string[]> {
  const sources = families.contributions('partyRoles').map((c) => c.value);
  const source = sources.find((s) => s.roles.includes(role));
  if (!source) {
    const known = sources.flatMap((s) => s.roles);
    throw badRequest(field, `no family reports the role ${role}${known.length ? ` (known: ${known.join(', ')})` : ' (no roles are registered)'}`);
  }
  return source.holders(q, orgId, role);
}
