import { z } from 'zod';
import { method } from '../contract.js';
import { limit, text } from '../schema.js';
import { ifVersion, memberId, teamId } from './member.js';

/** Teams: named groups of members, nested by parentTeamId (no cycles), with an optional lead who is a member. */

const Handle = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9._-]{0,38}[a-z0-9])?$/, 'must be 1 to 40 lowercase letters, digits, dots, dashes or underscores')
  .describe('Short unique name; derived from the name when omitted.');

export const Team = z.strictObject({
  id: z.string().describe('team_…'),
  name: z.string(),
  handle: z.string(),
  parentTeamId: z.string().nullable(),
  leadId: z.string().nullable(),
  status: z.enum(['live', 'deleted']),
  memberCount: z.number().int(),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const changed = z.boolean().describe('false when the call found the team already so (its event says noop).');
const name = text({ min: 1, max: 120, description: 'Team name, unique among live teams.' });

export const team = {
  create: method({
    summary: 'Create a team, optionally under a parent team and with a lead (a member of the org). A taken name or handle is a CONFLICT.',
    params: z.strictObject({
      name,
      handle: Handle.optional(),
      parentTeamId: teamId('The parent team.').optional(),
      leadId: memberId('The team lead.').optional(),
    }),
    result: z.strictObject({ team: Team, changed }),
    events: ['team.record.create'],
    example: { name: 'Finance', leadId: 'usr_0123456789abcdef' },
  }),
  update: method({
    summary: 'Rename a team, move it under another parent (a cycle is a BAD_REQUEST) or change its lead (an archived or unknown member is a BAD_REQUEST).',
    params: z.strictObject({
      teamId: teamId('The team.'),
      name: name.optional(),
      handle: Handle.optional(),
      parentTeamId: teamId('The new parent team; null for top level.').nullable().optional(),
      leadId: memberId('The new lead; null for none.').nullable().optional(),
      ifVersion,
    }),
    result: z.strictObject({ team: Team, changed }),
    events: ['team.record.update'],
    example: { teamId: 'team_0123456789abcdef', name: 'Finance & Ops' },
  }),
  delete: method({
    hold: { completion: 'release', when: 'an agent deletes a team a human belongs to' },
    summary: 'Delete a team: its members are unassigned and a tombstone stays. A team with live sub-teams is a CONFLICT (move or delete them first).',
    params: z.strictObject({ teamId: teamId('The team.'), ifVersion }),
    result: z.strictObject({ team: Team, changed }),
    events: ['team.record.delete'],
    example: { teamId: 'team_0123456789abcdef' },
  }),
  list: method({
    summary: 'Live teams by name (deleted ones with includeDeleted), each with its member count.',
    params: z.strictObject({
      parentTeamId: teamId('Only direct sub-teams of this team.').optional(),
      includeDeleted: z.boolean().default(false).describe('Also list deleted teams (tombstones).'),
      cursor: z.string().max(200).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ teams: z.array(Team), nextCursor: z.string().nullable() }),
    example: { limit: 100 },
  }),
};
