import { notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { newId } from '../ids.js';

/** Contacts: one per name (case and spacing ignored), found or created by the documents that name them. */

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

export const nameKey = (name: string): string => name.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The contact with this name, created when new, marked as customer or supplier. `created` says whether it is
 * new: a supplier's first bill makes it a NEW PAYEE.
 */
export async function findOrCreateContact(
  q: Queryable,
  orgId: string,
  name: string,
  role: 'customer' | 'supplier',
): Promise<{ contact: ContactRow; created: boolean }> {
  const flag = role === 'customer' ? 'is_customer' : 'is_supplier';
  const [inserted] = await q.query<ContactRow>(
    `INSERT INTO books_contacts (org_id, contact_id, name, name_key, ${flag}) VALUES ($1, $2, $3, $4, true)
     ON CONFLICT (org_id, name_key) DO NOTHING RETURNING ${CONTACT_COLUMNS}`,
    [orgId, newId('con'), name.trim().replace(/\s+/g, ' '), nameKey(name)],
  );
  if (inserted) return { contact: inserted, created: true };
  const [existing] = await q.query<ContactRow>(
    `UPDATE books_contacts SET ${flag} = true WHERE org_id = $1 AND name_key = $2 RETURNING ${CONTACT_COLUMNS}`,
    [orgId, nameKey(name)],
  );
  return { contact: existing, created: false };
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
  await q.query(
    'UPDATE books_contacts SET bank_bsb = $3, bank_account = $4, bank_account_name = $5 WHERE org_id = $1 AND contact_id = $2',
    [orgId, contactId, bank.bsb, bank.accountNumber, bank.accountName],
  );
}

/** `••••6789`: what reads show of an account number. */
export const maskAccount = (accountNumber: string | null): string | null =>
  accountNumber ? `••••${accountNumber.slice(-4)}` : null;
