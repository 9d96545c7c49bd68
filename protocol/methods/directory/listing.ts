import { z } from 'zod';
import { method } from '../../contract.js';
import { limit, text } from '../../schema.js';
import { memberId } from '../member.js';
import { Org, PARTY_KINDS, Person, Tombstone, coId, listId, partyId } from './common.js';

/** Listing and search over parties. */

const q = text({ max: 256, description: 'Search text (names, aliases, tags, title, employer); by relevance.' });

/** The filters of listPeople/listOrgs; a dynamic list's filter is an object of these (without q). */
export const partyFilters = {
  tag: text({ min: 1, max: 40, description: 'Only parties with this tag.' }).optional(),
  role: z
    .string()
    .regex(/^[a-z]+\.[a-z_]+$/, 'must be a role such as books.customer')
    .optional()
    .describe('Only parties with this role (e.g. books.customer).'),
  knownBy: memberId('Only parties this member knows (awareness set).').optional(),
  status: z.enum(['active', 'archived', 'merged', 'all']).default('active').describe('Default active; merged lists tombstones.'),
  updatedSince: z.iso
    .datetime({ offset: true, message: 'must be an ISO date-time' })
    .optional()
    .describe('Only changed at or after this time; ordered by change.'),
};

const listParams = {
  q: q.optional(),
  listId: listId('Only members of this list.').optional(),
  ...partyFilters,
  cursor: z.string().max(500).describe('The nextCursor of the previous page.').optional(),
  limit: limit(500, 100),
};
const nextCursor = z.string().nullable();

export const listing = {
  listPeople: method({
    summary: 'Outside people by name (by relevance with q, by change with updatedSince), filtered by employer, list, tag, role, who knows them, status.',
    params: z.strictObject({ ...listParams, orgId: coId('Only people working at this organisation.').optional() }),
    result: z.strictObject({ people: z.array(z.union([Person, Tombstone])), nextCursor }),
    example: { q: 'jane', limit: 20 },
  }),
  listOrgs: method({
    summary:
      'Outside organisations by name (by relevance with q, by change with updatedSince), filtered by related organisation, list, tag, role, who knows them, status.',
    params: z.strictObject({ ...listParams, orgId: coId('Only organisations linked to this one (subsidiary, partner, client).').optional() }),
    result: z.strictObject({ orgs: z.array(z.union([Org, Tombstone])), nextCursor }),
    example: { tag: 'supplier', limit: 50 },
  }),
  search: method({
    summary:
      'Find parties by q (an email or phone is looked up by its key first, then names by words, typos and prefixes) or the likely duplicates of a party (duplicatesOf).',
    params: z
      .strictObject({
        q: q.optional(),
        duplicatesOf: partyId('Find candidates to merge with this party (score >= 65).').optional(),
        kinds: z.array(z.enum(PARTY_KINDS)).min(1).max(2).optional().describe('person, org (default both).'),
        listId: listId('Only members of this list.').optional(),
        limit: limit(100, 20),
      })
      .refine((p) => (p.q === undefined) !== (p.duplicatesOf === undefined), { message: 'give exactly one of q and duplicatesOf', path: ['q'] }),
    result: z.strictObject({
      hits: z.array(
        z.strictObject({
          party: z.union([Person, Org]),
          score: z.number().int().describe('100 a key match, 50-99 words, under 50 typos/prefixes; duplicates: the rule score.'),
          matched: z.enum(['key', 'text', 'fuzzy', 'duplicate']),
          reasons: z.array(z.string()).describe('The key kind (email, phone), the fields matched (name, aliases, terms), or the dedupe rules that hold.'),
        }),
      ),
    }),
    example: { q: 'jose alvarez', limit: 10 },
  }),
};
