import { z } from 'zod';
import { replayedField } from '../dedupe.js';
import { method } from '../contract.js';
import { id, limit, text } from '../schema.js';

/**
 * Annotations (docs/families/files.md): the one store of anchored threads and highlights on anything readable: doc
 * ranges, sheet cells, slide elements, transcript lines, recording times, ledger events (`evt_<seq>`), tasks,
 * messages and other records. A thread is open, resolved or dismissed; a comment reopens it. `files.comment*` and
 * `file.*Comment(s)` are views of the same rows. A target you cannot read does not exist for you (NOT_FOUND).
 */

export const ANNOTATION_KINDS = ['comment', 'highlight', 'flag'] as const;
export const ANNOTATION_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export const ANCHOR_STATUSES = ['anchored', 'orphaned'] as const;
export const SELECTOR_TYPES = ['block', 'cell', 'slide', 'line', 'time'] as const;
/** What a target id names (domain/refs.ts maps its prefix to the family that checks it). */
export const TARGET_TYPES = ['file', 'task', 'workstream', 'event', 'message', 'channel', 'decision', 'team', 'call'] as const;

export const annotationId = (description: string) => id('ann', description);

/** Any readable record: fil_, task_, ws_, evt_<seq>, msg_, ch_, dec_, team_, call_. */
export const TargetRef = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(/^[a-z][a-z0-9]*_[A-Za-z0-9]+$/, 'must be a record id such as fil_…, task_… or evt_42')
  .describe('A record you can read: fil_, task_, ws_, evt_<seq>, msg_, ch_, dec_, team_, call_.');

export const clientMsgId = z
  .string()
  .min(1, 'must be at least 1 character')
  .max(100, 'must be at most 100 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
  .describe('Your id for the comment: resent, the first one returns (changed:false).');

const ms = (description: string) =>
  z.number().int('must be an integer').min(0, 'must be >= 0').max(1_000_000_000, 'must be at most 1000000000').describe(description);
const offset = (description: string) =>
  z.number().int('must be an integer').min(0, 'must be >= 0').max(10_000_000, 'must be at most 10000000').describe(description);

const Quote = z
  .strictObject({
    exact: text({ min: 1, max: 2_000, description: 'The quoted text.' }),
    prefix: text({ max: 200, description: 'Text before it.' }).optional(),
    suffix: text({ max: 200, description: 'Text after it.' }).optional(),
  })
  .describe('TextQuote: the anchor follows it as the doc changes.');

const endAfterStart = (field: 'start' | 'startMs', end: 'end' | 'endMs') => ({ message: `must be >= ${field}`, path: [end] });

export const BlockSelector = z
  .strictObject({
    type: z.literal('block').describe('Doc range.'),
    tabId: id('tab', 'Doc tab.'),
    blockId: id('blk', 'Block.'),
    start: offset("Start in the block's text (UTF-16)."),
    end: offset('End, exclusive.'),
    quote: Quote.optional(),
  })
  .refine((s) => s.end >= s.start, endAfterStart('start', 'end'));

const A1 = /^[A-Z]{1,3}[1-9][0-9]{0,6}(:[A-Z]{1,3}[1-9][0-9]{0,6})?$/;

export const CellSelector = z.strictObject({
  type: z.literal('cell').describe('Sheet cells.'),
  tabId: id('tab', 'Sheet tab.'),
  a1: z
    .string()
    .max(24, 'must be at most 24 characters')
    // Checked by refine, not a schema pattern: the tool listing stays short (the description shows the form).
    .refine((v) => A1.test(v), 'must be an A1 cell or range such as B7 or A1:C3')
    .describe('B7 or A1:C3.'),
});

export const SlideSelector = z.strictObject({
  type: z.literal('slide').describe('Deck slide.'),
  slideId: id('sld', 'Slide.'),
  elementId: z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ or -')
    .describe('An element on it.')
    .optional(),
});

export const LineSelector = z.strictObject({
  type: z.literal('line').describe('Call transcript line.'),
  lineId: id('tl', 'Line.'),
});

export const TimeSelector = z
  .strictObject({
    type: z.literal('time').describe('Recording span (call, audio/video).'),
    startMs: ms('Start ms.'),
    endMs: ms('End ms.'),
  })
  .refine((s) => s.endMs >= s.startMs, endAfterStart('startMs', 'endMs'));

export const Selector = z
  .discriminatedUnion('type', [BlockSelector, CellSelector, SlideSelector, LineSelector, TimeSelector])
  .describe('Where on the target; absent: all of it.');
export type SelectorValue = z.infer<typeof Selector>;

/** The selectors a file takes (files.commentAdd): no transcript lines. */
export const FileSelector = z
  .discriminatedUnion('type', [BlockSelector, CellSelector, SlideSelector, TimeSelector])
  .describe('Where in the file; absent: all of it.');

export const Annotation = z.strictObject({
  id: z.string().describe('ann_…'),
  targetId: z.string(),
  targetType: z.enum(TARGET_TYPES),
  kind: z.enum(ANNOTATION_KINDS),
  selector: Selector.nullable().describe('Where it is anchored now (re-anchored as the doc changes); null: the whole target.'),
  anchorStatus: z.enum(ANCHOR_STATUSES).describe('orphaned: its text is gone from the doc.'),
  status: z.enum(ANNOTATION_STATUSES),
  discussion: z.boolean().describe("The target's unanchored discussion (file.addComment), one per target."),
  body: z.string().nullable().describe('The opening comment; null for a bare highlight or flag.'),
  commentCount: z.number().int().describe('Comments in the thread, the opening one included.'),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastCommentAt: z.string().nullable(),
  resolvedBy: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  dismissedBy: z.string().nullable(),
  dismissedAt: z.string().nullable(),
});

export const Reply = z.strictObject({
  id: z.string().describe('rpl_…'),
  annotationId: z.string(),
  seq: z.number().int().describe('1-based position in the thread.'),
  author: z.string(),
  body: z.string(),
  clientMsgId: z.string().nullable(),
  createdAt: z.string(),
});

const changed = z.boolean().describe('false when it was already so, or a comment with this clientMsgId exists (the event says noop).');
const ann = annotationId('The thread.');
const body = (description: string) => text({ min: 1, max: 10_000, description });
const cursorField = z.string().max(200).describe('The nextCursor of the previous page.').optional();

export const annotation = {
  create: method({
    summary:
      'Start a thread on a record: a comment (with body), highlight or flag, on all of it or at a selector of its kind (doc range, sheet cell, slide, call line or time). Files: role commenter.',
    params: z.strictObject({
      targetId: TargetRef,
      kind: z.enum(ANNOTATION_KINDS).describe('comment, highlight or flag.'),
      selector: Selector.optional(),
      body: body('The opening comment (required for kind comment).').optional(),
      clientMsgId: clientMsgId.optional(),
    }),
    result: z.strictObject({ annotation: Annotation, changed, replayed: replayedField('clientMsgId') }),
    dedupeBy: 'clientMsgId',
    events: ['annotation.thread.create'],
    example: {
      targetId: 'fil_0123456789abcdef',
      kind: 'comment',
      selector: { type: 'block', tabId: 'tab_0123456789abcdef', blockId: 'blk_0123456789abcdef', start: 0, end: 5, quote: { exact: 'Hello' } },
      body: 'Is this right?',
    },
  }),
  comment: method({
    summary: 'Add a comment to a thread; a resolved or dismissed thread reopens. The same clientMsgId again returns the first comment (changed:false).',
    params: z.strictObject({ annotationId: ann, body: body('The comment.'), clientMsgId: clientMsgId.optional() }),
    result: z.strictObject({ annotation: Annotation, comment: Reply, changed, replayed: replayedField('clientMsgId') }),
    dedupeBy: 'clientMsgId',
    events: ['annotation.comment.add'],
    example: { annotationId: 'ann_0123456789abcdef', body: 'Fixed in the next revision.', clientMsgId: 'c-1' },
  }),
  resolve: method({
    summary: 'Resolve an open thread, or reopen a resolved or dismissed one (reopen:true). Already so: changed:false.',
    params: z.strictObject({
      annotationId: ann,
      reopen: z.boolean().default(false).describe('true: reopen it instead.'),
    }),
    result: z.strictObject({ annotation: Annotation, changed }),
    events: ['annotation.thread.resolve'],
    example: { annotationId: 'ann_0123456789abcdef' },
  }),
  dismiss: method({
    summary: 'Dismiss a thread (not worth acting on): by its author or an editor of the target. Already dismissed: changed:false; a comment reopens it.',
    params: z.strictObject({ annotationId: ann }),
    result: z.strictObject({ annotation: Annotation, changed }),
    events: ['annotation.thread.dismiss'],
    example: { annotationId: 'ann_0123456789abcdef' },
  }),
  getThread: method({
    summary: 'A thread with its anchor and its comments in order (paged).',
    params: z.strictObject({ annotationId: ann, cursor: cursorField, limit: limit(500, 100) }),
    result: z.strictObject({ annotation: Annotation, comments: z.array(Reply), nextCursor: z.string().nullable() }),
    example: { annotationId: 'ann_0123456789abcdef' },
  }),
  list: method({
    summary: 'Threads newest first, on one target or on everything you can read; filter by kind, status, anchorStatus.',
    params: z.strictObject({
      targetId: TargetRef.optional(),
      kind: z.enum(ANNOTATION_KINDS).describe('Only this kind.').optional(),
      status: z.enum(ANNOTATION_STATUSES).describe('Only this status.').optional(),
      anchorStatus: z.enum(ANCHOR_STATUSES).describe('Only anchored or only orphaned threads.').optional(),
      cursor: cursorField,
      limit: limit(500, 100),
    }),
    result: z.strictObject({ annotations: z.array(Annotation), nextCursor: z.string().nullable() }),
    example: { targetId: 'task_0123456789abcdef', status: 'open' },
  }),
};
