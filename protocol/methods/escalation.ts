import { z } from 'zod';
import { method } from '../contract.js';
import { id, limit, text } from '../schema.js';
import { Area, decisionId } from './decision.js';

/**
 * Escalations: a question or a risk climbing to humans. Its chain is fixed when raised: `to` (or the humans
 * deciding its area under the decision rights), then the right's escalateTo, then the org's admins, agents skipped,
 * so it never dead-ends. The level is read from the clock: it climbs one step each escalateAfter (by severity)
 * until the top of the chain; the assignee is the chain member at the current level.
 */

export const ESCALATION_REASONS = ['outside_rights', 'blocked', 'risk', 'deadline'] as const;
export const SEVERITIES = ['low', 'normal', 'high', 'critical'] as const;
export const ESCALATION_OUTCOMES = ['directed', 'decided', 'dismissed', 'withdrawn'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** How long each level waits before the escalation climbs to the next, by severity. */
export const ESCALATE_AFTER_MINUTES: Readonly<Record<Severity, number>> = { critical: 15, high: 60, normal: 240, low: 1440 };

export const escalationId = (description: string) => id('esc', description);

/** Any record's id (task_…, dec_…, inv_…): what the escalation is about. */
export const SubjectRef = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(/^[a-z][a-z0-9]*_[A-Za-z0-9]+$/, 'must be a record id such as task_… or dec_…')
  .describe('The record it is about (task_…, dec_…, esc_… must exist).');

export const Escalation = z.strictObject({
  id: z.string().describe('esc_…'),
  title: z.string(),
  reason: z.enum(ESCALATION_REASONS),
  severity: z.enum(SEVERITIES),
  area: z.string().nullable(),
  subject: z.string().nullable().describe('The record it is about.'),
  raisedBy: z.string(),
  to: z.string().nullable().describe('The human it was raised to, first in the chain.'),
  chain: z.array(z.string()).describe('The humans it climbs through, in order: level n is chain[n-1].'),
  level: z.number().int().describe('1-based: as of now while open (1 + one per escalateAfter elapsed, at most the chain length); as resolved once resolved.'),
  assignee: z.string().describe('The chain member at the current level: who answers it now.'),
  escalateAfterMinutes: z.number().int().describe('How long each level waits (by severity: critical 15, high 60, normal 240, low 1440).'),
  levelSince: z.string().describe('When level 1 began: when raised, or when a handoff of it was accepted (the chain then starts at its recipient).'),
  nextLevelAt: z.string().nullable().describe('When it climbs next; null at the top of the chain or once resolved.'),
  status: z.enum(['open', 'resolved']),
  outcome: z.enum(ESCALATION_OUTCOMES).nullable(),
  resolution: z.string().nullable(),
  decisionId: z.string().nullable().describe('The decision that answered it (outcome decided).'),
  resolvedBy: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  raisedAt: z.string(),
  updatedAt: z.string(),
});

const changed = z.boolean().describe('false when the call found it already so (its event says noop).');
const esc = escalationId('The escalation.');

export const escalation = {
  create: method({
    summary:
      'Raise an escalation to humans. Chain: `to`, or the humans deciding its area, then its escalateTo, then the admins; it climbs a level each escalateAfter (critical 15 min, high 60, normal 240, low 1440). Your open one about the same subject is returned (changed:false).',
    params: z.strictObject({
      title: text({ min: 1, max: 200, description: 'What needs a human, in a line.' }),
      reason: z.enum(ESCALATION_REASONS).describe('Why a human is needed.'),
      severity: z.enum(SEVERITIES).default('normal').describe('How fast it climbs.'),
      area: Area.optional().describe('Its area of the decision rights: whose decider comes first.'),
      subject: SubjectRef.optional(),
      to: z
        .string()
        .max(64, 'must be at most 64 characters')
        .regex(/^usr_[A-Za-z0-9]+$/, 'must be a human (usr_…); an escalation climbs to humans, never to an agent')
        .describe('The human to raise it to first.')
        .optional(),
    }),
    result: z.strictObject({ escalation: Escalation, changed }),
    events: ['escalation.case.create'],
    example: { title: 'Refund above my limit', reason: 'outside_rights', severity: 'high', area: 'refunds', subject: 'task_0123456789abcdef' },
  }),
  list: method({
    summary: 'Escalations newest first, with level and assignee as of now; filter by status, assignedTo=me (open, assigned to you now), subjectId.',
    params: z.strictObject({
      status: z.enum(['open', 'resolved']).describe('Only open or only resolved escalations.').optional(),
      assignedTo: z.literal('me', { message: 'must be "me"' }).describe('me: open ones assigned to you now.').optional(),
      subjectId: SubjectRef.optional().describe('Only those about this record.'),
      cursor: z.string().max(200).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ escalations: z.array(Escalation), nextCursor: z.string().nullable() }),
    example: { status: 'open', assignedTo: 'me', limit: 50 },
  }),
  resolve: method({
    summary:
      'Resolve an escalation: directed, decided or dismissed by a human of its chain or an admin; withdrawn by its raiser only (an agent only withdraws). Resolved already the same way: changed:false.',
    params: z.strictObject({
      escalationId: esc,
      outcome: z.enum(ESCALATION_OUTCOMES).describe('How it ended.'),
      resolution: text({ min: 1, max: 5_000, description: 'The answer.' }),
      decisionId: decisionId('The decision answering it (outcome decided).').optional(),
    }),
    result: z.strictObject({ escalation: Escalation, changed }),
    events: ['escalation.case.resolve'],
    example: { escalationId: 'esc_0123456789abcdef', outcome: 'directed', resolution: 'Refund it; I approve the amount.' },
  }),
};
