import { z } from 'zod';
import { method } from '../contract.js';
import { id, int32, limit, text } from '../schema.js';
import { Persona } from './persona-view.js';

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

const Email = z
  .string()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email({ message: 'must be an email address' }));
const Handle = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9._-]{0,38}[a-z0-9])?$/, 'must be 1 to 40 lowercase letters, digits, dots, dashes or underscores')
  .describe('Short unique name in the org (mentions, URLs); derived from the name when omitted.');
const USER_NAME =
  'The name an identity provider signs this person in with (SCIM userName), e.g. a userPrincipalName; unique in the org ignoring case; unset: the email serves.';
const TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone').concat('UTC'));
const TimeZone = z
  .string()
  .max(64)
  .refine((tz) => TIME_ZONES.has(tz), 'must be an IANA time zone such as Europe/Berlin')
  .describe('IANA time zone, e.g. Europe/Berlin.');
export const ifVersion = int32(1, 'Apply only if the record is still at this version (else CONFLICT).').optional();
const listCursor = z.string().max(200).describe('The nextCursor of the previous page.').optional();

export const memberFields = {
  name: text({ min: 1, max: 200, description: 'Display name.' }),
  handle: Handle,
  email: Email.describe('Work email, unique in the org.'),
  userName: z
    .string()
    .min(1, 'must be at least 1 character')
    .max(254, 'must be at most 254 characters')
    // Printable text only: no control characters, no lone surrogates (they would not survive the database).
    .regex(/^[^\p{Cc}\p{Cs}]+$/u, 'must not contain control characters')
    .describe(USER_NAME),
  title: text({ max: 200, description: 'Job title.' }),
  managerId: memberId('The member this one reports to (one manager; reports are derived).'),
  timezone: TimeZone,
  dottedLineIds: z
    .array(memberId('A member this one also works for (display only; not its manager, not itself).'))
    .max(3, 'must list at most 3 members')
    .describe('Dotted-line managers: up to 3 members shown beside the reporting line; they approve nothing.'),
  office: text({ max: 200, description: 'Office or site, e.g. "Berlin HQ".' }),
  employeeId: text({ min: 1, max: 64, description: 'HR employee number, unique in the org.' }),
  externalId: text({ min: 1, max: 200, description: "The identity provider's id for this member (SCIM externalId), unique in the org." }),
};

export const MemberTeam = z.strictObject({ teamId: z.string(), primary: z.boolean() });
export const Member = z.strictObject({
  id: z.string().describe('usr_… or agt_…: the principal id.'),
  kind: z.enum(['human', 'agent']),
  name: z.string(),
  handle: z.string().nullable(),
  email: z.string().nullable(),
  userName: z.string().nullable().describe(USER_NAME),
  title: z.string().nullable(),
  managerId: z.string().nullable(),
  timezone: z.string().nullable(),
  status: z.enum(MEMBER_STATUSES),
  position: z.number().int().nullable().describe('Slot among the chart siblings (same manager), 0 first; null: after the placed ones, by name.'),
  dottedLineIds: z.array(z.string()),
  office: z.string().nullable(),
  employeeId: z.string().nullable(),
  externalId: z.string().nullable(),
  teams: z.array(MemberTeam),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const changed = z.boolean().describe('false when the call found the record already so (its event says noop).');
const revision = z.number().int().describe('The chart revision after the call (GET /hierarchy, hierarchy.set expectedRevision).');

/** One field a member form shows (HiBob-style metadata): its type, limits, and where its choices come from. */
const EditorField = z.strictObject({
  field: z.string(),
  type: z.enum(['text', 'email', 'handle', 'member', 'members', 'teams', 'office', 'timezone']),
  required: z.boolean(),
  nullable: z.boolean().describe('May be cleared with null on update.'),
  maxLength: z.number().int().optional(),
  maxItems: z.number().int().optional(),
  unique: z.boolean().describe('CONFLICT when another member has the value.'),
  choices: z.enum(['teams', 'managers', 'offices', 'timezones']).optional().describe('The list of this answer that holds its valid values.'),
});
const EditorPerson = z.strictObject({
  id: z.string(),
  kind: z.enum(['human', 'agent']),
  name: z.string(),
  handle: z.string().nullable(),
  title: z.string().nullable(),
});

export const member = {
  create: method({
    summary:
      'Add a human to the directory without access (a future hire, a directory-only colleague): status active, no keys. The handle is derived from the name when omitted; a taken email, handle or userName (the one a member signs in with: its userName, else its email) is a CONFLICT.',
    params: z.strictObject({
      name: memberFields.name,
      handle: memberFields.handle.optional(),
      email: memberFields.email.optional(),
      userName: memberFields.userName.optional(),
      title: memberFields.title.optional(),
      managerId: memberFields.managerId.optional(),
      timezone: memberFields.timezone.optional(),
      dottedLineIds: memberFields.dottedLineIds.optional(),
      office: memberFields.office.optional(),
      employeeId: memberFields.employeeId.optional(),
      externalId: memberFields.externalId.optional(),
      teamIds: z.array(teamId('A live team.')).max(MAX_TEAMS_PER_MEMBER).describe('Teams to join; the first is primary.').optional(),
    }),
    result: z.strictObject({ member: Member, changed }),
    events: ['member.record.create'],
    example: { name: 'Dana Reyes', email: 'dana@example.com', title: 'Controller', timezone: 'Europe/Berlin' },
  }),
  get: method({
    summary:
      'One member with its teams, how many live API keys it holds, and its persona (an agent’s mandate and compiled prompt; null for humans and agents without one).',
    params: z.strictObject({ memberId: memberId('The member.') }),
    result: z.strictObject({ member: Member, access: z.strictObject({ liveKeys: z.number().int() }), persona: Persona.nullable() }),
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
    hold: { completion: 'release', when: "an agent changes a human member's record" },
    summary:
      'Change member fields (not role, status or chart position: member.savePosition). A manager that would close a reporting cycle is a BAD_REQUEST naming it; a taken email, handle, userName, employeeId or externalId is a CONFLICT naming the field; ifVersion guards against lost updates.',
    params: z.strictObject({
      memberId: memberId('The member.'),
      name: memberFields.name.optional(),
      handle: memberFields.handle.optional(),
      email: memberFields.email.nullable().optional(),
      userName: memberFields.userName.nullable().optional(),
      title: memberFields.title.nullable().optional(),
      managerId: memberFields.managerId.nullable().optional(),
      timezone: memberFields.timezone.nullable().optional(),
      dottedLineIds: memberFields.dottedLineIds.optional(),
      office: memberFields.office.nullable().optional(),
      employeeId: memberFields.employeeId.nullable().optional(),
      externalId: memberFields.externalId.nullable().optional(),
      ifVersion,
    }),
    result: z.strictObject({ member: Member, changed }),
    events: ['member.record.update'],
    example: { memberId: 'usr_0123456789abcdef', title: 'Head of Finance', ifVersion: 1 },
  }),
  archive: method({
    hold: { completion: 'release', when: 'an agent archives a human member' },
    summary:
      'Take a member out of the directory and chart. A member with live keys, or yourself, is a CONFLICT naming the fix; its reports move to its manager.',
    params: z.strictObject({ memberId: memberId('The member.'), ifVersion }),
    result: z.strictObject({ member: Member, changed }),
    events: ['member.record.archive'],
    example: { memberId: 'usr_0123456789abcdef' },
  }),
  assignTeam: method({
    hold: { completion: 'release', when: "an agent changes a human member's teams, or adds any member to a team" },
    summary: 'Set the whole set of teams a member belongs to (an empty list leaves all), and which one is primary (default the first).',
    params: z.strictObject({
      memberId: memberId('The member.'),
      teamIds: z.array(teamId('A live team.')).max(MAX_TEAMS_PER_MEMBER).describe('The complete set of teams.'),
      primaryTeamId: teamId('One of teamIds.').optional(),
      ifVersion,
    }),
    result: z.strictObject({ member: Member, changed }),
    events: ['member.teams.assign'],
    example: { memberId: 'usr_0123456789abcdef', teamIds: ['team_0123456789abcdef'] },
  }),
  getEditorOptions: method({
    summary:
      "Everything a member form needs: each field's type and limits, the live teams, the members who may be its manager (active or invited, not the member itself or anyone below it; capped, with the total), the offices in use and the time zones.",
    params: z.strictObject({
      memberId: memberId('The member being edited; omit for a new member (then every active or invited member may manage).').optional(),
      q: text({ max: 256, description: 'Narrow the managers to names or handles containing this.' }).optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({
      fields: z.array(EditorField),
      teams: z.array(z.strictObject({ id: z.string(), name: z.string(), handle: z.string(), parentTeamId: z.string().nullable() })),
      managers: z.strictObject({
        members: z.array(EditorPerson),
        total: z.number().int().describe('All eligible managers; members holds the first `limit` by name.'),
      }),
      offices: z.array(z.strictObject({ office: z.string(), members: z.number().int() })),
      timezones: z.array(z.string()),
    }),
    example: { memberId: 'usr_0123456789abcdef', limit: 50 },
  }),
  reassignReporting: method({
    hold: { completion: 'release', when: 'an agent moves a human to another manager' },
    summary:
      "Move a manager's direct reports (all, or the memberIds listed) to another manager in one step, e.g. before a manager leaves. A new manager inside a moved member's subtree is a BAD_REQUEST naming the cycle.",
    params: z.strictObject({
      fromManagerId: memberId('The current manager.'),
      toManagerId: memberId('The new manager (not archived; not below any moved member).'),
      memberIds: z.array(memberId('A direct report of fromManagerId.')).min(1).max(5000).describe('Only these reports (default all of them).').optional(),
    }),
    result: z.strictObject({ moved: z.number().int(), memberIds: z.array(z.string()), revision, changed }),
    events: ['member.reports.reassign'],
    example: { fromManagerId: 'usr_0123456789abcdef', toManagerId: 'usr_fedcba9876543210' },
  }),
  savePosition: method({
    summary:
      'Put a member at a slot among its chart siblings (the members with the same manager): 0 is first, past the end is last. The siblings are renumbered 0, 1, 2… in the new order.',
    params: z.strictObject({
      memberId: memberId('The member to place.'),
      position: z.number().int().min(0).max(10_000).describe('Slot among its siblings, 0 first.'),
      ifVersion,
    }),
    result: z.strictObject({ member: Member, siblings: z.number().int().describe('How many siblings share its manager, itself included.'), revision, changed }),
    events: ['member.position.save'],
    example: { memberId: 'usr_0123456789abcdef', position: 0 },
  }),
  resetPositions: method({
    summary: "Clear the manual order of a manager's reports (or, without managerId, of the whole chart): siblings are shown by name again.",
    params: z.strictObject({ managerId: memberId('Only the reports of this member (default the whole chart).').optional() }),
    result: z.strictObject({ reset: z.number().int().describe('How many members lost a position.'), revision, changed }),
    events: ['member.positions.reset'],
    example: { managerId: 'usr_0123456789abcdef' },
  }),
};
