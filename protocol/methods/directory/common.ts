import { z } from 'zod';
import { id, text } from '../../schema.js';

/** Shapes shared by the directory's areas: parties (persons per_ and organisations co_), channels, candidates. */

export const personId = (description: string) => id('per', description);
export const coId = (description: string) => id('co', description);
export const channelId = (description: string) => id('chn', description);
export const listId = (description: string) => id('lst', description);
export const partyId = (description: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^(per|co)_[A-Za-z0-9]+$/, 'must be a party id of the form per_… or co_…')
    .describe(description);

export const CHANNEL_KINDS = ['email', 'phone', 'im'] as const;
export const PARTY_KINDS = ['person', 'org'] as const;
export const PARTY_STATUSES = ['active', 'archived', 'merged'] as const;

const service = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, 'must be a service name such as slack or whatsapp')
  .describe('im only: the service (slack, whatsapp, teams…).');
const label = text({ max: 40, description: 'e.g. work, mobile.' });

/** The fields of a new channel (createPerson/createOrg channels, addChannel). */
export const channelFields = {
  kind: z.enum(CHANNEL_KINDS).describe('email, phone or im.'),
  value: text({ min: 1, max: 320, description: 'Address, number (national or +country code) or handle.' }),
  service: service.optional(),
  label: label.optional(),
  primary: z.boolean().optional().describe("Make it the primary of its kind (a kind's first channel is)."),
};
export const ChannelInput = z.strictObject(channelFields);

export const country = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as AU')
  .describe('Country, ISO 3166-1 alpha-2 (AU).');

export const Address = z.strictObject({
  label: label.optional(),
  lines: z
    .array(text({ min: 1, max: 200, description: 'Street line.' }))
    .max(4)
    .describe('Street lines.'),
  locality: text({ max: 100, description: 'Suburb or city.' }).optional(),
  region: text({ max: 100, description: 'State or region.' }).optional(),
  postcode: text({ max: 20, description: 'Postcode.' }).optional(),
  country: country.optional(),
});

/** Optional fields every party has (create and update). */
export const partyFields = {
  aliases: z
    .array(text({ min: 1, max: 200, description: 'Another name.' }))
    .max(20)
    .describe('Other names (a rename adds the old one).'),
  tags: z
    .array(text({ min: 1, max: 40, description: 'A tag.' }))
    .max(30)
    .describe('Tags (stored lower case).'),
  addresses: z.array(Address).max(10).describe('Postal addresses.'),
  notes: text({ max: 10_000, description: 'Free-text notes.' }),
  doNotContact: z.boolean().describe('Mail, calls and messages must not reach this party.'),
  country: country,
};

export const Channel = z.strictObject({
  id: z.string().describe('chn_…'),
  partyId: z.string(),
  kind: z.enum(CHANNEL_KINDS),
  service: z.string().nullable(),
  value: z.string().describe('As given.'),
  key: z.string().describe('What matching compares: the email key, E.164, or service:handle.'),
  label: z.string().nullable(),
  primary: z.boolean(),
  source: z.string(),
  status: z.enum(['active', 'removed']),
  createdAt: z.string(),
});

const AddressOut = z.strictObject({
  label: z.string().optional(),
  lines: z.array(z.string()),
  locality: z.string().optional(),
  region: z.string().optional(),
  postcode: z.string().optional(),
  country: z.string().optional(),
});

const partyOut = {
  id: z.string(),
  status: z.enum(['active', 'archived']),
  displayName: z.string(),
  aliases: z.array(z.string()),
  tags: z.array(z.string()),
  addresses: z.array(AddressOut),
  doNotContact: z.boolean(),
  origin: z.string().describe('manual, contact, contacts, capture, import or books (made by a books document).'),
  country: z.string().nullable(),
  email: z.string().nullable().describe('The primary email, as given.'),
  phone: z.string().nullable().describe('The primary phone, as given.'),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const Person = z.strictObject({
  ...partyOut,
  kind: z.literal('person'),
  given: z.string().nullable(),
  family: z.string().nullable(),
  title: z.string().nullable(),
  employer: z.strictObject({ id: z.string(), name: z.string() }).nullable().describe('The primary works_at organisation.'),
});

export const Org = z.strictObject({
  ...partyOut,
  kind: z.literal('org'),
  legalName: z.string().nullable(),
  website: z.string().nullable(),
  domain: z.string().nullable().describe("The website's registrable domain."),
  identifiers: z.record(z.string(), z.string()).describe('Registry numbers by scheme (abn, vat…).'),
});

/** What a merged id answers: it names the survivor. */
export const Tombstone = z.strictObject({
  id: z.string(),
  kind: z.enum(PARTY_KINDS),
  status: z.literal('merged'),
  mergedInto: z.string().describe('The surviving party.'),
  mergedAt: z.string().nullable(),
});

const Link = z.strictObject({
  id: z.string().describe('plk_…'),
  relation: z.string(),
  direction: z.enum(['out', 'in']).describe('out: this party -> other; in: other -> this party.'),
  other: z.strictObject({ id: z.string(), kind: z.enum(PARTY_KINDS), displayName: z.string() }),
  role: z.string().nullable(),
  primary: z.boolean(),
  since: z.string().nullable(),
  until: z.string().nullable(),
});

const detail = {
  notes: z.string().nullable(),
  channels: z.array(Channel).describe('Active channels, primary first.'),
  links: z.array(Link).describe('Active links, both directions.'),
  lists: z.array(z.strictObject({ id: z.string(), name: z.string(), kind: z.enum(['static', 'dynamic']) })).describe('Static lists the caller can see.'),
  awareness: z
    .array(z.strictObject({ id: z.string(), principalId: z.string(), level: z.string().nullable(), lastInteractionAt: z.string().nullable() }))
    .describe('Who in the company knows the party.'),
  roles: z.array(z.strictObject({ family: z.string(), role: z.string(), refId: z.string().nullable() })).describe('Roles other families hold (read-only).'),
};
export const PersonDetail = Person.extend(detail);
export const OrgDetail = Org.extend(detail);

export const REASONS = [
  'same_email',
  'same_phone',
  'same_name_employer',
  'same_name_domain',
  'similar_name_employer',
  'similar_name_domain',
  'same_identifier',
  'same_domain',
  'same_name',
  'similar_name_country',
] as const;

export const Candidate = z.strictObject({
  partyId: z.string(),
  kind: z.enum(PARTY_KINDS),
  displayName: z.string(),
  score: z.number().int().describe('65 to 100: the strongest rule that holds.'),
  reasons: z.array(z.enum(REASONS)).describe('Every rule that holds.'),
});

export const changed = z.boolean().describe('false when the call found it already so (its event says noop).');
