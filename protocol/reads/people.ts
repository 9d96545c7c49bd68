import { z } from 'zod';
import { read } from '../contract.js';
import { limit } from '../schema.js';
import { Member, teamId } from '../methods/member.js';

/** A directory card: the member as member.get shows it, without its version and timestamps. */
const Card = Member.omit({ version: true, createdAt: true, updatedAt: true });

export const peopleReadContracts = {
  directory: read({
    summary:
      'The member directory: member cards (archived members left out), by name, or by relevance with q (fuzzy over name, handle and title: typos and prefixes match), filtered by team and kind, paged with cursor.',
    query: z.strictObject({
      q: z.string().max(256, 'must be at most 256 characters').describe('Search words, e.g. "dan" or "controller".').optional(),
      teamId: teamId('Only members of this team.').optional(),
      kind: z.enum(['human', 'agent']).describe('Only humans or only agents.').optional(),
      cursor: z.string().max(200).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 50),
    }),
    result: z.strictObject({ members: z.array(Card), nextCursor: z.string().nullable() }),
    example: { q: 'dana', limit: 20 },
  }),
};
