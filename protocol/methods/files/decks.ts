import { z } from 'zod';
import { method } from '../../contract.js';
import { id, text } from '../../schema.js';

/**
 * Native decks (docs/families/files.md): an ordered list of slides (`sld_`, at most 500), each a layout, a title, a
 * body in GitHub-flavoured Markdown, speaker notes and positioned elements (`el_`: text, image, shape) on a 720×405
 * point canvas (16:9). Writes name slides, never list arithmetic on someone else's view: insert, update, delete and
 * move against the revision you read (baseRevision): ops on slides changed since then are CONFLICT naming them, the
 * rest merge onto the head. Revisions are immutable.
 *
 * contentSha256 is the SHA-256 (hex) of the canonical JSON (RFC 8785: keys sorted, no whitespace) of
 * `{slides:[…]}` as files.deckRead returns `slides` for the whole deck (no slideIds), in deck order.
 */

export const MAX_DECK_OPS = 500;
export const MAX_SLIDES = 500;
export const MAX_ELEMENTS = 200;
export const SLIDE_LAYOUTS = ['title', 'titleAndBody', 'titleOnly', 'sectionHeader', 'twoColumns', 'mainPoint', 'blank'] as const;
export const ELEMENT_TYPES = ['text', 'image', 'shape'] as const;

const fileId = id('fil', 'The deck (a file of kind deck).');
const slideId = (description: string) => id('sld', description);
const revision = (description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(2_000_000_000, 'must be at most 2000000000')
    .describe(description);
const position = (description: string) =>
  z.number().int('must be an integer').min(0, 'must be >= 0').max(MAX_SLIDES, `must be at most ${MAX_SLIDES}`).describe(description);
const coord = (description: string) => z.number().min(-100_000, 'must be >= -100000').max(100_000, 'must be at most 100000').describe(description);
const size = (description: string) => z.number().min(0, 'must be >= 0').max(100_000, 'must be at most 100000').describe(description);
const sha256 = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'must be a SHA-256: 64 lowercase hex digits')
  .describe('An image: the blob’s SHA-256 (PUT /api/v1/blobs first; a new one must be your own upload).');

const box = {
  id: id('el', 'Kept when given and free on the slide; else given.').optional(),
  x: coord('Left edge, points from the slide’s left.'),
  y: coord('Top edge, points from the slide’s top.'),
  w: size('Width in points.'),
  h: size('Height in points.'),
};
const elementText = text({ max: 100_000, description: 'The text it shows (plain).' });

export const ElementInput = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text').describe('A text box.'), ...box, text: elementText.optional() }),
  z.strictObject({ type: z.literal('image').describe('An image: a blob of the org.'), ...box, blobSha256: sha256 }),
  z.strictObject({ type: z.literal('shape').describe('A rectangle, with optional text.'), ...box, text: elementText.optional() }),
]);

const fieldShapes = {
  layout: z.enum(SLIDE_LAYOUTS).describe('The slide’s layout (default titleAndBody; the first slide of files.create’s content: title).'),
  title: text({ max: 1_000, description: 'The title (plain text).' }),
  body: text({ max: 1_000_000, description: 'The body as GitHub-flavoured Markdown.' }),
  notes: text({ max: 1_000_000, description: 'Speaker notes (plain text).' }),
  elements: z
    .array(ElementInput)
    .max(MAX_ELEMENTS, `must hold at most ${MAX_ELEMENTS} elements`)
    .describe('Positioned elements, back to front (replaced whole).'),
};

/** A slide as given (insert, files.create content): every field optional. */
export const SlideInput = z.strictObject({
  layout: fieldShapes.layout.optional(),
  title: fieldShapes.title.optional(),
  body: fieldShapes.body.optional(),
  notes: fieldShapes.notes.optional(),
  elements: fieldShapes.elements.optional(),
});
export type SlideInputValue = z.infer<typeof SlideInput>;

/** files.create's content for a deck. */
export const DeckContent = z.strictObject({
  slides: z.array(SlideInput).min(1, 'must hold at least 1 slide').max(MAX_SLIDES, `must hold at most ${MAX_SLIDES} slides`).describe('The slides in order.'),
});

const insertOp = z.strictObject({
  op: z.literal('insert').describe('Insert a new slide (a new sld_ id).'),
  position: position('Its place, 0 first, in the deck as the earlier ops left it (default last).').optional(),
  slide: SlideInput,
});
const updateOp = z.strictObject({
  op: z.literal('update').describe('Set fields of a slide; fields left out stay as they are.'),
  slideId: slideId('The slide.'),
  fields: SlideInput.refine((f) => Object.values(f).some((v) => v !== undefined), 'must set at least one field'),
});
const deleteOp = z.strictObject({
  op: z.literal('delete').describe('Delete a slide (the last slide cannot go).'),
  slideId: slideId('The slide.'),
});
const moveOp = z.strictObject({
  op: z.literal('move').describe('Move a slide to a position.'),
  slideId: slideId('The slide.'),
  position: position('Its new place, 0 first, in the deck as the earlier ops left it.'),
});

export const DeckOp = z.discriminatedUnion('op', [insertOp, updateOp, deleteOp, moveOp]);
export type DeckOpInput = z.infer<typeof DeckOp>;

const Element = z.strictObject({
  id: z.string().describe('el_…'),
  type: z.enum(ELEMENT_TYPES),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  text: z.string().optional(),
  blobSha256: z.string().optional(),
});

export const Slide = z.strictObject({
  id: z.string().describe('sld_…'),
  layout: z.enum(SLIDE_LAYOUTS),
  title: z.string(),
  body: z.string().describe('Markdown.'),
  notes: z.string(),
  elements: z.array(Element),
});

export const decks = {
  deckRead: method({
    summary:
      'Read a deck (head or a revision): every slide id in order, and the slides (all, or those named) with layout, title, Markdown body, notes and elements. sha256 of canonical JSON of a whole read’s {slides} = contentSha256.',
    params: z.strictObject({
      fileId,
      slideIds: z
        .array(slideId('A slide.'))
        .min(1, 'must name at least 1 slide')
        .max(MAX_SLIDES, `must name at most ${MAX_SLIDES} slides`)
        .describe('Only these slides (in deck order); default all.')
        .optional(),
      revision: revision('A past revision (default the head).').optional(),
    }),
    result: z.strictObject({
      fileId: z.string(),
      revision: z.number().int().describe('The revision read.'),
      head: z.number().int().describe('The head revision: pass it as baseRevision to write.'),
      contentSha256: z.string().describe('Of the revision read (see the family summary).'),
      slideIds: z.array(z.string()).describe('Every slide of the revision, in order (position = index).'),
      slides: z.array(Slide).describe('The slides read, in deck order.'),
    }),
    example: { fileId: 'fil_0123456789abcdef' },
  }),
  deckWriteSlides: method({
    summary:
      'Edit a deck by slide ids against baseRevision (≤500 ops: insert, update, delete, move; at most 500 slides). Slides changed since the base: CONFLICT naming them; others merge.',
    params: z.strictObject({
      fileId,
      baseRevision: revision('The revision your ops were written against (deckRead head).'),
      ops: z
        .array(DeckOp)
        .min(1, 'must hold at least 1 op')
        .max(MAX_DECK_OPS, `at most ${MAX_DECK_OPS} ops per call: split the edit into several calls`)
        .describe('Applied in order; all or none.'),
    }),
    result: z.strictObject({
      outcome: z.enum(['revised', 'unchanged']),
      revision: z.number().int().describe('The head after the call.'),
      contentSha256: z.string().describe('The head’s (see the family summary).'),
      changedSlides: z.array(z.string()).describe('Slides added, changed, moved or removed.'),
      results: z.array(z.strictObject({ slideId: z.string() })).describe('Per op: the slide it acted on (an insert’s new id).'),
      changed: z.boolean().describe('false when nothing changed (the event says noop).'),
    }),
    events: ['files.deck.revise'],
    example: { fileId: 'fil_0123456789abcdef', baseRevision: 3, ops: [{ op: 'update', slideId: 'sld_0123456789abcdef', fields: { title: 'Q4 plan' } }] },
  }),
};
