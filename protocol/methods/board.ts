import { z } from 'zod';
import { method } from '../contract.js';
import { cursor, id, limit, proofFields, text } from '../schema.js';

/*
 * The board: items (tasks, bugs, notes, milestones) that move through columns, grouped into workstreams.
 * Objects carry their own id as `id`; references to other rows are `<kind>Id` (taskId, workstreamId, ...).
 * Every board item has a task_ id, whatever its type, so every item method takes `taskId`.
 */

export const COLUMNS = ['triage', 'todo', 'doing', 'blocked', 'done'] as const;
/** The columns board.moveTask may move into: `blocked` is entered by board.block, `done` by board.complete. */
export const MOVABLE_COLUMNS = ['triage', 'todo', 'doing'] as const;
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const ITEM_TYPES = ['task', 'bug', 'note', 'milestone'] as const;
/** Item types that are work: they can be claimed and are listed by /board.ready. */
export const WORK_TYPES = ['task', 'bug'] as const;
export const RELATIONS = ['blocks', 'relates', 'duplicates'] as const;

export const DEFAULT_LEASE_SECONDS = 900;
export const MAX_LEASE_SECONDS = 86_400;

export const taskId = (description = 'The board item (task_…).') => id('task', description);
export const workstreamId = (description = 'The workstream (ws_…).') => id('ws', description);
export const attachmentId = (description = 'The attachment (att_…).') => id('att', description);

export const principalId = (description: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a principal id usr_… or agt_…')
    .describe(description);

const title = (description = 'Short title, 1 to 200 characters.') => text({ min: 1, max: 200, description });
const description = (what: string) => text({ max: 10_000, description: `${what}; empty string clears it.` });
const priority = z.enum(PRIORITIES).describe('low, normal, high or urgent (default normal).');
const leaseSeconds = z
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .min(10, 'must be >= 10')
  .max(MAX_LEASE_SECONDS, `must be at most ${MAX_LEASE_SECONDS}`)
  .default(DEFAULT_LEASE_SECONDS)
  .describe(`How long the claim lasts without a heartbeat, 10 to ${MAX_LEASE_SECONDS} seconds (default ${DEFAULT_LEASE_SECONDS}).`);
const position = z
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .min(0, 'must be >= 0')
  .max(1_000_000, 'must be at most 1000000')
  .describe('0-based index to move to; past the end means last.');

const atLeastOne = (fields: readonly string[]) => (p: Record<string, unknown>) => fields.some((f) => p[f] !== undefined);
const atLeastOneMessage = (fields: readonly string[]) => ({ message: `give at least one of ${fields.join(', ')}` });

// ---- result shapes ------------------------------------------------------------------------------

export const Task = z.strictObject({
  id: z.string().describe('task_… (every board item, whatever its type).'),
  type: z.enum(ITEM_TYPES).describe('task, bug, note or milestone.'),
  title: z.string(),
  description: z.string(),
  priority: z.enum(PRIORITIES),
  col: z.enum(COLUMNS).describe('triage (new), todo, doing, blocked or done.'),
  workstreamId: z.string().nullable(),
  parentId: z.string().nullable().describe('The item this one was decomposed from.'),
  assignee: z.string().nullable().describe('Principal (usr_…/agt_…) responsible for the item.'),
  claimedBy: z.string().nullable().describe('Principal holding a live claim; null when unclaimed or the lease lapsed.'),
  claimExpiresAt: z.string().nullable().describe('When the live claim lapses without a heartbeat.'),
  blockedReason: z.string().nullable().describe('Why the item is blocked (col blocked only).'),
  position: z.number().int().describe('Sort key within its column: lower first (gaps are normal).'),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable(),
});
export type Task = z.infer<typeof Task>;

export const Workstream = z.strictObject({
  id: z.string().describe('ws_…'),
  name: z.string(),
  description: z.string(),
  owner: z.string().nullable().describe('Principal holding the decision right over this workstream (board.assign).'),
  position: z.number().int().describe('Sort key among workstreams: lower first.'),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Workstream = z.infer<typeof Workstream>;

export const Comment = z.strictObject({
  id: z.string().describe('cmt_…'),
  taskId: z.string().nullable().describe('The item commented on, or null for a workstream comment.'),
  workstreamId: z.string().nullable().describe('The workstream commented on, or null for an item comment.'),
  body: z.string(),
  author: z.string(),
  createdAt: z.string(),
});
export type Comment = z.infer<typeof Comment>;

export const Attachment = z.strictObject({
  id: z.string().describe('att_…'),
  taskId: z.string(),
  name: z.string(),
  url: z.string(),
  mimeType: z.string().nullable(),
  sizeBytes: z.number().int().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Attachment = z.infer<typeof Attachment>;

export const Link = z.strictObject({
  id: z.string().describe('lnk_…'),
  fromTaskId: z.string(),
  toTaskId: z.string(),
  relation: z.enum(RELATIONS).describe('blocks (from must be done before to is ready), relates or duplicates (from duplicates to).'),
  createdBy: z.string(),
  createdAt: z.string(),
});
export type Link = z.infer<typeof Link>;

const page = <T extends z.ZodType>(key: string, item: T) =>
  z.strictObject({
    [key]: z.array(item),
    nextCursor: z.number().int().nullable().describe('Pass as cursor for the next page; null on the last page.'),
  });

// ---- params shared by several methods -----------------------------------------------------------

const TaskFields = {
  title: title(),
  priority: priority.default('normal'),
  description: text({ max: 10_000, description: 'Longer description (default empty).' }).default(''),
  workstreamId: workstreamId('Workstream to file it under (default none).').optional(),
};

const pageParams = (what: string) => z.strictObject({ taskId: taskId(`The item whose ${what} to list.`), cursor, limit: limit(100, 50) });

const Body = text({ min: 1, max: 10_000, description: 'The comment text, 1 to 10000 characters.' });

const UPDATE_TASK_FIELDS = ['title', 'description', 'priority', 'workstreamId'] as const;
const UPDATE_WS_FIELDS = ['name', 'description'] as const;
const UPDATE_ATT_FIELDS = ['name', 'url', 'mimeType', 'sizeBytes'] as const;

const url = z
  .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
  .max(2048, 'must be at most 2048 characters')
  .describe('Where the file lives (http or https). Never recorded in the ledger.');
const mimeType = z
  .string()
  .max(127, 'must be at most 127 characters')
  .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as application/pdf')
  .describe('MIME type, e.g. application/pdf.');
const sizeBytes = z.number().int('must be an integer').min(0, 'must be >= 0').max(1e13).describe('Size in bytes.');

export const board = {
  create: method({
    summary: 'Create a board item of any type (task, bug, note, milestone) in triage or todo. The general form of board.createTask.',
    params: z.strictObject({
      type: z.enum(ITEM_TYPES).describe('task, bug, note or milestone. Only task and bug items can be claimed.'),
      ...TaskFields,
      col: z.enum(['triage', 'todo']).describe('Starting column: triage (default) or todo.').default('triage'),
      parentId: taskId('Parent item, for an item that is part of a larger one (default none).').optional(),
      assignee: principalId('Principal of this org responsible for it (default none).').optional(),
    }),
    result: Task,
    events: ['item.created'],
    example: { type: 'bug', title: 'Invoice PDF renders blank', priority: 'high', col: 'todo' },
  }),
  createTask: method({
    summary: 'Create a task. It lands in column triage.',
    params: z.strictObject(TaskFields),
    result: Task,
    events: ['item.created'],
    example: { title: 'Reconcile March bank feed', priority: 'high' },
  }),
  updateTask: method({
    summary: 'Change an item’s title, description, priority or workstream. Columns change through moveTask, claim, block and complete.',
    params: z
      .strictObject({
        taskId: taskId(),
        title: title().optional(),
        description: description('New description').optional(),
        priority: priority.optional(),
        workstreamId: workstreamId('Move it to this workstream; null takes it out of any.').nullable().optional(),
      })
      .refine(atLeastOne(UPDATE_TASK_FIELDS), atLeastOneMessage(UPDATE_TASK_FIELDS)),
    result: Task,
    events: ['item.updated'],
    example: { taskId: 'task_0123456789abcdef', priority: 'urgent' },
  }),
  moveTask: method({
    summary:
      'Move an item to another column (triage, todo or doing) and/or to a position within it. Moving out of blocked clears the reason, out of done reopens it; moving to triage or todo releases any claim.',
    params: z
      .strictObject({
        taskId: taskId(),
        col: z.enum(MOVABLE_COLUMNS).describe('Target column: triage, todo or doing (block and complete enter blocked and done).').optional(),
        position: position.optional(),
      })
      .refine(atLeastOne(['col', 'position']), atLeastOneMessage(['col', 'position'])),
    result: Task,
    events: ['item.moved'],
    example: { taskId: 'task_0123456789abcdef', col: 'todo', position: 0 },
  }),
  assignTask: method({
    summary: 'Make a principal of this org responsible for an item, or unassign it with null. Assigning does not claim.',
    params: z.strictObject({
      taskId: taskId(),
      assignee: principalId('Principal (usr_… or agt_…) of this org; null to unassign.').nullable(),
    }),
    result: Task,
    events: ['item.assigned'],
    example: { taskId: 'task_0123456789abcdef', assignee: 'agt_0123456789abcdef' },
  }),
  decompose: method({
    summary: 'Split an item into child tasks (1 to 50 titles). Children start in triage with the parent’s workstream and priority. Governance-gated.',
    params: z.strictObject({
      taskId: taskId('The item to split (not done).'),
      titles: z
        .array(title('Title of one child task.'))
        .min(1, 'must have at least 1 title')
        .max(50, 'must have at most 50 titles')
        .describe('Titles of the child tasks, in order.'),
    }),
    result: z.strictObject({ task: Task.describe('The parent.'), children: z.array(Task).describe('The new children, in order.') }),
    events: ['item.decomposed'],
    example: { taskId: 'task_0123456789abcdef', titles: ['Collect statements', 'Match receipts', 'Post adjustments'] },
  }),

  claim: method({
    summary:
      'Claim a task or bug to work on it, for a lease (default 900 s) kept alive by board.heartbeat. It moves to doing. An item already claimed (live lease), done, blocked or blocked by an open item answers CONFLICT; of racing claims exactly one wins.',
    params: z.strictObject({ taskId: taskId('The task or bug to claim.'), leaseSeconds }),
    result: Task,
    events: ['item.claimed'],
    example: { taskId: 'task_0123456789abcdef', leaseSeconds: 900 },
  }),
  heartbeat: method({
    summary: 'Extend your live claim by a fresh lease. Only the claimer may heartbeat: anyone else, or a lapsed claim, answers CONFLICT.',
    params: z.strictObject({ taskId: taskId('The item you hold the claim on.'), leaseSeconds }),
    result: Task,
    events: ['item.heartbeat'],
    example: { taskId: 'task_0123456789abcdef' },
  }),
  block: method({
    summary:
      'Move an item to blocked with a reason and release its claim. Allowed to the claimer or on an unclaimed item; someone else’s live claim answers CONFLICT. board.moveTask unblocks.',
    params: z.strictObject({
      taskId: taskId(),
      reason: text({ min: 1, max: 1000, description: 'Why it is blocked, 1 to 1000 characters (the ledger records only its length).' }),
    }),
    result: Task,
    events: ['item.blocked'],
    example: { taskId: 'task_0123456789abcdef', reason: 'Waiting for the bank to resend the March statement' },
  }),
  complete: method({
    summary:
      'Mark an item done and release its claim. Allowed to the claimer or on an unclaimed item; someone else’s live claim, an item already done or open child items answer CONFLICT.',
    params: z.strictObject({ taskId: taskId() }),
    result: Task,
    events: ['item.completed'],
    example: { taskId: 'task_0123456789abcdef' },
  }),

  link: method({
    summary: 'Link two items: fromTaskId blocks, relates to, or duplicates toTaskId. A duplicate link or a cycle of blocks answers CONFLICT.',
    params: z
      .strictObject({
        fromTaskId: taskId('The item the relation starts from (the blocker, for blocks).'),
        toTaskId: taskId('The item the relation points to (the blocked one, for blocks).'),
        relation: z.enum(RELATIONS).describe('blocks: toTaskId is not ready until fromTaskId is done. relates. duplicates: fromTaskId duplicates toTaskId.'),
      })
      .refine((p) => p.fromTaskId !== p.toTaskId, { message: 'must differ from fromTaskId', path: ['toTaskId'] }),
    result: Link,
    events: ['item.linked'],
    example: { fromTaskId: 'task_0123456789abcdef', toTaskId: 'task_fedcba9876543210', relation: 'blocks' },
  }),

  comment: method({
    summary: 'Comment on a board item (taskId) or a workstream (workstreamId): give exactly one.',
    params: z
      .strictObject({
        taskId: taskId('The item to comment on.').optional(),
        workstreamId: workstreamId('The workstream to comment on.').optional(),
        body: Body,
      })
      .refine((p) => (p.taskId === undefined) !== (p.workstreamId === undefined), {
        message: 'give exactly one of taskId and workstreamId',
        path: ['taskId'],
      }),
    result: Comment,
    events: ['item.commented', 'workstream.commented'],
    example: { workstreamId: 'ws_0123456789abcdef', body: 'Scope for Q3 agreed with finance.' },
  }),
  addTaskComment: method({
    summary: 'Comment on a board item. The ledger records the comment’s length, never its text.',
    params: z.strictObject({ taskId: taskId('The item to comment on.'), body: Body }),
    result: Comment,
    events: ['item.commented'],
    example: { taskId: 'task_0123456789abcdef', body: 'Statements requested from the bank.' },
  }),
  taskComments: method({
    summary: 'A page of an item’s comments, oldest first.',
    params: pageParams('comments'),
    result: page('comments', Comment),
    example: { taskId: 'task_0123456789abcdef', cursor: 0, limit: 50 },
  }),

  addTaskAttachment: method({
    summary: 'Attach a file reference (a URL) to a board item. The URL is stored, never written to the ledger.',
    params: z.strictObject({
      taskId: taskId('The item to attach to.'),
      name: text({ min: 1, max: 255, description: 'File name shown to people, 1 to 255 characters.' }),
      url,
      mimeType: mimeType.optional(),
      sizeBytes: sizeBytes.optional(),
    }),
    result: Attachment,
    events: ['item.attachment.added'],
    example: {
      taskId: 'task_0123456789abcdef',
      name: 'march-statement.pdf',
      url: 'https://files.example.com/f/123',
      mimeType: 'application/pdf',
      sizeBytes: 48213,
    },
  }),
  updateTaskAttachment: method({
    summary: 'Rename an attachment or change its URL, MIME type or size.',
    params: z
      .strictObject({
        attachmentId: attachmentId(),
        name: text({ min: 1, max: 255, description: 'New file name.' }).optional(),
        url: url.optional(),
        mimeType: mimeType.nullable().describe('New MIME type; null clears it.').optional(),
        sizeBytes: sizeBytes.nullable().describe('New size in bytes; null clears it.').optional(),
      })
      .refine(atLeastOne(UPDATE_ATT_FIELDS), atLeastOneMessage(UPDATE_ATT_FIELDS)),
    result: Attachment,
    events: ['item.attachment.updated'],
    example: { attachmentId: 'att_0123456789abcdef', name: 'march-statement-v2.pdf' },
  }),
  removeTaskAttachment: method({
    hold: { completion: 'retry', when: 'an agent calls it' },
    summary:
      'Remove an attachment from its item. From an agent it is a signature act (retry mode): without approvalId or signatureToken it answers a hold frame (board.remove_task_attachment).',
    params: z.strictObject({ attachmentId: attachmentId(), ...proofFields }),
    result: z.strictObject({ attachmentId: z.string(), taskId: z.string(), removed: z.literal(true) }),
    events: ['item.attachment.removed'],
    example: { attachmentId: 'att_0123456789abcdef' },
  }),
  taskAttachments: method({
    summary: 'A page of an item’s attachments, oldest first.',
    params: pageParams('attachments'),
    result: page('attachments', Attachment),
    example: { taskId: 'task_0123456789abcdef', limit: 20 },
  }),

  createWorkstream: method({
    summary: 'Create a workstream: a named group of board items. It is placed last.',
    params: z.strictObject({
      name: text({ min: 1, max: 200, description: 'Name, 1 to 200 characters.' }),
      description: text({ max: 2000, description: 'What the workstream covers (default empty).' }).default(''),
    }),
    result: Workstream,
    events: ['workstream.created'],
    example: { name: 'Month-end close', description: 'Everything needed to close the books each month.' },
  }),
  updateWorkstream: method({
    summary: 'Rename a workstream or change its description.',
    params: z
      .strictObject({
        workstreamId: workstreamId(),
        name: text({ min: 1, max: 200, description: 'New name.' }).optional(),
        description: text({ max: 2000, description: 'New description; empty string clears it.' }).optional(),
      })
      .refine(atLeastOne(UPDATE_WS_FIELDS), atLeastOneMessage(UPDATE_WS_FIELDS)),
    result: Workstream,
    events: ['workstream.updated'],
    example: { workstreamId: 'ws_0123456789abcdef', name: 'Month-end close (AU)' },
  }),
  moveWorkstream: method({
    summary: 'Reorder a workstream among the org’s workstreams.',
    params: z.strictObject({ workstreamId: workstreamId(), position: position.describe('0-based index among workstreams; past the end means last.') }),
    result: Workstream,
    events: ['workstream.moved'],
    example: { workstreamId: 'ws_0123456789abcdef', position: 0 },
  }),
  deleteWorkstream: method({
    hold: { completion: 'release', when: "an agent calls it (the workstream's human owner decides)" },
    summary:
      'Delete a workstream and its comments. While it holds open (not done) items it answers CONFLICT unless moveTasksTo names a workstream to move all its items to; otherwise its done items are left without a workstream. From an agent it holds in release mode: the server files the approval, and a human’s approve (its owner’s, when a human owns it) deletes it, possibly with moveTasksTo amended; do not retry, wait.',
    params: z.strictObject({
      workstreamId: workstreamId('The workstream to delete.'),
      moveTasksTo: workstreamId('Move every item of the deleted workstream here (another workstream).').optional(),
    }),
    result: z.strictObject({
      workstreamId: z.string(),
      deleted: z.literal(true),
      movedTasks: z.number().int().describe('Items moved to moveTasksTo.'),
      detachedTasks: z.number().int().describe('Done items left without a workstream.'),
    }),
    events: ['workstream.deleted'],
    example: { workstreamId: 'ws_0123456789abcdef', moveTasksTo: 'ws_fedcba9876543210' },
  }),
  assign: method({
    summary: 'Give a principal of this org ownership of a workstream (the decision right over it), or clear it with null. Governance-gated.',
    params: z.strictObject({
      workstreamId: workstreamId(),
      owner: principalId('Principal (usr_… or agt_…) of this org to own it; null clears ownership.').nullable(),
    }),
    result: Workstream,
    events: ['workstream.assigned'],
    example: { workstreamId: 'ws_0123456789abcdef', owner: 'usr_0123456789abcdef' },
  }),
};
