import { z } from 'zod';
import { method } from '../../contract.js';
import { limit, text } from '../../schema.js';
import { memberId } from '../member.js';
import { personId } from '../directory/common.js';
import { accountId, changed, contactId, cursor, dealId, expectedVersion, name, nextCursor, ROLES } from './shared.js';

/**
 * Accounts and contacts (docs/families/crm.md): roles on directory parties. An account is a directory
 * organisation's sales role, a contact a directory person's; their names, domains and emails are the directory's,
 * written through by these calls. Creating finds before it makes, so the same company or email twice is one.
 */

const domain = text({ min: 1, max: 253, description: "The company's web domain or site (acme.com.au); finds the organisation holding it." });
const email = text({ min: 3, max: 320, description: 'An email address; finds the person holding it.' });

export const Account = z.strictObject({
  id: z.string().describe('acct_…'),
  partyId: z.string().describe('The directory organisation (co_…): its name and domain are the account’s.'),
  name: z.string(),
  domain: z.string().nullable(),
  ownerId: z.string(),
  status: z.enum(['active', 'archived', 'merged']),
  mergedInto: z.string().nullable().describe('merged: the account it was folded into by a directory merge.'),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const Contact = z.strictObject({
  id: z.string().describe('ctc_…'),
  personId: z.string().describe('The directory person (per_…): name and email are theirs.'),
  name: z.string(),
  email: z.string().nullable(),
  accountId: z.string().nullable(),
  title: z.string().nullable(),
  status: z.enum(['active', 'deleted', 'merged']),
  mergedInto: z.string().nullable(),
  roles: z.array(z.strictObject({ dealId: z.string(), role: z.enum(ROLES) })).describe('Its roles on deals (listContacts with dealId: on that deal).'),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const crmAccounts = {
  createAccount: method({
    summary:
      'Make an account for a company: the directory organisation holding the domain (or of that name) is found, or made; an existing account for it is returned with created:false.',
    params: z.strictObject({
      name: name('The company’s name.'),
      domain: domain.optional(),
      ownerId: memberId('Who owns the account (default the caller).').optional(),
    }),
    result: z.strictObject({ account: Account, created: z.boolean(), partyCreated: z.boolean().describe('A new directory organisation was made.') }),
    events: ['crm.account.create'],
    example: { name: 'Acme Pty Ltd', domain: 'acme.com.au' },
  }),
  updateAccount: method({
    summary: 'Rename the account (the directory organisation is renamed), set its domain, or hand it to another owner. Nothing new: changed:false.',
    params: z.strictObject({
      accountId: accountId('The account.'),
      name: name('New name (written to the directory organisation).').optional(),
      domain: domain.optional(),
      ownerId: memberId('New owner.').optional(),
      expectedVersion,
    }),
    result: z.strictObject({ account: Account, changed }),
    events: ['crm.account.update'],
    example: { accountId: 'acct_0123456789abcdef', ownerId: 'usr_0123456789abcdef' },
  }),
  archiveAccount: method({
    summary: 'Archive an account (archived: false restores it). With open deals: CONFLICT naming them (close or delete them first).',
    params: z.strictObject({
      accountId: accountId('The account.'),
      archived: z.boolean().default(true).describe('false restores it.'),
    }),
    result: z.strictObject({ account: Account, changed }),
    events: ['crm.account.archive'],
    example: { accountId: 'acct_0123456789abcdef' },
  }),
  listAccounts: method({
    summary: 'Accounts by name (q: words, typos and prefixes of the organisation’s names and domain) or newest first, by owner and status.',
    params: z.strictObject({
      q: text({ min: 1, max: 256, description: 'Search words.' }).optional(),
      ownerId: memberId('Only this owner’s accounts.').optional(),
      status: z.enum(['active', 'archived', 'all']).default('active').describe('Default active; all adds archived and merged accounts.'),
      cursor,
      limit: limit(500, 50),
    }),
    result: z.strictObject({ accounts: z.array(Account), nextCursor }),
    example: { q: 'acme', limit: 20 },
  }),
  listContacts: method({
    summary: 'Contacts of an account, of a deal (with their roles on it), or by name or email words (q); newest first.',
    params: z.strictObject({
      accountId: accountId('Only contacts of this account.').optional(),
      dealId: dealId('Only contacts with a role on this deal.').optional(),
      q: text({ min: 1, max: 256, description: 'Search words (names, aliases, employer).' }).optional(),
      status: z.enum(['active', 'deleted', 'all']).default('active').describe('Default active; all adds deleted and merged contacts.'),
      cursor,
      limit: limit(500, 50),
    }),
    result: z.strictObject({ contacts: z.array(Contact), nextCursor }),
    example: { dealId: 'deal_0123456789abcdef' },
  }),
  createContact: method({
    summary:
      'Make a contact for a directory person (personId), or by name and email: the person holding the email is found, else made. The person’s live contact exists already: it, created:false.',
    params: z.strictObject({
      personId: personId('The directory person.').optional(),
      name: name('Their full name (with email, when no personId).').optional(),
      email: email.optional(),
      accountId: accountId('The account they work for.').optional(),
      title: text({ min: 1, max: 120, description: 'Their job title.' }).optional(),
    }),
    result: z.strictObject({ contact: Contact, created: z.boolean(), personCreated: z.boolean() }),
    events: ['crm.contact.create'],
    example: { name: 'Jane Citizen', email: 'jane@acme.com.au', accountId: 'acct_0123456789abcdef', title: 'CFO' },
  }),
  updateContact: method({
    summary:
      'Set title or account; name and email are written through to the directory person (a new email becomes their primary). Nothing new: changed:false.',
    params: z.strictObject({
      contactId: contactId('The contact.'),
      title: text({ max: 120, description: 'Job title; empty clears it.' }).optional(),
      accountId: accountId('The account (null: none).').nullable().optional(),
      name: name('Their name (the directory person is renamed; the old name stays as an alias).').optional(),
      email: email.optional(),
      expectedVersion,
    }),
    result: z.strictObject({ contact: Contact, changed }),
    events: ['crm.contact.update'],
    example: { contactId: 'ctc_0123456789abcdef', title: 'Chief Financial Officer' },
  }),
  deleteContact: method({
    summary: 'Delete a contact (a tombstone): the directory person and the interactions stay; its deal roles are removed. Deleted already: changed:false.',
    params: z.strictObject({ contactId: contactId('The contact.') }),
    result: z.strictObject({ contact: Contact, changed, rolesRemoved: z.number().int() }),
    events: ['crm.contact.delete'],
    example: { contactId: 'ctc_0123456789abcdef' },
  }),
  linkContact: method({
    summary: 'Give a contact a role on a deal (champion, economic_buyer, …), or take it away (remove: true). Already so: changed:false.',
    params: z.strictObject({
      dealId: dealId('The deal.'),
      contactId: contactId('The contact.'),
      role: z.enum(ROLES).describe(`One of ${ROLES.join(', ')}.`),
      remove: z.boolean().default(false).describe('true removes the role.'),
    }),
    result: z.strictObject({ roles: z.array(z.strictObject({ contactId: z.string(), role: z.enum(ROLES) })).describe('The deal’s roles after.'), changed }),
    events: ['crm.contact.link'],
    example: { dealId: 'deal_0123456789abcdef', contactId: 'ctc_0123456789abcdef', role: 'champion' },
  }),
};
