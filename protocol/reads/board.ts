import { z } from 'zod';
import { read } from '../contract.js';
import { limit } from '../schema.js';
import { Attachment, COLUMNS, Comment, RELATIONS, Task, WORK_TYPES, Workstream, taskId, workstreamId } from '../methods/board.js';
import { Handoff } from '../methods/handoff.js';

/** How many of an item's comments and attachments /board.context inlines; page the rest with the R methods. */
export const CONTEXT_COMMENTS = 50;
export const CONTEXT_ATTACHMENTS = 100;

const ContextLink = z.strictObject({
  id: z.string().describe('lnk_…'),
  relation: z.enum(RELATIONS),
  direction: z.enum(['outgoing', 'incoming']).describe('outgoing: this item is the link’s from side (e.g. it blocks the other); incoming: the other item is.'),
  taskId: z.string().describe('The other item.'),
  title: z.string().describe('The other item’s title.'),
  col: z.enum(COLUMNS).describe('The other item’s column.'),
  createdAt: z.string(),
});

export const boardReadContracts = {
  'board.context': read({
    summary:
      'Everything needed to work on one item: the item, its workstream, parent, children, links, its latest 50 comments and first 100 attachments (with totals; page further with board.taskComments and board.taskAttachments), and a pending handoff offer of it.',
    query: z.strictObject({ taskId: taskId('The item to load.') }),
    result: z.strictObject({
      task: Task,
      workstream: Workstream.nullable(),
      parent: Task.nullable(),
      children: z.array(Task).describe('Items decomposed from this one, by position.'),
      links: z.array(ContextLink).describe('Links from and to this item, oldest first.'),
      comments: z.array(Comment).describe(`The latest ${CONTEXT_COMMENTS} comments, oldest first.`),
      commentCount: z.number().int(),
      attachments: z.array(Attachment).describe(`The first ${CONTEXT_ATTACHMENTS} attachments, oldest first.`),
      attachmentCount: z.number().int(),
      openBlockers: z.array(z.string()).describe('Items that block this one and are not done yet.'),
      pendingHandoff: Handoff.nullable().describe(
        'An open offer to hand this item to someone (handoff.offer), until accepted, declined, cancelled or expired.',
      ),
    }),
    example: { taskId: 'task_0123456789abcdef' },
  }),
  'board.ready': read({
    summary:
      'Work that can be claimed now: task and bug items not done or blocked, unclaimed or with a lapsed claim, and not blocked by an open item; highest priority first, then oldest.',
    query: z.strictObject({
      workstreamId: workstreamId('Only items of this workstream.').optional(),
      type: z.enum(WORK_TYPES).describe('Only this type (task or bug); default both.').optional(),
      limit: limit(100, 20),
    }),
    result: z.strictObject({ tasks: z.array(Task) }),
    example: { workstreamId: 'ws_0123456789abcdef', limit: 10 },
  }),
};
