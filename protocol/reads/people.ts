import { z } from 'zod';
import { read } from '../contract.js';
import { limit } from '../schema.js';
import { Member, memberId, teamId } from '../methods/member.js';
import { AVATAR_SIZES, Profile } from '../methods/profile.js';
import { Team } from '../methods/team.js';

/** A directory card: the member as member.get shows it, without its version and timestamps. */
const Card = Member.omit({ version: true, createdAt: true, updatedAt: true });

/** Most nodes a tree answer holds; a larger chart is read flat (paged) or from a rootId. */
export const MAX_TREE_NODES = 5000;

const chartFields = {
  id: z.string(),
  kind: z.enum(['human', 'agent']),
  name: z.string(),
  handle: z.string().nullable(),
  title: z.string().nullable(),
  status: Member.shape.status,
  managerId: z.string().nullable(),
  position: z.number().int().nullable(),
  dottedTo: z.array(z.string()).describe('Dotted-line managers (display only).'),
  reportCount: z.number().int().describe('Direct reports, also when depth cut them off.'),
};
type ChartCard = z.output<z.ZodObject<typeof chartFields>>;
/** One member in the tree, its direct reports inside it in chart order. */
export const ChartNode: z.ZodType<ChartCard & { reports: unknown[] }> = z.strictObject({
  ...chartFields,
  get reports() {
    return z.array(ChartNode);
  },
});
const FlatNode = z.strictObject({ ...chartFields, depth: z.number().int().describe('Levels below the first node of its branch (roots are 0).') });

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
  hierarchy: read({
    summary: `The org chart (archived members left out): roots (members without a manager) and their reports in chart order (position, then name), with dotted lines. format=tree nests up to ${MAX_TREE_NODES} nodes; flat lists them depth-first in pages. revision is the chart revision (hierarchy.set expectedRevision).`,
    query: z.strictObject({
      rootId: memberId('Start from this member instead of the top of the chart.').optional(),
      depth: z.coerce
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(100, 'must be at most 100')
        .describe('Levels of reports below the roots (0: the roots only); default all.')
        .optional(),
      format: z.enum(['tree', 'flat']).default('tree').describe('tree: nested reports; flat: a depth-first page.'),
      cursor: z.string().max(200).describe('flat: the nextCursor of the previous page.').optional(),
      limit: limit(500, 500).describe('flat: page size, 1 to 500 (default 500).'),
    }),
    result: z.strictObject({
      revision: z.number().int().describe('The chart revision this answer shows.'),
      format: z.enum(['tree', 'flat']),
      roots: z.array(ChartNode).optional().describe('tree: the roots with their reports nested.'),
      nodes: z.array(FlatNode).optional().describe('flat: this page of nodes, depth-first.'),
      nextCursor: z.string().nullable().optional().describe('flat: the cursor of the next page, null at the end.'),
    }),
    example: { format: 'tree', depth: 2 },
  }),
};

/** GET /api/v1/org/* reads of people (path parameters in braces; answers carry an ETag, If-None-Match gives 304). */
export const orgPeopleReadContracts = {
  'org/members/{id}': read({
    summary: 'One member as the directory knows it, with its profile (avatar as signed URLs stable for a window, so the ETag holds).',
    query: z.strictObject({ id: memberId('The member (usr_… or agt_…).') }),
    result: z.strictObject({ member: Member, profile: Profile }),
    example: { id: 'usr_0123456789abcdef' },
  }),
  'org/teams/{id}': read({
    summary: 'One team (live or deleted) with its members’ cards, by name (the first 500).',
    query: z.strictObject({ id: teamId('The team.') }),
    result: z.strictObject({ team: Team, members: z.array(Card), truncated: z.boolean().describe('More members than listed.') }),
    example: { id: 'team_0123456789abcdef' },
  }),
  'org/avatar/{memberId}/{size}': read({
    summary: `A member's avatar at one size (${AVATAR_SIZES.join(', ')} pixels): a redirect to its signed blob URL, or an SVG of the member's initials when it has none.`,
    query: z.strictObject({
      memberId: memberId('The member.'),
      size: z.enum(AVATAR_SIZES.map(String) as [string, ...string[]]).describe('Width and height in pixels.'),
    }),
    example: { memberId: 'usr_0123456789abcdef', size: '96' },
    media: {
      type: 'image/svg+xml',
      description: 'The initials SVG (the member has no avatar).',
      redirects: 'The avatar image (WebP): Location is a signed blob URL that needs no key.',
    },
  }),
  'org/directory.vcf': read({
    summary: 'The active members as a vCard 4.0 file (RFC 6350): name, email, phone, title, org, kind; for address books.',
    query: z.strictObject({}),
    example: {},
    media: { type: 'text/vcard', description: 'One vCard 4.0 per active member, CRLF line ends, folded at 75 octets.' },
  }),
};
