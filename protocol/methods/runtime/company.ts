import { z } from 'zod';
import { method } from '../../contract.js';
import { id, text } from '../../schema.js';
import { changed } from './shared.js';

/**
 * The settings family's company part: the org's legal profile and its offices (exactly one head office while any is
 * active). Checked by hand and by Intl: ABN checksum, IANA zone, ISO 4217 currency, ISO 3166 country, E.164 phone.
 */

export const PROFILE_FIELDS = ['legalName', 'tradingName', 'abn', 'timeZone', 'currency', 'phone', 'website'] as const;

export const locationId = (description: string) => id('loc', description);

export const CompanyProfile = z.strictObject({
  legalName: z.string().nullable(),
  tradingName: z.string().nullable(),
  abn: z.string().nullable().describe('11 digits, no spaces.'),
  timeZone: z.string().nullable(),
  currency: z.string().nullable(),
  phone: z.string().nullable(),
  website: z.string().nullable(),
  version: z.number().int().describe('0 until first saved.'),
  updatedAt: z.string().nullable(),
});

export const Address = z.strictObject({
  line1: text({ min: 1, max: 200, description: 'Street address.' }),
  line2: text({ max: 200, description: 'Unit, floor, building.' }).optional(),
  locality: text({ min: 1, max: 100, description: 'Suburb or city.' }),
  region: text({ max: 100, description: 'State or region.' }).optional(),
  postcode: text({ max: 20, description: 'Postal code.' }).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166 country code such as AU')
    .describe('ISO 3166-1 alpha-2 (AU).'),
});

export const OfficeLocation = z.strictObject({
  id: z.string().describe('loc_…'),
  name: z.string(),
  address: Address,
  timeZone: z.string(),
  isHeadOffice: z.boolean(),
  status: z.enum(['active', 'archived']),
  updatedAt: z.string(),
});

const nullableText = (max: number, description: string) =>
  text({ min: 1, max, description: `${description} null clears it.` })
    .nullable()
    .optional();

export const settingsCompany = {
  saveCompanyProfile: method({
    summary:
      'Change the company profile: only the fields given; null clears one. The ABN is checked by its checksum, the zone, currency and phone by their standards.',
    params: z.strictObject({
      legalName: nullableText(200, 'The registered legal name.'),
      tradingName: nullableText(200, 'The name traded under.'),
      abn: z
        .string()
        .max(20, 'must be at most 20 characters')
        .describe('Australian Business Number: 11 digits (spaces allowed), checked by its checksum. null clears it.')
        .nullable()
        .optional(),
      timeZone: z.string().max(64, 'must be at most 64 characters').describe('IANA zone (Australia/Sydney). null clears it.').nullable().optional(),
      currency: z.string().max(3, 'must be at most 3 characters').describe('ISO 4217 code (AUD). null clears it.').nullable().optional(),
      phone: z.string().max(16, 'must be at most 16 characters').describe('E.164 (+61290000000). null clears it.').nullable().optional(),
      website: z
        .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
        .max(300, 'must be at most 300 characters')
        .describe('null clears it.')
        .nullable()
        .optional(),
    }),
    result: z.strictObject({ profile: CompanyProfile, fields: z.array(z.enum(PROFILE_FIELDS)).describe('The fields this call changed.'), changed }),
    events: ['settings.profile.save'],
    example: { legalName: 'Acme Services Pty Ltd', abn: '51 824 753 556', timeZone: 'Australia/Sydney', currency: 'AUD', phone: '+61290000000' },
  }),
  upsertOfficeLocation: method({
    summary:
      'Add an office, or change one (locationId; an archived one is restored). isHeadOffice: true makes it the head office and clears the old one; the first active office is the head office.',
    params: z.strictObject({
      locationId: locationId('The office to change or restore; omit to add one.').optional(),
      name: text({ min: 1, max: 100, description: 'The office’s name (Sydney HQ).' }),
      address: Address.describe('Where it is.'),
      timeZone: z.string().max(64, 'must be at most 64 characters').describe('IANA zone of the office.'),
      isHeadOffice: z.boolean().default(false).describe('Make it the head office (default false).'),
    }),
    result: z.strictObject({
      location: OfficeLocation,
      previousHeadOfficeId: z.string().nullable().describe('The office that stopped being head office, if this call moved it.'),
      created: z.boolean(),
      restored: z.boolean(),
      changed,
    }),
    events: ['settings.location.upsert'],
    example: {
      name: 'Sydney HQ',
      address: { line1: '1 George St', locality: 'Sydney', region: 'NSW', postcode: '2000', country: 'AU' },
      timeZone: 'Australia/Sydney',
      isHeadOffice: true,
    },
  }),
  deleteOfficeLocation: method({
    summary: 'Archive an office (upsertOfficeLocation restores it). The head office while others are active: CONFLICT; make another the head office first.',
    params: z.strictObject({ locationId: locationId('The office (loc_…).') }),
    result: z.strictObject({ location: OfficeLocation, changed }),
    events: ['settings.location.delete'],
    example: { locationId: 'loc_0123456789abcdef' },
  }),
};
