import { z } from 'zod';
import { method } from '../../contract.js';
import { id, text } from '../../schema.js';
import { idempotencyId, revision } from './library.js';

/**
 * The brand library's images and the amendments of its assets (images img_, renders rnd_, export kits bkx_). The
 * registry keeps these R (admin): each is `writes: true`, one design log record and no ledger event, replayed by its
 * idempotencyId. An image's first revision and every amendment is a library change: a new brand version that undo,
 * redo and restoreVersion take back.
 */

export const MAX_IMAGES = 5000;
/** Decoded bytes of an image, whatever its source. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** Inline bytes (contentBase64): what fits the API's 1 MiB bound on params once base64-encoded. */
export const MAX_INLINE_IMAGE_BYTES = 750 * 1024;
export const MAX_IMAGE_PIXELS = 50_000_000;
/** expired: a render or export past its retainUntil whose bytes the retention sweep released (never set by a caller). */
export const ASSET_STATUSES = ['active', 'archived', 'expired'] as const;
/** What amendArtifact may set. */
export const AMENDABLE_STATUSES = ['active', 'archived'] as const;
export const IMAGE_STYLES = ['pattern', 'typographic', 'photo', 'illustration'] as const;

export const AltText = text({ max: 500, description: 'What the image shows, for people who cannot see it.' });
export const Tags = z
  .array(
    z
      .string()
      .min(1, 'must be at least 1 character')
      .max(40, 'must be at most 40 characters')
      .regex(/^[\p{L}\p{N}][\p{L}\p{N} _-]*$/u, 'must be letters, digits, spaces, _ and -')
      .describe('A tag.'),
  )
  .max(20, 'must be at most 20 tags')
  .describe('Words to find it by.');
const fraction = z.number({ message: 'must be a number' }).min(0, 'must be >= 0').max(1, 'must be at most 1');
export const Crop = z
  .strictObject({ x: fraction, y: fraction, width: fraction.min(0.01, 'must be >= 0.01'), height: fraction.min(0.01, 'must be >= 0.01') })
  .describe('The part of the image shown, as fractions of its width and height from the top left; null removes it.');

export const Asset = z.strictObject({
  id: z.string().describe('img_…, rnd_… or bkx_…'),
  kind: z.enum(['image', 'render', 'export']),
  revision: z.number().int(),
  version: z.number().int().describe('The brand version of this revision.'),
  status: z
    .enum(ASSET_STATUSES)
    .describe('active; archived (kept, not served); expired: a render or export past retainUntil, its bytes released (render or export again).'),
  sha256: z.string().describe('SHA-256 of the stored bytes.'),
  sizeBytes: z.number().int(),
  contentType: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  origin: z.string().describe('An image: upload or generated; a render: its template id; an export: kit.'),
  altText: z.string().nullable(),
  tags: z.array(z.string()),
  crop: Crop.nullable(),
  retainUntil: z
    .string()
    .nullable()
    .describe('Renders and exports: their bytes are kept until then; after it the retention sweep marks them expired and releases the bytes.'),
  generated: z
    .strictObject({ style: z.enum(IMAGE_STYLES), size: z.strictObject({ width: z.number().int(), height: z.number().int() }), seed: z.number().int() })
    .nullable()
    .describe('A generated image: how (its prompt is kept with it, never shown in events).'),
  updatedAt: z.string(),
  updatedBy: z.string().describe('Who made this revision; empty for the retention sweep (expired).'),
});

const changed = z.boolean().describe('false when it changed nothing (no new version; one design record says noop).');
const written = z.strictObject({ asset: Asset, version: z.number().int().describe('The brand version it made (or the live one).'), changed });

export const brandingImages = {
  uploadImage: method({
    summary:
      'Add an image to the brand library from bytes inline (≤750 KiB), a blob you PUT to /api/v1/blobs, or a drive file you can read (≤20 MiB): PNG, JPEG, WebP, GIF or SVG; at most 50 MP; turned upright and every metadata block (EXIF, GPS, XMP) dropped; SVG is rasterised and refused with scripts, event attributes, foreignObject or external references. The same original bytes again: that image, changed:false. At most 5,000 active images.',
    params: z.strictObject({
      contentBase64: z
        .string()
        .max(Math.ceil(MAX_INLINE_IMAGE_BYTES / 3) * 4, 'must be at most 750 KiB of bytes: PUT larger images to /api/v1/blobs and give sha256')
        .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')
        .describe('The bytes inline, at most 750 KiB.')
        .optional(),
      sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits')
        .describe('Or a blob you PUT to /api/v1/blobs (at most 20 MiB).')
        .optional(),
      fileId: id('fil', 'Or an uploaded drive file you can read (at most 20 MiB).').optional(),
      altText: AltText.optional(),
      tags: Tags.optional(),
      idempotencyId,
    }),
    result: written,
    writes: true,
    example: { fileId: 'fil_0123456789abcdef', altText: 'The Acme logo on white', tags: ['logo'], idempotencyId: 'logo-upload-1' },
  }),
  amendArtifact: method({
    summary:
      'Amend a library asset (an image, a render or an export kit) as a new revision and brand version: alt text, tags, crop (images), status, retainUntil (renders, exports). baseRevision is the revision you read (else CONFLICT naming it). Archiving a logo of the live foundation, or an image a live template shows, is CONFLICT naming where it is used unless force. An expired render or export is CONFLICT (its bytes are gone: make it again). The same content: changed:false.',
    params: z.strictObject({
      artifactId: z
        .string()
        .max(64, 'must be at most 64 characters')
        .regex(/^(img|rnd|bkx)_[A-Za-z0-9]+$/, 'must be an img_…, rnd_… or bkx_… id')
        .describe('The asset.'),
      baseRevision: revision('The revision you read.'),
      altText: AltText.nullable().optional().describe('What the image shows; null removes it.'),
      tags: Tags.optional().describe('The tags, replacing the old ones.'),
      crop: Crop.nullable().optional().describe('The part shown (images); null removes it.'),
      status: z.enum(AMENDABLE_STATUSES).optional().describe('active or archived (an expired render or export cannot be amended: make it again).'),
      retainUntil: z.iso
        .datetime({ offset: true, message: 'must be an ISO 8601 date-time' })
        .nullable()
        .optional()
        .describe('Renders and exports: keep the bytes until then (null: the default 90 days from when its bytes were made).'),
      force: z.boolean().default(false).describe('Archive even when the live foundation or a live template uses it.'),
      idempotencyId,
    }),
    result: written,
    writes: true,
    example: { artifactId: 'img_0123456789abcdef', baseRevision: 1, altText: 'The Acme mark', tags: ['logo', 'mark'], idempotencyId: 'alt-mark-1' },
  }),
  regenerateImages: method({
    summary:
      'Make generated images again from their prompt and seed through the AI gateway (budgeted, audited), as one library version: each a new revision with the new bytes. Default: the active generated images, oldest first.',
    params: z.strictObject({
      imageIds: z.array(id('img', 'A generated image.')).min(1).max(20, 'must be at most 20 images').optional().describe('Only these (default all).'),
      max: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(1, 'must be >= 1')
        .max(20, 'must be at most 20')
        .default(20)
        .describe('The most images to make again in this call (default 20).'),
      idempotencyId,
    }),
    result: z.strictObject({
      version: z.number().int(),
      images: z.array(Asset),
      auditSeqs: z.array(z.number().int()).describe('The AI audit record of each generation.'),
      changed,
    }),
    writes: true,
    example: { max: 5, idempotencyId: 'regen-images-1' },
  }),
};
