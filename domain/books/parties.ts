import type { PartyRole, PartyRoleSource } from '../directory/index.js';

/*
 * Books' side of one record (docs/families/directory.md, One person, one record): a contact is the finance role of a
 * directory party. The directory shows the roles (getPerson/getOrg, the role filter); the books descriptor (index.ts)
 * contributes these and the party column a merge repoints.
 * The con_ id never changes: journals and ledger payloads cite it.
 */

const ROLES = ['books.contact', 'books.customer', 'books.supplier'] as const;

export const booksPartyRoles: PartyRoleSource = {
  roles: ROLES,
  async read(q, orgId, partyIds) {
    const rows = await q.query<{ party_id: string; contact_id: string; is_customer: boolean; is_supplier: boolean }>(
      `SELECT party_id, contact_id, is_customer, is_supplier FROM books_contact_roles WHERE org_id = $1 AND party_id = ANY($2::text[]) ORDER BY n`,
      [orgId, partyIds],
    );
    // A contact is a customer, a supplier, both, or (neither flag yet) a plain books contact.
    return rows.flatMap((r): PartyRole[] => {
      const roles = [...(r.is_customer ? ['books.customer'] : []), ...(r.is_supplier ? ['books.supplier'] : [])];
      return (roles.length ? roles : ['books.contact']).map((role) => ({ partyId: r.party_id, role, refId: r.contact_id }));
    });
  },
  async holders(q, orgId, role) {
    // books.contact: any party with a con_; the others by their flag.
    const where = role === 'books.customer' ? 'AND is_customer' : role === 'books.supplier' ? 'AND is_supplier' : '';
    const rows = await q.query<{ party_id: string }>(`SELECT DISTINCT party_id FROM books_contact_roles WHERE org_id = $1 ${where}`, [orgId]);
    return rows.map((r) => r.party_id);
  },
};
