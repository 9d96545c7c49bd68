/** Every scope the spec names (Authentication, rule 4). */
export const SCOPES = [
  'admin', 'approval.request', 'approval.decide', 'board.read', 'board.write', 'board.work', 'books.read',
  'books.write', 'calendar.read', 'calendar.write', 'calling.write', 'charter.write', 'cost.report',
  'credential.use', 'crm.read', 'crm.write', 'decision.write', 'design.read', 'design.write', 'directory.read',
  'directory.write', 'email.read', 'email.write', 'files.read', 'files.write', 'handoff.send', 'knowledge.read',
  'knowledge.write', 'lease.write', 'messaging.read', 'messaging.write', 'org.read', 'org.write', 'presence.write',
  'registry.write',
] as const;

export type Scope = (typeof SCOPES)[number];
export type PrincipalKind = 'human' | 'agent';

const READ_SCOPES = SCOPES.filter((s) => s.endsWith('.read'));

/** Key tiers. Every tier holds org.read (spec: Authentication, rule 3). */
export const TIERS = {
  /** Every scope; a human principal. */
  admin: { principal: 'human', scopes: [...SCOPES] },
  /** Decides approvals and reads everything; a human principal. */
  approver: { principal: 'human', scopes: ['approval.decide', 'approval.request', ...READ_SCOPES] },
  /** Every scope except admin and approval.decide; an agent principal. */
  agent: { principal: 'agent', scopes: SCOPES.filter((s) => s !== 'admin' && s !== 'approval.decide') },
  /** org.read and every *.read scope; an agent principal. */
  reader: { principal: 'agent', scopes: [...READ_SCOPES] },
} as const satisfies Record<string, { principal: PrincipalKind; scopes: readonly Scope[] }>;

export type Tier = keyof typeof TIERS;
export const TIER_NAMES = Object.keys(TIERS) as Tier[];
