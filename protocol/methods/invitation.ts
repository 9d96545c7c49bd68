import { z } from 'zod';
import { method } from '../contract.js';
import { id, proofFields, text } from '../schema.js';
import { ROLES } from '../scopes.js';
import { Member, MAX_TEAMS_PER_MEMBER, memberFields, memberId, teamId } from './member.js';

/** Invitations: how a human member gets access (a key of its role), by a link mailed to them and accepted on /join. */

export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;
export const invitationId = (description = 'The invitation.') => id('ivt', description);

export const Invitation = z.strictObject({
  id: z.string().describe('ivt_…'),
  memberId: z.string().describe('The member the invitation gives access to.'),
  email: z.string(),
  role: z.enum(ROLES),
  status: z.enum(INVITATION_STATUSES).describe('expired: pending past expiresAt (resend it for a new link).'),
  expiresAt: z.string(),
  sends: z.number().int().describe('Mails sent so far (create is the first).'),
  invitedBy: z.string(),
  createdAt: z.string(),
  acceptedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  version: z.number().int(),
});

const acceptUrl = z
  .string()
  .nullable()
  .describe(
    'The link to accept (/join?token=…), with its token: shown once, only its hash is kept. null only on a replay by another API key (see secretWithheld).',
  );
const secretWithheld = z.string().describe('Only on a replay of a keyed call made with another API key: the link is withheld; says what to do.').optional();
const changed = z.boolean().describe('false when the call found the invitation already so (its event says noop).');
const withLink = { acceptUrl, secretWithheld };
const linkSecret = { fields: ['acceptUrl'], ifLost: 'call invitation.resend with this invitation id for a new link (the old one stops working)' } as const;

export const invitation = {
  create: method({
    hold: { completion: 'retry', when: 'an agent calls it' },
    summary:
      'Invite a human by email to join with a role: makes the member (status invited), or links an existing member without access, and mails the link (valid 7 days). The link is in the result once. A member who already has access, a pending invitation for the address or no free seat is a CONFLICT naming it. From an agent it is a signature act (retry mode, action class invitation.create).',
    params: z.strictObject({
      email: memberFields.email.describe('Where the invitation goes; becomes the member’s work email.'),
      role: z.enum(ROLES).describe('The role the member gets, and the tier of the key minted when it accepts.'),
      name: memberFields.name.describe('Display name of a new member (default from the email’s local part: dan.ortega -> Dan Ortega).').optional(),
      memberId: memberId('An existing member without access (directory-only, or invited before) to give access to.').optional(),
      managerId: memberFields.managerId.optional(),
      teamIds: z.array(teamId('A live team.')).max(MAX_TEAMS_PER_MEMBER).describe('Teams to join; the first is primary.').optional(),
      message: text({ max: 2000, description: 'A personal note for the mail (sent only by mail, never recorded in the ledger).' }).optional(),
      ...proofFields,
    }),
    result: z.strictObject({ invitation: Invitation, member: Member, ...withLink, changed }),
    secrets: linkSecret,
    events: ['invitation.invite.create'],
    example: { email: 'dan.ortega@example.com', role: 'member', message: 'Welcome to the finance team!' },
  }),
  resend: method({
    summary:
      'Mail a pending (or expired) invitation again with a new link: the old link stops working and the 7 days start again. Accepted or revoked -> CONFLICT; more than 5 resends in 24 hours -> RATE_LIMITED.',
    params: z.strictObject({ invitationId: invitationId() }),
    result: z.strictObject({ invitation: Invitation, ...withLink, changed }),
    secrets: linkSecret,
    events: ['invitation.invite.resend'],
    example: { invitationId: 'ivt_0123456789abcdef' },
  }),
  revoke: method({
    summary:
      'Withdraw an invitation: its link stops working and a member it created is archived (a linked existing member stays as it was). Accepted -> CONFLICT (deactivate the user instead); revoked again -> changed:false.',
    params: z.strictObject({ invitationId: invitationId() }),
    result: z.strictObject({ invitation: Invitation, changed }),
    events: ['invitation.invite.revoke'],
    example: { invitationId: 'ivt_0123456789abcdef' },
  }),
};
