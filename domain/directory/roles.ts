import { badRequest } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';

/*
 * Roles: what other families hold for a party (books: a contact con_…, customer, supplier; CRM: a contact or an
 * account). The directory keeps no copy: each family registers a source, from its own code, that reports the roles
 * of given parties and lists the holders of a role. getPerson/getOrg show them; listPeople/listOrgs filter by them.
 */

export interface PartyRole {
  partyId: string;
  /** `<family>.<role>`, e.g. books.customer. */
  role: string;
  /** The family's record for it (con_…), when it has one. */
  refId: string | null;
}

export interface PartyRoleSource {
  family: string;
  /** Every role it may report (the role filter refuses others). */
  roles: readonly string[];
  /** The roles of these parties (ids as stored: merged parties' roles were repointed by the merge). */
  read(q: Queryable, orgId: string, partyIds: readonly string[]): Promise<PartyRole[]>;
  /** The parties holding this role. */
  holders(q: Queryable, orgId: string, role: string): Promise<string[]>;
}

const sources = new Map<string, PartyRoleSource>();

/** Register a family's role source (once per family, from that family's module). */
export function registerPartyRoles(source: PartyRoleSource): void {
  if (sources.has(source.family)) throw new Error(`registerPartyRoles: ${source.family} already registered`);
  for (const role of source.roles) {
    if (!role.startsWith(`${source.family}.`)) throw new Error(`registerPartyRoles(${source.family}): role ${role} must start with ${source.family}.`);
  }
  sources.set(source.family, source);
}

/** Every role of these parties, by party id (parties with none are absent). */
export async function rolesOf(q: Queryable, orgId: string, partyIds: readonly string[]): Promise<Map<string, { family: string; role: string; refId: string | null }[]>> {
  const out = new Map<string, { family: string; role: string; refId: string | null }[]>();
  if (partyIds.length === 0) return out;
  for (const source of sources.values()) {
    for (const r of await source.read(q, orgId, partyIds)) {
      const list = out.get(r.partyId) ?? [];
      list.push({ family: source.family, role: r.role, refId: r.refId });
      out.set(r.partyId, list);
    }
  }
  return out;
}

/** The parties holding `role`; BAD_REQUEST naming `field` when no family reports it. */
export async function roleHolders(q: Queryable, orgId: string, role: string, field: string): Promise<string[]> {
  const source = [...sources.values()].find((s) => s.roles.includes(role));
  if (!source) {
    const known = [...sources.values()].flatMap((s) => s.roles);
    throw badRequest(field, `no family reports the role ${role}${known.length ? ` (known: ${known.join(', ')})` : ' (no roles are registered)'}`);
  }
  return source.holders(q, orgId, role);
}
