import { z } from 'zod';
import { method } from '../../contract.js';
import { id, INT32_MAX } from '../../schema.js';

/**
 * The brand's outputs (M): a template rendered with values (PNG, SVG or PDF), and the export kit (a zip of tokens,
 * platform files, logos, images, templates, fonts and guidelines). Each is an asset (rnd_, bkx_) whose bytes the
 * blob store keeps 90 days (then the branding.expireOutputs job marks it expired and releases them); the answer's url
 * is a signed download path bound to the asset and its requester.
 */

export const RENDER_FORMATS = ['png', 'svg', 'pdf'] as const;
export const KIT_FORMATS = ['dtcg', 'css', 'js', 'ios', 'android'] as const;
export const KIT_INCLUDES = ['tokens', 'logos', 'images', 'templates', 'fonts', 'guidelines'] as const;
/** How long a render's or an export's bytes are kept (retain_until), and how long its URL serves. */
export const OUTPUT_RETAIN_DAYS = 90;
export const OUTPUT_URL_TTL_MS = 15 * 60 * 1000;

const url = z.string().describe('A signed download path on this server, valid 15 minutes, for the caller only.');
const expiresAt = z.string().describe('When url stops serving (ISO 8601).');

export const brandingOutput = {
  renderTemplate: method({
    summary:
      'Render a template (its current or a past revision) with values into PNG, SVG or PDF, on the live foundation’s tokens. Values fill the template’s fields: text at most its maxLength, an image field an img_ of the library. The same inputs again (even with a new key): the same render, changed:false; if that render was archived or its 90 days passed (expired), it is renewed: a new revision of the same renderId with fresh bytes and URL, changed:true. Bytes are kept 90 days, then released.',
    params: z.strictObject({
      templateId: id('tpl', 'The template (tpl_…).'),
      revision: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(1, 'must be >= 1')
        .max(INT32_MAX, `must be at most ${INT32_MAX}`)
        .optional()
        .describe('A past revision (default the current one).'),
      values: z
        .record(z.string().max(40, 'must be at most 40 characters'), z.string().max(2000, 'must be at most 2000 characters'))
        .default({})
        .describe('Field name to value: text for a text field, an img_ id for an image field. Fields left out render empty (text) or are refused (image).'),
      format: z.enum(RENDER_FORMATS).default('png').describe('png (default), svg or pdf.'),
      scale: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(1, 'must be >= 1')
        .max(4, 'must be at most 4')
        .default(1)
        .describe('Pixel density, 1 to 4 (default 1): a 1080×1080 template at 2 is a 2160×2160 PNG.'),
      saveToFolderId: id('fil', 'Also file the render as a drive file in this folder (one you may edit).').optional(),
    }),
    result: z.strictObject({
      renderId: z.string().describe('rnd_…'),
      templateId: z.string(),
      revision: z.number().int().describe('The template revision rendered.'),
      version: z.number().int().describe('The brand version it was rendered at.'),
      format: z.enum(RENDER_FORMATS),
      contentType: z.string(),
      sha256: z.string().describe('SHA-256 of the bytes.'),
      sizeBytes: z.number().int(),
      width: z.number().int().describe('Pixels (size × scale); a PDF page in points.'),
      height: z.number().int(),
      missingImages: z.array(z.string()).describe('img_ ids the body shows that the library lacks (drawn as empty boxes).'),
      url,
      expiresAt,
      retainUntil: z.string().describe('When the bytes may be collected (90 days); after it the render reads expired and the URL stops serving.'),
      fileId: z.string().nullable().describe('The drive file made (saveToFolderId).'),
      changed: z.boolean().describe('false when the same inputs were rendered before and that render still serves: that render.'),
    }),
    events: ['branding.template.render'],
    example: { templateId: 'tpl_0123456789abcdef', values: { headline: 'Spring sale' }, format: 'png', scale: 1 },
  }),
  exportKit: method({
    summary:
      'The brand kit as one zip: DTCG tokens and Style Dictionary outputs (css, js, ios, android), logos, images, templates (as packages), the bundled fonts (OFL) and guidelines.pdf. Every call is a new export (an egress, ledgered with its sha256).',
    params: z.strictObject({
      formats: z
        .array(z.enum(KIT_FORMATS))
        .min(1, 'must name at least one format')
        .max(KIT_FORMATS.length)
        .default([...KIT_FORMATS])
        .describe('Token outputs: dtcg (the tokens as stored), css, js, ios, android (default all).'),
      include: z
        .array(z.enum(KIT_INCLUDES))
        .min(1, 'must name at least one part')
        .max(KIT_INCLUDES.length)
        .default([...KIT_INCLUDES])
        .describe('Parts: tokens, logos, images, templates, fonts, guidelines (default all).'),
    }),
    result: z.strictObject({
      exportId: z.string().describe('bkx_…'),
      version: z.number().int().describe('The brand version exported.'),
      bytes: z.number().int().describe('The zip’s size.'),
      sha256: z.string(),
      entries: z.array(z.strictObject({ path: z.string(), bytes: z.number().int() })).describe('Every file of the zip, in order.'),
      url,
      expiresAt,
      retainUntil: z.string(),
    }),
    events: ['branding.kit.export'],
    example: { formats: ['css', 'dtcg'], include: ['tokens', 'logos', 'guidelines'] },
  }),
};
