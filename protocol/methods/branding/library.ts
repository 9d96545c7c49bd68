import { z } from 'zod';
import { method } from '../../contract.js';
import { id, INT32_MAX, limit, text } from '../../schema.js';

/**
 * The brand library's templates and its history. The registry keeps the library's writes R (admin): each is
 * `writes: true`, recording one design log record and no ledger event, replayed by its idempotencyId. Every change
 * (amend, clone, delete, undo, redo, restore) is a new brand version and a new template revision; nothing is
 * rewritten.
 */

export const MAX_TEMPLATES = 500;
export const FIELD_TYPES = ['text', 'image'] as const;
export const PACKAGE_FORMAT = 'wops.template/1';

const templateId = id('tpl', 'The template (tpl_…).');
export const idempotencyId = text({
  min: 1,
  max: 200,
  description: 'Your id for this change: the same id and params again answer the first result and change nothing; other params: CONFLICT.',
});
export const revision = (description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(INT32_MAX, `must be at most ${INT32_MAX}`)
    .describe(description);
const brandVersion = (description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be >= 0')
    .max(INT32_MAX, `must be at most ${INT32_MAX}`)
    .describe(description);
const dimension = z.number({ message: 'must be an integer' }).int('must be an integer').min(16, 'must be >= 16').max(4096, 'must be at most 4096');

export const TemplateSize = z.strictObject({ width: dimension, height: dimension }).describe('Pixels, 16 to 4096 each.');
export const TemplateKind = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be lowercase letters, digits and -, at most 40 (social-post, og-image, …)')
  .describe('What it is for: social-post, og-image, email-header, slide, …');
export const TemplateName = text({ min: 1, max: 120, description: 'The name people see.' });
export const TemplateBody = z
  .record(z.string(), z.unknown())
  .describe(
    'The node tree: a frame at the root; nodes {type: frame|stack|text|image|shape, style?, children?} (frame, stack), text {text}, image {src: img_… or {{field}}}, shape {shape: rect|ellipse|line}. Styles are the CSS subset the renderer draws (flexbox, position relative|absolute, …); a value may be a token ref {color.brand.primary}. Text holds {{field}} slots, nothing else of mustache. At most 500 nodes, 12 deep.',
  );
export const TemplateField = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][A-Za-z0-9_]{0,39}$/, 'must start with a lowercase letter; letters, digits, _; at most 40')
    .describe('The slot name, {{name}} in text.'),
  type: z.enum(FIELD_TYPES).describe('text, or image (an img_ id at render).'),
  maxLength: z.number().int().min(1).max(2000).optional().describe('text: the longest value, in characters (default 200).'),
});
const TemplateFields = z.array(TemplateField).max(30, 'must be at most 30 fields').describe('The typed fields a render fills.');

const StoredField = z.strictObject({ name: z.string(), type: z.enum(FIELD_TYPES), maxLength: z.number().int().nullable() });
export const TemplateSummary = z.strictObject({
  id: z.string(),
  kind: z.string(),
  name: z.string(),
  size: z.strictObject({ width: z.number().int(), height: z.number().int() }),
  fields: z.array(StoredField),
  status: z.enum(['active', 'deleted']),
  origin: z.enum(['recipe', 'custom', 'cloned']),
  revision: z.number().int(),
  version: z.number().int().describe('The brand version of this revision.'),
  sha256: z.string().describe('SHA-256 of the canonical JSON of {kind, name, size, body, fields}.'),
  updatedAt: z.string(),
  updatedBy: z.string(),
});
export const Template = z.strictObject({ ...TemplateSummary.shape, body: z.record(z.string(), z.unknown()) });

export const TemplatePackage = z.strictObject({
  format: z.literal(PACKAGE_FORMAT).describe(`${PACKAGE_FORMAT}`),
  template: z
    .strictObject({ kind: TemplateKind, name: TemplateName, size: TemplateSize, body: TemplateBody, fields: TemplateFields })
    .describe('The template as amendTemplate takes it.'),
  tokens: z
    .record(z.string(), z.strictObject({ $type: z.string(), $value: z.unknown() }))
    .default({})
    .describe('The tokens its body refers to, by path, with their resolved values.'),
  images: z
    .array(
      z.union([
        z.string().max(64),
        z.strictObject({
          imageId: z.string().max(64),
          sha256: z.string().max(64).nullable().describe('Its bytes; null when the library holds no such image.'),
        }),
      ]),
    )
    .max(500)
    .default([])
    .describe('The images its body shows: {imageId, sha256} (an older package lists bare img_ ids).'),
  source: z
    .strictObject({ org: z.string(), templateId: z.string(), revision: z.number().int().max(INT32_MAX), foundationVersion: z.number().int().max(INT32_MAX) })
    .optional()
    .describe('Where it was exported from.'),
});

const changed = z.boolean().describe('false when it changed nothing (no new version; one design record says noop).');
const written = z.strictObject({ template: Template, version: z.number().int().describe('The brand version it made (or the live one).'), changed });
const HistoryItem = z.strictObject({
  itemId: z.string(),
  revision: z.number().int(),
  status: z.enum(['active', 'deleted', 'archived']).describe('A template: active or deleted; an asset: active or archived.'),
});
const historyResult = z.strictObject({
  version: z.number().int().describe('The brand version it made (or the live one).'),
  fromVersion: z.number().int(),
  items: z.array(HistoryItem).describe('Each item it changed, at its new revision.'),
  changed,
});

export const brandingLibrary = {
  listTemplates: method({
    summary: 'The library’s templates (no bodies: exportTemplate has them), by id; deleted ones with includeDeleted.',
    params: z.strictObject({
      kind: TemplateKind.optional(),
      query: z.string().max(120).optional().describe('Words in the name.'),
      includeDeleted: z.boolean().default(false).describe('Deleted templates too (default false).'),
      cursor: z.string().max(64).default('').describe('The nextCursor of the previous page; empty: from the start.'),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ templates: z.array(TemplateSummary), nextCursor: z.string().nullable() }),
    example: { kind: 'social-post' },
  }),
  exportTemplate: method({
    summary:
      'A template (its live or a past revision) as a package: the template, the tokens its body refers to with their values, the images it shows. cloneTemplate takes it, here or in another org.',
    params: z.strictObject({ templateId, revision: revision('A past revision (default the current one).').optional() }),
    result: z.strictObject({ package: TemplatePackage, template: Template }),
    example: { templateId: 'tpl_0123456789abcdef' },
  }),
  amendTemplate: method({
    summary:
      'Change a template’s body, fields, size or name as a new revision and brand version. Token refs must name tokens of the live foundation; {{slots}} must be declared fields. baseRevision is the revision you read (else CONFLICT naming it). The same content: changed:false.',
    params: z.strictObject({
      templateId,
      baseRevision: revision('The revision you read.'),
      body: TemplateBody.optional(),
      fields: TemplateFields.optional(),
      size: TemplateSize.optional(),
      name: TemplateName.optional(),
      idempotencyId,
    }),
    result: written,
    writes: true,
    example: { templateId: 'tpl_0123456789abcdef', baseRevision: 2, size: { width: 1200, height: 630 }, idempotencyId: 'resize-og-1' },
  }),
  cloneTemplate: method({
    summary:
      'A new template (origin cloned) from one of the library’s or from a package (exportTemplate’s). Token refs the live foundation lacks become the package’s literal values. At most 500 active templates.',
    params: z.strictObject({
      templateId: templateId.optional().describe('A template of this library to copy.'),
      package: TemplatePackage.optional().describe('Or a package to import.'),
      name: TemplateName.optional().describe('The copy’s name (default the source’s).'),
      idempotencyId,
    }),
    result: written,
    writes: true,
    example: { templateId: 'tpl_0123456789abcdef', name: 'Launch post (dark)', idempotencyId: 'clone-launch-1' },
  }),
  deleteTemplate: method({
    summary: 'Delete a template as a new revision (its revisions are kept; undo or restoreVersion brings it back). Already deleted: changed:false.',
    params: z.strictObject({ templateId, idempotencyId }),
    result: written,
    writes: true,
    example: { templateId: 'tpl_0123456789abcdef', idempotencyId: 'delete-old-1' },
  }),
  undo: method({
    summary:
      'Revert one library version as a new version. CONFLICT if a later change touched its items (undo that first) or it is undone already; BAD_REQUEST for a foundation version (restoreFoundation).',
    params: z.strictObject({ version: brandVersion('The library version to undo (listVersions).').min(1, 'must be >= 1'), idempotencyId }),
    result: historyResult,
    writes: true,
    example: { version: 7, idempotencyId: 'undo-7' },
  }),
  redo: method({
    summary: 'Revert an undo (a version.undo version) as a new version: the undone change again. Same rules as undo.',
    params: z.strictObject({ version: brandVersion('The undo’s version.').min(1, 'must be >= 1'), idempotencyId }),
    result: historyResult,
    writes: true,
    example: { version: 8, idempotencyId: 'redo-8' },
  }),
  restoreVersion: method({
    summary:
      'The library (or the items named) as it was at a brand version, as a new version: templates made since are deleted and images archived, others go back to their revision of then. At most 500 active templates and 5,000 active images. Nothing differs: changed:false.',
    params: z.strictObject({
      version: brandVersion('The brand version to go back to (0: the empty library).'),
      itemIds: z
        .array(
          z
            .string()
            .max(64, 'must be at most 64 characters')
            .regex(/^(tpl|img|rnd|bkx)_[A-Za-z0-9]+$/, 'must be a library id (tpl_…, img_…, rnd_…, bkx_…)'),
        )
        .min(1)
        .max(500)
        .optional()
        .describe('Only these items (default all templates and images; renders and exports only when named).'),
      idempotencyId,
    }),
    result: historyResult,
    writes: true,
    example: { version: 5, itemIds: ['tpl_0123456789abcdef'], idempotencyId: 'restore-5' },
  }),
};
