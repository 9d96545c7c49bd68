import { z } from 'zod';
import { method } from '../../contract.js';
import { INT32_MAX, text } from '../../schema.js';
import { Asset, IMAGE_STYLES } from './images.js';

/**
 * Branding's AI methods, through the AI gateway (budgeted and audited in ai_audit, run before the call's
 * transaction): an image generated into the library, and a text rewritten in the brand's voice. Offline (no AI_*
 * model) both are deterministic: a seeded pattern or typographic card in the brand's colours, and a rule-based
 * rewrite. Events hold ids, statuses, counts, hashes and the audit seq; never a prompt or a text.
 */

/** A seed is kept in an integer column. */
export const MAX_SEED = INT32_MAX;
const side = z.number({ message: 'must be an integer' }).int('must be an integer').min(64, 'must be >= 64').max(2048, 'must be at most 2048');

export const brandingAi = {
  generateImage: method({
    summary:
      "Generate an image into the brand library: style pattern, typographic, photo or illustration, at a size. Offline, a seeded pattern (or a typographic card of the prompt's words) in the brand's colours: the same seed, the same bytes; photo needs an image model (AI_IMAGE_MODEL), else BAD_REQUEST. The same prompt, style, size and seed again: that image, changed:false. A spent AI budget: RATE_LIMITED, no event.",
    params: z.strictObject({
      prompt: text({ min: 1, max: 1000, description: 'What to make (kept with the image; never in events).' }),
      style: z.enum(IMAGE_STYLES).describe('pattern, typographic, photo (needs an image model) or illustration.'),
      size: z.strictObject({ width: side, height: side }).describe('Pixels, 64 to 2048 each.'),
      seed: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(MAX_SEED, `must be at most ${MAX_SEED}`)
        .optional()
        .describe('The same seed makes the same image (default: one that follows from the prompt, style and size).'),
      altText: text({ max: 500, description: 'What the image shows (default the prompt, cut to 500 characters).' }).optional(),
    }),
    result: z.strictObject({
      image: Asset,
      status: z.enum(['generated', 'existing']).describe('generated: a new image; existing: the same inputs made it before (changed:false).'),
      provider: z.string().describe('local or openai.'),
      auditSeq: z.number().int().describe('The AI audit record of the generation.'),
      version: z.number().int().describe('The brand version that added it (or the live one).'),
      changed: z.boolean(),
    }),
    events: ['branding.image.generate'],
    example: { prompt: 'Launch week', style: 'pattern', size: { width: 1080, height: 1080 }, seed: 42 },
  }),
  rewriteInVoice: method({
    summary:
      "Rewrite a text in the brand's voice: every avoided term of a voice rule becomes its preferred wording, each change citing the rule (vr_…). With a model, its draft is refused (and audited) if it alters a figure, date, URL, mention or id, or keeps an avoided term: the rule-based rewrite answers. A spent AI budget: RATE_LIMITED, no event.",
    params: z.strictObject({
      text: text({ min: 1, max: 8000, description: 'The text to rewrite.' }),
      channel: z
        .string()
        .regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be lowercase letters, digits and -, at most 40 (email, social, web, …)')
        .describe('Where it will be used: email, social, web, …; the voice examples of that channel guide a model.'),
      maxChars: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(20, 'must be >= 20')
        .max(8000, 'must be at most 8000')
        .optional()
        .describe('The longest answer, in characters.'),
    }),
    result: z.strictObject({
      text: z.string(),
      changes: z.array(z.strictObject({ ruleId: z.string().describe('vr_…'), before: z.string(), after: z.string() })),
      source: z.enum(['model', 'rules']).describe("model: the model's draft passed the checks; rules: the rule-based rewrite."),
      refusal: z.string().nullable().describe("Why a model's draft was refused (then the rule-based rewrite answers)."),
      auditSeq: z.number().int(),
      version: z.number().int().describe('The foundation version whose voice was used.'),
    }),
    events: ['branding.voice.rewrite'],
    example: { text: 'We leverage synergy to ship your $1,200 order by 2026-12-01.', channel: 'email' },
  }),
};

export { Asset };
