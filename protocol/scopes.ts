/** Every scope the spec names (Authentication, rule 4). */
export const SCOPES = [
  'admin',
  'approval.request',
  'approval.decide',
  'board.read',
  'board.write',
  'board.work',
  'books.read',
  'books.write',
  'calendar.read',
  'calendar.write',
  'calling.write',
  'charter.write',
  'cost.report',
  'credential.use',
  'crm.read',
  'crm.write',
  'decision.write',
  'design.read',
  'design.write',
  'directory.read',
  'directory.write',
  'email.read',
  'email.write',
  'files.read',
  'files.write',
  'handoff.send',
  'knowledge.read',
  'knowledge.write',
  'lease.write',
  'messaging.read',
  'messaging.write',
  'org.read',
  'org.write',
  'presence.write',
  'registry.write',
] as const;

export type Scope = (typeof SCOPES)[number];
export type PrincipalKind = 'human' | 'agent';

const READ_SCOPES = SCOPES.filter((s) => s.endsWith('.read'));

/** Key tiers. Every /api/v1 tier holds org.read (spec: Authentication, rule 3); scim is a key of /scim/v2, not of /api/v1. */
export const TIERS = {
  /** Every scope; a human principal. */
  admin: { principal: 'human', scopes: [...SCOPES] },
  /** Decides approvals and reads everything; a human principal. */
  approver: { principal: 'human', scopes: ['approval.decide', 'approval.request', ...READ_SCOPES] },
  /** Every scope except admin and approval.decide; a human principal (the agent tier's scopes, for people). */
  member: { principal: 'human', scopes: SCOPES.filter((s) => s !== 'admin' && s !== 'approval.decide') },
  /** org.read and every *.read scope; a human principal. */
  viewer: { principal: 'human', scopes: [...READ_SCOPES] },
  /** Every scope except admin and approval.decide; an agent principal. */
  agent: { principal: 'agent', scopes: SCOPES.filter((s) => s !== 'admin' && s !== 'approval.decide') },
  /** org.read and every *.read scope; an agent principal. */
  reader: { principal: 'agent', scopes: [...READ_SCOPES] },
  /**
   * The SCIM provisioner of an identity provider: a key for /scim/v2 only, holding no /api/v1 scope (not even
   * org.read), so every /api/v1 method, read, the stream and MCP refuse it with FORBIDDEN_SCOPE. The SCIM face
   * makes its registry calls with a capability of its own (gateway/scim/calls.ts: exactly the methods a SCIM
   * write makes, with the scopes they need). An agent principal exempt from agent-lane holds
   * (domain/people/member/lane.ts): its humans decided in the identity provider.
   */
  scim: { principal: 'agent', scopes: [] },
} as const satisfies Record<string, { principal: PrincipalKind; scopes: readonly Scope[] }>;

export type Tier = keyof typeof TIERS;

/** What a missing scope means for a key of this tier, beyond the scope: a scim key serves /scim/v2 only. */
export const tierScopeNote = (tier: string | null): string =>
  tier === 'scim' ? ': a key of tier scim serves /scim/v2 only (SCIM provisioning); /api/v1 takes a key of another tier' : '';
export const TIER_NAMES = Object.keys(TIERS) as Tier[];

/**
 * A human's role is the ceiling of every key it holds: the human tier of the same name. Roles are ordered by
 * containment of their scopes, not by rank: admin covers all, approver and member each cover viewer, and
 * neither of approver and member covers the other (approval.decide against the write scopes).
 */
export const ROLES = ['admin', 'approver', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const roleScopes = (role: Role): readonly Scope[] => TIERS[role].scopes;

/** The scopes among `scopes` that `role` does not allow (empty: a key with them stays within the role). */
export function beyondRole(scopes: readonly string[], role: Role): string[] {
  const allowed = new Set<string>(roleScopes(role));
  return scopes.filter((s) => !allowed.has(s));
}

/** Whether every scope of role `b` is one of role `a`'s. */
export const roleCovers = (a: Role, b: Role): boolean => beyondRole(roleScopes(b), a).length === 0;

/** The narrowest role whose scopes cover `scopes` (viewer, then approver, then member, then admin). */
export function roleCovering(scopes: readonly string[]): Role {
  return (['viewer', 'approver', 'member'] as const).find((r) => beyondRole(scopes, r).length === 0) ?? 'admin';
}

/** The human tier whose scopes are exactly `scopes`, if any (a clipped key keeps a tier name only when it is one). */
export function humanTierOf(scopes: readonly string[]): Role | null {
  const set = new Set(scopes);
  return ROLES.find((r) => roleScopes(r).length === set.size && roleScopes(r).every((s) => set.has(s))) ?? null;
}
