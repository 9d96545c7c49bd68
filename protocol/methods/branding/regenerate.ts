import { z } from 'zod';
import { method } from '../../contract.js';
import { id, text } from '../../schema.js';
import { Template } from './library.js';

/**
 * Starter templates and regeneration (R methods that write, admin): six recipes build starters from the live
 * foundation (logo aspect, type scale from tokens, copy in the voice); regeneration reruns a starter's recipe as a
 * new revision. Each call is one brand version (or none) and one design record.
 */

export const RECIPES = ['social-square', 'social-story', 'banner', 'slide', 'email-header', 'business-card'] as const;

const idempotencyId = text({
  min: 1,
  max: 200,
  description: 'Your id for this change: the same id and params again answer the first result and change nothing; other params: CONFLICT.',
});
const force = z.boolean().default(false).describe('Rerun a starter amended by hand too (its amendments are replaced; undo brings them back).');
const version = z.number().int().describe('The brand version it made (or the live one when nothing changed).');
const changed = z.boolean().describe('false when it changed nothing (no new version; one design record says noop).');

export const StarterOutcome = z.strictObject({
  templateId: z.string(),
  recipe: z.enum(RECIPES),
  outcome: z
    .enum(['added', 'regenerated', 'unchanged', 'skipped'])
    .describe('added (missing), regenerated (a new revision), unchanged (the recipe makes what it holds), skipped (amended by hand, without force).'),
  revision: z.number().int(),
});

export const brandingRegenerate = {
  regenerateTemplate: method({
    summary:
      'Rerun a starter template’s recipe on the live foundation as a new revision. One amended by hand since its recipe last made it: CONFLICT unless force. A cloned template has no recipe: CONFLICT.',
    params: z.strictObject({ templateId: id('tpl', 'The starter template (tpl_…).'), force, idempotencyId }),
    result: z.strictObject({ template: Template, recipe: z.enum(RECIPES), version, changed }),
    writes: true,
    example: { templateId: 'tpl_0123456789abcdef', idempotencyId: 'regen-1' },
  }),
  regenerateTemplates: method({
    summary: `Add the missing starters (recipes ${RECIPES.join(', ')}) and rerun the others on the live foundation, as one brand version. Starters amended by hand are skipped unless force; a deleted starter comes back.`,
    params: z.strictObject({ force, idempotencyId }),
    result: z.strictObject({ version, changed, templates: z.array(StarterOutcome) }),
    writes: true,
    example: { idempotencyId: 'starters-1' },
  }),
  regenerate: method({
    summary:
      'Regenerate the kit as one brand version: the starters (as regenerateTemplates, without force), the generated images (when images are deployed), and a thumbnail render of each active template.',
    params: z.strictObject({ idempotencyId }),
    result: z.strictObject({
      version,
      changed,
      templates: z.array(StarterOutcome),
      images: z.strictObject({ regenerated: z.number().int(), available: z.boolean().describe('false: this server regenerates no images yet.') }),
      thumbnails: z.array(
        z.strictObject({ templateId: z.string(), renderId: z.string(), sha256: z.string(), width: z.number().int(), height: z.number().int() }),
      ),
    }),
    writes: true,
    example: { idempotencyId: 'regen-kit-1' },
  }),
};
