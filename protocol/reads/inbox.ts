import { z } from 'zod';
import { read } from '../contract.js';
import { limit } from '../schema.js';
import { ESCALATION_REASONS, SEVERITIES } from '../methods/escalation.js';
import { HANDOFF_KINDS } from '../methods/handoff.js';
import { PARTY_KINDS } from '../methods/directory/common.js';

/*
 * GET /api/v1/org/inbox: what waits on the caller now, across the families that ask a person for something.
 * Each item names the call that acts on it (link), so an agent or a page needs no family-specific knowledge to
 * list them; the family's own reads give the rest.
 */

/** The kinds of item, in the order counts list them. */
export const INBOX_KINDS = ['approval', 'signature', 'decision', 'handoff', 'escalation', 'introduction'] as const;

/** Most items of one kind the read gathers; counts stop there (truncated then says so). */
export const INBOX_KIND_CAP = 500;

const Link = z
  .strictObject({
    method: z
      .string()
      .describe(
        'The method that acts on it: approval.resolve, decision.sign, decision.adopt, handoff.accept (or decline), escalation.resolve, directory.resolveAwarenessRequest.',
      ),
    params: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .describe('The params that name it (an id, a version); add the rest (decision, outcome, resolution…).'),
  })
  .describe('The call to act with.');

const base = {
  id: z.string().describe('The record: apr_…, dec_…, hof_…, esc_… or awq_….'),
  title: z
    .string()
    .describe(
      'As its family shows it: an approval’s summary, a decision’s title, a handoff’s brief, an escalation’s title, the party an introduction is about.',
    ),
  since: z.string().describe('Since when it waits on you (ISO time): filed, proposed or last signed, offered, climbed to you, asked.'),
  from: z.string().nullable().describe('Who it comes from (a member id): the requester, the decision’s driver, the offerer, the raiser.'),
  link: Link,
};

const DecisionFields = {
  number: z.number().int().describe('The decision’s number (D-12).'),
  version: z.number().int().describe('Its current version: sign or adopt this one.'),
  area: z.string(),
};

export const InboxItem = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('approval').describe('A pending approval you may decide.'),
    ...base,
    actionClass: z.string().describe('The held act (books.payroll_sign, decision.sign…).'),
    expiresAt: z.string().describe('Undecided past this, it expires.'),
  }),
  z.strictObject({ kind: z.literal('signature').describe('An open decision waiting on your signature (agree names you).'), ...base, ...DecisionFields }),
  z.strictObject({
    kind: z
      .literal('decision')
      .describe('An open decision ready for you to decide: every agree signature in, no open adjustment, the rights make you its decider.'),
    ...base,
    ...DecisionFields,
  }),
  z.strictObject({
    kind: z.literal('handoff').describe('A handoff offered to you.'),
    ...base,
    subject: z.strictObject({ kind: z.enum(HANDOFF_KINDS), id: z.string() }).describe('What moves to you if you accept.'),
    expiresAt: z.string().describe('Unanswered past this, the offer expires.'),
  }),
  z.strictObject({
    kind: z.literal('escalation').describe('An open escalation assigned to you as of now.'),
    ...base,
    reason: z.enum(ESCALATION_REASONS),
    severity: z.enum(SEVERITIES),
    level: z.number().int().describe('Its level now (you are chain[level-1]).'),
    subject: z.string().nullable().describe('The record it is about.'),
    nextLevelAt: z.string().nullable().describe('When it climbs past you, unanswered; null at the top of its chain.'),
  }),
  z.strictObject({
    kind: z.literal('introduction').describe('A pending request to introduce or brief a colleague on a party.'),
    ...base,
    requestKind: z.enum(['introduce', 'brief']),
    party: z.strictObject({ id: z.string(), kind: z.enum(PARTY_KINDS) }).describe('The person or organisation it is about (title is its name).'),
  }),
]);

const count = (what: string) => z.number().int().describe(what);

export const inboxReadContracts = {
  'org/inbox': read({
    summary:
      'What waits on you now, newest first: pending approvals you may decide (a human with approval.decide), decisions waiting on your signature or ready for you to decide (as GET /decision.list awaiting=me), handoffs offered to you, escalations assigned to you as of now, and introduction requests to you (with directory.read). Each item names the call that acts on it (link). Counts per kind; nextChangeAt says when the list changes by the clock alone (an expiry, an escalation climbing).',
    query: z.strictObject({ limit: limit(500, 100) }),
    result: z.strictObject({
      items: z.array(InboxItem).describe('Newest first (by since), at most limit.'),
      counts: z
        .strictObject({
          approval: count('Approvals you may decide.'),
          signature: count('Decisions waiting on your signature.'),
          decision: count('Decisions ready for you to decide.'),
          handoff: count('Handoffs offered to you.'),
          escalation: count('Escalations assigned to you.'),
          introduction: count('Introduction and briefing requests to you.'),
        })
        .describe(`Per kind, all of them (not only those in items), at most ${INBOX_KIND_CAP} each.`),
      total: count('The sum of counts.'),
      truncated: z.boolean().describe(`More wait than items shows: limit cut the list, or a kind reached ${INBOX_KIND_CAP}.`),
      nextChangeAt: z
        .string()
        .nullable()
        .describe(
          'When the list next changes without any call (an approval or offer expires, an escalation climbs to or past you): read again then. null: only calls change it.',
        ),
    }),
    example: { limit: 50 },
  }),
};
