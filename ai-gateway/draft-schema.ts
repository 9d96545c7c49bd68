import { z } from 'zod';

/*
 * The shape a model's final message must have, for an answerer that sets no schema of its own (books.ask
 * keeps its published one, protocol/methods/books/ask.ts, which has no quotes). Grounding (grounding.ts)
 * then checks what the shape cannot: citations, figures, quotes and numbers.
 */

export const CitationSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('record'), id: z.string().min(1).max(64) }),
  z.strictObject({ kind: z.literal('account'), code: z.string().min(1).max(10) }),
  z.strictObject({ kind: z.literal('event'), seq: z.number().int().min(1) }),
]);

export const FigureSchema = z.strictObject({
  value: z.number().int(),
  unit: z.enum(['cents', 'count', 'days']),
  op: z.enum(['value', 'sum', 'min', 'max', 'count']),
  field: z.string().min(1).max(100).optional(),
});

export const ClaimSchema = z.strictObject({
  text: z.string().min(1).max(1000),
  cites: z.array(CitationSchema).max(200),
  figure: FigureSchema.optional(),
  quote: z.string().min(1).max(1000).optional(),
});

export const DraftSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('answer'), answer: z.string().min(1).max(4000), claims: z.array(ClaimSchema).max(50) }),
  z.strictObject({ kind: z.literal('cannot_answer'), reason: z.string().min(1).max(1000) }),
]);
