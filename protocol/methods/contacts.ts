import { z } from 'zod';
import { method } from '../contract.js';
import { text } from '../schema.js';
import { Contact } from './contact.js';
import { changed } from './directory/common.js';

/*
 * contacts.upsert: the knowledge lane's way to record someone it met (in mail, a meeting, a message) as a directory
 * party without making duplicates. GET /contacts.list (protocol/reads/contacts.ts) is its sync read.
 */

/** Where an upserted contact was seen: a family or lane, never free text (it is written to the ledger). */
export const CONTACT_SOURCES = ['email', 'calendar', 'meetings', 'messaging', 'calling', 'knowledge', 'files', 'crm', 'import', 'other'] as const;

export const contacts = {
  upsert: method({
    summary:
      'Find or add a contact by email or phone: the party holding that email, else the one person with that phone, else a new person. A match only gains what it lacks (never renamed). Archived match -> CONFLICT.',
    params: z
      .strictObject({
        email: text({ min: 1, max: 320, description: 'Email address (matched by its key: case, and provider dots and +tags, folded).' }).optional(),
        phone: text({ min: 1, max: 40, description: 'Phone number, national or +country code (matched as E.164).' }).optional(),
        name: text({ min: 1, max: 200, description: 'Full name, used for a new contact or one without a name.' }).optional(),
        organisation: text({ min: 1, max: 200, description: 'Organisation name, for a person without one.' }).optional(),
        source: z.enum(CONTACT_SOURCES).describe('Where the contact was seen.'),
      })
      .refine((p) => p.email !== undefined || p.phone !== undefined, { message: 'an email or a phone is required', path: ['email'] }),
    result: z.strictObject({
      contact: Contact,
      created: z.boolean().describe('true when a new person was added.'),
      matchedBy: z.enum(['email', 'phone']).nullable().describe('How an existing contact was found (null when created).'),
      filled: z.array(z.enum(['name', 'organisation', 'email', 'phone'])).describe('What a matched contact gained.'),
      changed,
    }),
    events: ['contacts.party.upsert'],
    example: { email: 'jane.doe@example.com', name: 'Jane Doe', organisation: 'Acme Pty Ltd', source: 'meetings' },
  }),
};
