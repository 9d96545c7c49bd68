import { z } from 'zod';
import { method } from '../contract.js';
import { limit, text } from '../schema.js';
import { Candidate, changed, partyId } from './directory/common.js';
import { ifVersion } from './member.js';

/*
 * contact.*: the simple address-book view of the directory's parties (persons per_ and organisations co_). A
 * contact is a party, never a copy: writes go through the directory's rules (email keys, phone numbers, dedupe
 * hints, an email another active person holds is a CONFLICT naming them) and show in directory.getPerson/getOrg.
 */

export const CONTACT_KINDS = ['person', 'org'] as const;

export const Contact = z.strictObject({
  id: z.string().describe('The directory party: per_… (a person) or co_… (an organisation).'),
  kind: z.enum(CONTACT_KINDS),
  name: z.string().describe('Name as shown.'),
  email: z.string().nullable().describe('Primary email, as given.'),
  phone: z.string().nullable().describe('Primary phone, as given.'),
  organisation: z.string().nullable().describe("A person's primary employer's name (null for an organisation)."),
  organisationId: z.string().nullable().describe("A person's primary employer (co_…)."),
  title: z.string().nullable().describe("A person's job title."),
  archived: z.boolean().describe('contact.delete archives; directory.archivePerson/archiveOrg restores.'),
  version: z.number().int().describe('The party version (directory ifVersion).'),
  updatedAt: z.string(),
});

const name = text({ min: 1, max: 200, description: 'Full name of the person, or the organisation\u2019s name.' });
const email = text({ min: 1, max: 320, description: 'Email address.' });
const phone = text({ min: 1, max: 40, description: 'Phone number (national, or +country code).' });
const organisation = text({
  min: 1,
  max: 200,
  description: 'A person\u2019s organisation, by name: the one active organisation of that name, else a new one.',
});
const title = text({ min: 1, max: 120, description: 'A person\u2019s job title.' });
const id = partyId('The contact (per_… or co_…).');

export const contact = {
  list: method({
    summary:
      'Contacts (directory persons and organisations) by name, or by relevance with q (a name with typos and prefixes; an email or phone number finds its holder). Archived contacts only with includeArchived.',
    params: z.strictObject({
      q: text({ min: 1, max: 256, description: 'Search words, an email address or a phone number.' }).optional(),
      kind: z.enum(CONTACT_KINDS).describe('Only persons or only organisations.').optional(),
      includeArchived: z.boolean().describe('Also archived contacts.').optional(),
      cursor: z.string().max(300).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 50),
    }),
    result: z.strictObject({ contacts: z.array(Contact), nextCursor: z.string().nullable() }),
    example: { q: 'jane', limit: 20 },
  }),
  add: method({
    summary:
      'Add a contact (a directory person, or kind org). organisation: the one active organisation of that name, else a new one (several -> CONFLICT). An email another active person holds -> CONFLICT. Returns possible duplicates.',
    params: z.strictObject({
      kind: z.enum(CONTACT_KINDS).default('person').describe('person (default) or org.'),
      name,
      email: email.optional(),
      phone: phone.optional(),
      organisation: organisation.optional(),
      title: title.optional(),
    }),
    result: z.strictObject({
      contact: Contact,
      possibleDuplicates: z.array(Candidate).describe('Existing parties this one may duplicate (score >= 65).'),
      changed,
    }),
    events: ['contact.party.add'],
    example: { name: 'Jane Doe', email: 'jane.doe@example.com', organisation: 'Acme Pty Ltd', title: 'CFO' },
  }),
  update: method({
    summary:
      'Change a contact: a new email or phone becomes primary (the old one kept); null removes the primary. A rename keeps the old name as an alias; organisation moves a person (null: none). Archived or merged -> CONFLICT.',
    params: z.strictObject({
      id,
      name: name.optional(),
      email: email.nullable().optional(),
      phone: phone.nullable().optional(),
      organisation: organisation.nullable().optional(),
      title: title.nullable().optional(),
      ifVersion,
    }),
    result: z.strictObject({ contact: Contact, changed }),
    events: ['contact.party.update'],
    example: { id: 'per_0123456789abcdef', email: 'jane@acme.example.com' },
  }),
  delete: method({
    summary:
      'Archive a contact (it stays in the directory; directory.archivePerson/archiveOrg with archived: false restores it). Already archived -> changed: false.',
    params: z.strictObject({ id }),
    result: z.strictObject({ contact: Contact, changed }),
    events: ['contact.party.delete'],
    example: { id: 'per_0123456789abcdef' },
  }),
};
