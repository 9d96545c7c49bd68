import { z } from 'zod';
import { read } from '../contract.js';
import { limit } from '../schema.js';
import { Contact } from '../methods/contact.js';

/** A merged contact in a sync page: delete it and follow mergedInto. */
export const ContactTombstone = z.strictObject({
  id: z.string(),
  kind: Contact.shape.kind,
  merged: z.literal(true),
  mergedInto: z.string().describe('The party it was merged into (follow it: it may be merged in turn).'),
  updatedAt: z.string(),
});

export const contactsReadContracts = {
  'contacts.list': read({
    summary:
      'Contacts (directory persons and organisations) in the order they last changed, (updatedAt, id), for syncing: start with updatedSince, keep the last updatedAt you saw. Without updatedSince active contacts only; with it archived contacts (archived: true) and merged ones (tombstones naming mergedInto) too, so a sync can delete or redirect them. q narrows to a name, email or phone.',
    query: z.strictObject({
      q: z.string().min(1, 'must be at least 1 character').max(256, 'must be at most 256 characters').describe('A name, email or phone number.').optional(),
      updatedSince: z.iso
        .datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2026-11-01T00:00:00Z' })
        .describe('Only contacts changed at or after this time, tombstones included.')
        .optional(),
      cursor: z.string().max(300).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ contacts: z.array(z.union([Contact, ContactTombstone])), nextCursor: z.string().nullable() }),
    example: { updatedSince: '2026-11-01T00:00:00Z', limit: 100 },
  }),
};
