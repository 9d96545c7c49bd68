import { z } from 'zod';
import { replayedField } from '../dedupe.js';
import { method } from '../contract.js';
import { id, limit, text } from '../schema.js';
import { clientMsgId, Reply, TargetRef, TARGET_TYPES } from './annotation.js';

/**
 * file.* (docs/families/files.md, Comments, annotations and pins): pins of any readable record to a place (the org
 * home, a team, a board workstream, a folder), at most 50 per place, and the unanchored discussion on any record (one
 * thread per target, kept by annotation.*). Channels keep messaging's bookmarks. A pin or comment whose target you
 * cannot read does not exist for you.
 */

export const MAX_PINS_PER_PLACE = 50;
export const PLACE_TYPES = ['org', 'team', 'workstream', 'folder'] as const;

export const Place = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(/^(org|team_[A-Za-z0-9]+|ws_[A-Za-z0-9]+|fil_[A-Za-z0-9]+)$/, 'must be org, a team_…, a ws_… workstream or a fil_… folder')
  .describe('org (home), team_…, ws_… (workstream) or a fil_… folder.');

export const Pin = z.strictObject({
  id: z.string().describe('pin_…'),
  place: z.string(),
  placeType: z.enum(PLACE_TYPES),
  targetId: z.string(),
  targetType: z.enum(TARGET_TYPES),
  pinnedBy: z.string(),
  pinnedAt: z.string(),
  removedBy: z.string().nullable(),
  removedAt: z.string().nullable().describe('Set once unpinned.'),
});

const changed = z.boolean().describe('false when it was already so, or a comment with this clientMsgId exists (the event says noop).');

export const file = {
  addComment: method({
    summary: 'Comment on a record you can read: its discussion, one thread per record (files: commenter). A resent clientMsgId returns the first comment.',
    params: z.strictObject({
      targetId: TargetRef,
      body: text({ min: 1, max: 10_000, description: 'The comment.' }),
      clientMsgId: clientMsgId.optional(),
    }),
    result: z.strictObject({
      annotationId: z.string().describe('The discussion thread (ann_…).'),
      comment: Reply,
      changed,
      replayed: replayedField('clientMsgId'),
    }),
    dedupeBy: 'clientMsgId',
    events: ['file.comment.add'],
    example: { targetId: 'task_0123456789abcdef', body: 'Blocked on the vendor reply.', clientMsgId: 'c-1' },
  }),
  listComments: method({
    summary: 'The unanchored discussion on a record, oldest first (paged); anchored threads are in annotation.list.',
    params: z.strictObject({
      targetId: TargetRef,
      cursor: z.string().max(200).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({
      annotationId: z.string().nullable().describe('The discussion thread; null until the first comment.'),
      comments: z.array(Reply),
      nextCursor: z.string().nullable(),
    }),
    example: { targetId: 'task_0123456789abcdef' },
  }),
  pin: method({
    summary: `Pin a record you can read to a place (a folder: its editors). At most ${MAX_PINS_PER_PLACE} per place; pinned already: changed:false.`,
    params: z.strictObject({ targetId: TargetRef, place: Place }),
    result: z.strictObject({ pin: Pin, changed }),
    events: ['file.pin.add'],
    example: { targetId: 'fil_0123456789abcdef', place: 'org' },
  }),
  unpin: method({
    summary: 'Remove a pin (anyone who may pin at its place). Removed already: changed:false.',
    params: z.strictObject({ pinId: id('pin', 'The pin.') }),
    result: z.strictObject({ pin: Pin, changed }),
    events: ['file.pin.remove'],
    example: { pinId: 'pin_0123456789abcdef' },
  }),
  listPinned: method({
    summary: `What is pinned at a place, newest first (at most ${MAX_PINS_PER_PLACE}); pins of records you cannot read are left out.`,
    params: z.strictObject({ place: Place }),
    result: z.strictObject({ pins: z.array(Pin) }),
    example: { place: 'org' },
  }),
};
