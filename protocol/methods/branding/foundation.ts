import { z } from 'zod';
import { method } from '../../contract.js';
import { id, INT32_MAX, limit, proofFields, text } from '../../schema.js';

/**
 * The brand foundation (docs/families/branding.md): a versioned document of name, logos by role, DTCG design tokens,
 * usage pairs checked for WCAG AA contrast, and a voice. Agents propose changes; humans save them (an agent's save
 * or restore holds for a human). Versions are immutable: a save or restore adds one.
 */

export const LOGO_ROLES = ['primary', 'mark', 'wordmark', 'monochrome', 'reversed', 'favicon'] as const;
export const USES = ['text', 'largeText', 'ui'] as const;
export const MAX_TOKENS_BYTES = 64 * 1024;
export const MAX_OPEN_PROPOSALS = 100;
export const PROPOSAL_DAYS = 30;

const imageId = id('img', 'An image of the brand library (img_…); null removes the role.');
const colorRef = z.string().max(200, 'must be at most 200 characters').describe('A colour token by reference ({color.text}) or a hex colour (#1a1a1a).');

export const Logos = z
  .strictObject(
    Object.fromEntries(LOGO_ROLES.map((r) => [r, imageId.nullable().optional()])) as Record<
      (typeof LOGO_ROLES)[number],
      z.ZodOptional<z.ZodNullable<typeof imageId>>
    >,
  )
  .describe(`Logo images by role: ${LOGO_ROLES.join(', ')}.`);

export const UsagePair = z.strictObject({
  fg: colorRef,
  bg: colorRef,
  use: z.enum(USES).describe('text: body text (WCAG AA 4.5:1); largeText: 18pt, or 14pt bold (3:1); ui: icons and controls (3:1).'),
});

export const VoiceRule = z.strictObject({
  id: id('vr', 'The rule (vr_…); omitted for a new rule, whose id follows from its text.').optional(),
  text: text({ min: 1, max: 300, description: 'The rule, as a writer reads it.' }),
  avoid: z
    .array(text({ min: 1, max: 60, description: 'A word or phrase the voice never uses.' }))
    .max(20, 'must be at most 20 terms')
    .default([]),
  prefer: text({ max: 60, description: 'The wording to use instead of an avoided term (rewriteInVoice); omitted: the term is dropped.' }).optional(),
});

export const Voice = z.strictObject({
  tone: text({ max: 500, description: 'How the brand sounds, in a sentence or two.' }).default(''),
  rules: z.array(VoiceRule).max(50, 'must be at most 50 rules').default([]),
  examples: z
    .array(
      z.strictObject({
        text: text({ min: 1, max: 1000, description: 'A sample in the voice.' }),
        channel: text({ max: 40, description: 'Where it is used (email, social, …).' }).default(''),
      }),
    )
    .max(20, 'must be at most 20 examples')
    .default([]),
});

/** The foundation document as stored and as a merge patch produces it. */
export const FoundationDoc = z.strictObject({
  name: text({ max: 200, description: 'The brand name.' }).default(''),
  logos: Logos.default({}),
  tokens: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      'Design tokens in the DTCG 2025.10 format: groups and tokens, `$value` on every token, `$type` on the token or a group above it (color, dimension, fontFamily, fontWeight, duration, cubicBezier, number, strokeStyle, border, transition, shadow, gradient, typography), aliases `{group.token}` that resolve, no cycles; at most 64 KiB.',
    ),
  usage: z
    .array(UsagePair)
    .max(50, 'must be at most 50 pairs')
    .default([])
    .describe('Foreground/background pairs the brand uses; each must meet WCAG AA for its use.'),
  voice: Voice.default({ tone: '', rules: [], examples: [] }),
});

const StoredRule = z.strictObject({ id: z.string(), text: z.string(), avoid: z.array(z.string()), prefer: z.string().optional() });
export const Foundation = z.strictObject({
  name: z.string(),
  logos: z.record(z.string(), z.string()),
  tokens: z.record(z.string(), z.unknown()),
  usage: z.array(z.strictObject({ fg: z.string(), bg: z.string(), use: z.enum(USES) })),
  voice: z.strictObject({ tone: z.string(), rules: z.array(StoredRule), examples: z.array(z.strictObject({ text: z.string(), channel: z.string() })) }),
});

export const Contrast = z.strictObject({
  index: z.number().int(),
  fg: z.string().describe('As given.'),
  bg: z.string(),
  use: z.enum(USES),
  fgHex: z.string().describe('The resolved colour.'),
  bgHex: z.string(),
  ratio: z.number().describe('WCAG 2 contrast ratio, rounded down to 2 decimals.'),
  minimum: z.number().describe('AA for its use: 4.5 or 3.'),
  passes: z.boolean(),
});

export const PROPOSAL_STATUSES = ['open', 'applied', 'declined', 'expired'] as const;
export const Proposal = z.strictObject({
  id: z.string().describe('bpr_…'),
  baseVersion: z.number().int(),
  patch: z.record(z.string(), z.unknown()).describe('The RFC 7396 merge patch.'),
  paths: z.array(z.string()).describe('What it changes: token paths, logos.<role>, name, usage, voice.<field>.'),
  rationale: z.string(),
  status: z.enum(PROPOSAL_STATUSES),
  createdBy: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedBy: z.string().nullable(),
  appliedVersion: z.number().int().nullable(),
});

const version = (description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be >= 0')
    .max(INT32_MAX, `must be at most ${INT32_MAX}`)
    .describe(description);
const baseVersion = version('The foundation version you read (getFoundation); another: CONFLICT naming the current one.');
const patch = z
  .record(z.string(), z.unknown())
  .describe('An RFC 7396 JSON merge patch over the foundation {name, logos, tokens, usage, voice}: objects merge, null removes, arrays replace.');
const changed = z.boolean().describe('false when it changed nothing (its event says noop).');

const FoundationView = {
  version: z.number().int().describe('The foundation version (0: none saved yet).'),
  foundation: Foundation,
  sha256: z.string().describe('SHA-256 of the canonical JSON of the foundation.'),
  contrasts: z.array(Contrast),
};

export const brandingFoundation = {
  getFoundation: method({
    summary:
      'The brand foundation (the live one, or as at `version`): name, logos by role, DTCG tokens, usage pairs with their WCAG contrast, voice; and the open proposals to change it.',
    params: z.strictObject({ version: version('A past version (default the live one).').optional() }),
    result: z.strictObject({
      ...FoundationView,
      latestVersion: z.number().int().describe('The last version of the brand history (foundation or library).'),
      savedAt: z.string().nullable(),
      savedBy: z.string().nullable(),
      proposals: z.array(Proposal).describe('Open proposals, oldest first.'),
    }),
    example: {},
  }),
  getVoice: method({
    summary: 'The brand voice: its tone, rules (vr_…) and examples as JSON, or as one prompt block to give a writer or a model.',
    params: z.strictObject({ format: z.enum(['json', 'prompt']).default('json').describe('json (default) or prompt.') }),
    result: z.strictObject({
      version: z.number().int(),
      voice: Foundation.shape.voice.nullable().describe('format json.'),
      prompt: z.string().nullable().describe('format prompt.'),
    }),
    example: { format: 'prompt' },
  }),
  listVersions: method({
    summary:
      "The brand history, newest first: each version's kind, actor, time and audit reference (the ledger seq of a foundation change, the design log seq of a library change).",
    params: z.strictObject({
      scope: z.enum(['all', 'foundation', 'library']).default('all').describe('all (default), foundation, or library (templates and images).'),
      itemId: z
        .string()
        .max(64)
        .regex(/^(tpl|img|rnd|bkx)_[A-Za-z0-9]+$/, 'must be a library id (tpl_…, img_…, rnd_…, bkx_…)')
        .describe('Only versions touching this library item.')
        .optional(),
      cursor: z
        .number()
        .int()
        .min(0)
        .max(INT32_MAX, `must be at most ${INT32_MAX}`)
        .default(0)
        .describe('Versions below this one (the nextCursor of the previous page); 0: from the newest.'),
      limit: limit(500, 50),
    }),
    result: z.strictObject({
      versions: z.array(
        z.strictObject({
          version: z.number().int(),
          kind: z.string().describe('foundation.save, foundation.restore, tokens.save, or a library change.'),
          scope: z.enum(['foundation', 'library']),
          actor: z.string(),
          at: z.string(),
          itemIds: z.array(z.string()),
          auditRef: z.strictObject({ ledgerSeq: z.number().int().nullable(), designSeq: z.number().int().nullable() }),
          fromVersion: z.number().int().nullable().describe('A restore: the version restored.'),
          proposalId: z.string().nullable(),
          approvalId: z.string().nullable(),
          undoneBy: z.number().int().nullable(),
        }),
      ),
      nextCursor: z.number().int().nullable(),
    }),
    example: { scope: 'foundation' },
  }),
  saveFoundation: method({
    hold: { completion: 'retry', when: 'an agent saves a change' },
    summary:
      'Save the foundation as a new version: a merge patch, or an open proposal applied (or declined). Tokens must be valid DTCG with aliases that resolve and no cycles; usage pairs must meet WCAG AA. baseVersion must be the current version (else CONFLICT naming it). A patch that changes nothing: changed:false.',
    params: z.strictObject({
      baseVersion,
      patch: patch.optional(),
      proposalId: id('bpr', 'An open proposal to apply or decline, instead of a patch.').optional(),
      decision: z.enum(['apply', 'decline']).default('apply').describe('With proposalId: apply (default) or decline.'),
      ...proofFields,
    }),
    result: z.strictObject({ ...FoundationView, changed, paths: z.array(z.string()), proposal: Proposal.nullable() }),
    events: ['branding.foundation.save', 'branding.proposal.decline'],
    example: { baseVersion: 3, patch: { tokens: { color: { brand: { primary: { $value: '#0b5cad' } } } } } },
  }),
  restoreFoundation: method({
    hold: { completion: 'retry', when: 'an agent restores' },
    summary: 'Save a past foundation version again as a new version (history is kept). baseVersion must be the current version (else CONFLICT naming it).',
    params: z.strictObject({ version: version('The version to restore.').min(1, 'must be >= 1'), baseVersion, ...proofFields }),
    result: z.strictObject({ ...FoundationView, changed, fromVersion: z.number().int() }),
    events: ['branding.foundation.restore'],
    example: { version: 2, baseVersion: 5 },
  }),
  proposeChange: method({
    summary:
      'Propose a change to the foundation (a merge patch on the current version, with why) for a human to apply or decline with saveFoundation; checked as a save would be. The same open patch again: that proposal, changed:false. Open 30 days; at most 100 open.',
    params: z.strictObject({ baseVersion, patch, rationale: text({ min: 1, max: 2000, description: 'Why, for the human who decides.' }) }),
    result: z.strictObject({ proposal: Proposal, contrasts: z.array(Contrast), changed }),
    events: ['branding.proposal.create'],
    example: { baseVersion: 3, patch: { voice: { tone: 'Plain and warm.' } }, rationale: 'Customers find the current tone stiff.' },
  }),
};
