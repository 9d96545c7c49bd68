import { conflict, notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { createOrgParty, lockPartyName, partiesNamed, type NamedParty } from '../directory/index.js';
import { newId } from '../core/ids.js';

/*
 * Contacts: the finance role of a directory party (books_contact_roles: the con_ id that journals cite, the
 * customer/supplier flags, the approved bank details). Name, email and ABN are the party's; books reads them
 * through the view books_contacts (migration 034), as it read its own columns before.
 */

export interface ContactRow {
  contact_id: string;
  name: string;
  email: string | null;
  abn: string | null;
  bank_bsb: string | null;
  bank_account: string | null;
  bank_account_name: string | null;
  is_customer: boolean;
  is_supplier: boolean;
}

const CONTACT_COLUMNS = 'contact_id, name, email, abn, bank_bsb, bank_account, bank_account_name, is_customer, is_supplier';

/** The parties of `named` at the closest kind of match (exact, then folded, then alias), or none. */
function closest(named: readonly NamedParty[]): NamedParty[] {
  for (const match of ['exact', 'folded', 'alias'] as const) {
    const at = named.filter((n) => n.match === match);
    if (at.length) return at;
  }
  return [];
}

/**
 * The contact of this name, marked as customer or supplier; `created` says whether its con_ is new (a supplier's
 * first bill is then a NEW PAYEE). The party of that name or alias holding a books role gives its con_ (its oldest
 * when a merge gave it two); else the one active organisation of that name gains the role; else a new organisation
 * is made. Never a guess among several: several organisations of the name without the role make a new one (dedupe
 * then offers the merge); several holding the role (a directory rename made two alike) is a CONFLICT naming them,
 * since a new contact each time would never converge.
 */
export async function findOrCreateContact(
  q: Queryable,
  orgId: string,
  name: string,
  role: 'customer' | 'supplier',
): Promise<{ contact: ContactRow; created: boolean }> {
  const flag = role === 'customer' ? 'is_customer' : 'is_supplier';
  const clean = name.trim().replace(/\s+/g, ' ');
  await lockPartyName(q, orgId, clean);
  // Parties of the name (exact or folded) and their oldest con_; aliases only when none of them holds the role.
  const rolesOf = async (ids: readonly string[]) =>
    new Map(
      (
        await q.query<{ party_id: string; contact_id: string }>(
          'SELECT DISTINCT ON (party_id) party_id, contact_id FROM books_contact_roles WHERE org_id = $1 AND party_id = ANY($2::text[]) ORDER BY party_id, n',
          [orgId, ids],
        )
      ).map((r) => [r.party_id, r.contact_id]),
    );
  let named = await partiesNamed(q, orgId, clean);
  let held = await rolesOf(named.map((n) => n.partyId));
  if (held.size === 0) {
    const holders = (await q.query<{ party_id: string }>('SELECT DISTINCT party_id FROM books_contact_roles WHERE org_id = $1', [orgId])).map(
      (r) => r.party_id,
    );
    named = await partiesNamed(q, orgId, clean, { aliasesOf: holders });
    held = await rolesOf(named.filter((n) => n.match === 'alias').map((n) => n.partyId));
  }
  const withRole = closest(named.filter((n) => held.has(n.partyId)));
  if (withRole.length > 1) {
    throw conflict(
      `${role === 'customer' ? 'payeeName' : 'supplierName'}: ${withRole.length} parties with a books role have this name (${withRole.map((n) => n.partyId).join(', ')}); ` +
        'merge them (directory.proposeMerge) or rename one (directory.updateOrg), then retry',
    );
  }
  let contactId: string | null = null;
  let created = false;
  if (withRole.length === 1) {
    contactId = held.get(withRole[0].partyId)!;
  } else {
    const orgs = closest(named.filter((n) => n.kind === 'org' && n.status === 'active' && n.match !== 'alias'));
    contactId = newId('con');
    // A new organisation takes the con_ id's 16 characters, as the imported contacts did (migration 034).
    const partyId =
      orgs.length === 1
        ? orgs[0].partyId
        : await createOrgParty(q, orgId, { partyId: `co_${contactId.slice(4)}`, name: clean, origin: 'books', createdBy: '' });
    await q.query('INSERT INTO books_contact_roles (org_id, contact_id, party_id) VALUES ($1, $2, $3)', [orgId, contactId, partyId]);
    created = true;
  }
  // Updating the role row locks it until commit (billCapture's duplicate check relies on it).
  await q.query(`UPDATE books_contact_roles SET ${flag} = true WHERE org_id = $1 AND contact_id = $2`, [orgId, contactId]);
  return { contact: await getContact(q, orgId, contactId), created };
}

export async function getContact(q: Queryable, orgId: string, contactId: string): Promise<ContactRow> {
  const [row] = await q.query<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM books_contacts WHERE org_id = $1 AND contact_id = $2`, [orgId, contactId]);
  if (!row) throw notFound(`contact ${contactId}`);
  return row;
}

/** Record the payee bank details a human approved (after a signed NEW PAYEE bill). */
export async function setContactBankDetails(
  q: Queryable,
  orgId: string,
  contactId: string,
  bank: { bsb: string; accountNumber: string; accountName: string },
): Promise<void> {
  await q.query('UPDATE books_contact_roles SET bank_bsb = $3, bank_account = $4, bank_account_name = $5 WHERE org_id = $1 AND contact_id = $2', [
    orgId,
    contactId,
    bank.bsb,
    bank.accountNumber,
    bank.accountName,
  ]);
}

/** `••••6789`: what reads show of an account number. */
export const maskAccount = (accountNumber: string | null): string | null => (accountNumber ? `••••${accountNumber.slice(-4)}` : null);
