import { z } from 'zod';
import { method } from '../contract.js';
import { id, proofFields, text } from '../schema.js';
import { Area } from './decision.js';

/**
 * Handoffs move ownership of a task, a decision or an escalation, by offer and acceptance. The subject's holder
 * offers (or whoever the decision rights make the handoff's decider: `handoff.<area>`, `handoff`, `*`, else the
 * owner); an act the rights give to a human holds for that human. The recipient accepts, and ownership moves in
 * the same transaction: a task's assignee (its claim released), a decision's driver, an escalation's assignee.
 * An offer expires after expiresInHours (read from the clock; no job).
 */

export const HANDOFF_KINDS = ['task', 'decision', 'escalation'] as const;
export const HANDOFF_STATUSES = ['offered', 'accepted', 'declined', 'cancelled', 'expired'] as const;
const PREFIX: Record<(typeof HANDOFF_KINDS)[number], string> = { task: 'task', decision: 'dec', escalation: 'esc' };

export const handoffId = (description: string) => id('hof', description);

export const HandoffSubject = z
  .strictObject({
    kind: z.enum(HANDOFF_KINDS),
    id: z.string().max(64, 'must be at most 64 characters').describe('task_…, dec_… or esc_…'),
  })
  .superRefine((s, issue) => {
    const prefix = PREFIX[s.kind];
    if (prefix && !new RegExp(`^${prefix}_[A-Za-z0-9]+$`).test(s.id)) {
      issue.addIssue({ code: 'custom', path: ['id'], message: `must be an id of the form ${prefix}_… for a ${s.kind}` });
    }
  })
  .describe('What is handed off.');

const memberId = (description: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id (usr_… or agt_…)')
    .describe(description);

export const Handoff = z.strictObject({
  id: z.string().describe('hof_…'),
  subject: z.strictObject({ kind: z.enum(HANDOFF_KINDS), id: z.string() }),
  area: z.string().nullable().describe('The area whose handoff right governed it (given, or the decision’s or escalation’s own).'),
  from: z.string().describe('Who offered it.'),
  to: z.string().describe('The recipient.'),
  holderAtOffer: z.string().nullable().describe('Who held the subject when offered: acceptance refuses if it has moved since.'),
  brief: z.string().describe('What the recipient needs to know.'),
  status: z.enum(HANDOFF_STATUSES).describe('expired: still offered past expiresAt (read from the clock).'),
  offeredAt: z.string(),
  expiresAt: z.string(),
  override: z.boolean().describe('Offered by an admin whom the rights do not name.'),
  approvalId: z.string().nullable().describe('The approval of the human who decided the offer, when the offerer did not.'),
  closedBy: z.string().nullable(),
  closedAt: z.string().nullable(),
  reason: z.string().nullable().describe('Why it was declined or cancelled.'),
});

const changed = z.boolean().describe('false when the call found it already so (its event says noop).');
const hof = handoffId('The handoff offer.');
const reason = text({ min: 1, max: 2_000, description: 'Why.' });

export const handoff = {
  offer: method({
    hold: { completion: 'retry', when: 'the caller neither holds the subject nor decides it under the decision rights' },
    summary:
      'Offer a task, decision or escalation you hold (or decide under the rights; else a hold for who decides) to another member. One open offer per subject; at most your compact’s maxOpenHandoffs; `to` within the area’s perform, if any.',
    params: z.strictObject({
      subject: HandoffSubject,
      to: memberId('The recipient (a human for an escalation).'),
      brief: text({ min: 1, max: 5_000, description: 'What the recipient needs to know.' }),
      area: Area.optional().describe('Area of the right handoff.<area>; default the subject’s.'),
      expiresInHours: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(1, 'must be >= 1')
        .max(720, 'must be at most 720')
        .default(72)
        .describe('Hours until it expires.'),
      ...proofFields,
    }),
    result: z.strictObject({ handoff: Handoff, changed }),
    events: ['handoff.offer.create'],
    example: {
      subject: { kind: 'task', id: 'task_0123456789abcdef' },
      to: 'agt_0123456789abcdef',
      brief: 'Tests pass; the migration is left.',
      expiresInHours: 24,
    },
  }),
  accept: method({
    summary:
      'Accept an offer made to you: you become the task’s assignee (its claim released), the decision’s driver or the escalation’s assignee. CONFLICT if expired or the subject moved since.',
    params: z.strictObject({ handoffId: hof }),
    result: z.strictObject({ handoff: Handoff, changed }),
    events: ['handoff.offer.accept'],
    example: { handoffId: 'hof_0123456789abcdef' },
  }),
  decline: method({
    summary: 'Decline an offer made to you, saying why.',
    params: z.strictObject({ handoffId: hof, reason }),
    result: z.strictObject({ handoff: Handoff, changed }),
    events: ['handoff.offer.decline'],
    example: { handoffId: 'hof_0123456789abcdef', reason: 'I am out this week.' },
  }),
  cancel: method({
    summary: 'Cancel an open offer: its offerer, or the handoff’s decider under the rights.',
    params: z.strictObject({ handoffId: hof, reason }),
    result: z.strictObject({ handoff: Handoff, changed }),
    events: ['handoff.offer.cancel'],
    example: { handoffId: 'hof_0123456789abcdef', reason: 'Found someone closer to it.' },
  }),
};
