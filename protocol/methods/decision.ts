import { z } from 'zod';
import { method } from '../contract.js';
import { id, int32, isoDate, limit, proofFields, text } from '../schema.js';

/**
 * Decisions: ADR-like records numbered per org. The driver proposes and re-proposes (version + 1, older signatures
 * stale); signatories sign a version; adoption needs the agree signatures of the area's decision right on the
 * current version and no open adjustment request, by someone who decides (else a hold for them); supersede
 * adopts and closes its targets, linked both ways; reverse withdraws an open one or reverses an adopted one.
 */

export const DECISION_STATUSES = ['proposed', 'adjustment_requested', 'adopted', 'superseded', 'reversed', 'withdrawn'] as const;
export const OPEN_STATUSES = ['proposed', 'adjustment_requested'] as const;
/** The binding charter edits an amendment may carry, named as their charter methods (charter.<op>). */
export const AMENDMENT_OPS = ['update', 'addSection', 'updateSection', 'deleteSection', 'reorderSections', 'updateClauses', 'editColleagueField'] as const;
export const LINK_RELS = ['relates_to', 'depends_on', 'refines', 'see_also'] as const;

export const decisionId = (description: string) => id('dec', description);

export const decisionVersion = z
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .min(1, 'must be >= 1')
  .max(1_000_000, 'must be at most 1000000')
  .describe('The version acted on: the decision’s current version (an older one is stale: CONFLICT).');

export const Area = text({
  min: 1,
  max: 100,
  description: 'What the decision is about: an area of the decision rights, dotted for sub-areas (`pricing`, `pricing.eu`); `charter` for charter amendments.',
}).refine(
  (s) => s !== '*' && s.split('.').every((part) => part.length > 0 && part.trim() === part),
  'must be dot-separated names without empty parts or outer spaces, not *',
);

export const Amendment = z
  .strictObject({
    baseVersion: int32(1, 'The charter version the operations were written against.').optional(),
    ops: z
      .array(
        z.strictObject({
          op: z.enum(AMENDMENT_OPS).describe('A binding charter edit, named as its charter method (charter.<op>).'),
          params: z.record(z.string(), z.unknown()).describe('That method’s params as it takes them (without baseVersion or proofs).'),
        }),
      )
      .min(1, 'must hold at least one operation')
      .max(50, 'must hold at most 50 operations')
      .describe('The charter operations, applied in order as one charter version by charter.amend once adopted.'),
  })
  .describe('Charter operations (area charter only): kept as structured data and applied by charter.amend after adoption.');

export const Link = z.strictObject({
  rel: z.enum(LINK_RELS).describe('How the target relates to this decision.'),
  target: text({ min: 1, max: 500, description: 'A decision id (dec_…, which must exist in this org), another record’s id or a URL.' }),
});

export const Decision = z.strictObject({
  id: z.string().describe('dec_…'),
  number: z.number().int().describe('Per-org number: D-<number>.'),
  title: z.string(),
  area: z.string(),
  context: z.string().nullable(),
  decision: z.string().describe('What is decided.'),
  consequences: z.string().nullable(),
  amendment: Amendment.nullable(),
  amendmentApplied: z.strictObject({ charterVersion: z.number().int(), at: z.string() }).nullable().describe('When charter.amend applied the amendment.'),
  links: z.array(Link),
  version: z.number().int(),
  contentHash: z.string().describe('SHA-256 of the canonical content of the current version.'),
  status: z.enum(DECISION_STATUSES),
  driver: z.string().describe('Who proposed it and alone proposes its next versions.'),
  outcome: z.string().nullable().describe('The outcome statement given at adoption.'),
  reviewOn: z.string().nullable().describe('Review date set at adoption (revisit = supersede).'),
  supersedes: z.array(z.string()).describe('The decisions this one superseded.'),
  supersededBy: z.string().nullable(),
  adopted: z
    .strictObject({
      version: z.number().int(),
      contentHash: z.string(),
      by: z.string(),
      at: z.string(),
      override: z.boolean().describe('Adopted by an admin whom the decision rights do not name.'),
      approvalId: z.string().nullable().describe('The approval of the human who decided, when the caller did not.'),
    })
    .nullable(),
  closed: z
    .strictObject({ by: z.string(), at: z.string(), reason: z.string().nullable() })
    .nullable()
    .describe('Withdrawn, reversed or superseded: by whom, when, why.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const Signature = z.strictObject({
  id: z.string().describe('dsg_…'),
  decisionId: z.string(),
  version: z.number().int(),
  contentHash: z.string().describe('The content hash of the version signed.'),
  signer: z.string().describe('The human who signed, or an agent endorsing as itself.'),
  signerKind: z.enum(['human', 'agent']),
  relayedBy: z.string().nullable().describe('The agent that relayed a human’s signature (onBehalfOf), approved by that human.'),
  approvalId: z.string().nullable(),
  current: z.boolean().describe('On the current version (older versions’ signatures are stale).'),
  signedAt: z.string(),
});

export const Comment = z.strictObject({
  id: z.string().describe('dcm_…'),
  decisionId: z.string(),
  version: z.number().int().describe('The version commented on.'),
  kind: z.enum(['comment', 'adjustment']),
  body: z.string(),
  author: z.string(),
  createdAt: z.string(),
  resolvedAt: z.string().nullable().describe('adjustment: when it stopped blocking (a new version, or its author signed).'),
});

const changed = z.boolean().describe('false when the call found it already so (its event says noop).');
const optionalText = (max: number, description: string) => text({ min: 1, max, description }).nullable().optional();
const dec = decisionId('The decision.');

export const decision = {
  propose: method({
    summary:
      'Propose a decision (status proposed, version 1, numbered D-n; title, area and decision required) or, with decisionId, its driver’s next version: given fields replace, version + 1, signatures on older versions go stale and open adjustment requests close. Same content: changed:false.',
    params: z.strictObject({
      decisionId: decisionId('Re-propose this open decision (its driver only).').optional(),
      title: text({ min: 1, max: 200, description: 'A short title.' }).optional(),
      area: Area.optional(),
      decision: text({ min: 1, max: 20_000, description: 'What is decided, in full.' }).optional(),
      context: optionalText(20_000, 'Why it comes up: the forces and facts; null clears.'),
      consequences: optionalText(20_000, 'What follows from it; null clears.'),
      amendment: Amendment.nullable().optional(),
      links: z.array(Link).max(20, 'must list at most 20 links').describe('Related decisions and records; replaces the list.').optional(),
    }),
    result: z.strictObject({ decision: Decision, changed }),
    events: ['decision.record.propose'],
    example: {
      title: 'EU list prices +5%',
      area: 'pricing.eu',
      decision: 'Raise EU list prices by 5% from the next quarter.',
      context: 'Costs rose 7% this year.',
    },
  }),
  comment: method({
    summary: 'Comment on a decision (any status), on its current version.',
    params: z.strictObject({ decisionId: dec, body: text({ min: 1, max: 10_000, description: 'The comment.' }) }),
    result: z.strictObject({ comment: Comment, changed }),
    events: ['decision.comment.add'],
    example: { decisionId: 'dec_0123456789abcdef', body: 'Does this include the reseller price list?' },
  }),
  requestAdjustment: method({
    summary:
      'Block adoption of an open decision’s current version until its driver proposes a new one (or you sign it): for a signatory (agree) or a decider of its area; others comment.',
    params: z.strictObject({ decisionId: dec, version: decisionVersion, body: text({ min: 1, max: 10_000, description: 'What must change.' }) }),
    result: z.strictObject({ decision: Decision, comment: Comment, changed }),
    events: ['decision.adjustment.request'],
    example: { decisionId: 'dec_0123456789abcdef', version: 1, body: 'Exclude the reseller list until contracts renew.' },
  }),
  sign: method({
    hold: { completion: 'retry', when: "an agent relays a human's signature (onBehalfOf): that human decides" },
    summary:
      'Sign an open decision’s current version. A human signs by calling; an agent signs as itself (an endorsement that counts only where agree names it) or relays a human’s signature with onBehalfOf, which holds for that human’s approval (signature act, retry mode: decision.sign). Signed already: changed:false.',
    params: z.strictObject({
      decisionId: dec,
      version: decisionVersion,
      onBehalfOf: z
        .string()
        .max(64, 'must be at most 64 characters')
        .regex(/^usr_[A-Za-z0-9]+$/, 'must be usr_… (a human member; an agent signs only as itself)')
        .describe('Sign for this human: held until they approve it; bound to the decision, version, content hash and signer, single use.')
        .optional(),
      ...proofFields,
    }),
    result: z.strictObject({
      decision: Decision,
      signature: Signature,
      counts: z.boolean().describe('The signer is named by the right’s agree list.'),
      changed,
    }),
    events: ['decision.signature.add'],
    example: { decisionId: 'dec_0123456789abcdef', version: 1 },
  }),
  adopt: method({
    hold: { completion: 'retry', when: "the caller's decision rights do not cover the decision (the humans who decide it decide the hold)" },
    summary:
      'Adopt an open decision’s current version: every agree signature on it and no open adjustment request (else CONFLICT naming the missing signers), by a caller who decides its area (an admin overrides); otherwise a hold for the humans who decide (signature act: decision.adopt). An agent never adopts its own proposal.',
    params: z.strictObject({
      decisionId: dec,
      version: decisionVersion,
      outcome: text({ min: 1, max: 5_000, description: 'The outcome statement.' }).optional(),
      reviewOn: isoDate('When to review it (revisit = supersede).').optional(),
      ...proofFields,
    }),
    result: z.strictObject({ decision: Decision, changed }),
    events: ['decision.record.adopt'],
    example: { decisionId: 'dec_0123456789abcdef', version: 1, outcome: 'Approved for Q3.', reviewOn: '2026-12-01' },
  }),
  supersede: method({
    hold: { completion: 'retry', when: "the caller's decision rights do not cover the new decision and every target" },
    summary:
      'Adopt a decision (as adopt) that supersedes 1 to 10 adopted ones, in one transaction: the targets become superseded, linked both ways. The caller decides the new decision and each target (else one hold for humans who decide them all: decision.supersede).',
    params: z.strictObject({
      decisionId: dec,
      version: decisionVersion,
      supersedes: z
        .array(decisionId('An adopted decision this one replaces.'))
        .min(1, 'must name at least one decision')
        .max(10, 'must name at most 10 decisions')
        .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a decision')
        .describe('The adopted decisions it replaces.'),
      outcome: text({ min: 1, max: 5_000, description: 'The outcome statement.' }).optional(),
      reviewOn: isoDate('When to review it.').optional(),
      ...proofFields,
    }),
    result: z.strictObject({ decision: Decision, superseded: z.array(Decision).describe('The targets, now superseded.'), changed }),
    events: ['decision.record.supersede'],
    example: { decisionId: 'dec_0123456789abcdef', version: 1, supersedes: ['dec_fedcba9876543210'] },
  }),
  reverse: method({
    hold: { completion: 'retry', when: "the caller's decision rights do not cover reversing it (a driver withdraws its own open decision without one)" },
    summary:
      'Withdraw an open decision (its driver, or a decider) or reverse an adopted one (a decider; otherwise a hold: decision.reverse). A superseded decision is closed: CONFLICT. Already withdrawn or reversed: changed:false.',
    params: z.strictObject({ decisionId: dec, reason: text({ min: 1, max: 2_000, description: 'Why.' }), ...proofFields }),
    result: z.strictObject({ decision: Decision, changed }),
    events: ['decision.record.reverse'],
    example: { decisionId: 'dec_0123456789abcdef', reason: 'Market conditions changed.' },
  }),
  listComments: method({
    summary: 'A decision’s comments and adjustment requests, oldest first, paged.',
    params: z.strictObject({
      decisionId: dec,
      kind: z.enum(['comment', 'adjustment']).describe('Only comments or only adjustment requests.').optional(),
      cursor: z.string().max(200).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ comments: z.array(Comment), nextCursor: z.string().nullable() }),
    example: { decisionId: 'dec_0123456789abcdef', limit: 50 },
  }),
};
