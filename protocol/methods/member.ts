import { z } from 'zod';
import { method } from '../contract.js';
import { id, limit, text } from '../schema.js';

/** Members: the org record of each principal (usr_ human, agt_ agent); a member's id is its principal id. */

export const MEMBER_STATUSES = ['invited', 'active', 'suspended', 'deactivated', 'archived'] as const;
export const MAX_TEAMS_PER_MEMBER = 50;

export const memberId = (description: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id of the form usr_… or agt_…')
    .describe(description);
export const teamId = (description: string) => id('team', description);

const Email = z.string().max(254, 'must be at most 254 characters').pipe(z.email({ message: 'must be an email address' }));
const Handle = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9._-]{0,38}[a-z0-9])?$/, 'must be 1 to 40 lowercase letters, digits, dots, dashes or underscores')
  .describe('Short unique name in the org (mentions, URLs); derived from the name when omitted.');
const TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone').concat('UTC'));
const TimeZone = z
  .string()
  .max(64)
  .refine((tz) => TIME_ZONES.has(tz), 'must be an IANA time zone such as Europe/Berlin')
  .describe('IANA time zone, e.g. Europe/Berlin.');
export const ifVersion = z.number().int().min(1).describe('Apply only if the record is still at this version (else CONFLICT).').optional();
const listCursor = z.string().max(200).describe('The nextCursor of the previous page.').optional();

export const memberFields = {
  name: text({ min: 1, max: 200, description: 'Display name.' }),
  handle: Handle,
  email: Email.describe('Work email, unique in the org.'),
  title: text({ max: 200, description: 'Job title.' }),
  managerId: memberId('The member this one reports to (one manager; reports are derived).'),
  timezone: TimeZone,
};

export const MemberTeam = z.strictObject({ teamId: z.string(), primary: z.boolean() });
export const Member = z.strictObject({
  id: z.string().describe('usr_… or agt_…: the principal id.'),
  kind: z.enum(['human', 'agent']),
  name: z.string(),
  handle: z.string().nullable(),
  email: z.string().nullable(),
  title: z.string().nullable(),
  managerId: z.string().nullable(),
  timezone: z.string().nullable(),
  status: z.enum(MEMBER_STATUSES),
  teams: z.array(MemberTeam),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const changed = z.boolean().describe('false when the call found the record already so (its event says noop).');

export const member = {
  create: method({
    summary:
      'Add a human to the directory without access (a future hire, a directory-only colleague): status active, no keys. The handle is derived from the name when omitted; a taken email or handle is a CONFLICT.',
    params: z.strictObject({
      name: memberFields.name,
      handle: memberFields.handle.optional(),
      email: memberFields.email.optional(),
      title: memberFields.title.optional(),
      managerId: memberFields.managerId.optional(),
      timezone: memberFields.timezone.optional(),
      teamIds: z.array(teamId('A live team.')).max(MAX_TEAMS_PER_MEMBER).describe('Teams to join; the first is primary.').optional(),
    }),
    result: z.strictObject({ member: Member, changed }),
    example: { name: 'Dana Reyes', email: 'dana@example.com', title: 'Controller', timezone: 'Europe/Berlin' },
  }),
  get: method({
    summary: 'One member with its teams and how many live API keys it holds.',
    params: z.strictObject({ memberId: memberId('The member.') }),
    result: z.strictObject({ member: Member, access: z.strictObject({ liveKeys: z.number().int() }) }),
    example: { memberId: 'usr_0123456789abcdef' },
  }),
  list: method({
    summary: 'Members by name (or by relevance with q), filtered by status, kind, team or manager; archived members only when asked by status.',
    params: z.strictObject({
      status: z.enum(MEMBER_STATUSES).describe('Only members in this status (archived members are listed only when asked).').optional(),
      kind: z.enum(['human', 'agent']).describe('Only humans (usr_) or only agents (agt_).').optional(),
      teamId: teamId('Only members of this team.').optional(),
      managerId: memberId('Only direct reports of this member.').optional(),
      q: z.string().max(256, 'must be at most 256 characters').describe('Fuzzy search over name, handle and title.').optional(),
      cursor: listCursor,
      limit: limit(500, 50),
    }),
    result: z.strictObject({ members: z.array(Member), nextCursor: z.string().nullable() }),
    example: { kind: 'human', limit: 50 },
  }),
  update: method({
    summary:
      'Change member fields (not role or status). A manager that would close a reporting cycle is a BAD_REQUEST naming it; ifVersion guards against lost updates.',
    params: z.strictObject({
      memberId: memberId('The member.'),
      name: memberFields.name.optional(),
      handle: memberFields.handle.optional(),
      email: memberFields.email.nullable().optional(),
      title: memberFields.title.nullable().optional(),
      managerId: memberFields.managerId.nullable().optional(),
      timezone: memberFields.timezone.nullable().optional(),
      ifVersion,
    }),
    result: z.strictObject({ member: Member, changed }),
    example: { memberId: 'usr_0123456789abcdef', title: 'Head of Finance', ifVersion: 1 },
  }),
  archive: method({
    summary:
      'Take a member out of the directory and chart. A member with live keys, or yourself, is a CONFLICT naming the fix; its reports move to its manager.',
    params: z.strictObject({ memberId: memberId('The member.'), ifVersion }),
    result: z.strictObject({ member: Member, changed }),
    example: { memberId: 'usr_0123456789abcdef' },
  }),
  assignTeam: method({
    summary: 'Set the whole set of teams a member belongs to (an empty list leaves all), and which one is primary (default the first).',
    params: z.strictObject({
      memberId: memberId('The member.'),
      teamIds: z.array(teamId('A live team.')).max(MAX_TEAMS_PER_MEMBER).describe('The complete set of teams.'),
      primaryTeamId: teamId('One of teamIds.').optional(),
      ifVersion,
    }),
    result: z.strictObject({ member: Member, changed }),
    example: { memberId: 'usr_0123456789abcdef', teamIds: ['team_0123456789abcdef'] },
  }),
};


