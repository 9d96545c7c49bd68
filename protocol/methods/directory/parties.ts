import { z } from 'zod';
import { method } from '../../contract.js';
import { text } from '../../schema.js';
import { ifVersion } from '../member.js';
import { Candidate, ChannelInput, Org, OrgDetail, Person, PersonDetail, Tombstone, changed, coId, partyFields, personId } from './common.js';

/** Persons (per_) and organisations (co_): create with duplicate hints, update keeping old names, archive, read. */

const given = text({ min: 1, max: 100, description: 'Given name.' });
const family = text({ max: 100, description: 'Family name.' });
const displayName = text({ min: 1, max: 200, description: 'Name as shown; default given + family.' });
const title = text({ max: 120, description: 'Job title.' });
const orgName = text({ min: 1, max: 200, description: 'Name as shown.' });
const legalName = text({ max: 200, description: 'Registered name.' });
const website = text({ max: 300, description: 'Web address; its registrable domain matches duplicates.' });
const identifiers = z
  .record(z.string().regex(/^[a-z][a-z0-9_]{0,19}$/, 'must be a scheme such as abn, acn, vat'), text({ min: 1, max: 64, description: 'Number.' }))
  .describe('Registry numbers by scheme: abn (checked), acn, vat, ein, lei…');
const channels = z.array(ChannelInput).max(20).describe('Emails, phones, IM handles.');
const duplicates = z.array(Candidate).describe('Existing parties this one may duplicate (score >= 65); nothing is merged.');
const archived = z.boolean().default(true).describe('true archives, false restores.');

export const parties = {
  createPerson: method({
    summary:
      'Add an outside person, optionally working at an organisation, with channels. Returns possible duplicates. An email held by another active person is a CONFLICT naming them.',
    params: z.strictObject({
      given,
      family: family.optional(),
      displayName: displayName.optional(),
      title: title.optional(),
      worksAt: z
        .strictObject({ orgId: coId('The organisation.'), role: text({ max: 120, description: 'Role there.' }).optional() })
        .optional()
        .describe('Primary employer.'),
      channels: channels.optional(),
      aliases: partyFields.aliases.optional(),
      tags: partyFields.tags.optional(),
      addresses: partyFields.addresses.optional(),
      notes: partyFields.notes.optional(),
      doNotContact: partyFields.doNotContact.optional(),
      country: partyFields.country.optional(),
    }),
    result: z.strictObject({ person: PersonDetail, possibleDuplicates: duplicates, changed }),
    events: ['directory.person.create'],
    example: { given: 'Jane', family: 'Doe', title: 'CFO', channels: [{ kind: 'email', value: 'jane.doe@example.com' }] },
  }),
  createOrg: method({
    summary:
      'Add an outside organisation with its website, registry numbers and channels. Returns possible duplicates. A registry number held by another active organisation is a CONFLICT naming it.',
    params: z.strictObject({
      name: orgName,
      legalName: legalName.optional(),
      website: website.optional(),
      identifiers: identifiers.optional(),
      channels: channels.optional(),
      aliases: partyFields.aliases.optional(),
      tags: partyFields.tags.optional(),
      addresses: partyFields.addresses.optional(),
      notes: partyFields.notes.optional(),
      doNotContact: partyFields.doNotContact.optional(),
      country: partyFields.country.optional(),
    }),
    result: z.strictObject({ org: OrgDetail, possibleDuplicates: duplicates, changed }),
    events: ['directory.org.create'],
    example: { name: 'Acme Pty Ltd', website: 'https://acme.example.com', country: 'AU' },
  }),
  updatePerson: method({
    summary: "Change a person's fields (null clears). A rename keeps the old name as an alias. Stale ifVersion, archived or merged -> CONFLICT.",
    params: z.strictObject({
      personId: personId('The person.'),
      given: given.optional(),
      family: family.nullable().optional(),
      displayName: displayName.optional(),
      title: title.nullable().optional(),
      aliases: partyFields.aliases.optional(),
      tags: partyFields.tags.optional(),
      addresses: partyFields.addresses.optional(),
      notes: partyFields.notes.nullable().optional(),
      doNotContact: partyFields.doNotContact.optional(),
      country: partyFields.country.nullable().optional(),
      ifVersion,
    }),
    result: z.strictObject({ person: PersonDetail, changed }),
    events: ['directory.person.update'],
    example: { personId: 'per_0123456789abcdef', title: 'Chief Financial Officer' },
  }),
  updateOrg: method({
    summary:
      "Change an organisation's fields (null clears; an identifier set to null is removed). A rename keeps the old name as an alias. Stale ifVersion, archived or merged -> CONFLICT.",
    params: z.strictObject({
      orgId: coId('The organisation.'),
      name: orgName.optional(),
      legalName: legalName.nullable().optional(),
      website: website.nullable().optional(),
      identifiers: z
        .record(z.string().regex(/^[a-z][a-z0-9_]{0,19}$/, 'must be a scheme such as abn'), text({ min: 1, max: 64, description: 'Number.' }).nullable())
        .optional()
        .describe('Schemes to set (null removes).'),
      aliases: partyFields.aliases.optional(),
      tags: partyFields.tags.optional(),
      addresses: partyFields.addresses.optional(),
      notes: partyFields.notes.nullable().optional(),
      doNotContact: partyFields.doNotContact.optional(),
      country: partyFields.country.nullable().optional(),
      ifVersion,
    }),
    result: z.strictObject({ org: OrgDetail, changed }),
    events: ['directory.org.update'],
    example: { orgId: 'co_0123456789abcdef', website: 'https://acme.example.com' },
  }),
  archivePerson: method({
    summary: 'Archive a person (archived: false restores). Archived parties leave lists and dedupe; their channels go dormant.',
    params: z.strictObject({ personId: personId('The person.'), archived }),
    result: z.strictObject({ person: Person, changed }),
    events: ['directory.person.archive'],
    example: { personId: 'per_0123456789abcdef' },
  }),
  archiveOrg: method({
    summary: 'Archive an organisation (archived: false restores). Its people keep their links.',
    params: z.strictObject({ orgId: coId('The organisation.'), archived }),
    result: z.strictObject({ org: Org, changed }),
    events: ['directory.org.archive'],
    example: { orgId: 'co_0123456789abcdef' },
  }),
  getPerson: method({
    summary: 'A person with channels, links, lists, awareness and roles; a merged id answers a tombstone naming the survivor.',
    params: z.strictObject({ personId: personId('The person.') }),
    result: z.strictObject({ person: z.union([PersonDetail, Tombstone]) }),
    example: { personId: 'per_0123456789abcdef' },
  }),
  getOrg: method({
    summary: 'An organisation with channels, links (its people), lists, awareness and roles; a merged id answers a tombstone naming the survivor.',
    params: z.strictObject({ orgId: coId('The organisation.') }),
    result: z.strictObject({ org: z.union([OrgDetail, Tombstone]) }),
    example: { orgId: 'co_0123456789abcdef' },
  }),
};
