import { z } from 'zod';
import { read } from '../contract.js';
import { limit } from '../schema.js';
import { MemberTeam, MEMBER_STATUSES, teamId } from '../methods/member.js';

const Card = z.strictObject({
  id: z.string().describe('usr_… or agt_…'),
  kind: z.enum(['human', 'agent']),
  name: z.string(),
  handle: z.string().nullable(),
  email: z.string().nullable(),
  title: z.string().nullable(),
  managerId: z.string().nullable(),
  timezone: z.string().nullable(),
  status: z.enum(MEMBER_STATUSES),
  teams: z.array(MemberTeam),
});

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
