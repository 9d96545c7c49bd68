import { z } from 'zod';
import { method } from '../contract.js';
import { proofFields, text } from '../schema.js';
import { ROLES } from '../scopes.js';
import { MEMBER_STATUSES, memberId } from './member.js';

/**
 * Access of people (user.*: humans) and of any member (admin.*): roles, suspension, offboarding. The member's
 * access as these calls answer it; the rest of the record is member.get's.
 */

export const userId = (description: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^usr_[A-Za-z0-9]+$/, 'must be a human member id of the form usr_… (agents have no role or offboarding: use admin.deactivate)')
    .describe(description);

export const reason = text({ min: 1, max: 1000, description: 'Why (kept on the member record for admins; never in the ledger).' });

export const Access = z.strictObject({
  id: z.string().describe('usr_… or agt_…'),
  kind: z.enum(['human', 'agent']),
  status: z.enum(MEMBER_STATUSES),
  role: z.enum(ROLES).nullable().describe("A human's role: the ceiling of its keys (agents have none)."),
  liveKeys: z.number().int().describe('Keys not revoked (a suspended member keeps them, blocked).'),
  statusReason: z.string().nullable().describe('The reason given with the last suspension, reactivation or offboarding.'),
  statusChangedAt: z.string().nullable(),
  statusChangedBy: z.string().nullable(),
  version: z.number().int(),
});
const changed = z.boolean().describe('false when the call found the member already so (its event says noop).');

export const user = {
  updateRole: method({
    hold: { completion: 'retry', when: 'an agent widens a role' },
    summary:
      "Set a human's role (admin, approver, member, viewer): its live keys are re-tiered in place (keys at the old role's tier take the new one; every other key is clipped to the new role). Demoting the last active admin is a CONFLICT. An agent widening a role is held for a human's approval.",
    params: z.strictObject({
      userId: userId('The human.'),
      role: z.enum(ROLES).describe('admin: every scope. approver: approvals and reads. member: every scope but admin and approval.decide. viewer: reads.'),
      ...proofFields,
    }),
    result: z.strictObject({
      user: Access,
      keys: z.strictObject({
        retiered: z.number().int().describe("Keys at the old role's tier, now at the new one."),
        clipped: z.number().int().describe('Other keys that lost scopes beyond the new role.'),
        kept: z.number().int().describe('Keys already within the new role, unchanged.'),
      }),
      changed,
    }),
    events: ['user.role.update'],
    example: { userId: 'usr_0123456789abcdef', role: 'viewer' },
  }),
  deactivate: method({
    hold: { completion: 'release', when: 'an agent calls it' },
    summary:
      "Offboard a human in one transaction: keys and pending invitations revoked, inbox sessions ended, board claims released, open items and owned workstreams moved to transferTo (default the user's manager), direct reports moved to the user's manager (or transferTo), sponsored agents to transferTo; status deactivated. Yourself or the last admin is a CONFLICT.",
    params: z.strictObject({
      userId: userId('The human leaving.'),
      transferTo: memberId("Who takes over the user's open items, workstreams and sponsored agents (an active member; default the user's manager).").optional(),
      reason,
    }),
    result: z.strictObject({
      user: Access,
      transferTo: z.string().nullable().describe('Who took the work over (null on a repeat).'),
      handedOver: z.strictObject({
        keysRevoked: z.number().int(),
        invitationsRevoked: z.number().int(),
        sessionsEnded: z.number().int(),
        claimsReleased: z.number().int(),
        itemsMoved: z.number().int(),
        workstreamsMoved: z.number().int(),
        reportsMoved: z.number().int(),
        agentsMoved: z.number().int(),
      }),
      changed,
    }),
    events: ['user.access.deactivate'],
    example: { userId: 'usr_0123456789abcdef', transferTo: 'usr_fedcba9876543210', reason: 'Left the company' },
  }),
};
