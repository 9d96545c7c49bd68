import { z } from 'zod';
import { replayedField } from '../../dedupe.js';
import { method } from '../../contract.js';
import { id, limit, text } from '../../schema.js';
import { Annotation, ANNOTATION_STATUSES, annotationId, clientMsgId, FileSelector, Reply } from '../annotation.js';
import { Pin, Place } from '../file.js';

/**
 * The drive's comment and pin views (docs/families/files.md): files.comments, commentAdd and commentResolve read and
 * write the annotation store (the same rows as annotation.list); files.pin is file.pin for a file. Viewers read
 * comments, commenters comment and resolve.
 */

const fileId = id('fil', 'The file.');
const changed = z.boolean().describe('false when it was already so, or a comment with this clientMsgId exists (the event says noop).');

export const comments = {
  comments: method({
    summary: 'The comment threads on a file, newest first (the same rows annotation.list returns); filter by status.',
    params: z.strictObject({
      fileId,
      status: z.enum(ANNOTATION_STATUSES).describe('Only this status.').optional(),
      cursor: z.string().max(200).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ comments: z.array(Annotation), nextCursor: z.string().nullable() }),
    example: { fileId: 'fil_0123456789abcdef', status: 'open' },
  }),
  commentAdd: method({
    summary:
      'Comment on a file (commenter): a new thread, at a selector if given, or a reply to annotationId (reopens it). A resent clientMsgId returns the first comment.',
    params: z.strictObject({
      fileId,
      body: text({ min: 1, max: 10_000, description: 'The comment.' }),
      selector: FileSelector.optional(),
      annotationId: annotationId('Reply to this thread of the file instead of starting one.').optional(),
      clientMsgId: clientMsgId.optional(),
    }),
    result: z.strictObject({ annotation: Annotation, comment: Reply, changed, replayed: replayedField('clientMsgId') }),
    dedupeBy: 'clientMsgId',
    events: ['files.comment.add'],
    example: { fileId: 'fil_0123456789abcdef', body: 'Typo here.', selector: { type: 'cell', tabId: 'tab_0123456789abcdef', a1: 'B7' } },
  }),
  commentResolve: method({
    summary: 'Resolve a comment thread of a file (resolved:true) or reopen it (false); role commenter. Already so: changed:false.',
    params: z.strictObject({
      fileId,
      annotationId: annotationId('The thread.'),
      resolved: z.boolean().describe('true: resolve; false: reopen.'),
    }),
    result: z.strictObject({ annotation: Annotation, changed }),
    events: ['files.comment.resolve'],
    example: { fileId: 'fil_0123456789abcdef', annotationId: 'ann_0123456789abcdef', resolved: true },
  }),
  pin: method({
    summary: 'Pin a file to a place (default its folder, or org at the root) or unpin it; a folder place needs editor. At most 50 per place.',
    params: z.strictObject({
      fileId,
      pinned: z.boolean().describe('true: pin; false: unpin.'),
      place: Place.optional(),
    }),
    result: z.strictObject({ pin: Pin.nullable().describe('The pin (its last one when unpinned); null if it never was.'), changed }),
    events: ['files.pin.set'],
    example: { fileId: 'fil_0123456789abcdef', pinned: true, place: 'org' },
  }),
};
